import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import { clip } from './clip.js';
import { AgentNotFoundError } from './hubErrors.js';
import type {
  Agent,
  AgentHooks,
  AgentInfo,
  AgentLink,
  AgentList,
  RegisterOutcome,
  RegisterRequest,
  StatusUpdate,
} from './hubTypes.js';
import type { PendingCalls } from './pendingCalls.js';
import { CLOSE_REPLACED } from './protocol.js';

/** Tools agents.list shows per agent (with the total count): 250 agents × 200 tools made it 10 MB. */
export const MAX_LISTED_TOOLS = 20;
/** agents.list stops adding agents past this many bytes of JSON (and says so): its answer has a size. */
export const MAX_LIST_BYTES = 1_048_576;

/** RFC 4122 UUIDs, any version (seed 001 asks for v4; older agents use others). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant time whatever the lengths: both sides are digests. */
function sameSecret(a: Buffer, b: Buffer | undefined): boolean {
  return b !== undefined && timingSafeEqual(a, b);
}

/** Why every register fails on a hub started without a secret (main.ts always generates one). */
export const NO_SECRET_REASON =
  'The hub has no AGENT_SECRET configured, so it accepts no agent; set AGENT_SECRET on the service and send it as secretKey';

/**
 * The agents the hub knows: registration (the secret, then the same-clientId replacement rule),
 * ready, status, disconnection, and the agents.list view. An agent that dropped with evaluations in
 * flight stays known while PendingCalls waits for it to come back.
 */
export class AgentDirectory {
  private readonly agents = new Map<string, Agent>();
  private readonly byLink = new Map<AgentLink, Agent>();
  private readonly secret: Buffer | undefined;

  constructor(
    agentSecret: string | undefined,
    private readonly calls: PendingCalls,
    private readonly logger: Logger,
    private readonly hooks: Pick<AgentHooks, 'connectedChanged'>,
  ) {
    // Defence in depth for code that starts the hub without a secret: it never runs open.
    this.secret = agentSecret === undefined || agentSecret === '' ? undefined : digest(agentSecret);
    if (this.secret === undefined)
      logger.warn('the agent hub has no AGENT_SECRET: every agent registration will be refused');
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
    // Only an agent that proved the secret is ever known, so only such an agent gets evaluations
    // or takes a clientId over.
    if (this.secret === undefined) return { accepted: false, reason: NO_SECRET_REASON };
    const presented = request.secretKey === undefined ? undefined : digest(request.secretKey);
    if (!sameSecret(this.secret, presented)) {
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
      const old = agent.link;
      if (old !== undefined) {
        this.byLink.delete(old);
        this.unlink(agent);
        old.close(CLOSE_REPLACED, 'replaced by a new connection with the same clientId');
        replaced = true;
      }
      this.calls.returned(agent);
      agent.link = link;
      agent.capabilities = request.capabilities;
      agent.connectedAt = new Date();
      agent.remoteAddress = link.remoteAddress;
    }
    this.byLink.set(link, agent);
    this.hooks.connectedChanged?.(this.connectedCount);
    const evaluationsCount = this.calls.evaluationCount(agent);
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

  /** The agent on this link now takes evaluations; undefined when the link never registered. */
  ready(link: AgentLink): Agent | undefined {
    const agent = this.byLink.get(link);
    if (agent !== undefined) agent.ready = true;
    return agent;
  }

  status(link: AgentLink, update: Omit<StatusUpdate, 'receivedAt'>): boolean {
    const agent = this.byLink.get(link);
    if (agent === undefined) return false;
    agent.lastStatus = { ...update, receivedAt: new Date().toISOString() };
    return true;
  }

  /** The agent registered on this link, if any. */
  linked(link: AgentLink): Agent | undefined {
    return this.byLink.get(link);
  }

  /** The connection closed: evaluations in flight wait for the agent to come back, within the grace. */
  disconnected(link: AgentLink, why: string): void {
    const agent = this.byLink.get(link);
    if (agent === undefined) return;
    this.byLink.delete(link);
    this.unlink(agent);
    this.hooks.connectedChanged?.(this.connectedCount);
    const waiting = this.calls.evaluationCount(agent);
    this.logger.info({ clientId: agent.clientId, why, evaluationsInFlight: waiting }, 'agent disconnected');
    if (waiting === 0) {
      this.agents.delete(agent.clientId);
      return;
    }
    this.calls.awaitReturn(agent);
  }

  /** The connected agents, each with at most MAX_LISTED_TOOLS tools, up to MAX_LIST_BYTES of JSON. */
  list(): AgentList {
    const agents: AgentInfo[] = [];
    let total = 0;
    let bytes = 0;
    for (const agent of this.agents.values()) {
      if (agent.link === undefined) continue;
      total++;
      const { tools, maxConcurrency, version } = agent.capabilities;
      const info: AgentInfo = {
        clientId: agent.clientId,
        status: !agent.ready ? 'connected' : agent.slots >= maxConcurrency ? 'busy' : 'ready',
        capabilities: {
          tools: tools.slice(0, MAX_LISTED_TOOLS),
          toolCount: tools.length,
          maxConcurrency,
          version,
        },
        inFlight: agent.slots,
        connectedAt: agent.connectedAt.toISOString(),
        remoteAddress: agent.remoteAddress,
        lastStatus: agent.lastStatus ?? null,
      };
      const size = Buffer.byteLength(JSON.stringify(info)) + 1;
      if (bytes + size > MAX_LIST_BYTES) continue;
      bytes += size;
      agents.push(info);
    }
    return { agents, total, truncated: agents.length < total };
  }

  /** The connected agent with this clientId, or the error that names the connected ones. */
  connectedAgent(clientId: string): Agent | AgentNotFoundError {
    const agent = this.agents.get(clientId);
    if (agent?.link !== undefined) return agent;
    return new AgentNotFoundError(
      clientId,
      this.connectedIds(),
      `No agent with clientId ${clientId} is connected.`,
    );
  }

  /** Agents with a live connection, in the order they connected. */
  connected(): Agent[] {
    return [...this.byLink.values()];
  }

  connectedIds(): string[] {
    return this.connected().map((a) => a.clientId);
  }

  /** Every agent known, connected or waited for. */
  all(): IterableIterator<Agent> {
    return this.agents.values();
  }

  /** Drops an agent that is no longer waited for, unless a newer registration took its clientId. */
  forget(agent: Agent): void {
    if (this.agents.get(agent.clientId) === agent) this.agents.delete(agent.clientId);
  }

  /** The hub is stopping: no agent is known any more. */
  clear(): void {
    this.agents.clear();
    this.byLink.clear();
    this.hooks.connectedChanged?.(0);
  }

  /** Its connection is gone (closed or replaced): it takes nothing until it registers and is ready again. */
  private unlink(agent: Agent): void {
    agent.link = undefined;
    agent.ready = false;
    this.calls.linkLost(agent);
  }
}
