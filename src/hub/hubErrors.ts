import { CdpUnavailableError, TabCloseError, TabNotFoundError } from '../cdp/cdpErrors.js';

/** Errors of the agent hub; dispatch maps each onto the RPC catalogue (rpc/mapError.ts). */

export class AgentNotFoundError extends Error {
  constructor(
    readonly clientId: string | undefined,
    readonly connected: string[],
    detail: string,
  ) {
    super(`${detail} Call agents.list to see the connected agents and their status.`);
    this.name = 'AgentNotFoundError';
  }
}

export class UnknownToolError extends Error {
  constructor(
    readonly tool: string,
    readonly clientId: string | undefined,
    readonly tools: string[],
  ) {
    super(
      clientId === undefined
        ? `No ready agent offers the tool ${tool}; the ready agents offer: ${tools.join(', ') || 'nothing'}.`
        : `Agent ${clientId} does not offer the tool ${tool}; it offers: ${tools.join(', ') || 'nothing'}.`,
    );
    this.name = 'UnknownToolError';
  }
}

/** Every agent that could run the evaluation stayed at its maxConcurrency past the queue wait. */
export class AgentBusyError extends Error {
  constructor(
    readonly clientId: string | undefined,
    readonly retryAfterMs: number,
    detail: string,
  ) {
    super(detail);
    this.name = 'AgentBusyError';
  }
}

export class EvaluationTimeoutError extends Error {
  constructor(
    readonly clientId: string,
    readonly evaluationId: string | undefined,
    readonly timeoutMs: number,
    what: string,
  ) {
    super(
      `${what} on agent ${clientId} got no answer within ${timeoutMs} ms; the agent may still be working. Retry with a larger timeout.`,
    );
    this.name = 'EvaluationTimeoutError';
  }
}

/** The agent went away with the call in flight and did not come back in time (or the hub is stopping). */
export class AgentUnavailableError extends Error {
  constructor(
    readonly clientId: string,
    readonly evaluationId: string | undefined,
    readonly retryAfterMs: number,
    detail: string,
  ) {
    super(detail);
    this.name = 'AgentUnavailableError';
  }
}

/** The agent answered with a JSON-RPC error: its code, message and data reach the caller unchanged. */
export class AgentCallError extends Error {
  constructor(
    readonly clientId: string,
    readonly evaluationId: string | undefined,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'AgentCallError';
  }
}

/**
 * The JSON-RPC code a caller gets for each error: seed 001's protocol codes, which the service
 * catalogue (rpc/errors.ts) shares. The evaluation log records it; rpc/mapError.ts maps each class
 * to the catalogue entry with this code (a test keeps the two equal).
 */
export function errorCodeOf(error: unknown): number {
  if (error instanceof AgentCallError) return error.code;
  if (error instanceof EvaluationTimeoutError) return -32001;
  if (error instanceof AgentBusyError) return -32003;
  if (error instanceof UnknownToolError) return -32004;
  if (error instanceof AgentUnavailableError || error instanceof CdpUnavailableError) return -32005;
  if (error instanceof AgentNotFoundError) return -32012;
  if (error instanceof TabNotFoundError || error instanceof TabCloseError) return -32000;
  return -32603;
}
