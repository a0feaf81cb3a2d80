import { setMaxListeners } from 'node:events';
import { neverRan, partWayOf, ServiceError, type PartWay } from '../errors/serviceError.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { MethodContext, MethodDefinition, MethodInfo, Principal, PushChannel } from './defineMethod.js';
import { IDEMPOTENCY_PARAM, loggedKey } from './idempotencyKey.js';
import type { Attempt, IdempotencyStore, Outcome } from './idempotencyStore.js';
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
  /** The caller's connection when it can carry notifications (the /rpc WebSocket). */
  push?: PushChannel | undefined;
  /**
   * The replica that forwarded this call here (its x-forwarded-by-replica header, read after the
   * key check): a forwarded call is never forwarded again, so a disagreement between replicas
   * (a rolling update of HUB_REPLICA, a wrong REPLICA_PEERS entry) cannot bounce it between them.
   */
  forwardedBy?: string | undefined;
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
  metrics: Pick<Metrics, 'rpcRequests' | 'rpcDuration' | 'rpcReplays'>;
  /** Refuses a call before its handler runs (the memory watchdog's high water), or lets it through. */
  admit?: (def: MethodInfo) => ServiceError | undefined;
  /**
   * The answers of calls made with an idempotency_key. Without it the key is validated, stripped
   * and otherwise ignored (tests of the engine alone).
   */
  idempotency?: IdempotencyStore;
}

/** What a call's log line says of its idempotency_key: the key (cut), and whether the answer was another run's. */
interface KeyNote {
  idempotencyKey: string;
  replayed: boolean;
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
    let note: KeyNote | undefined;
    let outcome: Outcome;
    try {
      if (def === undefined) {
        throw new ServiceError(
          'METHOD_NOT_FOUND',
          `Method not found: ${method}. Call rpc.discover for the list of methods.`,
          { method },
        );
      }
      const { [IDEMPOTENCY_PARAM]: key, ...rest } = this.validate(def, rawParams);
      // The handler never sees the key: it is the dispatcher's.
      params = rest;
      const store = this.options.idempotency;
      // A read-only call changes nothing: it runs again, whatever its key.
      if (typeof key !== 'string' || def.readOnly || store === undefined)
        outcome = (await this.attempt(def, params, ctx, ctx.signal ?? NEVER)).outcome;
      else {
        note = { idempotencyKey: loggedKey(key), replayed: false };
        const principal = (ctx.principal ?? INTERNAL_PRINCIPAL).id;
        const answer = await store.call(
          { principal, key, method: def.name, params },
          ctx.signal,
          (signal, resume) => this.attempt(def, params, ctx, signal, resume),
        );
        note.replayed = answer.replayed;
        if (answer.replayed) this.options.metrics.rpcReplays.inc({ method: def.name });
        outcome = answer.outcome;
      }
    } catch (error) {
      // Refused before any handler ran: unknown method, invalid params, a reused key, a full store.
      outcome = { ok: false, error: this.options.mapError(error, { method, params }) };
    }
    if (outcome.ok) {
      this.record(def, params, 'ok', started, ctx, note);
      return outcome.value;
    }
    this.record(def, params, outcome.error.errorName, started, ctx, note, outcome.error);
    throw outcome.error;
  }

  /**
   * Admission, then the handler: what it answered, success or error, mapped once. `ran: false` when
   * it never started (refused by admission, or its callers left while it queued), so a retry with
   * the same key runs it.
   */
  private async attempt(
    def: MethodDefinition<S>,
    params: Record<string, unknown>,
    ctx: CallContext,
    signal: AbortSignal,
    resume?: PartWay,
  ): Promise<Attempt> {
    const refusal = this.options.admit?.(def);
    if (refusal !== undefined)
      return { outcome: { ok: false, error: this.map(refusal, def, params) }, ran: false };
    const context: MethodContext<S> = {
      services: this.options.services,
      log: ctx.log,
      principal: ctx.principal ?? INTERNAL_PRINCIPAL,
      requestId: ctx.requestId,
      origin: ctx.origin,
      signal,
      push: ctx.push,
      ...(resume?.method === def.name ? { resume } : {}),
    };
    try {
      return { outcome: { ok: true, value: await def.handler(params, context) }, ran: true };
    } catch (error) {
      // Only this method's own progress: a step's, inside page.act, would not say where page.act was.
      const partWay = partWayOf(error);
      return {
        outcome: { ok: false, error: this.map(error, def, params) },
        ran: !neverRan(error),
        ...(partWay?.method === def.name ? { partWay } : {}),
      };
    }
  }

  private map(error: unknown, def: MethodDefinition<S>, params: Record<string, unknown>): ServiceError {
    return this.options.mapError(error, { method: def.name, params });
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
    // An in-process caller (a REST projection) may pass the key as undefined: no key, not a bad one.
    if (Object.hasOwn(params, IDEMPOTENCY_PARAM) && params[IDEMPOTENCY_PARAM] === undefined)
      params = Object.fromEntries(Object.entries(params).filter(([name]) => name !== IDEMPOTENCY_PARAM));
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
    note: KeyNote | undefined,
    error?: ServiceError,
  ): void {
    const method = def === undefined ? 'unknown' : def.name;
    const seconds = (performance.now() - started) / 1000;
    this.options.metrics.rpcRequests.inc({ method, outcome });
    this.options.metrics.rpcDuration.observe({ method }, seconds);
    const line = {
      method,
      ...def?.logFields?.(params),
      ...note,
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
