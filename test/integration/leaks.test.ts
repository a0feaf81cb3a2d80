// A bounded version of `npm run cycles`: create → goto → text → close cycles leave no Chromium
// process, file descriptor or session behind (counted from /proc).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';
import { runCycles, settledSnapshot, snapshot, type LeakSnapshot } from '../stress/leakCheck.js';

const CYCLES = 20;
const FD_SLACK = 20;

let service: TestService;
let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startTestService();
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
});

it(`${CYCLES} create → goto → text → close cycles leave nothing behind`, { timeout: 180_000 }, async () => {
  await runCycles(service, `${fixture.url}/static`, 3);
  const before = await settledSnapshot(service);
  await runCycles(service, `${fixture.url}/static`, CYCLES);
  let after: LeakSnapshot = before;
  await waitFor(
    async () => {
      after = await snapshot(service);
      return after.chromiumProcesses <= before.chromiumProcesses && after.fds <= before.fds + FD_SLACK;
    },
    30_000,
    'processes and descriptors to return to the baseline',
  ).catch(() => undefined);
  expect(after.sessions).toBe(0);
  expect(after.chromiumProcesses).toBeLessThanOrEqual(before.chromiumProcesses);
  expect(after.fds).toBeLessThanOrEqual(before.fds + FD_SLACK);
});
