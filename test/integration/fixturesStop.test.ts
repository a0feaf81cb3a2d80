// `npm run fixtures &` … `kill $!`, as the docs start the fixture app beside the service: the pid a
// shell holds is npm's. SIGTERM to npm must stop the fixture app and free its port; SIGKILL to npm
// (nothing forwarded) must leave a fixture app that notices its parent is gone and stops too.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cmdline } from '../../bench/lib/proc.js';
import { freePort } from '../helpers/ports.js';
import { descendants, processes } from '../helpers/procfs.js';
import { waitFor } from '../helpers/testService.js';

/** Up to the "fixture app on" line: tsx compiles the fixture app's modules on the way. */
const READY_TIMEOUT_MS = 60_000;
/** From the signal to nothing left: the close, or PARENT_POLL_MS plus it. */
const GONE_TIMEOUT_MS = 30_000;
const CASE_TIMEOUT_MS = READY_TIMEOUT_MS + GONE_TIMEOUT_MS + 10_000;

const started: number[] = [];

afterEach(() => {
  // Only what this file started: npm and the fixture app found below it.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, which is what the tests wanted.
    }
  }
});

/** True when the port can be bound again on loopback (the fixture app let it go). */
async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const alive = (pid: number): boolean => processes().some((p) => p.pid === pid);

async function npmRunFixtures(): Promise<{
  npm: ChildProcess;
  port: number;
  app: number;
  output: () => string;
}> {
  const port = await freePort();
  const npm = spawn('npm', ['run', 'fixtures'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', FIXTURE_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const npmPid = npm.pid ?? -1;
  started.push(npmPid);
  let out = '';
  npm.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  npm.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(async () => out.includes('fixture app on'), READY_TIMEOUT_MS, 'the fixture app to start');
  const below = descendants(npmPid);
  // The whole tree below npm is this test's to clean up, whatever shape the script gives it.
  started.push(...below.map((p) => p.pid));
  const app = below.find((p) => cmdline(p.pid).join(' ').includes('test/fixtures/serve.ts'));
  if (app === undefined) throw new Error(`no fixture app below npm:\n${out}`);
  return { npm, port, app: app.pid, output: () => out };
}

describe('npm run fixtures, stopped the way a shell stops a background job', () => {
  it(
    'SIGTERM to npm stops the fixture app and frees its port',
    async () => {
      const run = await npmRunFixtures();
      expect(await portFree(run.port)).toBe(false);
      run.npm.kill('SIGTERM');
      await waitFor(
        () => !alive(run.app),
        GONE_TIMEOUT_MS,
        () => `the fixture app to exit:\n${run.output()}`,
      );
      await waitFor(() => portFree(run.port), GONE_TIMEOUT_MS, 'the port to be free');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'SIGKILL to npm: the fixture app sees its parent gone and stops by itself',
    async () => {
      const run = await npmRunFixtures();
      run.npm.kill('SIGKILL');
      await waitFor(() => !alive(run.app), GONE_TIMEOUT_MS, 'the orphaned fixture app to exit');
      await waitFor(() => portFree(run.port), GONE_TIMEOUT_MS, 'the port to be free');
    },
    CASE_TIMEOUT_MS,
  );
});
