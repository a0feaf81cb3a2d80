import { setMaxListeners } from 'node:events';
import type { Logger } from '../observability/logger.js';
import type { MethodContext, MethodDefinition } from './defineMethod.js';
import type { RpcError } from './errors.js';
import { CallerGoneError, rpcError } from './errors.js';
import { mapError } from './mapError.js';
import type { MethodTable } from './methodTable.js';
import type { Services } from './services.js';
import type { ParamsValidator } from './validate.js';

export interface CallContext {
  requestId: string;
  origin: string;
  log: Logger;
  /** Aborted when the caller has gone; a call still queued then never runs. */
  signal?: AbortSignal;
}

/** A signal that never aborts, for callers that cannot go away (tests, internal calls). */
const NEVER = new AbortController().signal;
// Every running idleFor listens on the signal of its call; many may share one.
setMaxListeners(0, NEVER);

/**
 * The one call path for every transport: lookup → validate → resolve session → lock → handler →
 * metrics and log → error mapping. HTTP, WebSocket and MCP adapters only translate envelopes.
 */
export class Dispatcher {
  constructor(
    readonly table: MethodTable,
    private readonly validator: ParamsValidator,
    private readonly services: Services,
  ) {}

  async call(method: string, rawParams: unknown, ctx: CallContext): Promise<unknown> {
    const started = performance.now();
    const def = this.table.get(method);
    let sessionId: string | undefined;
    let params: Record<string, unknown> = {};
    try {
      if (def === undefined) {
        throw rpcError(
          'METHOD_NOT_FOUND',
          `Method not found: ${method}. Call rpc.discover for the list of methods.`,
          { method },
        );
      }
      params = this.validate(def, rawParams);
      sessionId = typeof params.session_id === 'string' ? params.session_id : undefined;
      const result = await this.invoke(def, params, ctx);
      this.record(def.name, 'ok', started, ctx, sessionId);
      return result;
    } catch (error) {
      const mapped = mapError(error, {
        method,
        params,
        browserReady: this.services.browser.ready,
        sessionOpen:
          sessionId === undefined ? undefined : this.services.sessions.get(sessionId) !== undefined,
      });
      this.record(
        def === undefined ? 'unknown' : def.name,
        mapped.errorName,
        started,
        ctx,
        sessionId,
        mapped,
      );
      throw mapped;
    }
  }

  private validate(def: MethodDefinition, rawParams: unknown): Record<string, unknown> {
    let params: Record<string, unknown>;
    if (rawParams === undefined || (Array.isArray(rawParams) && rawParams.length === 0)) params = {};
    else if (typeof rawParams === 'object' && rawParams !== null && !Array.isArray(rawParams))
      params = rawParams as Record<string, unknown>;
    else {
      throw rpcError(
        'INVALID_PARAMS',
        `Invalid params for ${def.name}: params must be an object of named arguments`,
        {
          method: def.name,
          errors: [{ path: '/', message: 'must be object', keyword: 'type', params: { type: 'object' } }],
        },
      );
    }
    const checked = this.validator.validate(def, params);
    if (!checked.ok)
      throw rpcError('INVALID_PARAMS', checked.message, { method: def.name, errors: checked.issues });
    return checked.value;
  }

  private async invoke(
    def: MethodDefinition,
    params: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<unknown> {
    const signal = ctx.signal ?? NEVER;
    const base: MethodContext = {
      services: this.services,
      log: ctx.log,
      requestId: ctx.requestId,
      origin: ctx.origin,
      signal,
    };
    if (!def.sessionScoped) return def.handler(params, base);
    const id = String(params.session_id);
    const session = this.services.sessions.resolve(id);
    return session.run(() => {
      // Queued behind another call and the caller has gone meanwhile (a client that timed out and
      // retries): running it now would act twice, so it does not run.
      if (signal.aborted) throw new CallerGoneError(def.name);
      return def.handler(params, { ...base, session });
    });
  }

  private record(
    method: string,
    outcome: string,
    started: number,
    ctx: CallContext,
    sessionId: string | undefined,
    error?: RpcError,
  ): void {
    const seconds = (performance.now() - started) / 1000;
    this.services.metrics.rpcRequests.inc({ method, outcome });
    this.services.metrics.rpcDuration.observe({ method }, seconds);
    const line = { method, sessionId, durationMs: Math.round(seconds * 1000), outcome };
    if (error === undefined) ctx.log.info(line, 'rpc call');
    else if (error.errorName === 'INTERNAL_ERROR')
      ctx.log.error({ ...line, code: error.code, err: error.cause }, 'rpc call failed');
    else
      ctx.log.info(
        {
          ...line,
          code: error.code,
          // Why, where the error says (caller-gone, browser-restarted, expired …).
          reason: typeof error.data?.reason === 'string' ? error.data.reason : undefined,
          err: error.cause instanceof Error ? { message: error.cause.message } : undefined,
        },
        'rpc call failed',
      );
  }
}
