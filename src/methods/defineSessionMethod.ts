import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Session } from '../browser/session.js';
import { CallerGoneError } from '../errors/serviceError.js';
import {
  methodDefiner,
  type MethodContext,
  type MethodDefinition,
  type MethodSpec,
} from '../rpc/defineMethod.js';
import type { Services } from './services.js';

/** A method of this service: its handler reaches the injected Services. */
export type ServiceMethod = MethodDefinition<Services>;
export type ServiceContext = MethodContext<Services>;
export interface SessionMethodContext extends ServiceContext {
  session: Session;
}

/** A method that needs no session (session.create, rpc.discover, agents.*). */
export const defineMethod = methodDefiner<Services>();

export const SessionIdSchema = Type.String({
  description: 'The session id returned by session.create (s_ followed by a UUID).',
  minLength: 1,
  maxLength: 200,
});

/**
 * A method on one session: `session_id` is added to its params, and the session is resolved for
 * the caller (unknown, or another key's → SESSION_NOT_FOUND) and locked around the handler, so calls on one session run one at a
 * time while different sessions run in parallel.
 */
export function defineSessionMethod<P extends TProperties, R extends TSchema>(
  spec: Omit<MethodSpec<P, R, SessionMethodContext>, 'logFields'>,
): ServiceMethod {
  return defineMethod({
    ...spec,
    params: { session_id: SessionIdSchema, ...spec.params },
    errors: ['SESSION_NOT_FOUND', ...spec.errors.filter((e) => e !== 'SESSION_NOT_FOUND')],
    logFields: (params) => ({ sessionId: params.session_id }),
    handler: (params, ctx) => {
      // Validated by dispatch against the params above, session_id included.
      const validated = params as unknown as Static<TObject<P>> & { session_id: string };
      const session = ctx.services.sessions.resolve(validated.session_id, ctx.principal);
      return session.run(() => {
        // Queued behind another call and the caller has gone meanwhile (a client that timed out and
        // retries): running it now would act twice, so it does not run.
        if (ctx.signal.aborted) throw new CallerGoneError(spec.name);
        return spec.handler(validated, { ...ctx, session });
      });
    },
  });
}
