import { AgentCallError, AgentUnavailableError, EvaluationTimeoutError } from './hubErrors.js';
import type { Agent, PendingCall } from './hubTypes.js';
import { agentRequestFrame, withTimeout, type AgentMethod, type AgentReply } from './protocol.js';

/** The agent's own timeout error says more than ours, so the hub waits this much longer than it told the agent. */
export const TIMEOUT_MARGIN_MS = 1000;
/** What RESOURCE_UNAVAILABLE suggests after an agent went away: long enough for a reconnect. */
export const UNAVAILABLE_RETRY_AFTER_MS = 5000;

/**
 * The calls sent to agents and not answered yet: each has a deadline, settles exactly once, and
 * an evaluation in flight survives its agent's drop for the reconnection grace, to be re-sent when
 * the agent is back. No caller waits forever: every wait has a timer.
 */
export class PendingCalls {
  private nextCallId = 0;

  /** `forget` drops an agent whose grace ended: nothing of it is left to wait for. */
  constructor(
    private readonly reconnectGraceMs: number,
    private readonly forget: (agent: Agent) => void,
  ) {}

  /** Calls `method` on the agent; sent now if it can take it, else when it is ready again. */
  call(
    agent: Agent,
    method: AgentMethod,
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

  /** Settles the call the agent answered; false when none waits for that id (late, or never sent). */
  reply(agent: Agent, id: string, reply: AgentReply): boolean {
    const call = agent.calls.get(id);
    if (call === undefined) return false;
    call.settle(reply);
    return true;
  }

  /** Evaluations in flight on the agent: what a reconnect would re-send. */
  evaluationCount(agent: Agent): number {
    return [...agent.calls.values()].filter((c) => c.method === 'evaluate').length;
  }

  /** The agent is ready again: the evaluations it had in flight when it dropped go again. */
  resend(agent: Agent): void {
    for (const call of agent.calls.values()) if (!call.sent) this.transmit(agent, call);
  }

  /** Its connection is gone: evaluations wait to be re-sent; a configure_llm fails (it was a one-off). */
  linkLost(agent: Agent): void {
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

  /** The agent dropped with evaluations in flight: they wait for it within the grace. */
  awaitReturn(agent: Agent): void {
    agent.grace = setTimeout(() => this.expire(agent), this.reconnectGraceMs);
  }

  /** The agent registered again: its evaluations no longer run out of grace. */
  returned(agent: Agent): void {
    clearTimeout(agent.grace);
    agent.grace = undefined;
  }

  /** The hub is stopping: every call on the agent settles now with the error given. */
  stop(agent: Agent, error: (call: PendingCall) => Error): void {
    clearTimeout(agent.grace);
    for (const call of [...agent.calls.values()]) call.settle(error(call));
  }

  /** The grace ran out without the agent coming back: its evaluations fail and it is forgotten. */
  private expire(agent: Agent): void {
    this.returned(agent);
    if (agent.link !== undefined) return;
    for (const call of [...agent.calls.values()]) {
      call.settle(
        new AgentUnavailableError(
          agent.clientId,
          call.evaluationId,
          UNAVAILABLE_RETRY_AFTER_MS,
          `Agent ${agent.clientId} disconnected during evaluation ${call.evaluationId ?? ''} and did not come back within ${this.reconnectGraceMs} ms (AGENT_RECONNECT_GRACE_MS); run it again.`,
        ),
      );
    }
    this.forget(agent);
  }

  /** Sends (or re-sends) a call; a re-sent evaluation is given the time its caller has left. */
  private transmit(agent: Agent, call: PendingCall): void {
    const link = agent.link;
    if (link === undefined) return;
    const params =
      call.method === 'evaluate' && call.sends > 0
        ? withTimeout(call.params, Math.max(1, call.deadline - TIMEOUT_MARGIN_MS - Date.now()))
        : call.params;
    link.send(agentRequestFrame(call.method, params, call.id));
    call.sent = true;
    call.sends++;
  }
}
