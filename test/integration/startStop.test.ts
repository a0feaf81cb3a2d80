// `npm start` as a CI script runs it (`npm start &` … `kill $!`): the pid a script holds is npm's.
// SIGTERM to npm must stop the service and its Chromium and free the port; SIGKILL to npm (no
// chance to forward anything) must leave a service that notices its parent is gone and stops too.
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
