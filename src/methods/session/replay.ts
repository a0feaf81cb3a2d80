// replay.picture: the picture taken after an action of a session with replay on (REPLAY, or
// session.create replay), by the seq of its action entry; for an open session and, within
// REPLAY_KEEP_MS, a closed one. The timeline itself is the session's event log
// (GET /sessions/{id}/events?since=0&kinds=action: entries with picture: true have one).
import { Type } from '@sinclair/typebox';
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

export const replayMethods = [replayPicture];
