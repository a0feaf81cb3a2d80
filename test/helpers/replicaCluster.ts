// Service replicas behind Debian's HAProxy on loopback, for test/integration/replicas.test.ts: each
// replica is a child process (`node --import tsx src/main.ts`) in a process group of its own, so a
// test can kill one with its Chromium, and HAProxy runs in the foreground with the configuration
// scripts/haproxyConfig.ts makes for deploy/. Only what this file started is ever signalled.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyConfig } from '../../scripts/haproxyConfig.js';
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

export interface ReplicaCluster {
  /** The balancer's URL: what a client calls. */
  url: string;
  apiKey: string;
  replicas: Replica[];
  /** SIGKILLs a replica's process group (the service and its Chromium), and waits for it to exit. */
  kill(id: string): Promise<void>;
  stop(): Promise<void>;
  /** HAProxy's own output (its log goes to stdout). */
  haproxyLogs: string[];
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
        ...env,
      },
    });
    track(child, logs);
    return { id, port, agentPort, url: `http://127.0.0.1:${port}`, child, logs };
  });
  let haproxy: ChildProcess | undefined;
  const haproxyLogs: string[] = [];
  const stop = async (): Promise<void> => {
    if (haproxy !== undefined) await killGroup(haproxy);
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
    const lbPort = await freePort();
    const cfgPath = join(dir, 'haproxy.cfg');
    writeFileSync(
      cfgPath,
      haproxyConfig({
        bind: `127.0.0.1:${lbPort}`,
        replicas: replicas.map((r) => ({ id: r.id, address: `127.0.0.1:${r.port}`, agentPort: r.agentPort })),
        hub: ids[0],
        checkIntervalMs: 1000,
      }),
    );
    const check = spawnSync(HAPROXY_PATH, ['-c', '-f', cfgPath], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`haproxy -c refused the configuration: ${check.stderr}`);
    haproxy = spawn(HAPROXY_PATH, ['-db', '-f', cfgPath], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(haproxy, haproxyLogs);
    const url = `http://127.0.0.1:${lbPort}`;
    await waitFor(
      async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200,
      30_000,
      () => `haproxy routing (log: ${haproxyLogs.join('').slice(-2000)})`,
    );
    return {
      url,
      apiKey,
      replicas,
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
