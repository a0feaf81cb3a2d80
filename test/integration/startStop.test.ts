// `npm start` as a CI script runs it (`npm start &` … `kill $!`): the pid a script holds is npm's.
// SIGTERM to npm must stop the service and its Chromium and free the port; SIGKILL to npm (no
// chance to forward anything) must leave a service that notices its parent is gone and stops too.
// `serve --restart` and `stop` replace or stop the service a record names, and signal nothing else.
// And the package as a user installs it: `npm pack`, installed offline in an empty directory, then
// `npx playwright-jsonrpc mcp` there. One file, so the builds of npm start and of npm pack (both
// `tsc -b` into dist/) never run at once.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cmdline } from '../../bench/lib/proc.js';
import { lookAtProcess } from '../../src/cli/processIdentity.js';
import { readServiceRecord, STATE_DIR_ENV, writeServiceRecord } from '../../src/cli/serviceRecord.js';
import { descendants, processes } from '../helpers/procfs.js';
import { waitFor } from '../helpers/testService.js';
import { freePort } from '../helpers/ports.js';
import { mcpStdioScenario } from '../helpers/stdioMcp.js';
import { startFixtureServer } from '../fixtures/fixtureServer.js';

/** Up to ready: npm start may run a full tsc build first (a fresh clone has no dist/). */
const READY_TIMEOUT_MS = 240_000;
/** From the signal to nothing left: the graceful shutdown, or PARENT_POLL_MS plus it. */
const GONE_TIMEOUT_MS = 60_000;
/** One case: start (with a possible build), then the two bounded waits for the exit. */
const CASE_TIMEOUT_MS = READY_TIMEOUT_MS + 2 * GONE_TIMEOUT_MS + 30_000;

const started: number[] = [];

afterEach(() => {
  // Only what this file started: npm, and the service and browser found below it.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, which is what the tests wanted.
    }
  }
});

const stateDirs: string[] = [];

afterEach(() => {
  for (const dir of stateDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A state directory for the records of the services one test starts, removed after it. */
function tempStateDir(): string {
  const parent = mkdtempSync(join(tmpdir(), 'pw-rpc-state-'));
  stateDirs.push(parent);
  return join(parent, 'state');
}

/** True when the port can be bound again on loopback (the service let it go). */
async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const alive = (pid: number): boolean => processes().some((p) => p.pid === pid);

interface Started {
  npm: ChildProcess;
  port: number;
  output: () => string;
  /** The node process running the service and the Chromium processes below it. */
  service: number;
  tree: number[];
}

async function npmStart(): Promise<Started> {
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      PORT: String(port),
      API_KEY: 'start-stop-key-0123',
      [STATE_DIR_ENV]: tempStateDir(),
      LOG_LEVEL: 'warn',
      ...(process.env.CHROMIUM_PATH === undefined ? {} : { CHROMIUM_PATH: process.env.CHROMIUM_PATH }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const npmPid = npm.pid ?? -1;
  started.push(npmPid);
  let out = '';
  npm.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  npm.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    READY_TIMEOUT_MS,
    'npm start to answer /readyz',
  );
  const below = descendants(npmPid);
  const service = below.find((p) => cmdline(p.pid).join(' ').includes('dist/src/cli/main.js serve'));
  if (service === undefined) throw new Error(`no service process below npm:\n${out}`);
  const tree = [service.pid, ...descendants(service.pid).map((p) => p.pid)];
  started.push(...tree);
  return { npm, port, output: () => out, service: service.pid, tree };
}

describe('npm start, stopped the way CI scripts stop it', () => {
  it(
    'SIGTERM to npm stops the service and its Chromium and frees the port',
    async () => {
      const run = await npmStart();
      expect(run.tree.length).toBeGreaterThan(1);
      expect(descendants(run.service).some((p) => /chrom/i.test(p.comm))).toBe(true);
      expect(await portFree(run.port)).toBe(false);
      run.npm.kill('SIGTERM');
      await waitFor(() => !run.tree.some(alive), GONE_TIMEOUT_MS, 'the service and Chromium to exit');
      await waitFor(() => portFree(run.port), GONE_TIMEOUT_MS, 'the port to be free');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'SIGKILL to npm: the service sees its parent gone and stops by itself',
    async () => {
      const run = await npmStart();
      run.npm.kill('SIGKILL');
      await waitFor(
        () => !run.tree.some(alive),
        GONE_TIMEOUT_MS,
        'the orphaned service and Chromium to exit',
      );
      await waitFor(() => portFree(run.port), GONE_TIMEOUT_MS, 'the port to be free');
    },
    CASE_TIMEOUT_MS,
  );
});

/** The CLI from source through tsx (as cli.test.ts runs it): no build needed. */
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** Up to ready for a serve from source: tsx compiles on the fly, then Chromium starts. */
const SERVE_READY_TIMEOUT_MS = 120_000;
/** One restart case: two starts and the bounded waits for an exit. */
const RESTART_CASE_TIMEOUT_MS = 2 * SERVE_READY_TIMEOUT_MS + 2 * GONE_TIMEOUT_MS;

/**
 * The processes the restart cases start, stopped after each test if still running: through the
 * ChildProcess, which signals nothing once its child has exited (so never a pid reused since).
 */
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // SIGTERM first, so a service closes its Chromium rather than leaving it behind.
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), GONE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}, 2 * GONE_TIMEOUT_MS);

interface Cli {
  child: ChildProcess;
  pid: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs the CLI (with the test's own state directory in `env`); stopped after the test if still running. */
function runCli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [...CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      API_KEY: 'restart-test-key-0123',
      AGENT_SECRET: 'restart-test-agent-secret',
      LOG_LEVEL: 'warn',
      ...(process.env.CHROMIUM_PATH === undefined ? {} : { CHROMIUM_PATH: process.env.CHROMIUM_PATH }),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const pid = child.pid ?? -1;
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, pid, stderr: () => err, exited };
}

async function ready(port: number, run: Cli): Promise<void> {
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    SERVE_READY_TIMEOUT_MS,
    () => `the service on :${port} to answer /readyz; stderr:\n${run.stderr()}`,
  );
}

/** A state directory and a port of the test's own. */
async function restartSetup(): Promise<{ port: number; dir: string; env: Record<string, string> }> {
  const port = await freePort();
  const dir = tempStateDir();
  return { port, dir, env: { PORT: String(port), [STATE_DIR_ENV]: dir } };
}

describe('serve --restart and stop', () => {
  it(
    'serve --restart replaces the running service: the old pid exits, the new one answers and is recorded',
    async () => {
      const { port, dir, env } = await restartSetup();
      const first = runCli(['serve'], env);
      await ready(port, first);
      await waitFor(() => readServiceRecord(dir, port)?.pid === first.pid, GONE_TIMEOUT_MS, 'the record');

      const second = runCli(['serve', '--restart'], env);
      await waitFor(() => !alive(first.pid), GONE_TIMEOUT_MS, 'the first service to exit');
      expect(await first.exited).toBe(0);
      await waitFor(
        () => readServiceRecord(dir, port)?.pid === second.pid,
        SERVE_READY_TIMEOUT_MS,
        () => `the new service's record; stderr:\n${second.stderr()}`,
      );
      await ready(port, second);
      expect(readServiceRecord(dir, port)?.pid).not.toBe(first.pid);
      expect(second.stderr()).toContain(`stopping the service on port ${port} (pid ${first.pid}`);
      expect(second.stderr()).not.toContain('restart-test-key-0123');

      // stop: the same lookup, stop only; the record goes with the service.
      const stop = runCli(['stop', '--port', String(port)], { [STATE_DIR_ENV]: dir });
      expect(await stop.exited, stop.stderr()).toBe(0);
      expect(await second.exited).toBe(0);
      expect(readServiceRecord(dir, port)).toBeUndefined();
      expect(await portFree(port)).toBe(true);
    },
    RESTART_CASE_TIMEOUT_MS,
  );

  it(
    'serve --restart with no record starts as usual and says so',
    async () => {
      const { port, dir, env } = await restartSetup();
      const run = runCli(['serve', '--restart'], env);
      await ready(port, run);
      expect(run.stderr()).toContain(`no service recorded for port ${port}`);
      expect(readServiceRecord(dir, port)?.pid).toBe(run.pid);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(readServiceRecord(dir, port)).toBeUndefined();
    },
    RESTART_CASE_TIMEOUT_MS,
  );

  it(
    'a record of a live process that is not the service is refused, and that process is left alone',
    async () => {
      const { port, dir, env } = await restartSetup();
      const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      const otherPid = other.pid ?? -1;
      children.push(other);
      await waitFor(() => lookAtProcess(otherPid).kind === 'alive', GONE_TIMEOUT_MS, 'the other process');
      const look = lookAtProcess(otherPid);
      if (look.kind !== 'alive') throw new Error('the other process is not running');
      writeServiceRecord(dir, {
        pid: otherPid,
        port,
        host: '127.0.0.1',
        startedAt: new Date().toISOString(),
        processStart: look.start,
        shutdownTimeoutMs: 10_000,
        token: 'planted',
      });
      const restart = runCli(['serve', '--restart'], env);
      expect(await restart.exited).toBe(1);
      expect(restart.stderr()).toContain('not a playwright-jsonrpc serve process');
      expect(restart.stderr()).toContain('No new service was started');
      const stop = runCli(['stop'], env);
      expect(await stop.exited).toBe(1);
      expect(alive(otherPid)).toBe(true);
      expect(await portFree(port)).toBe(true);
      other.kill('SIGKILL');
    },
    RESTART_CASE_TIMEOUT_MS,
  );

  it(
    'a record of a pid that has exited is stale: serve --restart starts as usual',
    async () => {
      const { port, dir, env } = await restartSetup();
      const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      await new Promise((resolve) => gone.once('exit', resolve));
      writeServiceRecord(dir, {
        pid: gone.pid ?? -1,
        port,
        host: '127.0.0.1',
        startedAt: new Date().toISOString(),
        processStart: '1',
        shutdownTimeoutMs: 10_000,
        token: 'stale',
      });
      const run = runCli(['serve', '--restart'], env);
      await ready(port, run);
      expect(run.stderr()).toContain(`the record of port ${port} is stale`);
      await waitFor(() => readServiceRecord(dir, port)?.pid === run.pid, GONE_TIMEOUT_MS, 'the new record');
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    },
    RESTART_CASE_TIMEOUT_MS,
  );
});

/** Bound on npm pack (a build and 12 MB of bundled dependencies) and on the offline install of it. */
const PACK_TIMEOUT_MS = 240_000;

describe('the npm pack tarball', () => {
  it(
    'installs offline in an empty directory, and npx playwright-jsonrpc mcp runs the service there',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pw-rpc-pack-'));
      const fixtures = await startFixtureServer();
      try {
        // The dependencies are bundled: the install reads nothing from a registry (--offline).
        const npm = (args: string[], cwd: string) =>
          execFileSync('npm', args, { cwd, stdio: 'pipe', timeout: PACK_TIMEOUT_MS, encoding: 'utf8' });
        npm(['pack', '--pack-destination', dir], process.cwd());
        const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
        if (tarball === undefined) throw new Error('npm pack wrote no tarball');
        const app = join(dir, 'app');
        mkdirSync(app);
        writeFileSync(join(app, 'package.json'), '{"name":"pack-test","version":"1.0.0","private":true}\n');
        npm(['install', '--offline', '--no-audit', '--no-fund', join(dir, tarball)], app);
        const child = spawn('npx', ['--no-install', 'playwright-jsonrpc', 'mcp'], {
          cwd: app,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/root',
            ...(process.env.CHROMIUM_PATH === undefined ? {} : { CHROMIUM_PATH: process.env.CHROMIUM_PATH }),
          },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        await mcpStdioScenario(child, fixtures.url);
      } finally {
        await fixtures.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    3 * PACK_TIMEOUT_MS,
  );
});
