import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { ErrorName } from '../errors/catalogue.js';
import type { PartWay } from '../errors/serviceError.js';
import type { Logger } from '../observability/logger.js';
import { IDEMPOTENCY_PARAM, idempotencyKeySchema } from './idempotencyKey.js';

/**
 * Who is calling: an opaque id the transport derived from the credential it checked (never the
 * credential itself), and whether that credential may act on what every other caller owns.
 */
export interface Principal {
  readonly id: string;
  readonly admin: boolean;
}

/**
 * A connection that can carry notifications to its caller besides answers: the /rpc WebSocket. POST
 * /rpc and /mcp have none (an answer there ends the exchange).
 */
export interface PushChannel {
  /** Sends a JSON-RPC notification; false when the connection is backed up or gone (stop, wait). */
  notify(method: string, params: Record<string, unknown>): boolean;
  /**
   * The same, with params already JSON text (an object): what many notifications share, such as a
   * log entry pushed to every subscription, is serialised once and framed here as it is.
   */
  notifyJson(method: string, params: string): boolean;
  /** Calls `resume` once the connection can take more notifications; the answer cancels the wait. */
  whenWritable(resume: () => void): () => void;
  /** Resolves once the answer of the call that got this channel has been sent (or was not due). */
  readonly answered: Promise<void>;
  /** Aborted when the connection closes. */
  readonly closed: AbortSignal;
  /** What the connection's calls opened on it (session.subscribe), by id: stopped when it closes. */
  readonly subscriptions: Map<string, { sessionId: string; stop(): void }>;
}

/** What every call carries besides its params, whatever the transport. */
export interface CallInfo {
  log: Logger;
  /** The caller, as its transport authenticated it; what a call may reach is scoped to it. */
  principal: Principal;
  requestId: string;
  /** Where the call came from: the HTTP client address, 'ws', 'mcp'. */
  origin: string;
  /** Aborted when the caller has gone: its HTTP connection (/rpc, /mcp) or its WebSocket closed. */
  signal: AbortSignal;
  /** The caller's connection when it can carry notifications (the /rpc WebSocket), else undefined. */
  push: PushChannel | undefined;
  /**
   * Set when this call continues an earlier one of the same method, params and idempotency_key
   * that stopped part way because its callers left (errors/serviceError.ts stoppedPartWay).
   */
  resume?: PartWay;
}

/** What a handler gets: the call, and the instances the application injected into the dispatcher. */
export type MethodContext<S> = CallInfo & { services: S };

/** A method as every surface sees it (OpenRPC, MCP, the client, the docs): no handler. */
export interface MethodInfo {
  name: string;
  summary: string;
  description: string | undefined;
  params: TObject;
  result: TSchema;
  errors: ErrorName[];
  /** True when the method changes nothing a caller can see: such calls are safe to retry. */
  readOnly: boolean;
}

export interface MethodDefinition<S = unknown> extends MethodInfo {
  /** Fields for the call's log line, from its validated params (a session method names its session). */
  logFields: ((params: Record<string, unknown>) => Record<string, unknown>) | undefined;
  handler: (params: unknown, ctx: MethodContext<S>) => Promise<unknown>;
}

export interface MethodSpec<P extends TProperties, R extends TSchema, C> {
  name: string;
  summary: string;
  description?: string;
  params: P;
  result: R;
  errors: ErrorName[];
  readOnly: boolean;
  logFields?: (params: Record<string, unknown>) => Record<string, unknown>;
  handler: (params: Readonly<Static<TObject<P>>>, ctx: C) => Promise<Static<R>>;
}

/** The params of every method: named arguments, nothing unknown. */
export function paramsObject(props: TProperties): TObject {
  return Type.Object(props, { additionalProperties: false });
}

/**
 * The identity helper that declares a method for an application whose handlers reach services S.
 * `const defineMethod = methodDefiner<Services>()`, then one `defineMethod({...})` per method.
 */
export function methodDefiner<S>() {
  return function defineMethod<P extends TProperties, R extends TSchema>(
    spec: MethodSpec<P, R, MethodContext<S>>,
  ): MethodDefinition<S> {
    return {
      name: spec.name,
      summary: spec.summary,
      description: spec.description,
      // Every method takes the key, so any call may carry one (seed 002's execute sends it on each);
      // dispatch strips it, and keeps the answers of the methods that change something.
      params: paramsObject({ ...spec.params, [IDEMPOTENCY_PARAM]: idempotencyKeySchema(spec.readOnly) }),
      result: spec.result,
      errors: spec.errors,
      readOnly: spec.readOnly,
      logFields: spec.logFields,
      // The params reaching a handler were validated against `params` by dispatch.
      handler: (params, ctx) => spec.handler(params as Static<TObject<P>>, ctx),
    };
  };
}
