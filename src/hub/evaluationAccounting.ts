import { ERRORS } from '../errors/catalogue.js';
import { ServiceError } from '../errors/serviceError.js';
import type { Logger } from '../observability/logger.js';
import { clip } from './clip.js';
import type { EvaluationHistory, InFlightEvaluation } from './evaluationHistory.js';
import type { EvaluationLog } from './evaluationLog.js';
import { AgentCallError, AgentUnavailableError, EvaluationTimeoutError, errorCodeOf } from './hubErrors.js';
import type { AgentHooks, EvaluateRequest, EvaluationOutcome } from './hubTypes.js';

/** An agent's result status is copied into the evaluation log: cut so it cannot write long lines. */
const MAX_LOGGED_STATUS_CHARS = 40;

function jsonBytes(value: unknown): number | null {
  if (value === undefined) return null;
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/**
 * Each evaluation from its arrival to its end: in flight in the history while it runs, and how it
 * ended told once to the evaluation log, the history, the metrics hook and the service log: the
 * principal that started it, its status and outcome, error code, duration and output size, never
 * its input.
 */
export class EvaluationAccounting {
  constructor(
    private readonly evaluationLog: EvaluationLog,
    private readonly history: EvaluationHistory,
    private readonly logger: Logger,
    private readonly hooks: Pick<AgentHooks, 'evaluationFinished'>,
  ) {}

  /** The call reached the hub at `started` (epoch ms): it is in flight from now on. */
  begin(request: EvaluateRequest, evaluationId: string, started: number): InFlightEvaluation {
    return this.history.start({
      evaluationId,
      principal: request.principal,
      tool: request.tool,
      name: request.name,
      clientId: request.clientId ?? null,
      started,
    });
  }

  /** An agent took the evaluation off the queue. */
  assigned(evaluation: InFlightEvaluation, clientId: string): void {
    this.history.assign(evaluation, clientId);
  }

  /** `end` is the agent's result or why there is none. */
  record(
    evaluation: InFlightEvaluation,
    clientId: string | null,
    end: { result: unknown } | { error: unknown },
  ): void {
    const { evaluationId, principal, tool, started } = evaluation;
    let status: string;
    let outcome: EvaluationOutcome;
    let errorCode: number | null = null;
    let errorMessage: string | null = null;
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
      // Only a ServiceError's message reached the caller; anything else it saw as INTERNAL_ERROR.
      errorMessage = error instanceof ServiceError ? error.message : ERRORS.INTERNAL_ERROR.message;
      if (error instanceof EvaluationTimeoutError) [status, outcome] = ['timeout', 'timeout'];
      else if (error instanceof AgentUnavailableError) [status, outcome] = ['unavailable', 'unavailable'];
      else if (error instanceof AgentCallError) [status, outcome] = ['error', 'failed'];
      else [status, outcome] = ['rejected', 'rejected'];
    }
    const ended = Date.now();
    const duration = ended - started;
    this.evaluationLog.append({
      evaluationId,
      principal,
      clientId,
      tool,
      started: new Date(started).toISOString(),
      duration,
      status,
      errorCode,
      outputSize,
    });
    const ok = 'result' in end;
    this.history.finish(evaluation, clientId, { ok, status, errorCode, errorMessage, outputSize }, ended);
    this.hooks.evaluationFinished?.(outcome);
    this.logger.info(
      { evaluationId, principal, clientId, tool, durationMs: duration, status, errorCode, outputSize },
      'agent evaluation',
    );
  }
}
