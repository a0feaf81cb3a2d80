// replay.picture: the picture taken after an action of a session with replay on (REPLAY, or
// session.create replay), by the seq of its action entry; for an open session and, within
// REPLAY_KEEP_MS, a closed one. The timeline itself is the session's event log
// (GET /sessions/{id}/events?since=0&kinds=action: entries with picture: true have one).
// replay.trace: the same timeline and pictures as a Playwright trace zip (browser/artifacts/replayTrace.ts).
import { Type } from '@sinclair/typebox';
import { replayTrace } from '../../browser/artifacts/replayTrace.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineMethod, SessionIdSchema } from '../defineSessionMethod.js';

export const replayPicture = defineMethod({
  name: 'replay.picture',
  summary:
    'The picture of the page after one action of a session with replay on, by its action entry’s seq; also after the session closed (REPLAY_KEEP_MS)',
  description:
    "Action entries of the session's event log with picture: true have one (GET /sessions/{id}/events?since=0&kinds=action lists them, for a closed session too while it is kept). A JPEG of the viewport as it was when the call ended. Pictures past MAX_REPLAY_BYTES of the session were let go, oldest first.",
  params: {
    session_id: SessionIdSchema,
    seq: Type.Integer({ minimum: 1, description: 'The seq of an action entry with picture: true.' }),
  },
  result: Type.Object({
    seq: Type.Integer(),
    mime: Type.Literal('image/jpeg'),
    base64: Type.String({ description: 'The JPEG, base64.' }),
    bytes: Type.Integer(),
  }),
  errors: ['SESSION_NOT_FOUND', 'INVALID_PARAMS'],
  readOnly: true,
  logFields: (params) => ({ sessionId: params.session_id }),
  handler(params, { services, principal }) {
    // An unknown, another key's, or a closed session past REPLAY_KEEP_MS: SESSION_NOT_FOUND.
    const record = services.sessions.recordOf(params.session_id, principal);
    const picture = record.replay?.get(params.seq);
    if (picture === undefined) {
      const message =
        record.replay === undefined
          ? 'This session keeps no replay pictures: create it with replay: true (or set REPLAY).'
          : `No picture for seq ${params.seq}: take the seq of an action entry with picture: true (pictures past MAX_REPLAY_BYTES are let go, oldest first).`;
      throw new ServiceError('INVALID_PARAMS', message, {
        errors: [{ path: '/seq', message: 'no picture', keyword: 'enum', params: {} }],
      });
    }
    return Promise.resolve({
      seq: params.seq,
      mime: 'image/jpeg' as const,
      base64: picture.toString('base64'),
      bytes: picture.length,
    });
  },
});

export const replayTraceMethod = defineMethod({
  name: 'replay.trace',
  summary:
    'A session’s timeline as a Playwright trace zip that npx playwright show-trace opens: every call with its params, duration and error, the replay pictures, console and network; also after the session closed (REPLAY_KEEP_MS)',
  description:
    'Built from what the session keeps: its event log (the last MAX_SESSION_EVENTS entries; `dropped` counts older ones not in it) and, with replay on, its pictures (MAX_REPLAY_BYTES), so the zip is at most about those two. Each call is an action titled by its method and target, its params masked as in the timeline (typed text and secrets as <N chars>); each picture a screencast frame at the end of its call; console messages and page errors in the Console tab; requests with their status in the Network tab (no headers or bodies). No DOM snapshots: for those, record with trace.start. Save the base64 as a .zip and open it with `npx playwright show-trace`.',
  params: { session_id: SessionIdSchema },
  result: Type.Object({
    filename: Type.String({ description: 'A file name for it: session-<id>.trace.zip.' }),
    mime: Type.Literal('application/zip'),
    base64: Type.String({ description: 'The zip, base64.' }),
    bytes: Type.Integer(),
    actions: Type.Integer({ description: 'Calls in the trace.' }),
    pictures: Type.Integer({ description: 'Replay pictures in it.' }),
    requests: Type.Integer({ description: 'Requests in its network tab.' }),
    dropped: Type.Integer({ description: 'Older entries the log no longer held (MAX_SESSION_EVENTS).' }),
  }),
  errors: ['SESSION_NOT_FOUND'],
  readOnly: true,
  logFields: (params) => ({ sessionId: params.session_id }),
  handler(params, { services, principal }) {
    const record = services.sessions.recordOf(params.session_id, principal);
    const { events, dropped } = record.log.since(0);
    const trace = replayTrace(params.session_id, events, record.replay);
    return Promise.resolve({
      filename: `session-${params.session_id}.trace.zip`,
      mime: 'application/zip' as const,
      base64: trace.zip.toString('base64'),
      bytes: trace.zip.length,
      actions: trace.actions,
      pictures: trace.pictures,
      requests: trace.requests,
      dropped,
    });
  },
});

export const replayMethods = [replayPicture, replayTraceMethod];
