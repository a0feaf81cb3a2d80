// Service replicas behind Debian's HAProxy on loopback, for test/integration/replicas.test.ts and
// cluster.test.ts (balancerErrors.test.ts runs the balancer alone, `startBalancer`), and the calls
// those tests make through it (POST, a WebSocket's calls): each
// replica is a child process (`node --import tsx src/main.ts`) in a process group of its own, so a
// test can kill one with its Chromium, and HAProxy runs in the foreground with the configuration
// scripts/haproxyConfig.ts makes for deploy/. Only what this file started is ever signalled.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { haproxyConfig, type HaproxyOptions } from '../../scripts/haproxyConfig.js';
import { freePort } from './ports.js';
import { waitFor } from './testService.js';

/** Debian's HAProxy (apt-get install -y haproxy; .ci/run installs it). */
export const HAPROXY_PATH = '/usr/sbin/haproxy';

export function haproxyInstalled(): boolean {
  return existsSync(HAPROXY_PATH);
}

/** Up to a replica answering /readyz: tsx compiles the service and Chromium starts, on a busy machine. */
const REPLICA_READY_TIMEOUT_MS = 120_000;

export interface Replica {
  id: string;
  port: number;
  agentPort: number;
  url: string;
  child: ChildProcess;
  /** Every line it wrote (pino JSON on stdout, anything on stderr). */
  logs: string[];
}

/** A JSON-RPC answer as a test reads it. */
export interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
  id?: unknown;
}

/** One call for `socketCalls`. */
export interface RpcCall {
  method: string;
  params: Record<string, unknown>;
}

/** Up to every answer of a WebSocket's calls (a busy machine, a forwarded call each). */
const SOCKET_ANSWERS_TIMEOUT_MS = 60_000;

export interface ReplicaCluster {
  /** The balancer's URL: what a client calls. */
  url: string;
  apiKey: string;
  replicas: Replica[];
  /**
   * POSTs a JSON body with the key to `path` (default /rpc) of `url` (default the balancer) and
   * parses the answer; a non-JSON answer throws with HAProxy's log.
   */
  post(body: unknown, path?: string, url?: string): Promise<unknown>;
  /** One JSON-RPC call over POST /rpc (through the balancer unless `url` names a replica). */
  rpc(method: string, params: Record<string, unknown>, url?: string): Promise<RpcAnswer>;
  /** The calls sent together on one WebSocket /rpc through the balancer; the answers in their order. */
  socketCalls(calls: readonly RpcCall[]): Promise<RpcAnswer[]>;
  /** SIGKILLs a replica's process group (the service and its Chromium), and waits for it to exit. */
  kill(id: string): Promise<void>;
  stop(): Promise<void>;
  /** HAProxy's own output (its log goes to stdout). */
  haproxyLogs: string[];
}

async function socketCalls(url: string, apiKey: string, calls: readonly RpcCall[]): Promise<RpcAnswer[]> {
  const ws = new WebSocket(url, { headers: { 'x-api-key': apiKey } });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const answers = new Map<number, RpcAnswer>();
    ws.on('message', (data: Buffer) => {
      const answer = JSON.parse(data.toString('utf8')) as RpcAnswer;
      answers.set(Number(answer.id), answer);
    });
    calls.forEach((call, i) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, ...call })));
    await waitFor(
      () => answers.size >= calls.length,
      SOCKET_ANSWERS_TIMEOUT_MS,
      () => `answers to ${calls.length} calls on one WebSocket (${answers.size} so far)`,
    );
    return calls.map((_, i) => answers.get(i) ?? {});
  } finally {
    ws.close();
  }
}

function track(child: ChildProcess, logs: string[]): void {
  child.stdout?.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
}

function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is already gone: exited resolves (or has) all the same.
  }
  return exited;
}

/** Up to HAProxy routing its first request on loopback. */
const BALANCER_READY_TIMEOUT_MS = 30_000;

/** Debian's HAProxy running the generator's configuration on a free loopback port. */
export interface Balancer {
  url: string;
  /** HAProxy's own output (its log goes to stdout). */
  logs: string[];
  /** SIGKILLs HAProxy's process group and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts HAProxy in the foreground (in a process group of its own) with `haproxyConfig(options)`
 * bound to a free loopback port, its configuration written in `dir` and checked with `haproxy -c`
 * first; resolves once `ready(url)` is true (default: `/healthz` answers 200 through it).
 */
export async function startBalancer(
  options: Omit<HaproxyOptions, 'bind'>,
  dir: string,
  ready: (url: string) => Promise<boolean> = async (url) =>
    (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200,
): Promise<Balancer> {
  const port = await freePort();
  const cfgPath = join(dir, 'haproxy.cfg');
  writeFileSync(cfgPath, haproxyConfig({ ...options, bind: `127.0.0.1:${port}` }));
  const check = spawnSync(HAPROXY_PATH, ['-c', '-f', cfgPath], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c refused the configuration: ${check.stderr}`);
  const child = spawn(HAPROXY_PATH, ['-db', '-f', cfgPath], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  track(child, logs);
  const url = `http://127.0.0.1:${port}`;
  const balancer: Balancer = { url, logs, stop: () => killGroup(child) };
  try {
    await waitFor(
      () => ready(url),
      BALANCER_READY_TIMEOUT_MS,
      () => `haproxy routing (log: ${logs.join('').slice(-2000)})`,
    );
  } catch (error) {
    await balancer.stop();
    throw error;
  }
  return balancer;
}

/**
 * Starts `ids.length` replicas (REPLICA_ID, REPLICA_PEERS of each other, HUB_REPLICA the first,
 * a capacity agent each) and HAProxy in front of them; resolves once HAProxy routes to every one.
 * `env` is added to every replica's environment (the browser tier's BROWSER_ENDPOINTS, say).
 */
export async function startReplicaCluster(
  ids: readonly string[],
  env: Record<string, string> = {},
): Promise<ReplicaCluster> {
  const apiKey = 'replica-test-key-0123456789';
  const dir = mkdtempSync(join(tmpdir(), 'pwj-replicas-'));
  const ports = await Promise.all(
    ids.map(async () => ({ port: await freePort(), agentPort: await freePort() })),
  );
  const peersOf = (self: string): string =>
    ids
      .map((id, i) => (id === self ? undefined : `${id}=http://127.0.0.1:${ports[i]?.port}`))
      .filter((entry) => entry !== undefined)
      .join(',');
  const replicas: Replica[] = ids.map((id, i) => {
    const { port, agentPort } = ports[i] ?? { port: 0, agentPort: 0 };
    const logs: string[] = [];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: join(import.meta.dirname, '..', '..'),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CONFIG_FILE: '',
        HOST: '127.0.0.1',
        PORT: String(port),
        API_KEY: apiKey,
        LOG_LEVEL: 'info',
        LOG_DIR: join(dir, id),
        RATE_LIMIT_MAX: '100000',
        MAX_SESSIONS: '8',
        POOL_SIZE: '0',
        REPLICA_ID: id,
        REPLICA_PEERS: peersOf(id),
        HUB_REPLICA: ids[0] ?? id,
        REPLICA_AGENT_PORT: String(agentPort),
        TRUSTED_PROXIES: '127.0.0.1',
        ...env,
      },
    });
    track(child, logs);
    return { id, port, agentPort, url: `http://127.0.0.1:${port}`, child, logs };
  });
  let balancer: Balancer | undefined;
  const stop = async (): Promise<void> => {
    await balancer?.stop();
    await Promise.all(replicas.map((r) => killGroup(r.child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const r of replicas) {
      await waitFor(
        async () => {
          if (r.child.exitCode !== null || r.child.signalCode !== null)
            throw new Error(
              `replica ${r.id} exited (${r.child.exitCode ?? r.child.signalCode}) before it was ready; log: ${r.logs.join('').slice(-2000)}`,
            );
          return (await fetch(`${r.url}/readyz`).catch(() => undefined))?.status === 200;
        },
        REPLICA_READY_TIMEOUT_MS,
        () => `replica ${r.id} ready (log: ${r.logs.join('').slice(-2000)})`,
      );
    }
    balancer = await startBalancer(
      {
        replicas: replicas.map((r) => ({ id: r.id, address: `127.0.0.1:${r.port}`, agentPort: r.agentPort })),
        hub: ids[0],
        checkIntervalMs: 1000,
      },
      dir,
    );
    const { url, logs: haproxyLogs } = balancer;
    const post = async (body: unknown, path = '/rpc', to = url): Promise<unknown> => {
      const res = await fetch(`${to}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': apiKey,
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(
          `HTTP ${res.status} ${text.slice(0, 200)}; haproxy: ${haproxyLogs.join('').slice(-3000)}`,
        );
      }
    };
    return {
      url,
      apiKey,
      replicas,
      post,
      rpc: async (method, params, to) =>
        (await post({ jsonrpc: '2.0', id: 1, method, params }, '/rpc', to)) as RpcAnswer,
      socketCalls: (calls) => socketCalls(`${url.replace('http', 'ws')}/rpc`, apiKey, calls),
      kill: async (id) => {
        const r = replicas.find((x) => x.id === id);
        if (r !== undefined) await killGroup(r.child);
      },
      stop,
      haproxyLogs,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
