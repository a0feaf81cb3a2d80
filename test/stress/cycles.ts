// npm run cycles -- --cycles 1000: create → goto → text → close cycles against the real service,
// then reports Chromium processes, file descriptors and sessions before and after (from /proc).
// Exits 1 when anything is left behind.
import { parseArgs } from 'node:util';
import { startFixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, waitFor } from '../helpers/testService.js';
import { runCycles, settledSnapshot, snapshot } from './leakCheck.js';

/** Descriptors the HTTP client may still hold in its keep-alive pool after the run. */
const FD_SLACK = 20;

const { values } = parseArgs({ options: { cycles: { type: 'string', default: '1000' } } });
const cycles = Number(values.cycles);
const fixture = await startFixtureServer();
const service = await startTestService({ LOG_LEVEL: 'warn' });
let leaked = false;
try {
  await runCycles(service, `${fixture.url}/static`, 3);
  const before = await settledSnapshot(service);
  process.stdout.write(`before: ${JSON.stringify(before)}\n`);
  const started = Date.now();
  await runCycles(service, `${fixture.url}/static`, cycles, (done) =>
    process.stdout.write(`${done}/${cycles} cycles (${Math.round((Date.now() - started) / 1000)} s)\n`),
  );
  try {
    await waitFor(
      async () => {
        const now = await snapshot(service);
        return (
          now.chromiumProcesses <= before.chromiumProcesses &&
          now.fds <= before.fds + FD_SLACK &&
          now.sessions === 0
        );
      },
      30_000,
      'processes and descriptors to return to the baseline',
    );
  } catch {
    leaked = true;
  }
  const after = await snapshot(service);
  process.stdout.write(
    `after:  ${JSON.stringify(after)}\n${leaked ? 'LEAK: something was left behind' : 'no leak'}\n`,
  );
} finally {
  await service.close();
  await fixture.close();
}
process.exit(leaked ? 1 : 0);
