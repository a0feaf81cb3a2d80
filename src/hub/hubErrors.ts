/** Errors of the agent hub: each carries its catalogue entry (errors/catalogue.ts). */
import { ERRORS, errorNameForCode } from '../errors/catalogue.js';
import { ServiceError } from '../errors/serviceError.js';

export class AgentNotFoundError extends ServiceError {
  constructor(
    readonly clientId: string | undefined,
    readonly connected: string[],
    detail: string,
  ) {
    super('AGENT_NOT_FOUND', `${detail} Call agents.list to see the connected agents and their status.`, {
      clientId,
      connected,
    });
  }
}

/** Tools an UNKNOWN_TOOL error names at most (with the total count): 250 agents × 200 tools made it 20 MB. */
export const MAX_NAMED_TOOLS = 20;

export class UnknownToolError extends ServiceError {
  constructor(
    readonly tool: string,
    readonly clientId: string | undefined,
    offered: readonly string[],
  ) {
    const tools = offered.slice(0, MAX_NAMED_TOOLS);
    const more = offered.length - tools.length;
    const named = `${tools.join(', ') || 'nothing'}${more > 0 ? ` and ${more} more (agents.list shows each agent's)` : ''}`;
    super(
      'UNKNOWN_TOOL',
      clientId === undefined
        ? `No ready agent offers the tool ${tool}; the ready agents offer: ${named}.`
        : `Agent ${clientId} does not offer the tool ${tool}; it offers: ${named}.`,
      { tool, clientId, tools, toolCount: offered.length },
    );
  }
}

/** Every agent that could run the evaluation stayed at its maxConcurrency past the queue wait. */
export class AgentBusyError extends ServiceError {
  constructor(
    readonly clientId: string | undefined,
    readonly retryAfterMs: number,
    detail: string,
  ) {
    super('LIMIT_REACHED', detail, { limit: 'maxConcurrency', clientId, retryAfterMs });
  }
}

export class EvaluationTimeoutError extends ServiceError {
  constructor(
    readonly clientId: string,
    readonly evaluationId: string | undefined,
    readonly timeoutMs: number,
    what: string,
  ) {
    super(
      'TIMEOUT',
      `${what} on agent ${clientId} got no answer within ${timeoutMs} ms; the agent may still be working. Retry with a larger timeout.`,
      { clientId, evaluationId, timeoutMs },
    );
  }
}

/** The agent went away with the call in flight and did not come back in time (or the hub is stopping). */
export class AgentUnavailableError extends ServiceError {
  constructor(
    readonly clientId: string,
    readonly evaluationId: string | undefined,
    readonly retryAfterMs: number,
    detail: string,
  ) {
    super('RESOURCE_UNAVAILABLE', detail, { clientId, evaluationId, retryAfterMs });
  }
}

/**
 * The agent answered with a JSON-RPC error: its message and data reach the caller unchanged, under
 * the catalogue entry of its code (ACTION_FAILED with data.agentCode for a code the catalogue lacks).
 */
export class AgentCallError extends ServiceError {
  constructor(
    readonly clientId: string,
    readonly evaluationId: string | undefined,
    readonly agentCode: number,
    message: string,
    readonly agentData: unknown,
  ) {
    const name = errorNameForCode(agentCode);
    const data =
      typeof agentData === 'object' && agentData !== null && !Array.isArray(agentData)
        ? (agentData as Record<string, unknown>)
        : agentData === undefined
          ? {}
          : { agentData };
    super(name ?? 'ACTION_FAILED', message, {
      ...data,
      clientId,
      evaluationId,
      ...(name === undefined ? { agentCode } : {}),
    });
  }
}

/**
 * The JSON-RPC code an evaluation ended with, for the evaluation log: the agent's own code when it
 * answered with an error, the catalogue code of any other error.
 */
export function errorCodeOf(error: unknown): number {
  if (error instanceof AgentCallError) return error.agentCode;
  return error instanceof ServiceError ? error.code : ERRORS.INTERNAL_ERROR.code;
}
