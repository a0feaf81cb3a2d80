// methods/network/: network.* and logs.*: what a session's pages sent, received and logged.
import { Type } from '@sinclair/typebox';
import { NetworkEntrySchema, type NetworkEntry } from '../../browser/events/signalEntries.js';
import type { LogEvent } from '../../browser/events/sessionLog.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { CursorResult, readSince, SinceParam, text } from './logCursor.js';

/** A response or requestfailed entry of the log, in the shape the ring buffer keeps. */
function networkEntry(e: LogEvent): NetworkEntry {
  const failure = text(e, 'failure');
  return {
    seq: e.seq,
    id: text(e, 'request_id') ?? '',
    url: text(e, 'url') ?? '',
    status: typeof e.status === 'number' ? e.status : null,
    method: text(e, 'method') ?? '',
    resourceType: text(e, 'resourceType') ?? '',
    ...(failure === undefined ? {} : { failure }),
    ...(e.blocked === true ? { blocked: true } : {}),
    timestamp: e.timestamp,
  };
}

export const networkPull = defineSessionMethod({
  name: 'network.pull',
  summary:
    'Drain the network responses and failed requests buffered since the last pull, or read them after a cursor (since) without draining',
  params: {
    onlyErrors: Type.Boolean({
      default: true,
      description:
        'Return only status >= 400, failed and blocked requests (default true). The buffer is drained either way.',
    }),
    since: SinceParam,
  },
  result: Type.Object({
    requests: Type.Array(NetworkEntrySchema),
    dropped: Type.Integer({
      description:
        "Entries dropped because the ring buffer (NETWORK_BUFFER_SIZE) was full. With since: the entries after since that the session's event log (MAX_SESSION_EVENTS, every kind) no longer holds.",
    }),
    cursor: CursorResult,
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const read =
      params.since === undefined
        ? undefined
        : readSince(session, 'network.pull', params.since, ['response', 'requestfailed']);
    const { items, dropped } = read
      ? { items: read.events.map(networkEntry), dropped: read.dropped }
      : session.network.drain();
    const requests = params.onlyErrors
      ? items.filter((r) => r.status === null || r.status >= 400 || r.blocked === true)
      : items;
    return { requests, dropped, ...(read ? { cursor: read.cursor } : {}) };
  },
});

export const networkMethods = [networkPull];
