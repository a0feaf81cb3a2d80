import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/helpers/summaryReporter.ts'],
    // Integration suites each start a real service and a real Chromium: run files one at a time on
    // these 2-core machines so browser start-up does not starve the other suites' timeouts.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
