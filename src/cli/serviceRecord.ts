// The record `playwright-jsonrpc serve` keeps of itself while it listens, one JSON file per port in
// a state directory, so that `serve --restart` and `stop` can find the running service. It holds
// no secret (no key, no configuration): who the process is, where it listens, and a per-run token.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable that moves the state directory (tests give each run its own). */
export const STATE_DIR_ENV = 'PLAYWRIGHT_JSONRPC_STATE_DIR';

/** Per user, so two accounts of one machine never read each other's records. */
export function defaultStateDir(): string {
  return join(tmpdir(), `playwright-jsonrpc-${process.getuid?.() ?? 'user'}`);
}

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const set = env[STATE_DIR_ENV];
  return set === undefined || set === '' ? defaultStateDir() : set;
}

export interface ServiceRecord {
  pid: number;
  port: number;
  host: string;
  /** When the service started listening (ISO 8601). */
  startedAt: string;
  /** The process's start as `lookAtProcess` reads it: with the pid, it names this one process. */
  processStart: string;
  /** The old service's SHUTDOWN_TIMEOUT_MS: how long a stop may take before it exits by force. */
  shutdownTimeoutMs: number;
  /** Random per run: a service removes the record at exit only while it is still its own. */
  token: string;
}

/** A record that exists but cannot be read as one: the caller says so and signals nothing. */
export class ServiceRecordError extends Error {
  override name = 'ServiceRecordError';
}

export function recordPath(dir: string, port: number): string {
  return join(dir, `serve-${port}.json`);
}

export function newRecordToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Refuses a state directory another user could write to (a planted record would name a pid for us
 * to signal): it must be a real directory, owned by this user, writable by no one else.
 */
function checkStateDir(dir: string): void {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new ServiceRecordError(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new ServiceRecordError(
      `${dir} belongs to another user; set ${STATE_DIR_ENV} to a directory of yours`,
    );
  if ((stat.mode & 0o022) !== 0)
    throw new ServiceRecordError(
      `${dir} is writable by other users; chmod go-w it or set ${STATE_DIR_ENV} elsewhere`,
    );
}

/** Writes (or replaces) the record of `record.port`, readable by this user only. */
export function writeServiceRecord(dir: string, record: ServiceRecord): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkStateDir(dir);
  const path = recordPath(dir, record.port);
  // Written beside and renamed over: a reader never sees half a record.
  const partial = `${path}.${record.token}.tmp`;
  writeFileSync(partial, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(partial, path);
  return path;
}

function isRecord(value: unknown): value is ServiceRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    Number.isInteger(v.pid) &&
    Number(v.pid) > 0 &&
    Number.isInteger(v.port) &&
    typeof v.host === 'string' &&
    typeof v.startedAt === 'string' &&
    typeof v.processStart === 'string' &&
    Number.isInteger(v.shutdownTimeoutMs) &&
    Number(v.shutdownTimeoutMs) > 0 &&
    typeof v.token === 'string'
  );
}

/** The record of `port`, or undefined when there is none. */
export function readServiceRecord(dir: string, port: number): ServiceRecord | undefined {
  const path = recordPath(dir, port);
  let text: string;
  try {
    checkStateDir(dir);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ServiceRecordError(`${path} is not JSON; remove it if no service runs on port ${port}`, {
      cause: error,
    });
  }
  if (!isRecord(parsed) || parsed.port !== port)
    throw new ServiceRecordError(
      `${path} is not a service record of port ${port}; remove it if no service runs there`,
    );
  return parsed;
}

/** Removes the record of `port` if it is still the one with `token` (a newer service's stays). */
export function removeServiceRecord(dir: string, port: number, token: string): boolean {
  const current = readServiceRecord(dir, port);
  if (current?.token !== token) return false;
  rmSync(recordPath(dir, port), { force: true });
  return true;
}

/** Removes a record whatever it says: one found stale (its process gone). */
export function discardServiceRecord(dir: string, port: number): void {
  rmSync(recordPath(dir, port), { force: true });
}
