import { WebSocket, type RawData } from 'ws';
import type { AgentRegistry } from './agentRegistry.js';
import type { AgentLink } from './hubTypes.js';
import type { Logger } from '../observability/logger.js';
import { AGENT_DROP_WINDOW_MS, AGENT_FRAME_RATE_PER_S, FrameRateLimit } from './frameRateLimit.js';
import {
  BINARY_MESSAGE,
  CLOSE_POLICY,
  invalidMessageFrame,
  methodNotFoundFrame,
  pongFrame,
  registrationAcceptedFrame,
  registrationRejectedFrame,
  replyOf,
  welcomeFrame,
  type AgentMessage,
  type HubFrame,
  type ProtocolParser,
  type RegisterMessage,
} from './protocol.js';

/** A connection must register within this long, or it is closed: an idle socket holds a slot for nothing. */
export const REGISTER_TIMEOUT_MS = 10_000;
/** A status message is kept for agents.list: cut so an agent cannot park megabytes there. */
const MAX_STATUS_MESSAGE_CHARS = 1000;
/** What a ready before register is told: the hub has no agent on that connection to make ready. */
export const READY_BEFORE_REGISTER =
  'ready before register: send register, wait for its accepted registration_ack, then ready';

export interface AgentConnectionOptions {
  serverId: string;
  parser: ProtocolParser;
  registry: AgentRegistry;
  logger: Logger;
  /** The register was accepted: the endpoint stops counting the socket as unregistered. */
  onRegistered?: () => void;
}

/**
 * One agent WebSocket speaking seed 001: `welcome` on connect, `register` → `registration_ack`,
 * `ready`, `status`, `ping` → `pong`, and JSON-RPC 2.0 both ways. It translates frames into
 * registry calls and back; the registry never sees the socket.
 */
export class AgentConnection implements AgentLink {
  readonly remoteAddress: string;
  /** Last sign of life (a frame or a pong), for the endpoint's heartbeat. */
  lastSeen = Date.now();
  /** Settles when the socket has closed, whoever closed it. */
  readonly closed: Promise<void>;
  private clientId: string | undefined;
  private registerTimer: NodeJS.Timeout | undefined;
  private readonly limit = new FrameRateLimit();

  constructor(
    private readonly ws: WebSocket,
    remoteAddress: string,
    private readonly options: AgentConnectionOptions,
  ) {
    this.remoteAddress = remoteAddress;
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('pong', () => this.alive());
    ws.on('ping', () => this.alive());
    ws.on('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
    // ws reports frame errors (a frame over maxPayload: 1009, bad UTF-8: 1007) here, then closes.
    ws.on('error', (error) =>
      this.options.logger.info(
        { clientId: this.clientId, remoteAddress, err: { message: error.message } },
        'agent connection error',
      ),
    );
    this.registerTimer = setTimeout(
      () => this.close(CLOSE_POLICY, `register within ${REGISTER_TIMEOUT_MS} ms`),
      REGISTER_TIMEOUT_MS,
    );
    this.send(welcomeFrame(options.serverId));
  }

  send(frame: HubFrame): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify(frame), (error) => {
      if (error !== undefined && error !== null) {
        this.options.logger.debug(
          { clientId: this.clientId, err: { message: error.message } },
          'agent send failed',
        );
      }
    });
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  ping(): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.ping();
  }

  terminate(): void {
    this.ws.terminate();
  }

  private alive(): void {
    this.lastSeen = Date.now();
  }

  /** Whether this frame may be read: past the rate it is dropped unread, and a sustained flood closes the socket. */
  private admit(): boolean {
    const verdict = this.limit.admit();
    if (verdict === 'take') return true;
    const { logger } = this.options;
    const where = { clientId: this.clientId, remoteAddress: this.remoteAddress, dropped: this.limit.dropped };
    if (verdict === 'abuse') {
      if (this.ws.readyState === WebSocket.OPEN) {
        logger.warn(where, 'agent kept flooding frames past the rate limit; closing its connection');
        this.close(CLOSE_POLICY, `more than ${AGENT_FRAME_RATE_PER_S} frames per second, sustained`);
      }
    } else if (this.limit.firstDropOfWindow) {
      logger.warn(
        { ...where, windowMs: AGENT_DROP_WINDOW_MS },
        'agent sends frames past the rate limit; dropping them',
      );
    }
    return false;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    this.alive();
    if (!this.admit()) return;
    const { registry, logger } = this.options;
    const parsed = isBinary ? BINARY_MESSAGE : this.options.parser.parse(rawText(data));
    switch (parsed.kind) {
      case 'register':
        this.onRegister(parsed.message);
        return;
      case 'ready':
        if (!registry.ready(this)) {
          logger.info({ remoteAddress: this.remoteAddress }, 'agent sent ready before register');
          this.send(invalidMessageFrame(READY_BEFORE_REGISTER, 'ready'));
        }
        return;
      case 'status': {
        const { evaluationId, status, progress, message } = parsed.message;
        registry.status(this, {
          evaluationId: evaluationId ?? null,
          status,
          progress: progress ?? null,
          message: message === undefined ? null : message.slice(0, MAX_STATUS_MESSAGE_CHARS),
        });
        return;
      }
      case 'ping':
        this.send(pongFrame());
        return;
      case 'response': {
        const m = parsed.message;
        if (registry.reply(this, String(m.id), replyOf(m))) this.limit.refund();
        else logger.info({ clientId: this.clientId, id: m.id }, 'agent answered a call that no longer waits');
        return;
      }
      case 'request':
        if (parsed.id !== undefined) this.send(methodNotFoundFrame(parsed.id, parsed.method));
        return;
      case 'malformed':
        this.onMalformed(parsed);
        return;
    }
  }

  private onRegister(message: RegisterMessage): void {
    const { registry, logger } = this.options;
    const outcome = registry.register(this, {
      clientId: message.clientId,
      secretKey: message.secretKey,
      capabilities: {
        tools: [...new Set(message.capabilities.tools)],
        maxConcurrency: message.capabilities.maxConcurrency ?? 1,
        version: message.capabilities.version ?? '',
      },
    });
    if (outcome.accepted) {
      clearTimeout(this.registerTimer);
      this.clientId = message.clientId;
      this.options.onRegistered?.();
      this.send(registrationAcceptedFrame(message.clientId, outcome.evaluationsCount));
      return;
    }
    logger.warn(
      { clientId: message.clientId.slice(0, 64), remoteAddress: this.remoteAddress, reason: outcome.reason },
      'agent registration rejected',
    );
    this.reject(message.clientId, outcome.reason);
  }

  /**
   * Before registration a malformed message ends the connection. After it the connection stays and
   * the agent is told what was wrong, so an agent whose ready was refused does not wait for
   * evaluations that never come; a malformed JSON-RPC response is only logged (a response is never
   * answered, or two confused peers could answer each other forever).
   */
  private onMalformed(message: Extract<AgentMessage, { kind: 'malformed' }>): void {
    const { reason } = message;
    this.options.logger.warn(
      { clientId: this.clientId, remoteAddress: this.remoteAddress, reason },
      'malformed message from an agent',
    );
    if (this.clientId === undefined) this.reject(null, reason);
    else if (message.response !== true)
      this.send(invalidMessageFrame(reason, message.type, message.notJson === true));
  }

  private reject(clientId: string | null, reason: string): void {
    // An already registered connection keeps its registration: only the second register is refused.
    const registered = this.clientId !== undefined;
    this.send(registrationRejectedFrame(clientId, reason));
    if (!registered) this.close(CLOSE_POLICY, 'registration rejected');
  }

  private onClose(code: number, reason: string): void {
    clearTimeout(this.registerTimer);
    if (this.limit.dropped > 0) {
      this.options.logger.info(
        { clientId: this.clientId, remoteAddress: this.remoteAddress, dropped: this.limit.dropped },
        'agent frames dropped by the rate limit over the connection',
      );
    }
    this.options.registry.disconnected(
      this,
      `closed with ${code}${reason ? ` (${reason.slice(0, 100)})` : ''}`,
    );
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
