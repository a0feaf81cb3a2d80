import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import {
  AgentBusyError,
  AgentCallError,
  AgentNotFoundError,
  AgentUnavailableError,
  EvaluationTimeoutError,
  UnknownToolError,
  errorCodeOf,
} from './hubErrors.js';
import type { EvaluationLog } from './evaluationLog.js';

/** The agent's own timeout error says more than ours, so the hub waits this much longer than it told the agent. */
export const TIMEOUT_MARGIN_MS = 1000;
/** Past this many evaluations waiting for a slot, new ones are refused at once: the queue is memory. */
export const MAX_QUEUED_EVALUATIONS = 1000;
/** What LIMIT_REACHED suggests: a slot frees when an evaluation ends, rarely much sooner. */
const BUSY_RETRY_AFTER_MS = 1000;
/** What RESOURCE_UNAVAILABLE suggests after an agent went away: long enough for a reconnect. */
const UNAVAILABLE_RETRY_AFTER_MS = 5000;
/** An agent's result status is copied into the evaluation log: cut so it cannot write long lines. */
const MAX_LOGGED_STATUS_CHARS = 40;
/** WebSocket close code for a connection displaced by a newer one with the same clientId (4000-4999: application). */
export const CLOSE_REPLACED = 4000;

/** RFC 4122 UUIDs, any version (seed 001 asks for v4; older agents use others). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export interface AgentCapabilities {
  tools: string[];
  maxConcurrency: number;
  version: string;
}

/** The transport side of one agent connection (a WebSocket in hub/): the registry never sees the socket. */
export interface AgentLink {
  readonly remoteAddress: string;
  /** Sends one JSON message; a link that is closing drops it (its close is on the way). */
  send(message: object): void;
  close(code: number, reason: string): void;
}

export interface RegisterRequest {
  clientId: string;
  secretKey: string | undefined;
  capabilities: AgentCapabilities;
}

export type RegisterOutcome =
  { accepted: true; evaluationsCount: number; replaced: boolean } | { accepted: false; reason: string };

export interface StatusUpdate {
  evaluationId: string | null;
  status: string;
  progress: number | null;
  message: string | null;
  receivedAt: string;
}

export type AgentState = 'connected' | 'ready' | 'busy';

export interface AgentInfo {
  clientId: string;
  /** connected: registered, no ready yet; ready: has a free slot; busy: every maxConcurrency slot taken. */
  status: AgentState;
  capabilities: AgentCapabilities;
  inFlight: number;
  connectedAt: string;
  remoteAddress: string;
  lastStatus: StatusUpdate | null;
}

export interface EvaluateRequest {
  clientId?: string | undefined;
  tool: string;
  input: unknown;
  url?: string | undefined;
  name?: string | undefined;
  evaluationId?: string | undefined;
  /** Milliseconds the agent is given (sent as the seed's `timeout`). */
  timeout: number;
  metadata?: unknown;
  /** Seed 000's tiered model settings; passed to the agent, never logged. */
  model?: unknown;
}

export interface EvaluationAnswer {
  clientId: string;
  evaluationId: string;
  /** The agent's JSON-RPC result, unchanged. */
  result: unknown;
}

/** What an agent answered to one JSON-RPC call. */
export type AgentReply =
  { ok: true; result: unknown } | { ok: false; code: number; message: string; data: unknown };

export interface AgentRegistryOptions {
  /** AGENT_SECRET: when set, every register must present it. */
  agentSecret: string | undefined;
  /** How long evaluations in flight wait for their dropped agent to re-register. */
  reconnectGraceMs: number;
  /** How long an evaluation waits for a free slot before LIMIT_REACHED. */
  queueTimeoutMs: number;
}

/** The bounded label set of agent_evaluations_total. */
export type EvaluationOutcome = 'success' | 'failed' | 'timeout' | 'unavailable' | 'rejected';

export interface AgentHooks {
  connectedChanged?: (connected: number) => void;
  evaluationFinished?: (outcome: EvaluationOutcome) => void;
}

type CallMethod = 'evaluate' | 'configure_llm';

interface PendingCall {
  readonly id: string;
  readonly method: CallMethod;
  readonly params: Record<string, unknown>;
  readonly evaluationId: string | undefined;
  /** When the hub gives up (epoch ms). */
  readonly deadline: number;
  /** Sent on the agent's current connection; false while it is away or was replaced. */
  sent: boolean;
  /** Times sent: the first carries the caller's timeout as given, a re-send the time left. */
  sends: number;
  settle(reply: AgentReply | Error): void;
}

interface Agent {
  readonly clientId: string;
  link: AgentLink | undefined;
  /** Digest of the secret key it registered with: only the same key may take the clientId over. */
  secret: Buffer | undefined;
  capabilities: AgentCapabilities;
  ready: boolean;
  connectedAt: Date;
  remoteAddress: string;
  lastStatus: StatusUpdate | undefined;
  /** Evaluation slots taken, reserved or in flight; at most capabilities.maxConcurrency. */
  slots: number;
  readonly calls: Map<string, PendingCall>;
  grace: NodeJS.Timeout | undefined;
}

interface Waiter {
  readonly request: EvaluateRequest;
  grant(agent: Agent): void;
  refuse(error: Error): void;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant time whatever the lengths: both sides are digests. */
function sameSecret(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a !== undefined && b !== undefined && timingSafeEqual(a, b);
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

function jsonBytes(value: unknown): number | null {
  if (value === undefined) return null;
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/**
 * The connected evaluation agents and every call in flight to them: registration (with the secret
 * and the same-clientId replacement rule), routing of evaluations to a ready agent offering the tool
 * under its maxConcurrency (bounded queue), timeouts, and the reconnection grace in which evaluations
 * in flight are re-sent to their returning agent. No caller waits forever: every wait has a timer.
 */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();
  private readonly byLink = new Map<AgentLink, Agent>();
  private waiters: Waiter[] = [];
  private nextCallId = 0;
  private readonly secret: Buffer | undefined;

  constructor(
    private readonly options: AgentRegistryOptions,
    private readonly evaluationLog: EvaluationLog,
    private readonly logger: Logger,
    private readonly hooks: AgentHooks = {},
  ) {
    this.secret = options.agentSecret === undefined ? undefined : digest(options.agentSecret);
  }

  /** Agents with a live connection. */
  get connectedCount(): number {
    return this.byLink.size;
  }

  register(link: AgentLink, request: RegisterRequest): RegisterOutcome {
    const { clientId } = request;
    if (!UUID_RE.test(clientId)) {
      return { accepted: false, reason: `Invalid clientId ${clip(clientId, 64)}: it must be a UUID` };
    }
    const presented = request.secretKey === undefined ? undefined : digest(request.secretKey);
    if (this.secret !== undefined && !sameSecret(this.secret, presented)) {
      return {
        accepted: false,
        reason: request.secretKey === undefined ? 'Missing secret key' : 'Invalid secret key',
      };
    }
    const current = this.byLink.get(link);
    if (current !== undefined) {
      return { accepted: false, reason: `This connection is already registered as ${current.clientId}` };
    }
    let agent = this.agents.get(clientId);
    let replaced = false;
    if (agent === undefined) {
      agent = {
        clientId,
        link,
        secret: presented,
        capabilities: request.capabilities,
        ready: false,
        connectedAt: new Date(),
        remoteAddress: link.remoteAddress,
        lastStatus: undefined,
        slots: 0,
        calls: new Map(),
        grace: undefined,
      };
      this.agents.set(clientId, agent);
    } else {
      // Without AGENT_SECRET, the key a clientId first came with is what proves a newcomer is the same agent.
      if (agent.secret !== undefined && !sameSecret(agent.secret, presented)) {
        return {
          accepted: false,
          reason: 'This clientId is registered with another secret key; only the same key may replace it',
        };
      }
      const old = agent.link;
      if (old !== undefined) {
        this.byLink.delete(old);
        this.loseLink(agent);
        old.close(CLOSE_REPLACED, 'replaced by a new connection with the same clientId');
        replaced = true;
      }
      clearTimeout(agent.grace);
      agent.grace = undefined;
      agent.link = link;
      agent.secret ??= presented;
      agent.capabilities = request.capabilities;
      agent.connectedAt = new Date();
      agent.remoteAddress = link.remoteAddress;
    }
    this.byLink.set(link, agent);
    this.hooks.connectedChanged?.(this.connectedCount);
    const evaluationsCount = this.evaluationsOf(agent).length;
    this.logger.info(
      {
        clientId,
        remoteAddress: link.remoteAddress,
        tools: request.capabilities.tools,
        maxConcurrency: request.capabilities.maxConcurrency,
        version: request.capabilities.version,
        replaced,
        evaluationsCount,
      },
      replaced ? 'agent registered, replacing its previous connection' : 'agent registered',
    );
    return { accepted: true, evaluationsCount, replaced };
  }

  /** The agent takes evaluations: the ones it had in flight when it dropped go again first. */
  ready(link: AgentLink): boolean {
    const agent = this.byLink.get(link);
    if (agent === undefined) return false;
    agent.ready = true;
    for (const call of agent.calls.values()) if (!call.sent) this.transmit(agent, call);
    this.drain();
    return true;
  }

  status(link: AgentLink, update: Omit<StatusUpdate, 'receivedAt'>): boolean {
    const agent = this.byLink.get(link);
    if (agent === undefined) return false;
    agent.lastStatus = { ...update, receivedAt: new Date().toISOString() };
    return true;
  }

  /** A JSON-RPC response from the agent; false when no call waits for that id (late, or never sent). */
  reply(link: AgentLink, id: string, reply: AgentReply): boolean {
    const call = this.byLink.get(link)?.calls.get(id);
    if (call === undefined) return false;
    call.settle(reply);
    return true;
  }

  /** The connection closed: evaluations in flight wait for the agent to come back, within the grace. */
  disconnected(link: AgentLink, why: string): void {
    const agent = this.byLink.get(link);
    if (agent === undefined) return;
    this.byLink.delete(link);
    this.loseLink(agent);
    this.hooks.connectedChanged?.(this.connectedCount);
    const waiting = this.evaluationsOf(agent).length;
    this.logger.info({ clientId: agent.clientId, why, evaluationsInFlight: waiting }, 'agent disconnected');
    if (waiting === 0) {
      this.agents.delete(agent.clientId);
      return;
    }
    agent.grace = setTimeout(() => this.expire(agent), this.options.reconnectGraceMs);
  }

  list(): AgentInfo[] {
    const out: AgentInfo[] = [];
    for (const agent of this.agents.values()) {
      if (agent.link === undefined) continue;
      out.push({
        clientId: agent.clientId,
        status: !agent.ready
          ? 'connected'
          : agent.slots >= agent.capabilities.maxConcurrency
            ? 'busy'
            : 'ready',
        capabilities: {
          tools: [...agent.capabilities.tools],
          maxConcurrency: agent.capabilities.maxConcurrency,
          version: agent.capabilities.version,
        },
        inFlight: agent.slots,
        connectedAt: agent.connectedAt.toISOString(),
        remoteAddress: agent.remoteAddress,
        lastStatus: agent.lastStatus ?? null,
      });
    }
    return out;
  }

  /**
   * Runs one evaluation on a ready agent offering the tool (the named one, or the least loaded),
   * waiting at most the queue timeout for a slot, then at most `timeout` (+ margin) for the answer.
   */
  async evaluate(request: EvaluateRequest): Promise<EvaluationAnswer> {
    const started = Date.now();
    const evaluationId = request.evaluationId ?? `eval-${randomUUID()}`;
    let agent: Agent | undefined;
    try {
      agent = await this.acquire(request);
      const params: Record<string, unknown> = { evaluationId };
      if (request.name !== undefined) params.name = request.name;
      if (request.url !== undefined) params.url = request.url;
      params.tool = request.tool;
      params.input = request.input;
      params.timeout = request.timeout;
      if (request.metadata !== undefined) params.metadata = request.metadata;
      if (request.model !== undefined) params.model = request.model;
      const result = await this.call(agent, 'evaluate', params, request.timeout, evaluationId);
      this.finished(request, evaluationId, agent.clientId, started, { result });
      return { clientId: agent.clientId, evaluationId, result };
    } catch (error) {
      this.finished(request, evaluationId, agent?.clientId ?? request.clientId ?? null, started, { error });
      throw error;
    } finally {
      if (agent !== undefined) {
        agent.slots--;
        this.drain();
      }
    }
  }

  /** Forwards seed 000's configure_llm to a connected agent and returns its answer. */
  async configureLLM(clientId: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const agent = this.agents.get(clientId);
    if (agent?.link === undefined) {
      throw new AgentNotFoundError(
        clientId,
        this.connectedIds(),
        `No agent with clientId ${clientId} is connected.`,
      );
    }
    return this.call(agent, 'configure_llm', params, timeoutMs, undefined);
  }

  /** The hub is stopping: every waiting caller gets RESOURCE_UNAVAILABLE now. */
  close(): void {
    const stopping = (clientId: string, evaluationId: string | undefined) =>
      new AgentUnavailableError(
        clientId,
        evaluationId,
        UNAVAILABLE_RETRY_AFTER_MS,
        'The service is shutting down; retry against the restarted service.',
      );
    for (const waiter of this.waiters) waiter.refuse(stopping(waiter.request.clientId ?? '', undefined));
    this.waiters = [];
    for (const agent of this.agents.values()) {
      clearTimeout(agent.grace);
      for (const call of [...agent.calls.values()]) call.settle(stopping(agent.clientId, call.evaluationId));
    }
    this.agents.clear();
    this.byLink.clear();
    this.hooks.connectedChanged?.(0);
  }

  private connectedIds(): string[] {
    return [...this.byLink.values()].map((a) => a.clientId);
  }

  private evaluationsOf(agent: Agent): PendingCall[] {
    return [...agent.calls.values()].filter((c) => c.method === 'evaluate');
  }

  /** Its connection is gone: evaluations wait to be re-sent; a configure_llm fails (it was a one-off). */
  private loseLink(agent: Agent): void {
    agent.link = undefined;
    agent.ready = false;
    for (const call of [...agent.calls.values()]) {
      if (call.method === 'evaluate') {
        call.sent = false;
        continue;
      }
      call.settle(
        new AgentUnavailableError(
          agent.clientId,
          undefined,
          UNAVAILABLE_RETRY_AFTER_MS,
          `Agent ${agent.clientId} disconnected before it answered ${call.method}; retry when it is back (agents.list).`,
        ),
      );
    }
  }

  /** The grace ran out without the agent coming back: its evaluations fail and it is forgotten. */
  private expire(agent: Agent): void {
    clearTimeout(agent.grace);
    agent.grace = undefined;
    if (agent.link !== undefined) return;
    for (const call of [...agent.calls.values()]) {
      call.settle(
        new AgentUnavailableError(
          agent.clientId,
          call.evaluationId,
          UNAVAILABLE_RETRY_AFTER_MS,
          `Agent ${agent.clientId} disconnected during evaluation ${call.evaluationId ?? ''} and did not come back within ${this.options.reconnectGraceMs} ms (AGENT_RECONNECT_GRACE_MS); run it again.`,
        ),
      );
    }
    if (this.agents.get(agent.clientId) === agent) this.agents.delete(agent.clientId);
  }

  /** The agents that could run this evaluation now or once a slot frees, or the error saying why none can. */
  private candidates(request: EvaluateRequest): Agent[] | Error {
    const { clientId, tool } = request;
    if (clientId !== undefined) {
      const agent = this.agents.get(clientId);
      if (agent?.link === undefined) {
        return new AgentNotFoundError(
          clientId,
          this.connectedIds(),
          `No agent with clientId ${clientId} is connected.`,
        );
      }
      if (!agent.ready) {
        return new AgentNotFoundError(
          clientId,
          this.connectedIds(),
          `Agent ${clientId} is connected but has not sent ready yet.`,
        );
      }
      if (!agent.capabilities.tools.includes(tool))
        return new UnknownToolError(tool, clientId, agent.capabilities.tools);
      return [agent];
    }
    const ready = [...this.byLink.values()].filter((a) => a.ready);
    if (ready.length === 0)
      return new AgentNotFoundError(undefined, this.connectedIds(), 'No ready agent is connected.');
    const offering = ready.filter((a) => a.capabilities.tools.includes(tool));
    if (offering.length === 0) {
      return new UnknownToolError(
        tool,
        undefined,
        [...new Set(ready.flatMap((a) => a.capabilities.tools))].sort(),
      );
    }
    return offering;
  }

  /** The least loaded candidate with a free slot, its slot taken; undefined when all are full or none fits. */
  private take(request: EvaluateRequest): Agent | undefined {
    const found = this.candidates(request);
    if (found instanceof Error) return undefined;
    let best: Agent | undefined;
    for (const agent of found) {
      const load = agent.slots / agent.capabilities.maxConcurrency;
      if (agent.slots >= agent.capabilities.maxConcurrency) continue;
      if (best === undefined || load < best.slots / best.capabilities.maxConcurrency) best = agent;
    }
    if (best !== undefined) best.slots++;
    return best;
  }

  private acquire(request: EvaluateRequest): Promise<Agent> {
    const found = this.candidates(request);
    if (found instanceof Error) return Promise.reject(found);
    const agent = this.take(request);
    if (agent !== undefined) return Promise.resolve(agent);
    const waitMs = Math.min(this.options.queueTimeoutMs, request.timeout);
    const busy = (detail: string) => new AgentBusyError(request.clientId, BUSY_RETRY_AFTER_MS, detail);
    const who =
      request.clientId === undefined
        ? `every agent offering ${request.tool} is`
        : `agent ${request.clientId} is`;
    if (this.waiters.length >= MAX_QUEUED_EVALUATIONS) {
      return Promise.reject(
        busy(
          `${MAX_QUEUED_EVALUATIONS} evaluations already wait for a slot and ${who} at its maxConcurrency; retry later.`,
        ),
      );
    }
    if (waitMs === 0) return Promise.reject(busy(`${who} at its maxConcurrency; retry later.`));
    this.logger.info(
      { clientId: request.clientId, tool: request.tool, waitMs, queued: this.waiters.length + 1 },
      'evaluation waits for a free agent slot',
    );
    return new Promise<Agent>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const now = this.candidates(request);
        reject(
          now instanceof Error
            ? now
            : busy(
                `${who} at its maxConcurrency: no slot freed within ${waitMs} ms (AGENT_QUEUE_TIMEOUT_MS); retry later.`,
              ),
        );
      }, waitMs);
      const waiter: Waiter = {
        request,
        grant: (granted) => {
          clearTimeout(timer);
          resolve(granted);
        },
        refuse: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Hands freed slots to waiting evaluations, oldest first. */
  private drain(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      const agent = this.take(waiter.request);
      if (agent === undefined) still.push(waiter);
      else waiter.grant(agent);
    }
    this.waiters = still;
  }

  private call(
    agent: Agent,
    method: CallMethod,
    params: Record<string, unknown>,
    timeoutMs: number,
    evaluationId: string | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = `${method === 'evaluate' ? 'eval' : 'cfg'}-${++this.nextCallId}`;
      const waitMs = method === 'evaluate' ? timeoutMs + TIMEOUT_MARGIN_MS : timeoutMs;
      const timer = setTimeout(
        () =>
          call.settle(
            new EvaluationTimeoutError(
              agent.clientId,
              evaluationId,
              timeoutMs,
              method === 'evaluate' ? `Evaluation ${evaluationId ?? id}` : method,
            ),
          ),
        waitMs,
      );
      const call: PendingCall = {
        id,
        method,
        params,
        evaluationId,
        deadline: Date.now() + waitMs,
        sent: false,
        sends: 0,
        settle: (reply) => {
          clearTimeout(timer);
          if (agent.calls.get(id) !== call) return;
          agent.calls.delete(id);
          if (reply instanceof Error) reject(reply);
          else if (reply.ok) resolve(reply.result);
          else
            reject(new AgentCallError(agent.clientId, evaluationId, reply.code, reply.message, reply.data));
          if (agent.link === undefined && agent.calls.size === 0 && agent.grace !== undefined) {
            // Nothing is left to re-send: the agent need not be waited for.
            this.expire(agent);
          }
        },
      };
      agent.calls.set(id, call);
      if (agent.link !== undefined && (agent.ready || method !== 'evaluate')) this.transmit(agent, call);
    });
  }

  /** Sends (or re-sends) a call; a re-sent evaluation is given the time its caller has left. */
  private transmit(agent: Agent, call: PendingCall): void {
    const link = agent.link;
    if (link === undefined) return;
    const params =
      call.method === 'evaluate' && call.sends > 0
        ? { ...call.params, timeout: Math.max(1, call.deadline - TIMEOUT_MARGIN_MS - Date.now()) }
        : call.params;
    link.send({ jsonrpc: '2.0', method: call.method, params, id: call.id });
    call.sent = true;
    call.sends++;
  }

  private finished(
    request: EvaluateRequest,
    evaluationId: string,
    clientId: string | null,
    started: number,
    end: { result: unknown } | { error: unknown },
  ): void {
    let status: string;
    let outcome: EvaluationOutcome;
    let errorCode: number | null = null;
    let outputSize: number | null = null;
    if ('result' in end) {
      const result = end.result;
      const isObject = typeof result === 'object' && result !== null && !Array.isArray(result);
      const reported = isObject && 'status' in result ? result.status : undefined;
      status = typeof reported === 'string' ? clip(reported, MAX_LOGGED_STATUS_CHARS) : 'success';
      outcome = status === 'success' ? 'success' : 'failed';
      outputSize = jsonBytes(isObject && 'output' in result ? result.output : result);
    } else {
      const { error } = end;
      errorCode = errorCodeOf(error);
      if (error instanceof EvaluationTimeoutError) [status, outcome] = ['timeout', 'timeout'];
      else if (error instanceof AgentUnavailableError) [status, outcome] = ['unavailable', 'unavailable'];
      else if (error instanceof AgentCallError) [status, outcome] = ['error', 'failed'];
      else [status, outcome] = ['rejected', 'rejected'];
    }
    const duration = Date.now() - started;
    this.evaluationLog.append({
      evaluationId,
      clientId,
      tool: request.tool,
      started: new Date(started).toISOString(),
      duration,
      status,
      errorCode,
      outputSize,
    });
    this.hooks.evaluationFinished?.(outcome);
    this.logger.info(
      { evaluationId, clientId, tool: request.tool, durationMs: duration, status, errorCode, outputSize },
      'agent evaluation',
    );
  }
}
