import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Logger } from '../observability/logger.js';
import type { Services } from './services.js';
import type { Session } from '../browser/session.js';
import type { ErrorName } from './errors.js';

/** What every handler gets besides its params. */
export interface MethodContext {
  services: Services;
  log: Logger;
  requestId: string;
  /** Where the call came from: the HTTP client address, 'ws', 'mcp'. */
  origin: string;
  /** Aborted when the caller has gone: its HTTP connection (/rpc, /mcp) or its WebSocket closed. */
  signal: AbortSignal;
}

export interface SessionMethodContext extends MethodContext {
  session: Session;
}

interface MethodSpec<P extends TProperties, R extends TSchema, C> {
  name: string;
  summary: string;
  description?: string;
  params: P;
  result: R;
  errors: ErrorName[];
  /** True when the method changes nothing a caller can see: such calls are safe to retry. */
  readOnly: boolean;
  handler: (params: Readonly<Static<TObject<P>>>, ctx: C) => Promise<Static<R>>;
}

export interface MethodDefinition {
  name: string;
  summary: string;
  description: string | undefined;
  params: TObject;
  result: TSchema;
  errors: ErrorName[];
  readOnly: boolean;
  /** Session-scoped: dispatch resolves `session_id` and holds the session lock around the handler. */
  sessionScoped: boolean;
  handler: (params: unknown, ctx: MethodContext & { session?: Session }) => Promise<unknown>;
}

export const SessionIdSchema = Type.String({
  description: 'The session id returned by session.create (s_ followed by a UUID).',
  minLength: 1,
  maxLength: 200,
});

function paramsObject(props: TProperties): TObject {
  return Type.Object(props, { additionalProperties: false });
}

/** A method that needs no session (session.create, rpc.discover, agents.*). */
export function defineMethod<P extends TProperties, R extends TSchema>(
  spec: MethodSpec<P, R, MethodContext>,
): MethodDefinition {
  return {
    name: spec.name,
    summary: spec.summary,
    description: spec.description,
    params: paramsObject(spec.params),
    result: spec.result,
    errors: spec.errors,
    readOnly: spec.readOnly,
    sessionScoped: false,
    // The params reaching a handler were validated against `params` by dispatch.
    handler: (params, ctx) => spec.handler(params as Static<TObject<P>>, ctx),
  };
}

/** A method on one session: `session_id` is added to its params and resolved before the handler runs. */
export function defineSessionMethod<P extends TProperties, R extends TSchema>(
  spec: MethodSpec<P, R, SessionMethodContext>,
): MethodDefinition {
  const props = { session_id: SessionIdSchema, ...spec.params };
  return {
    name: spec.name,
    summary: spec.summary,
    description: spec.description,
    params: paramsObject(props),
    result: spec.result,
    errors: ['SESSION_NOT_FOUND', ...spec.errors.filter((e) => e !== 'SESSION_NOT_FOUND')],
    readOnly: spec.readOnly,
    sessionScoped: true,
    handler: (params, ctx) => {
      const { session } = ctx;
      if (session === undefined) throw new Error(`${spec.name} dispatched without a session`);
      return spec.handler(params as Static<TObject<P>>, { ...ctx, session });
    },
  };
}
