import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { MemoryWatchdog, highWaterBytes } from '../../src/observability/memoryWatchdog.js';

const quiet = createLogger(
  'info',
  new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  }),
);

describe('MemoryWatchdog', () => {
  it('is overloaded past the high water and clears only well under it', () => {
    let used = 50;
    const watchdog = new MemoryWatchdog(100, quiet, () => ({ used }));
    watchdog.check();
    expect(watchdog.overloaded).toBe(false);
    used = 101;
    watchdog.check();
    expect(watchdog.overloaded).toBe(true);
    used = 95; // under the line but not under the low water: no flapping
    watchdog.check();
    expect(watchdog.overloaded).toBe(true);
    used = 80;
    watchdog.check();
    expect(watchdog.overloaded).toBe(false);
  });

  it('takes MEMORY_HIGH_WATER_MB, or a share of the heap limit when it is 0', () => {
    expect(highWaterBytes(64)).toBe(64 * 1024 * 1024);
    const derived = highWaterBytes(0);
    expect(derived).toBeGreaterThan(64 * 1024 * 1024);
  });
});
