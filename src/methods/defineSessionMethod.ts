import { AsyncLocalStorage } from 'node:async_hooks';
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Session } from '../browser/session/session.js';
import { ReplayPictures } from '../browser/artifacts/replayPictures.js';
import { failureTracing } from '../browser/artifacts/traceStore.js';
import { redactError, redactSecrets } from './session/sessionSecrets.js';
import { mapError } from '../errors/mapError.js';
import { CallerGoneError, ServiceError } from '../errors/serviceError.js';
import { recordAction, targetsOf } from './actionTimeline.js';
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

/** The session whose lock the current call already holds (page.act runs its steps inside it). */
const held = new AsyncLocalStorage<Session>();

/** The methods defined here, the ones page.act may run as steps: whether each takes a timeout, and its default. */
export const sessionMethodSteps = new Map<string, { timeout: boolean; timeoutDefault: number | undefined }>();

/**
 * A method on one session: `session_id` is added to its params, and the session is resolved for
 * the caller (unknown, or another key's → SESSION_NOT_FOUND) and locked around the handler, so calls on one session run one at a
 * time while different sessions run in parallel.
 */
export function defineSessionMethod<P extends TProperties, R extends TSchema>(
  spec: Omit<MethodSpec<P, R, SessionMethodContext>, 'logFields'>,
): ServiceMethod {
  const timeout: unknown = spec.params.timeout;
  const timeoutDefault =
    typeof timeout === 'object' &&
    timeout !== null &&
    'default' in timeout &&
    typeof timeout.default === 'number'
      ? timeout.default
      : undefined;
  sessionMethodSteps.set(spec.name, { timeout: 'timeout' in spec.params, timeoutDefault });
  // trace.* read and write the traces themselves: a trace of them would show nothing of the page.
  const traceable = !spec.name.startsWith('trace.');
  return defineMethod({
    ...spec,
    params: { session_id: SessionIdSchema, ...spec.params },
    // Any call on a session can meet a dialog left for dialog.handle (Session.run answers DIALOG_PENDING).
    errors: [
      'SESSION_NOT_FOUND',
      ...spec.errors.filter((e) => e !== 'SESSION_NOT_FOUND' && e !== 'DIALOG_PENDING'),
      'DIALOG_PENDING',
    ],
    logFields: (params) => ({ sessionId: params.session_id }),
    handler: (params, ctx) => {
      // Validated by dispatch against the params above, session_id included.
      const validated = params as unknown as Static<TObject<P>> & { session_id: string };
      const session = ctx.services.sessions.resolve(validated.session_id, ctx.principal);
      // A step of page.act runs under the lock its page.act holds: taking it again would wait forever.
      if (held.getStore() === session) return spec.handler(validated, { ...ctx, session });
      const startedAt = performance.now();
      let picture: Buffer | undefined;
      const targets = targetsOf(session, validated);
      const failed = (error: unknown) =>
        error instanceof ServiceError
          ? error
          : mapError(error, {
              method: spec.name,
              params: validated,
              browserReady: ctx.services.browser.ready,
              sessionOpen: ctx.services.sessions.get(validated.session_id) !== undefined,
            });
      return session
        .run(() => {
          // Queued behind another call and the caller has gone meanwhile (a client that timed out and
          // retries): running it now would act twice, so it does not run.
          if (ctx.signal.aborted) throw new CallerGoneError(spec.name);
          const run = () => held.run(session, () => spec.handler(validated, { ...ctx, session }));
          // A session created with traceOnFailure records each call (page.act's steps within its own).
          const tracing = traceable ? failureTracing(session) : undefined;
          const ran = tracing === undefined ? run() : tracing.around(spec.name, run);
          // With replay on, a call that changed something leaves a picture, taken under the lock.
          return session.replay === undefined || spec.readOnly || spec.name === 'session.close'
            ? ran
            : ran.then(async (result) => {
                picture = await ReplayPictures.take(session.page);
                return result;
              });
        })
        .then(
          // A session given secrets never answers one (page.act's steps are answered within it).
          (result) => {
            // A picture larger than the session may keep (MAX_REPLAY_BYTES) is not claimed.
            const kept = picture !== undefined && picture.length <= (session.replay?.maxBytes ?? 0);
            const seq = recordAction(session, spec.name, validated, startedAt, targets, {
              result,
              picture: kept,
            });
            if (kept && picture !== undefined && seq > 0) session.replay?.keep(seq, picture);
            return redactSecrets(session, result);
          },
          (error: unknown) => {
            recordAction(session, spec.name, validated, startedAt, targets, { failure: failed(error) });
            // The error itself goes on unmapped: dispatch reads what it carries (how far a call got,
            // whether it ran) from the very object, and maps it once.
            throw redactError(session, error);
          },
        );
    },
  });
}
