import { randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import { AgentDirectory } from './agentDirectory.js';
import { EvaluationAccounting } from './evaluationAccounting.js';
import {
  EvaluationHistory,
  type EvaluationCaller,
  type EvaluationFilter,
  type EvaluationListing,
} from './evaluationHistory.js';
import type { EvaluationLog } from './evaluationLog.js';
import { AgentUnavailableError } from './hubErrors.js';
import type {
  Agent,
  AgentHooks,
  AgentLink,
  AgentList,
  AgentRegistryOptions,
  EvaluateRequest,
  EvaluationAnswer,
  RegisterOutcome,
  RegisterRequest,
  StatusUpdate,
} from './hubTypes.js';
import { PendingCalls, UNAVAILABLE_RETRY_AFTER_MS } from './pendingCalls.js';
import { evaluateParams, type AgentReply } from './protocol.js';
import { SlotScheduler } from './slotScheduler.js';

/** Agents whose last LLM configuration is kept, at most. */
export const MAX_LLM_CONFIGS = 1024;
/** How long a configure_llm sent again to a reconnected agent may take (it only stores settings). */
const LLM_RESEND_TIMEOUT_MS = 10_000;

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export { MAX_LIST_BYTES, MAX_LISTED_TOOLS, NO_SECRET_REASON, UUID_RE } from './agentDirectory.js';
export { CLOSE_REPLACED } from './protocol.js';
export {
  EVALUATION_HISTORY_PER_PRINCIPAL,
  EVALUATION_MESSAGE_CHARS,
  EVALUATION_TASK_CHARS,
} from './evaluationHistory.js';
export type {
  EvaluationCaller,
  EvaluationFilter,
  EvaluationListing,
  FinishedEvaluation,
  InFlightEvaluation,
} from './evaluationHistory.js';
export { TIMEOUT_MARGIN_MS } from './pendingCalls.js';
export { MAX_QUEUED_EVALUATIONS } from './slotScheduler.js';
export type { AgentReply } from './protocol.js';
export type {
  AgentCapabilities,
  AgentHooks,
  AgentInfo,
  AgentLink,
  AgentList,
  AgentRegistryOptions,
  AgentState,
  EvaluateRequest,
  EvaluationAnswer,
  EvaluationOutcome,
  RegisterOutcome,
  RegisterRequest,
  StatusUpdate,
} from './hubTypes.js';

/**
 * The connected evaluation agents and every call in flight to them, as one surface for the
 * connections and the agents.* methods. Each concern has its own home: who is registered
 * (AgentDirectory), who gets a slot (SlotScheduler), what was sent and awaits an answer
 * (PendingCalls), and what is recorded when an evaluation ends (EvaluationAccounting).
 */
export class AgentRegistry {
  private readonly calls: PendingCalls;
  private readonly directory: AgentDirectory;
  private readonly scheduler: SlotScheduler;
  private readonly accounting: EvaluationAccounting;
  private readonly history: EvaluationHistory;

  /** The last configure_llm each agent accepted, by clientId (it holds a model key: never logged). */
  private readonly llmConfigs = new Map<string, Record<string, unknown>>();
  /** How long a configure_llm sent again to a reconnected agent may take. */
  private readonly llmResendTimeoutMs = LLM_RESEND_TIMEOUT_MS;

  constructor(
    options: AgentRegistryOptions,
    evaluationLog: EvaluationLog,
    private readonly logger: Logger,
    hooks: AgentHooks = {},
    history: EvaluationHistory = new EvaluationHistory(),
  ) {
    this.history = history;
    this.calls = new PendingCalls(options.reconnectGraceMs, (agent) => this.directory.forget(agent));
    this.directory = new AgentDirectory(options.agentSecret, this.calls, logger, hooks);
    this.scheduler = new SlotScheduler(this.directory, options.queueTimeoutMs, logger);
    this.accounting = new EvaluationAccounting(evaluationLog, history, logger, hooks);
  }

  /** Agents with a live connection. */
  get connectedCount(): number {
    return this.directory.connectedCount;
  }

  register(link: AgentLink, request: RegisterRequest): RegisterOutcome {
    return this.directory.register(link, request);
  }

  /**
   * The agent takes evaluations: the ones it had in flight when it dropped go again first, and the
   * LLM configuration it was last given (agents.configureLLM) is sent again, so a reconnecting
   * agent does not lose it.
   */
  ready(link: AgentLink): boolean {
    const agent = this.directory.ready(link);
    if (agent === undefined) return false;
    this.calls.resend(agent);
    this.scheduler.drain();
    const config = this.llmConfigs.get(agent.clientId);
    if (config !== undefined)
      this.calls
        .call(agent, 'configure_llm', config, this.llmResendTimeoutMs, undefined)
        .catch((error: unknown) =>
          // Its next agents.configureLLM sets it again; the key in the params is never logged.
          this.logger.warn(
            {
              clientId: agent.clientId,
              err: error instanceof Error ? { message: error.message } : String(error),
            },
            'configure_llm could not be sent again to a reconnected agent',
          ),
        );
    return true;
  }

  status(link: AgentLink, update: Omit<StatusUpdate, 'receivedAt'>): boolean {
    return this.directory.status(link, update);
  }

  /** A JSON-RPC response from the agent; false when no call waits for that id (late, or never sent). */
  reply(link: AgentLink, id: string, reply: AgentReply): boolean {
    const agent = this.directory.linked(link);
    return agent !== undefined && this.calls.reply(agent, id, reply);
  }

  /** The connection closed: evaluations in flight wait for the agent to come back, within the grace. */
  disconnected(link: AgentLink, why: string): void {
    this.directory.disconnected(link, why);
  }

  list(): AgentList {
    return this.directory.list();
  }

  /** The evaluations `caller` may see (its own; an admin every principal's), in flight and finished. */
  evaluations(caller: EvaluationCaller, filter: EvaluationFilter): EvaluationListing {
    return this.history.list(caller, filter);
  }

  /**
   * Runs one evaluation on a ready agent offering the tool (the named one, or the least loaded),
   * waiting at most the queue timeout for a slot, then at most `timeout` (+ margin) for the answer.
   */
  async evaluate(request: EvaluateRequest): Promise<EvaluationAnswer> {
    const started = Date.now();
    const evaluationId = request.evaluationId ?? `eval-${randomUUID()}`;
    const evaluation = this.accounting.begin(request, evaluationId, started);
    let agent: Agent | undefined;
    try {
      agent = await this.scheduler.acquire(request);
      this.accounting.assigned(evaluation, agent.clientId);
      const params = evaluateParams(evaluationId, request);
      const result = await this.calls.call(agent, 'evaluate', params, request.timeout, evaluationId);
      this.accounting.record(evaluation, agent.clientId, { result });
      return { clientId: agent.clientId, evaluationId, result };
    } catch (error) {
      const clientId = agent?.clientId ?? request.clientId ?? null;
      this.accounting.record(evaluation, clientId, { error });
      throw error;
    } finally {
      if (agent !== undefined) this.scheduler.release(agent);
    }
  }

  /**
   * Forwards seed 000's configure_llm to a connected agent and returns its answer. Once the agent
   * accepted it, it is kept for that clientId (a partial one merged into what was kept) and sent
   * again whenever the agent comes back.
   */
  async configureLLM(clientId: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const agent = this.directory.connectedAgent(clientId);
    if (agent instanceof Error) throw agent;
    const answer = await this.calls.call(agent, 'configure_llm', params, timeoutMs, undefined);
    this.keepLLMConfig(clientId, params);
    return answer;
  }

  /** What configure_llm will send a reconnecting agent: the whole configuration, never a partial one. */
  private keepLLMConfig(clientId: string, params: Record<string, unknown>): void {
    const kept = this.llmConfigs.get(clientId);
    const { partial, ...given } = params;
    const merged =
      partial === true && kept !== undefined
        ? {
            ...kept,
            ...given,
            models: { ...asRecord(kept.models), ...asRecord(given.models) },
          }
        : given;
    this.llmConfigs.delete(clientId);
    this.llmConfigs.set(clientId, { ...merged, partial: false });
    // Bounded: the least recently configured agents are forgotten first.
    for (const oldest of this.llmConfigs.keys()) {
      if (this.llmConfigs.size <= MAX_LLM_CONFIGS) break;
      this.llmConfigs.delete(oldest);
    }
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
    this.scheduler.refuseAll((request) => stopping(request.clientId ?? '', undefined));
    for (const agent of this.directory.all()) {
      this.calls.stop(agent, (call) => stopping(agent.clientId, call.evaluationId));
    }
    this.directory.clear();
  }
}
