// A bounded version of `npm run cycles`: create → goto → text → close cycles leave no Chromium
// process, file descriptor or session behind (counted from /proc).
import { expect, it } from 'vitest';
import { waitFor } from '../helpers/testService.js';
import { runCycles, settledSnapshot, snapshot, type LeakSnapshot } from '../stress/leakCheck.js';
import { useServiceSuite } from '../helpers/suite.js';

const CYCLES = 20;
const FD_SLACK = 20;

// The pool stays at POOL_SIZE: its size follows the create rate (up to POOL_MAX_SIZE), and its ready
// contexts are Chromium processes, so a pool grown by the cycles would move the count compared here.
const suite = useServiceSuite({ POOL_MAX_SIZE: '2' });

it(`${CYCLES} create → goto → text → close cycles leave nothing behind`, { timeout: 180_000 }, async () => {
  await runCycles(suite.service, `${suite.fixture.url}/static`, 3);
  const before = await settledSnapshot(suite.service);
  await runCycles(suite.service, `${suite.fixture.url}/static`, CYCLES);
  let after: LeakSnapshot = before;
  await waitFor(
    async () => {
      after = await snapshot(suite.service);
      return after.chromiumProcesses <= before.chromiumProcesses && after.fds <= before.fds + FD_SLACK;
    },
    30_000,
    'processes and descriptors to return to the baseline',
  ).catch(() => undefined);
  expect(after.sessions).toBe(0);
  expect(after.chromiumProcesses).toBeLessThanOrEqual(before.chromiumProcesses);
  expect(after.fds).toBeLessThanOrEqual(before.fds + FD_SLACK);
});
