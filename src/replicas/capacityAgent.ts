import net from 'node:net';
import type { Logger } from '../observability/logger.js';
import { agentLine, readiness, type ServiceCapacity } from '../http/health.js';

/** A connection to the agent that has not been answered and closed within this long is cut. */
export const AGENT_REPLY_TIMEOUT_MS = 2000;

/** What the agent reads to answer: the numbers /readyz reports. */
export interface CapacityReading {
  /** The browser is connected (what /readyz checks). */
  ready: boolean;
  /** The session registry's capacity(): sessions open, MAX_SESSIONS, creates it would accept now. */
  capacity: ServiceCapacity;
}

/**
 * HAProxy's agent-check answer for a reading: the line `/readyz?format=agent` answers (`down`,
 * `drain` or `up N%`: see agentLine), so both say the same for the same state.
 */
export function agentReply(reading: CapacityReading): string {
  const { status, free } = readiness(reading.ready, reading.capacity);
  return `${agentLine(status, free, reading.capacity.maxSessions)}\n`;
}

/**
 * The TCP listener HAProxy's `agent-check agent-port REPLICA_AGENT_PORT` connects to: one line per
 * connection, then close. It says numbers only (no tenant, no session id), like /readyz.
 */
export async function startCapacityAgent(
  port: number,
  host: string,
  read: () => CapacityReading,
  logger: Logger,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => {
    // A plain timer: an idle timeout stops counting once this side has ended.
    const cut = setTimeout(() => socket.destroy(), AGENT_REPLY_TIMEOUT_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
    // HAProxy may send agent-send text first; the answer does not depend on it, so it is not read.
    socket.on('error', (error) =>
      logger.debug({ err: { message: error.message } }, 'capacity agent socket error'),
    );
    socket.end(agentReply(read()));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  logger.info({ port: bound }, 'capacity agent listening');
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
