import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AgentRegistry } from './agentRegistry.js';
import type { Logger } from '../observability/logger.js';
import { AgentConnection } from './agentConnection.js';
import { ProtocolParser } from './protocol.js';
import { refuseUpgrade } from '../ws/upgradeRouter.js';
import { clientAddress, type TrustProxy } from '../ws/clientAddress.js';

/** Where agents connect (seed 001). */
export const AGENTS_PATH = '/agents';
/** Open agent sockets, registered or not, past which handshakes get 503: each holds memory and a timer. */
export const MAX_AGENT_CONNECTIONS = 256;
/** Unregistered sockets one address may hold: an agent registers right after welcome, so more is a flood (or a fleet restarting, which retries). */
export const MAX_UNREGISTERED_PER_ADDRESS = 16;
/** Unregistered sockets in all: past it the oldest goes, so sockets that never register cannot crowd out agents. */
export const MAX_UNREGISTERED_CONNECTIONS = 64;
/** On shutdown, agents get this long to finish the close handshake before their sockets are cut. */
const CLOSE_WAIT_MS = 1000;

export interface AgentEndpointOptions {
  /** Origins a browser page may connect from (AGENT_ALLOWED_ORIGINS); a handshake without Origin is a Node agent. */
  allowedOrigins: readonly string[];
  /** Largest frame an agent may send (AGENT_MAX_PAYLOAD_BYTES); larger ones close the socket with 1009. */
  maxPayloadBytes: number;
  /** How often every agent socket is pinged (AGENT_PING_INTERVAL_MS). */
  pingIntervalMs: number;
  /** Silence (no frame, no pong) after which a socket is cut (AGENT_CONNECTION_TIMEOUT_MS). */
  connectionTimeoutMs: number;
  /** TRUSTED_PROXIES, compiled: an agent behind the balancer is known by its own address. */
  trustProxy: TrustProxy;
  logger: Logger;
}

function canonicalOrigin(value: string): string | undefined {
  return URL.canParse(value) ? new URL(value).origin : undefined;
}

/**
 * The WebSocket endpoint evaluation agents connect to. It guards the handshake (a browser page,
 * including one loaded by the service's own Chromium, sends an Origin and is refused unless listed),
 * bounds frames and connections, and runs the heartbeat that cuts dead sockets.
 */
export class AgentEndpoint {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<AgentConnection>();
  /** Sockets that have not registered yet, oldest first (a Set keeps insertion order). */
  private readonly unregistered = new Set<AgentConnection>();
  private readonly unregisteredByAddress = new Map<string, Set<AgentConnection>>();
  private readonly parser = new ProtocolParser();
  private readonly allowedOrigins: Set<string>;
  private readonly heartbeat: NodeJS.Timeout;
  /** Sent in `welcome`: names this service instance in the agent's logs. */
  readonly serverId = `playwright-jsonrpc-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly registry: AgentRegistry,
    private readonly options: AgentEndpointOptions,
  ) {
    this.allowedOrigins = new Set(
      options.allowedOrigins.map(canonicalOrigin).filter((o): o is string => o !== undefined),
    );
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayloadBytes,
      clientTracking: false,
      perMessageDeflate: false,
    });
    this.heartbeat = setInterval(() => this.sweep(), options.pingIntervalMs);
    this.heartbeat.unref();
  }

  /** The upgrade handler for AGENTS_PATH (see UpgradeRouter). */
  readonly handleUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { logger } = this.options;
    const remoteAddress = clientAddress(req, this.options.trustProxy);
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(canonicalOrigin(origin) ?? '')) {
      logger.warn({ origin: origin.slice(0, 200), remoteAddress }, 'agent handshake refused: browser origin');
      refuseUpgrade(
        socket,
        403,
        'Browser origins may not connect to /agents; list the origin in AGENT_ALLOWED_ORIGINS.',
      );
      return;
    }
    // Sockets that never register are the ones that lose: a new handshake evicts the oldest
    // unregistered socket of its address, or of all, before it is refused.
    const sameAddress = this.unregisteredByAddress.get(remoteAddress);
    if (sameAddress !== undefined && sameAddress.size >= MAX_UNREGISTERED_PER_ADDRESS)
      this.evictOldest(sameAddress, `${MAX_UNREGISTERED_PER_ADDRESS} unregistered sockets from its address`);
    if (this.unregistered.size >= MAX_UNREGISTERED_CONNECTIONS)
      this.evictOldest(this.unregistered, `${MAX_UNREGISTERED_CONNECTIONS} unregistered sockets in all`);
    if (this.connections.size >= MAX_AGENT_CONNECTIONS && this.unregistered.size > 0)
      this.evictOldest(this.unregistered, `${MAX_AGENT_CONNECTIONS} agent sockets in all`);
    if (this.connections.size >= MAX_AGENT_CONNECTIONS) {
      logger.warn(
        { remoteAddress, limit: MAX_AGENT_CONNECTIONS },
        'agent handshake refused: too many connections',
      );
      refuseUpgrade(socket, 503, `Too many agent connections (${MAX_AGENT_CONNECTIONS}); retry later.`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const connection: AgentConnection = new AgentConnection(ws, remoteAddress, {
        serverId: this.serverId,
        parser: this.parser,
        registry: this.registry,
        logger,
        onRegistered: () => this.registered(connection),
      });
      this.connections.add(connection);
      this.unregistered.add(connection);
      let mine = this.unregisteredByAddress.get(remoteAddress);
      if (mine === undefined) this.unregisteredByAddress.set(remoteAddress, (mine = new Set()));
      mine.add(connection);
      ws.once('close', () => {
        this.connections.delete(connection);
        this.registered(connection);
      });
    });
  };

  /** The socket registered (or closed): it no longer counts as unregistered. */
  private registered(connection: AgentConnection): void {
    this.unregistered.delete(connection);
    const mine = this.unregisteredByAddress.get(connection.remoteAddress);
    mine?.delete(connection);
    if (mine?.size === 0) this.unregisteredByAddress.delete(connection.remoteAddress);
  }

  /** Cuts the oldest unregistered socket of the set, freeing its place now (its close event follows). */
  private evictOldest(from: Set<AgentConnection>, why: string): void {
    const oldest = from.values().next();
    if (oldest.done === true) return;
    const connection = oldest.value;
    this.options.logger.warn(
      { remoteAddress: connection.remoteAddress, why },
      'unregistered agent socket evicted for a new handshake',
    );
    this.connections.delete(connection);
    this.registered(connection);
    connection.terminate();
  }

  /** Pings every socket; one silent for longer than the connection timeout is cut (its close follows). */
  private sweep(): void {
    const now = Date.now();
    for (const connection of this.connections) {
      if (now - connection.lastSeen > this.options.connectionTimeoutMs) {
        this.options.logger.warn(
          { remoteAddress: connection.remoteAddress, silentMs: now - connection.lastSeen },
          'agent connection timed out; terminating it',
        );
        connection.terminate();
      } else connection.ping();
    }
  }

  /** Closes every agent socket (1001 going away), cutting those that do not finish in time. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const open = [...this.connections];
    for (const connection of open) connection.close(1001, 'service shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(open.map((c) => c.closed)),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    for (const connection of this.connections) connection.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
