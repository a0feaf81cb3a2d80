// replay.picture: the picture taken after an action of a session with replay on (REPLAY, or
// session.create replay), by the seq of its action entry; for an open session and, within
// REPLAY_KEEP_MS, a closed one. The timeline itself is the session's event log
// (GET /sessions/{id}/events?since=0&kinds=action: entries with picture: true have one).
// replay.trace: the same timeline and pictures as a Playwright trace zip (browser/artifacts/replayTrace.ts);
// replay.video: the pictures as a WebM video, where ffmpeg is present (browser/artifacts/replayVideo.ts).
import { Type, type Static } from '@sinclair/typebox';
import {
  MAX_TRACE_EXPORT_BYTES,
  replayTrace,
  TRACE_EXPORT_INTERVAL_MS,
} from '../../browser/artifacts/replayTrace.js';
import type { LogEvent } from '../../browser/events/sessionLog.js';
import type { SessionRecord } from '../../browser/session/sessionRegistry.js';
import { URL_PASSWORD } from '../actionTimeline.js';
import { redactSecrets } from './sessionSecrets.js';
import {
  encodeReplayVideo,
  findFfmpeg,
  MAX_VIDEO_BYTES,
  VIDEO_ENCODE_TIMEOUT_MS,
  VIDEO_EXPORT_INTERVAL_MS,
  VIDEO_MAX_FRAME_MS,
  VIDEO_MIN_FRAME_MS,
  type VideoFrame,
} from '../../browser/artifacts/replayVideo.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineMethod, SessionIdSchema } from '../defineSessionMethod.js';

const NO_REPLAY_PICTURES =
  'This session keeps no replay pictures: create it with replay: true (or set REPLAY).';

/** How long the last export of a kind is kept for a repeated call: past it, its bytes and its log are let go. */
export const LAST_EXPORT_KEEP_MS = 60_000;

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
          ? NO_REPLAY_PICTURES
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

/**
 * The last export of a kind, answered again while its session has not changed (its log has no new
 * entry and no picture was let go): a key exporting an unchanged or closed session over and over
 * costs the service one build. One answer per kind is kept, for LAST_EXPORT_KEEP_MS after it was
 * made, so the memory stays that of one export and a closed session's log is not held past then.
 */
export class LastExport<T> {
  private last: { log: SessionRecord['log']; stamp: string; answer: T } | undefined;
  private expiry: NodeJS.Timeout | undefined;

  constructor(private readonly keepMs = LAST_EXPORT_KEEP_MS) {}

  async answer(record: Pick<SessionRecord, 'log' | 'replay'>, make: () => Promise<T>): Promise<T> {
    const stamp = `${record.log.latest}/${record.replay?.evicted ?? 0}/${record.replay?.seqs.length ?? 0}`;
    const last = this.last;
    if (last !== undefined && last.log === record.log && last.stamp === stamp) return last.answer;
    const answer = await make();
    this.last = { log: record.log, stamp, answer };
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => {
      this.last = undefined;
    }, this.keepMs);
    this.expiry.unref();
    return answer;
  }
}

/** The fields of an exported file in an answer: its name, type and bytes, base64. */
function fileFields<M extends string>(name: string, mime: M) {
  return {
    filename: Type.String({ description: `A file name for it: ${name}.` }),
    mime: Type.Literal(mime),
    base64: Type.String({ description: 'The file, base64.' }),
    bytes: Type.Integer(),
  };
}

function fileAnswer<M extends string>(
  filename: string,
  mime: M,
  data: Buffer,
): { filename: string; mime: M; base64: string; bytes: number } {
  return { filename, mime, base64: data.toString('base64'), bytes: data.length };
}

/** An entry with every URL password in its text fields written ***, as the timeline's own URLs are. */
function maskUrlPasswords(entry: LogEvent): LogEvent {
  const masked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entry))
    masked[name] = typeof value === 'string' ? value.replace(URL_PASSWORD, '$1***@') : value;
  return masked as LogEvent;
}

const TraceResult = Type.Object({
  ...fileFields('session-<id>.trace.zip', 'application/zip'),
  actions: Type.Integer({ description: 'Calls in the trace.' }),
  pictures: Type.Integer({ description: 'Replay pictures in it.' }),
  requests: Type.Integer({ description: 'Requests in its network tab.' }),
  dropped: Type.Integer({ description: 'Older entries the log no longer held (MAX_SESSION_EVENTS).' }),
});
const VideoResult = Type.Object({
  ...fileFields('session-<id>.webm', 'video/webm'),
  frames: Type.Integer({ description: 'Pictures in it.' }),
  durationMs: Type.Integer({ description: 'How long it plays.' }),
});

const lastTrace = new LastExport<Static<typeof TraceResult>>();
const lastVideo = new LastExport<Static<typeof VideoResult>>();

export const replayTraceMethod = defineMethod({
  name: 'replay.trace',
  summary:
    'A session’s timeline as a Playwright trace zip that npx playwright show-trace opens: every call with its params, duration and error, the replay pictures, console and network; also after the session closed (REPLAY_KEEP_MS)',
  description: `Built from what the session keeps: its event log (the last MAX_SESSION_EVENTS entries; \`dropped\` counts older ones not in it) and, with replay on, its pictures (MAX_REPLAY_BYTES), so the zip is at most about the log and twice the pictures (each is a film-strip frame and, inline, its call's After view), and never over ${MAX_TRACE_EXPORT_BYTES} bytes before compression (-32003). One trace is built at a time for the service, and one a key every ${TRACE_EXPORT_INTERVAL_MS} ms (another meanwhile or sooner is -32003 with retryAfterMs); a session that has not changed since its last trace gets that one again at once, for ${LAST_EXPORT_KEEP_MS / 1000} s after it was made. A typed secret the page echoed is written <secret:NAME>, a URL's password ***. Each call is an action titled by its method and target, its params masked as in the timeline (typed text and secrets as <N chars>); each picture a screencast frame at the end of its call; console messages and page errors in the Console tab; requests with their status in the Network tab (no headers or bodies). No DOM snapshots: for those, record with trace.start. Save the base64 as a .zip and open it with npx playwright show-trace.`,
  params: { session_id: SessionIdSchema },
  result: TraceResult,
  errors: ['SESSION_NOT_FOUND', 'LIMIT_REACHED'],
  readOnly: true,
  logFields: (params) => ({ sessionId: params.session_id }),
  async handler(params, { services, principal }) {
    const record = services.sessions.recordOf(params.session_id, principal);
    return lastTrace.answer(record, async () => {
      const { events, dropped } = record.log.since(0);
      // A file people share: a typed secret the page echoed is its name, a URL's password ***.
      const shared = redactSecrets(record.log, events.map(maskUrlPasswords));
      const trace = await replayTrace(principal.id, params.session_id, shared, record.replay);
      return {
        ...fileAnswer(`session-${params.session_id}.trace.zip`, 'application/zip' as const, trace.zip),
        actions: trace.actions,
        pictures: trace.pictures,
        requests: trace.requests,
        dropped,
      };
    });
  },
});

export const replayVideo = defineMethod({
  name: 'replay.video',
  summary:
    'A session’s replay pictures as a WebM video, each held until the next call’s; where the service has ffmpeg (FFMPEG_PATH); also after the session closed',
  description: `Needs a session with replay on and ffmpeg on the service (FFMPEG_PATH, or ffmpeg on PATH): without ffmpeg it is -32005, and replay.trace is the export. Each picture shows from the end of its call until the next picture, at least ${VIDEO_MIN_FRAME_MS} ms and at most ${VIDEO_MAX_FRAME_MS} ms, fitted into the first picture's size; VP8 in WebM, which browsers play. The service encodes one video at a time, and one a key every ${VIDEO_EXPORT_INTERVAL_MS} ms (another asked meanwhile or sooner is -32003 with retryAfterMs), on one thread at the lowest CPU priority; an unchanged session's last video is answered again at once for ${LAST_EXPORT_KEEP_MS / 1000} s after it was made; within ${VIDEO_ENCODE_TIMEOUT_MS / 1000} s; a video over ${MAX_VIDEO_BYTES} bytes is -32003.`,
  params: { session_id: SessionIdSchema },
  result: VideoResult,
  errors: [
    'SESSION_NOT_FOUND',
    'INVALID_PARAMS',
    'RESOURCE_UNAVAILABLE',
    'LIMIT_REACHED',
    'TIMEOUT',
    'ACTION_FAILED',
  ],
  readOnly: true,
  logFields: (params) => ({ sessionId: params.session_id }),
  async handler(params, { services, principal, signal }) {
    const record = services.sessions.recordOf(params.session_id, principal);
    const frames: VideoFrame[] = [];
    for (const entry of record.log.since(0, new Set(['action'])).events) {
      const picture = entry.picture === true ? record.replay?.get(entry.seq) : undefined;
      if (picture !== undefined) frames.push({ picture, at: Date.parse(entry.timestamp) });
    }
    if (frames.length === 0)
      throw new ServiceError(
        'INVALID_PARAMS',
        record.replay === undefined
          ? NO_REPLAY_PICTURES
          : 'This session has no replay picture yet: a picture is taken after each call that changes something.',
        { errors: [{ path: '/session_id', message: 'no pictures', keyword: 'replay', params: {} }] },
      );
    const ffmpeg = findFfmpeg(services.config.ffmpegPath);
    if (ffmpeg === undefined)
      throw new ServiceError(
        'RESOURCE_UNAVAILABLE',
        services.config.ffmpegPath === undefined
          ? 'No ffmpeg on this service: install it (apt-get install ffmpeg) or set FFMPEG_PATH; replay.trace exports the session without it.'
          : 'FFMPEG_PATH does not name a runnable file; replay.trace exports the session without ffmpeg.',
        { missing: 'ffmpeg' },
      );
    return lastVideo.answer(record, async () => {
      const video = await encodeReplayVideo(principal.id, ffmpeg, frames, signal);
      return {
        ...fileAnswer(`session-${params.session_id}.webm`, 'video/webm' as const, video.webm),
        frames: video.frames,
        durationMs: video.durationMs,
      };
    });
  },
});

export const replayMethods = [replayPicture, replayTraceMethod, replayVideo];
