// Browser servers for the remote tier's tests (remoteBrowsers, cluster): `playwright-jsonrpc
// browser-server` as a child process on loopback, its endpoint read from its first line of stdout,
// stopped by PID; and where a service's log says it placed a session.
import { spawn, type ChildProcess } from 'node:child_process';
import { descendants } from './procfs.js';

export interface BrowserServerProcess {
  /** The ws:// endpoint it printed. */
  endpoint: string;
  port: number;
  wsPath: string;
  /** ws://host:port: how the service's log names it (the path is the server's secret). */
  label: string;
  pid: number;
  /** The Chromium processes below it (the browser, its renderers …), read now. */
  chromiumPids(): number[];
  /** SIGKILL to the launcher and to every process below it: the server dies, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM: the launcher closes its browser and exits. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts one browser server with the service's launcher; `args` adds --port, --ws-path … */
export async function startBrowserServer(args: string[] = []): Promise<BrowserServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'browser-server', '--host', '127.0.0.1', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('browser-server did not start');
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const endpoint = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`browser-server printed no endpoint in ${START_TIMEOUT_MS} ms: ${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = /^(ws:\/\/\S+)\n/m.exec(out);
      if (line?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(line[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser-server exited (${String(code)}) before printing its endpoint: ${stderr}`));
    });
  });
  const url = new URL(endpoint);
  const chromiumPids = (): number[] =>
    descendants(pid)
      .filter((p) => /chrom/i.test(p.comm))
      .map((p) => p.pid);
  return {
    endpoint,
    port: Number(url.port),
    wsPath: url.pathname,
    label: `${url.protocol}//${url.host}`,
    pid,
    chromiumPids,
    async kill() {
      const below = descendants(pid).map((p) => p.pid);
      child.kill('SIGKILL');
      for (const p of below) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // Already gone with its parent: nothing to kill.
        }
      }
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** What the browser tier logs when it places a session on a server (src/browser/engine/browserTier.ts). */
export const PLACED_MESSAGE = 'session placed on a browser server';
/** What it logs when a server's connection drops (src/browser/engine/remoteBrowsers.ts). */
export const LOST_MESSAGE = 'browser server went away; its sessions are lost';

interface TierLogEntry {
  msg?: unknown;
  sessionId?: unknown;
  endpoint?: unknown;
}

/** A service's log lines that mention `text`, parsed (pino JSON, one a line). */
function entriesWith(logs: readonly string[], text: string): TierLogEntry[] {
  return logs
    .join('')
    .split('\n')
    .filter((line) => line.includes(text))
    .map((line) => JSON.parse(line) as TierLogEntry);
}

/** A logged endpoint as a label: the log's scrubber writes it as a URL (ws://host:port/). */
function labelOf(endpoint: unknown): string | undefined {
  if (typeof endpoint !== 'string') return undefined;
  const url = new URL(endpoint);
  return `${url.protocol}//${url.host}`;
}

/**
 * The server (ws://host:port) a service's log says `sessionId` was placed on, or undefined while
 * the log has not said it (a replica's log arrives through its stdout pipe after its answer).
 */
export function placementIn(logs: readonly string[], sessionId: string): string | undefined {
  const entry = entriesWith(logs, sessionId).find(
    (e) => e.msg === PLACED_MESSAGE && e.sessionId === sessionId,
  );
  return labelOf(entry?.endpoint);
}

/** Whether a service's log says the server `label` (ws://host:port) went away. */
export function lossLogged(logs: readonly string[], label: string): boolean {
  return entriesWith(logs, LOST_MESSAGE).some((e) => e.msg === LOST_MESSAGE && labelOf(e.endpoint) === label);
}
