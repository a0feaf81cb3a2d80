import type { Logger } from '../observability/logger.js';
import { clip } from './clip.js';
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
 * How each evaluation ended, told once to the evaluation log, the metrics hook and the service log:
 * its status and outcome, error code, duration and output size, never its input.
 */
export class EvaluationAccounting {
  constructor(
    private readonly evaluationLog: EvaluationLog,
    private readonly logger: Logger,
    private readonly hooks: Pick<AgentHooks, 'evaluationFinished'>,
  ) {}

  /** `started` is the epoch ms the call reached the hub; `end` is the agent's result or why there is none. */
  record(
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
