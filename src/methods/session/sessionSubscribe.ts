// session.subscribe and session.unsubscribe: a session's event log pushed as JSON-RPC notifications
// (session.event) on the /rpc WebSocket that asked. POST /rpc and /mcp cannot carry them: there the
// methods are refused, and GET /sessions/{id}/events (Server-Sent Events) is the HTTP way.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { EventFeed, type FeedSink } from '../../browser/events/eventFeed.js';
import { FEED_LIMIT, feedLimitMessage } from '../../browser/events/feedQuota.js';
import { EVENT_KINDS } from '../../browser/events/sessionLog.js';
import { ServiceError } from '../../errors/serviceError.js';
import type { PushChannel } from '../../rpc/defineMethod.js';
import { defineMethod, SessionIdSchema } from '../defineSessionMethod.js';

/**
 * Subscriptions one socket may hold at once: each holds a cursor and a listener on a session's log.
 * They also count, with the key's other subscriptions and event streams, against
 * MAX_SUBSCRIPTIONS_PER_KEY (services.feedQuota).
 */
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
    'WebSocket /rpc only. Each entry of the session\'s event log arrives as {"jsonrpc":"2.0","method":"session.event","params":{session_id, subscription_id, event:{seq, kind, timestamp, …}}}, in seq order, until session.unsubscribe, the session ends (a last notification with ended: reason and no event) or the socket closes. Entries the log dropped before this subscription could send them (a reader slower than the page, MAX_SESSION_EVENTS) are counted in the next notification\'s dropped. At most MAX_SUBSCRIPTIONS_PER_SOCKET (32) subscriptions per socket, and MAX_SUBSCRIPTIONS_PER_KEY subscriptions and GET /sessions/{id}/events streams per API key across all its sockets: past either, LIMIT_REACHED naming the limit (data.limit).',
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
    // Taken last, once nothing else can refuse: the place goes back when the feed stops (unsubscribed,
    // the session ended, the socket closed).
    const quota = services.feedQuota;
    const release = quota.take(principal.id);
    if (release === undefined)
      throw new ServiceError('LIMIT_REACHED', feedLimitMessage(quota.limit), {
        limit: FEED_LIMIT,
        max: quota.limit,
      });
    const id = `sub_${randomUUID()}`;
    const cursor = params.since ?? latest;
    const feed = new EventFeed(session.log, subscriptionSink(push, session.id, id), {
      cursor,
      kinds: params.kinds === undefined ? undefined : new Set(params.kinds),
      release,
    });
    push.subscriptions.set(id, { sessionId: session.id, stop: () => feed.stop() });
    // The answer goes first: notifications start once it has been sent.
    void push.answered.then(() => {
      if (push.subscriptions.has(id)) feed.start();
    });
    return { subscription_id: id, session_id: session.id, cursor };
  },
});

/**
 * What one subscription's feed sends on its socket: each entry as a session.event notification
 * whose params are {session_id, subscription_id, event, dropped?}, written around the entry's
 * shared JSON text (every subscription of the session sends the same text; none serialises it
 * again); the end as a last notification with `ended`.
 */
export function subscriptionSink(push: PushChannel, sessionId: string, id: string): FeedSink {
  let dropped = 0;
  const head = `{"session_id":${JSON.stringify(sessionId)},"subscription_id":${JSON.stringify(id)},"event":`;
  return {
    event: (_event, json) => {
      const params = `${head}${json}${dropped > 0 ? `,"dropped":${dropped}` : ''}}`;
      dropped = 0;
      return push.notifyJson(SESSION_EVENT, params);
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
  };
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
