// Over ~300 lines on purpose: the handshake (origin, key, limits, socket caps) and the per-socket
// loop (in-flight cap, back-pressure, heartbeat, answers by id) share one set of counters that must
// be released together when a socket closes.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { clientAddress, type TrustProxy } from '../ws/clientAddress.js';
import { refuseUpgrade } from '../ws/upgradeRouter.js';
import type { Logger } from '../observability/logger.js';
import type { RpcDispatcher } from '../rpc/dispatch.js';
import { errorResponse, handleJsonRpcBody, type JsonRpcResponse } from '../rpc/jsonRpc.js';
import type { Principal } from '../rpc/defineMethod.js';
import { headerReader, presentedKeyIn, principalFor } from './auth.js';
import { edgeStatus } from './edgeGate.js';
import { EdgeLimits } from './rateLimits.js';
import { rateLimitFields, wholeSeconds } from './rateLimitHeaders.js';
import type { RefusalReason } from './refusalLog.js';
import type { Refusals } from './refusals.js';
import { SocketPush } from './socketPush.js';

/** JSON-RPC over WebSocket shares the HTTP endpoint's path. */
export const RPC_SOCKET_PATH = '/rpc';
/** Open /rpc sockets past which handshakes get 503: each holds a little memory and its calls. */
export const MAX_RPC_SOCKETS = 256;
/** Calls in flight on one socket past which further messages get LIMIT_REACHED at once. */
export const MAX_SOCKET_INFLIGHT = 64;
/** Every open socket is pinged this often (pingMs), and cut after timeoutMs without a frame or a pong. */
const KEEPALIVE = { pingMs: 30_000, timeoutMs: 60_000 } as const;
/** Answers buffered for a client that does not read them, past which its socket is closed (1008). */
export const MAX_SOCKET_BUFFERED_BYTES = 64 * 1024 * 1024;
/** On shutdown, sockets get this long to finish the close handshake before they are cut. */
const CLOSE_WAIT_MS = 1000;

export interface RpcSocketOptions {
  apiKeys: readonly string[];
  /** ADMIN_API_KEY (also in apiKeys): its socket's calls reach every key's sessions. */
  adminApiKey?: string | undefined;
  /** BODY_LIMIT: the largest message; a larger one closes the socket with 1009. */
  maxPayloadBytes: number;
  batchMax: number;
  /**
   * RATE_LIMIT_MAX per window: handshakes without a valid key per address, calls (a batch counts
   * once per member) per key.
   */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** MAX_RPC_SOCKETS_PER_KEY: open sockets one key may hold, so one key cannot take them all. */
  maxSocketsPerKey: number;
  /** MAX_RPC_SOCKETS_PER_ADDRESS: open sockets one client address (IPv6 by /56) may hold. */
  maxSocketsPerAddress: number;
  /** TRUSTED_PROXIES, compiled: whose X-Forwarded-For names the client (see clientAddress). */
  trustProxy: TrustProxy;
  logger: Logger;
  /** Where refused handshakes are counted and logged (the HTTP edge's, in the service). */
  refusals?: Refusals | undefined;
}

interface OpenSocket {
  ws: WebSocket;
  remoteAddress: string;
  lastSeen: number;
  closed: Promise<void>;
}

/** The ids a message asks answers for, so a refusal can answer each of them. */
function idsOf(message: unknown): (string | number | null)[] {
  const members: unknown[] = Array.isArray(message) ? (message as unknown[]) : [message];
  const ids: (string | number | null)[] = [];
  for (const m of members) {
    if (typeof m !== 'object' || m === null || !Object.hasOwn(m, 'id')) continue;
    const id = (m as { id: unknown }).id;
    if (id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))
      ids.push(id);
  }
  return ids;
}

/** Adds `delta` to a count, forgetting a name whose count reaches 0 (the maps hold open sockets only). */
function adjust(counts: Map<string, number>, name: string, delta: number): void {
  const n = (counts.get(name) ?? 0) + delta;
  if (n > 0) counts.set(name, n);
  else counts.delete(name);
}

/**
 * JSON-RPC 2.0 on a WebSocket at /rpc: one text message is one request or one batch, answered with
 * one message (none for notifications), through the same dispatcher and envelope rules as HTTP.
 * Calls on one socket run concurrently, as batch members do; calls on one session still serialise
 * on its lock. The handshake needs the API key in a header (a browser page cannot set one) and is
 * refused when it carries an Origin, so no web page can open it.
 */
export class RpcSocketEndpoint {
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<OpenSocket>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly limits: EdgeLimits;
  /** Open sockets by key digest and by address, for the per-key and per-address caps. */
  private readonly openPerKey = new Map<string, number>();
  private readonly openPerAddress = new Map<string, number>();

  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly options: RpcSocketOptions,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayloadBytes,
      clientTracking: false,
      perMessageDeflate: false,
    });
    this.limits = new EdgeLimits(options.apiKeys, options.rateLimitMax, options.rateLimitWindowMs);
    this.heartbeat = setInterval(() => this.sweep(), KEEPALIVE.pingMs);
    this.heartbeat.unref();
  }

  /** The upgrade handler for RPC_SOCKET_PATH (see UpgradeRouter). */
  readonly handleUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { logger } = this.options;
    const remoteAddress = clientAddress(req, this.options.trustProxy);
    const addressId = EdgeLimits.addressId(remoteAddress);
    const refused = (reason: RefusalReason, status: number, logged = false): void =>
      this.options.refusals?.record(
        { reason, route: RPC_SOCKET_PATH, path: RPC_SOCKET_PATH, address: addressId, status },
        { logged },
      );
    // Refused first and for free: a page in the service's own browser must not spend the address's budget.
    if (req.headers.origin !== undefined) {
      logger.warn(
        { origin: req.headers.origin.slice(0, 200), remoteAddress },
        'rpc socket refused: browser origin',
      );
      refused('origin', 403, true);
      refuseUpgrade(socket, 403, 'Browser origins may not open the /rpc WebSocket.');
      return;
    }
    // A handshake without a valid key spends the address's budget, never a key's (see EdgeLimits).
    const key = presentedKeyIn(headerReader(req.headers));
    const admitted = this.limits.admit(addressId, key);
    if (!('keyId' in admitted)) {
      const status = edgeStatus(admitted, RPC_SOCKET_PATH, []);
      refused(admitted.reason, status);
      refuseUpgrade(socket, status, admitted.message, undefined, {
        ...rateLimitFields(admitted.budget),
        ...(status === 429 ? { 'Retry-After': String(wholeSeconds(admitted.budget.resetMs)) } : {}),
      });
      return;
    }
    if (this.sockets.size >= MAX_RPC_SOCKETS) {
      refuseUpgrade(socket, 503, `Too many /rpc sockets (${MAX_RPC_SOCKETS}); retry later.`);
      return;
    }
    const { keyId } = admitted;
    const { maxSocketsPerKey, maxSocketsPerAddress } = this.options;
    if ((this.openPerKey.get(keyId) ?? 0) >= maxSocketsPerKey) {
      refused('socket_limit', 429);
      refuseUpgrade(
        socket,
        429,
        `Too many open /rpc sockets for this API key (MAX_RPC_SOCKETS_PER_KEY = ${maxSocketsPerKey}); close one first.`,
      );
      return;
    }
    if ((this.openPerAddress.get(addressId) ?? 0) >= maxSocketsPerAddress) {
      refused('socket_limit', 429);
      refuseUpgrade(
        socket,
        429,
        `Too many open /rpc sockets from this address (MAX_RPC_SOCKETS_PER_ADDRESS = ${maxSocketsPerAddress}); close one first.`,
      );
      return;
    }
    // Admitted, so the key is one of the configured ones.
    const principal = principalFor(key ?? '', this.options.adminApiKey);
    this.wss.handleUpgrade(req, socket, head, (ws) =>
      this.serve(ws, remoteAddress, addressId, keyId, principal),
    );
  };

  private serve(
    ws: WebSocket,
    remoteAddress: string,
    addressId: string,
    keyId: string,
    principal: Principal,
  ): void {
    const open: OpenSocket = {
      ws,
      remoteAddress,
      lastSeen: Date.now(),
      closed: new Promise<void>((resolve) => ws.once('close', () => resolve())),
    };
    this.sockets.add(open);
    adjust(this.openPerKey, keyId, 1);
    adjust(this.openPerAddress, addressId, 1);
    // Every call of this socket shares one signal: the socket closing means its caller has gone.
    const gone = new AbortController();
    // Up to MAX_SOCKET_INFLIGHT calls share it, each running idleFor adding a listener.
    setMaxListeners(0, gone.signal);
    ws.once('close', () => gone.abort());
    // session.subscribe's notifications go out on this socket; its subscriptions end with it.
    const push = new SocketPush(ws, gone.signal);
    let inflight = 0;
    const log = this.options.logger.child({ transport: 'ws', remoteAddress, principal: principal.id });
    /** Sends an answer; `done` runs once it has left the process (or could not be sent). */
    const send = (
      response: JsonRpcResponse | JsonRpcResponse[],
      done: () => void = () => undefined,
    ): void => {
      if (ws.readyState !== ws.OPEN) {
        done();
        return;
      }
      // A client that does not read its answers is cut rather than buffered for without end.
      if (ws.bufferedAmount > MAX_SOCKET_BUFFERED_BYTES) {
        log.warn({ bufferedBytes: ws.bufferedAmount }, 'rpc socket not reading its answers; closing it');
        ws.close(1008, 'answers are not being read');
        done();
        return;
      }
      ws.send(JSON.stringify(response), (error) => {
        if (error !== undefined && error !== null) log.debug({ err: error }, 'rpc socket send failed');
        done();
      });
    };
    const refuse = (message: unknown, text: string, data: Record<string, unknown>): void => {
      const ids = idsOf(message);
      const answers = ids.map((id) => errorResponse(id, 'LIMIT_REACHED', text, data));
      if (answers.length === 1 && !Array.isArray(message)) send(answers[0] as JsonRpcResponse);
      else if (answers.length > 0) send(answers);
    };
    const rateLimited = (message: unknown): void =>
      refuse(message, 'Rate limit reached (RATE_LIMIT_MAX per key); retry later.', {
        limit: 'RATE_LIMIT_MAX',
        retryAfterMs: this.limits.keyRefusal(keyId).retryAfterMs,
      });

    ws.on('pong', () => (open.lastSeen = Date.now()));
    ws.on('error', (error) => log.debug({ err: error }, 'rpc socket error'));
    ws.once('close', () => {
      this.sockets.delete(open);
      adjust(this.openPerKey, keyId, -1);
      adjust(this.openPerAddress, addressId, -1);
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      open.lastSeen = Date.now();
      // Every message costs its key one use, junk included; a batch costs one per member (below).
      // The socket is authenticated, so the address's budget (traffic without a key) is not spent.
      let allowed = this.limits.takeForKey(keyId, 1);
      if (isBinary) {
        send(errorResponse(null, 'INVALID_REQUEST', 'Invalid request: send JSON-RPC as text frames'));
        return;
      }
      let message: unknown;
      try {
        const bytes = Buffer.isBuffer(data)
          ? data
          : Array.isArray(data)
            ? Buffer.concat(data)
            : Buffer.from(data);
        message = JSON.parse(bytes.toString('utf8'));
      } catch {
        send(errorResponse(null, 'PARSE_ERROR'));
        return;
      }
      const extra = Array.isArray(message) ? Math.max(0, message.length - 1) : 0;
      allowed = this.limits.takeForKey(keyId, extra) && allowed;
      if (!allowed) {
        // Refused calls are still answered by id, so no caller waits for an answer that never comes.
        rateLimited(message);
        return;
      }
      if (inflight >= MAX_SOCKET_INFLIGHT) {
        refuse(
          message,
          `Too many calls in flight on this socket (${MAX_SOCKET_INFLIGHT}); wait for answers first.`,
          { limit: 'MAX_SOCKET_INFLIGHT', maxInflight: MAX_SOCKET_INFLIGHT },
        );
        return;
      }
      // A call stays in flight until its answer has left the process, so answers a client has not
      // read yet count against the cap too.
      inflight++;
      let answered: () => void = () => undefined;
      const answerSent = new Promise<void>((resolve) => (answered = resolve));
      const finished = (): void => void inflight--;
      const requestId = randomUUID();
      void handleJsonRpcBody(
        message,
        this.dispatcher,
        {
          requestId,
          origin: `ws:${remoteAddress}`,
          log: log.child({ requestId }),
          principal,
          signal: gone.signal,
          push: push.forCall(answerSent),
        },
        this.options.batchMax,
      )
        .catch((error: unknown): JsonRpcResponse => {
          // handleJsonRpcBody answers every failure itself; reaching here is a bug worth a log line.
          log.error({ err: error }, 'rpc socket call failed outside the envelope');
          return errorResponse(null, 'INTERNAL_ERROR');
        })
        .then((response) => {
          if (response === undefined) finished();
          else send(response, finished);
          // ws.send queues in order: a notification sent from now on follows the answer.
          answered();
        })
        .catch((error: unknown) => log.error({ err: error }, 'rpc socket answer could not be sent'));
    });
  }

  /** Pings every socket; one silent for longer than KEEPALIVE.timeoutMs is cut. */
  private sweep(): void {
    const now = Date.now();
    for (const open of this.sockets) {
      if (now - open.lastSeen > KEEPALIVE.timeoutMs) open.ws.terminate();
      else open.ws.ping();
    }
  }

  /** Closes every socket (1001 going away), cutting those that do not finish in time. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const open = [...this.sockets];
    for (const s of open) s.ws.close(1001, 'service shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(open.map((s) => s.closed)),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    for (const s of this.sockets) s.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
