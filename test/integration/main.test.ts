// The real entry point as a child process: start-up messages and exit codes, the generated key,
// and a graceful SIGTERM that leaves no Chromium process behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { descendants, processes } from '../helpers/procfs.js';
import { waitFor } from '../helpers/testService.js';
import { freePort } from '../helpers/ports.js';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

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

/** Connects to /agents, registers with the given key (none when undefined), returns the ack. */
async function registerAgent(base: string, secretKey: string | undefined): Promise<Record<string, unknown>> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/agents`);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no registration_ack within 10 s')), 10_000);
      ws.on('error', reject);
      ws.on('message', (data: Buffer) => {
        const m = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
        if (m.type === 'welcome') {
          ws.send(
            JSON.stringify({
              type: 'register',
              clientId: crypto.randomUUID(),
              ...(secretKey === undefined ? {} : { secretKey }),
              capabilities: { tools: ['echo'], maxConcurrency: 100, version: 'rogue' },
            }),
          );
        } else if (m.type === 'registration_ack') {
          clearTimeout(timer);
          resolve(m);
        }
      });
    });
  } finally {
    ws.terminate();
  }
}

describe('main entry point', () => {
  it('a bad variable stops start-up with exit code 2 naming it', async () => {
    const run = start({ MAX_SESSIONS: 'lots' });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('MAX_SESSIONS');
  });

  it('a bad TRUSTED_PROXIES entry stops start-up with exit code 2 naming the key and the entry', async () => {
    const run = start({ TRUSTED_PROXIES: '127.0.0.1,0.0.0.0/0' });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('TRUSTED_PROXIES');
    expect(run.output()).toContain('0.0.0.0/0');
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

  it('with no AGENT_SECRET it generates one, prints it once, and the hub accepts only agents presenting it', async () => {
    const port = await freePort();
    const run = start({ PORT: String(port), API_KEY: 'main-test-key' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200,
      60_000,
      'the service to be ready',
    );
    const secret = /AGENT_SECRET=(\S+)/.exec(run.output())?.[1];
    expect(secret).toBeDefined();
    expect(secret?.length).toBeGreaterThanOrEqual(32);
    expect(await registerAgent(base, undefined)).toMatchObject({
      status: 'rejected',
      reason: 'Missing secret key',
    });
    expect(await registerAgent(base, 'any-key')).toMatchObject({
      status: 'rejected',
      reason: 'Invalid secret key',
    });
    expect(await registerAgent(base, secret)).toMatchObject({ status: 'accepted' });
    expect(run.output().split(secret ?? '').length - 1).toBe(1);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
