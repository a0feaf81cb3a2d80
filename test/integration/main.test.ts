// The real entry point as a child process: start-up messages and exit codes, the generated key,
// and a graceful SIGTERM that leaves no Chromium process behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { descendants, processes } from '../helpers/procfs.js';
import { waitFor } from '../helpers/testService.js';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe('main entry point', () => {
  it('a bad variable stops start-up with exit code 2 naming it', async () => {
    const run = start({ MAX_SESSIONS: 'lots' });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('MAX_SESSIONS');
  });

  it('no browser at CHROMIUM_PATH stops start-up with exit code 3 and says what to do', async () => {
    const run = start({ CHROMIUM_PATH: '/nonexistent/chromium', API_KEY: 'k' });
    expect(await run.exited).toBe(3);
    expect(run.output()).toContain('CHROMIUM_PATH');
  });

  it('with no API_KEY it generates one, prints it once, and accepts only it; SIGTERM closes everything', async () => {
    const port = await freePort();
    const run = start({ PORT: String(port) });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200,
      60_000,
      'the service to be ready',
    );
    const key = /API_KEY=(\S+)/.exec(run.output())?.[1];
    expect(key).toBeDefined();
    const call = (k: string) =>
      fetch(`${base}/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': k },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.create', params: {} }),
      });
    expect((await call('wrong')).status).toBe(401);
    const created = (await (await call(key ?? '')).json()) as { result?: { session_id: string } };
    expect(created.result?.session_id).toMatch(/^s_/);

    const pid = run.child.pid ?? -1;
    const tree = descendants(pid).map((p) => p.pid);
    expect(tree.length).toBeGreaterThan(0);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    await waitFor(
      () => !processes().some((p) => tree.includes(p.pid)),
      10_000,
      'the browser processes to exit',
    );
  });
});
