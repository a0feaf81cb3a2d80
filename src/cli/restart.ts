// Stopping the service recorded for a port, for `serve --restart` (which then starts a fresh one in
// its own process) and `stop`. A recorded pid is signalled only when it still names the process
// that wrote the record and that process is this CLI's `serve`; anything else is left alone.
import { createServer } from 'node:net';
import { isServeCommandLine, lookAtProcess, type IdentitySource } from './processIdentity.js';
import {
  discardServiceRecord,
  readServiceRecord,
  recordPath,
  removeServiceRecord,
  type ServiceRecord,
} from './serviceRecord.js';

/**
 * How long past the old service's own SHUTDOWN_TIMEOUT_MS a stop waits for it to exit and free the
 * port. The service exits by force at its timeout; the grace covers the exit itself and the release
 * of Chromium on a loaded machine (with the default 10 s timeout: 30 s in all). No SIGKILL follows:
 * a service still closing sessions is reported, not killed.
 */
export const STOP_GRACE_MS = 20_000;
/** How often the wait looks at the process and the port. */
export const STOP_POLL_MS = 100;

/** A stop that could not be done (a pid that is not the service, a service that did not exit). */
export class StopRefusedError extends Error {
  override name = 'StopRefusedError';
}

export type RecordedService =
  | { state: 'none' }
  /** The record's process is gone, or its pid now names another process: nothing to stop. */
  | { state: 'stale'; record: ServiceRecord; why: string }
  | { state: 'running'; record: ServiceRecord };

/**
 * What the record of `port` names now. Throws StopRefusedError for a live process that cannot be
 * shown to be the service; its command line is never quoted (another program's may hold secrets).
 */
export function findRecordedService(dir: string, port: number, source?: IdentitySource): RecordedService {
  const record = readServiceRecord(dir, port);
  if (record === undefined) return { state: 'none' };
  const look = lookAtProcess(record.pid, source);
  const path = recordPath(dir, port);
  switch (look.kind) {
    case 'gone':
      return { state: 'stale', record, why: `its process (pid ${record.pid}) is gone` };
    case 'other-user':
      throw new StopRefusedError(
        `${path} names pid ${record.pid}, a process of another user; nothing was signalled. ` +
          'Stop that service as its user, or remove the record if it is not one.',
      );
    case 'unknown':
      throw new StopRefusedError(
        `${path} names pid ${record.pid}, and this system has neither /proc nor ps to check that it is ` +
          `the service; nothing was signalled. Stop it yourself (kill ${record.pid}) and remove the record.`,
      );
    case 'alive':
      // The kernel gives a freed pid to later processes: a different start is a different process.
      if (look.start !== record.processStart)
        return {
          state: 'stale',
          record,
          why: `pid ${record.pid} now names another process (the recorded one is gone)`,
        };
      if (!isServeCommandLine(look.commandLine))
        throw new StopRefusedError(
          `${path} names pid ${record.pid}, which is not a playwright-jsonrpc serve process; nothing ` +
            'was signalled. Remove the record if no service runs on that port.',
        );
      return { state: 'running', record };
  }
}

/** True when `port` can be bound on `host` (the stopped service let it go). */
function portFree(host: string, port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Sends SIGTERM to a service found running and waits until its process is gone and the port is
 * free on `host` (the new service's bind address for a restart, the old one's for a stop). Throws
 * StopRefusedError when that takes longer than its shutdown timeout plus STOP_GRACE_MS.
 */
export async function stopRecordedService(
  record: ServiceRecord,
  host: string,
  source?: IdentitySource,
): Promise<void> {
  try {
    process.kill(record.pid, 'SIGTERM');
  } catch (error) {
    // Exited between the check and the signal: what the stop wanted.
    if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
  }
  const waitMs = record.shutdownTimeoutMs + STOP_GRACE_MS;
  const deadline = Date.now() + waitMs;
  const exited = (): boolean => {
    const look = lookAtProcess(record.pid, source);
    return look.kind === 'gone' || (look.kind === 'alive' && look.start !== record.processStart);
  };
  while (Date.now() < deadline) {
    if (exited() && (await portFree(host, record.port))) return;
    await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
  }
  throw new StopRefusedError(
    exited()
      ? `the service (pid ${record.pid}) exited, but port ${record.port} is still in use after ${waitMs} ms`
      : `the service (pid ${record.pid}) did not exit within ${waitMs} ms of SIGTERM (its ` +
          `SHUTDOWN_TIMEOUT_MS plus ${STOP_GRACE_MS} ms); it was not killed. Look at its log, or ` +
          `kill -9 ${record.pid} if it is stuck.`,
  );
}

/** Where a stop or restart reports what it did: a line each, on stderr. */
export type Say = (line: string) => void;

/**
 * Stops whatever service the record of `port` names, saying each step: the common part of
 * `serve --restart` and `stop`. Returns whether a service was stopped; a stale record is removed.
 */
export async function stopRecorded(
  dir: string,
  port: number,
  host: string | undefined,
  say: Say,
): Promise<boolean> {
  const found = findRecordedService(dir, port);
  if (found.state === 'none') {
    say(`no service recorded for port ${port} (in ${dir})`);
    return false;
  }
  if (found.state === 'stale') {
    say(`the record of port ${port} is stale: ${found.why}; removing it`);
    discardServiceRecord(dir, port);
    return false;
  }
  const { record } = found;
  say(`stopping the service on port ${port} (pid ${record.pid}, started ${record.startedAt}) …`);
  await stopRecordedService(record, host ?? record.host);
  // The service removes its record as it exits; one that was forced out may not have.
  removeServiceRecord(dir, port, record.token);
  say(`the service on port ${port} (pid ${record.pid}) has exited`);
  return true;
}
