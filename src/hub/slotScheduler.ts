import type { Logger } from '../observability/logger.js';
import type { AgentDirectory } from './agentDirectory.js';
import { AgentBusyError, AgentNotFoundError, UnknownToolError } from './hubErrors.js';
import type { Agent, EvaluateRequest } from './hubTypes.js';

/** Past this many evaluations waiting for a slot, new ones are refused at once: the queue is memory. */
export const MAX_QUEUED_EVALUATIONS = 1000;
/** What LIMIT_REACHED suggests: a slot frees when an evaluation ends, rarely much sooner. */
const BUSY_RETRY_AFTER_MS = 1000;

interface Waiter {
  readonly request: EvaluateRequest;
  grant(agent: Agent): void;
  refuse(error: Error): void;
}

/**
 * Evaluation slots: routes an evaluation to a ready agent offering the tool (the named one, or the
 * least loaded) under its maxConcurrency, or queues it, bounded in length and in time, until a slot frees.
 */
export class SlotScheduler {
  private waiters: Waiter[] = [];

  constructor(
    private readonly directory: AgentDirectory,
    private readonly queueTimeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** A slot on an agent that can run the evaluation, waiting at most the queue timeout for one. */
  acquire(request: EvaluateRequest): Promise<Agent> {
    const found = this.candidates(request);
    if (found instanceof Error) return Promise.reject(found);
    const agent = this.take(request);
    if (agent !== undefined) return Promise.resolve(agent);
    const waitMs = Math.min(this.queueTimeoutMs, request.timeout);
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

  /** The evaluation ended: its slot goes to the oldest waiter that fits. */
  release(agent: Agent): void {
    agent.slots--;
    this.drain();
  }

  /** Hands free slots to waiting evaluations, oldest first. */
  drain(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      const agent = this.take(waiter.request);
      if (agent === undefined) still.push(waiter);
      else waiter.grant(agent);
    }
    this.waiters = still;
  }

  /** The hub is stopping: every waiting evaluation gets the error given. */
  refuseAll(error: (request: EvaluateRequest) => Error): void {
    for (const waiter of this.waiters) waiter.refuse(error(waiter.request));
    this.waiters = [];
  }

  /** The agents that could run this evaluation now or once a slot frees, or the error saying why none can. */
  private candidates(request: EvaluateRequest): Agent[] | Error {
    const { clientId, tool } = request;
    if (clientId !== undefined) {
      const agent = this.directory.connectedAgent(clientId);
      if (agent instanceof Error) return agent;
      if (!agent.ready) {
        return new AgentNotFoundError(
          clientId,
          this.directory.connectedIds(),
          `Agent ${clientId} is connected but has not sent ready yet.`,
        );
      }
      if (!agent.capabilities.tools.includes(tool))
        return new UnknownToolError(tool, clientId, agent.capabilities.tools);
      return [agent];
    }
    const ready = this.directory.connected().filter((a) => a.ready);
    if (ready.length === 0)
      return new AgentNotFoundError(undefined, this.directory.connectedIds(), 'No ready agent is connected.');
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
}
