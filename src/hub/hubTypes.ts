import type { AgentMethod, AgentReply, HubFrame } from './protocol.js';

export interface AgentCapabilities {
  tools: string[];
  maxConcurrency: number;
  version: string;
}

/** The transport side of one agent connection (a WebSocket in hub/): the registry never sees the socket. */
export interface AgentLink {
  readonly remoteAddress: string;
  /** Sends one frame; a link that is closing drops it (its close is on the way). */
  send(message: HubFrame): void;
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
  /** Its tools up to a cap, and how many it offers in all. */
  capabilities: AgentCapabilities & { toolCount: number };
  inFlight: number;
  connectedAt: string;
  remoteAddress: string;
  lastStatus: StatusUpdate | null;
}

/** agents.list's answer: bounded in size, so it says how many agents there are and whether all are shown. */
export interface AgentList {
  agents: AgentInfo[];
  total: number;
  truncated: boolean;
}

export interface EvaluateRequest {
  /** The caller's principal id (a digest of its key, never the key): its evaluations are its own. */
  principal: string;
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

export interface AgentRegistryOptions {
  /** AGENT_SECRET: every register must present it; without one, every register is refused. */
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

/** One JSON-RPC call to an agent, from the moment it is made until it settles. */
export interface PendingCall {
  readonly id: string;
  readonly method: AgentMethod;
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

/** One agent as the hub knows it, connected or, with calls in flight, waited for after a drop. */
export interface Agent {
  readonly clientId: string;
  link: AgentLink | undefined;
  capabilities: AgentCapabilities;
  ready: boolean;
  connectedAt: Date;
  remoteAddress: string;
  lastStatus: StatusUpdate | undefined;
  /** Evaluation slots taken, reserved or in flight; at most capabilities.maxConcurrency. */
  slots: number;
  readonly calls: Map<string, PendingCall>;
  /** Runs while the agent is away with evaluations in flight; when it fires they fail. */
  grace: NodeJS.Timeout | undefined;
}
