import { setMaxListeners } from 'node:events';
import { ServiceError } from '../errors/serviceError.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { MethodContext, MethodDefinition, MethodInfo, Principal } from './defineMethod.js';
import type { MethodTable } from './methodTable.js';
import type { ParamsValidator } from './validate.js';

export interface CallContext {
  requestId: string;
  origin: string;
  log: Logger;
  /** Who is calling; a call without one runs as INTERNAL_PRINCIPAL. */
  principal?: Principal | undefined;
  /** Aborted when the caller has gone; a call still queued then never runs. */
  signal?: AbortSignal | undefined;
}

/** The call an error came from: what the application's error mapper may read. */
export interface FailedCall {
  method: string;
  /** The validated params, or {} when the call failed before validation. */
  params: Record<string, unknown>;
}

/** What a transport needs of the dispatcher: the call path and the methods it serves. */
export interface RpcDispatcher {
  call(method: string, rawParams: unknown, ctx: CallContext): Promise<unknown>;
  methods(): readonly MethodInfo[];
}

export interface DispatcherOptions<S> {
  table: MethodTable<S>;
  validator: ParamsValidator;
  /** Injected into every handler's context. */
  services: S;
  /**
   * Turns whatever a handler threw into a ServiceError (the application's mapper: it adds the call's
   * data and classifies foreign errors). Called once per failed call.
   */
  mapError: (error: unknown, call: FailedCall) => ServiceError;
  metrics: Pick<Metrics, 'rpcRequests' | 'rpcDuration'>;
  /** Refuses a call before its handler runs (the memory watchdog's high water), or lets it through. */
  admit?: (def: MethodInfo) => ServiceError | undefined;
}

/** A signal that never aborts, for callers that cannot go away (tests, internal calls). */
const NEVER = new AbortController().signal;
// Every running idleFor listens on the signal of its call; many may share one.
setMaxListeners(0, NEVER);

/**
 * The caller of a call no transport authenticated (tests, benches, internal calls): a tenant of its
 * own, never an admin, so such a call sees only what it created itself.
 */
export const INTERNAL_PRINCIPAL: Principal = Object.freeze({ id: 'internal', admin: false });

/**
 * The one call path for every transport: lookup → validate → handler (a session method's wrapper
 * resolves and locks its session) → metrics and log → error mapping. HTTP, WebSocket and MCP
 * adapters only translate envelopes. An engine: it knows no method, browser or transport.
 */
export class Dispatcher<S> implements RpcDispatcher {
  constructor(private readonly options: DispatcherOptions<S>) {}

  methods(): readonly MethodInfo[] {
    return this.options.table.list();
  }

  async call(method: string, rawParams: unknown, ctx: CallContext): Promise<unknown> {
    const started = performance.now();
    const def = this.options.table.get(method);
    let params: Record<string, unknown> = {};
    try {
      if (def === undefined) {
        throw new ServiceError(
          'METHOD_NOT_FOUND',
          `Method not found: ${method}. Call rpc.discover for the list of methods.`,
          { method },
        );
      }
      params = this.validate(def, rawParams);
      const refusal = this.options.admit?.(def);
      if (refusal !== undefined) throw refusal;
      const context: MethodContext<S> = {
        services: this.options.services,
        log: ctx.log,
        principal: ctx.principal ?? INTERNAL_PRINCIPAL,
        requestId: ctx.requestId,
        origin: ctx.origin,
        signal: ctx.signal ?? NEVER,
      };
      const result = await def.handler(params, context);
      this.record(def, params, 'ok', started, ctx);
      return result;
    } catch (error) {
      const mapped = this.options.mapError(error, { method, params });
      this.record(def, params, mapped.errorName, started, ctx, mapped);
      throw mapped;
    }
  }

  private validate(def: MethodDefinition<S>, rawParams: unknown): Record<string, unknown> {
    let params: Record<string, unknown>;
    if (rawParams === undefined || (Array.isArray(rawParams) && rawParams.length === 0)) params = {};
    else if (typeof rawParams === 'object' && rawParams !== null && !Array.isArray(rawParams))
      params = rawParams as Record<string, unknown>;
    else {
      throw new ServiceError(
        'INVALID_PARAMS',
        `Invalid params for ${def.name}: params must be an object of named arguments`,
        {
          method: def.name,
          errors: [{ path: '/', message: 'must be object', keyword: 'type', params: { type: 'object' } }],
        },
      );
    }
    const checked = this.options.validator.validate(def, params);
    if (!checked.ok)
      throw new ServiceError('INVALID_PARAMS', checked.message, { method: def.name, errors: checked.issues });
    return checked.value;
  }

  private record(
    def: MethodDefinition<S> | undefined,
    params: Record<string, unknown>,
    outcome: string,
    started: number,
    ctx: CallContext,
    error?: ServiceError,
  ): void {
    const method = def === undefined ? 'unknown' : def.name;
    const seconds = (performance.now() - started) / 1000;
    this.options.metrics.rpcRequests.inc({ method, outcome });
    this.options.metrics.rpcDuration.observe({ method }, seconds);
    const line = {
      method,
      ...def?.logFields?.(params),
      durationMs: Math.round(seconds * 1000),
      outcome,
    };
    if (error === undefined) ctx.log.info(line, 'rpc call');
    else if (error.errorName === 'INTERNAL_ERROR')
      ctx.log.error({ ...line, code: error.code, err: error.cause }, 'rpc call failed');
    else {
      // Why, where the error says (caller-gone, browser-restarted, expired …).
      const reason = typeof error.data?.reason === 'string' ? error.data.reason : undefined;
      ctx.log.info({ ...line, code: error.code, reason }, 'rpc call failed');
      // The error's text may be a page's or an agent's words: only at debug (and cut, like every
      // string of a log line, by observability/scrub.ts).
      ctx.log.debug(
        {
          ...line,
          code: error.code,
          message: error.message,
          err: error.cause instanceof Error ? { message: error.cause.message } : undefined,
        },
        'rpc call failed: detail',
      );
    }
  }
}
