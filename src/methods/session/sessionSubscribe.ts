// session.subscribe and session.unsubscribe: a session's event log pushed as JSON-RPC notifications
// (session.event) on the /rpc WebSocket that asked. POST /rpc and /mcp cannot carry them: there the
// methods are refused, and GET /sessions/{id}/events (Server-Sent Events) is the HTTP way.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { EventFeed } from '../../browser/events/eventFeed.js';
import { EVENT_KINDS, type LogEvent } from '../../browser/events/sessionLog.js';
import { ServiceError } from '../../errors/serviceError.js';
import type { PushChannel } from '../../rpc/defineMethod.js';
import { defineMethod, SessionIdSchema } from '../defineSessionMethod.js';

/** Subscriptions one socket may hold at once: each holds a cursor and a listener on a session's log. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 32;
/** The notification every entry is pushed in. */
export const SESSION_EVENT = 'session.event';

export const KindsParam = Type.Optional(
  Type.Array(Type.Union(EVENT_KINDS.map((k) => Type.Literal(k))), {
    minItems: 1,
    uniqueItems: true,
    description: `Only these kinds (default every kind): ${EVENT_KINDS.join(', ')}.`,
  }),
);

function needsSocket(method: string): ServiceError {
  return new ServiceError(
    'INVALID_REQUEST',
    `${method} needs a connection that can carry notifications: call it on the WebSocket /rpc, or read the events over HTTP with GET /sessions/{id}/events (Server-Sent Events) or logs.pull / network.pull with since.`,
    { method },
  );
}

/** The params of the notifications of one subscription. */
function notification(
  sessionId: string,
  subscriptionId: string,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return { session_id: sessionId, subscription_id: subscriptionId, ...extra };
}

export const sessionSubscribe = defineMethod({
  name: 'session.subscribe',
  summary: "Push a session's events as session.event notifications on this WebSocket",
  description:
    'WebSocket /rpc only. Each entry of the session\'s event log arrives as {"jsonrpc":"2.0","method":"session.event","params":{session_id, subscription_id, event:{seq, kind, timestamp, …}}}, in seq order, until session.unsubscribe, the session ends (a last notification with ended: reason and no event) or the socket closes. Entries the log dropped before this subscription could send them (a reader slower than the page, MAX_SESSION_EVENTS) are counted in the next notification\'s dropped.',
  params: {
    session_id: SessionIdSchema,
    kinds: KindsParam,
    since: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'A cursor (the last seq seen, 0 for everything the log still holds): the entries after it are sent first. Default: only what happens from now on.',
      }),
    ),
  },
  result: Type.Object({
    subscription_id: Type.String({
      description: 'Names this subscription in its notifications and in session.unsubscribe.',
    }),
    session_id: Type.String(),
    cursor: Type.Integer({ description: 'The seq the first notification comes after.' }),
  }),
  errors: ['SESSION_NOT_FOUND', 'INVALID_PARAMS', 'INVALID_REQUEST', 'LIMIT_REACHED'],
  readOnly: true,
  logFields: (params) => ({ sessionId: params.session_id }),
  async handler(params, { services, principal, push }) {
    // Not under the session's lock: a subscription must not wait for a long call to end. An
    // unknown (or another key's) session is said first, as by every session method.
    const session = services.sessions.resolve(params.session_id, principal);
    if (push === undefined) throw needsSocket('session.subscribe');
    const latest = session.log.latest;
    if (params.since !== undefined && params.since > latest)
      throw new ServiceError(
        'INVALID_PARAMS',
        `Invalid params for session.subscribe: since ${params.since} is past the newest entry of this session's log (${latest}).`,
        {
          errors: [{ path: '/since', message: `must be at most ${latest}`, keyword: 'maximum', params: {} }],
        },
      );
    // The socket closed while this call waited: its subscriptions were stopped; this one would not be.
    if (push.closed.aborted)
      throw new ServiceError(
        'INVALID_REQUEST',
        'The WebSocket closed: there is nothing to push notifications to.',
      );
    if (push.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET)
      throw new ServiceError(
        'LIMIT_REACHED',
        `This socket already holds ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions (MAX_SUBSCRIPTIONS_PER_SOCKET): unsubscribe one first.`,
        { limit: 'MAX_SUBSCRIPTIONS_PER_SOCKET' },
      );
    const id = `sub_${randomUUID()}`;
    const cursor = params.since ?? latest;
    const feed = subscribe(push, session.id, id, session.log, cursor, params.kinds);
    push.subscriptions.set(id, { sessionId: session.id, stop: () => feed.stop() });
    // The answer goes first: notifications start once it has been sent.
    void push.answered.then(() => {
      if (push.subscriptions.has(id)) feed.start();
    });
    return { subscription_id: id, session_id: session.id, cursor };
  },
});

function subscribe(
  push: PushChannel,
  sessionId: string,
  id: string,
  log: ConstructorParameters<typeof EventFeed>[0],
  cursor: number,
  kinds: readonly string[] | undefined,
): EventFeed {
  let dropped = 0;
  return new EventFeed(
    log,
    {
      event: (event: LogEvent) => {
        const params = notification(sessionId, id, { event, ...(dropped > 0 ? { dropped } : {}) });
        dropped = 0;
        return push.notify(SESSION_EVENT, params);
      },
      dropped: (n) => (dropped += n),
      end: (reason) => {
        push.subscriptions.delete(id);
        push.notify(
          SESSION_EVENT,
          notification(sessionId, id, { ended: reason, ...(dropped > 0 ? { dropped } : {}) }),
        );
      },
      whenWritable: (resume) => push.whenWritable(resume),
    },
    { cursor, kinds: kinds === undefined ? undefined : new Set(kinds) },
  );
}

export const sessionUnsubscribe = defineMethod({
  name: 'session.unsubscribe',
  summary: 'Stop a subscription session.subscribe opened on this WebSocket',
  params: {
    subscription_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'What session.subscribe answered.',
    }),
  },
  result: Type.Object({
    stopped: Type.Boolean({
      description:
        'True when it was running; false when nothing of that id runs on this socket (it ended with its session, was unsubscribed already, or belongs to another socket).',
    }),
  }),
  errors: ['INVALID_REQUEST'],
  readOnly: false,
  async handler(params, { push }) {
    if (push === undefined) throw needsSocket('session.unsubscribe');
    const subscription = push.subscriptions.get(params.subscription_id);
    // Ended with its session, unsubscribed already, or another socket's: nothing runs here to stop.
    if (subscription === undefined) return { stopped: false };
    subscription.stop();
    push.subscriptions.delete(params.subscription_id);
    return { stopped: true };
  },
});

export const subscriptionMethods = [sessionSubscribe, sessionUnsubscribe];
