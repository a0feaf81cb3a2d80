// GET /sessions/{id}/screencast: the live view of a session's active page as Server-Sent Events,
// one JPEG (base64) per `frame` event. Behind the API key; another key's session is a 404, as an id
// that never existed. A viewer that reads slower than frames come loses frames, never queues them.
import express, { type Router } from 'express';
import type { ErrorName } from '../errors/catalogue.js';
import type { Logger } from '../observability/logger.js';
import { principalOf } from './auth.js';
import { sendErrorEnvelope } from './errorEnvelope.js';

/** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. */
export const SCREENCAST_HEARTBEAT_MS = 15_000;

/**
 * What the route reads of a frame: its seq, the event's id. The frame is written whole, as the hub
 * made it (browser/artifacts/screencast.ts's ScreencastFrame: the JPEG, its size, its time and URL).
 */
interface Frame {
  seq: number;
}

/** The sizes a viewer may ask for with `?size=`; absent is the small box's `fit`. */
const SIZES = ['fit', 'full'] as const;
type Size = (typeof SIZES)[number];

function isSize(value: unknown): value is Size {
  return SIZES.some((size) => size === value);
}

/** The screencast hub, structurally (http/ reaches browser/ through the composition root). */
export interface ScreencastSource {
  watch(
    sessionId: string,
    caller: { id: string; admin: boolean },
    viewer: {
      frame(frame: Frame): void;
      location(url: string): void;
      end(reason: 'closed' | 'shutdown'): void;
    },
    size: Size,
  ): (() => void) | 'not_found' | 'full';
}

/** How the live view answers a viewer the hub did not let watch. */
interface WatchRefusal {
  status: number;
  name: ErrorName;
  message: (sessionId: string) => string;
}

/** The hub's refusals: a session that is not the caller's (or is gone), and one with all its viewers. */
const WATCH_REFUSALS: Record<'not_found' | 'full', WatchRefusal> = {
  not_found: {
    status: 404,
    name: 'SESSION_NOT_FOUND',
    message: (sessionId) =>
      `Session ${sessionId} not found: unknown, closed or expired (call session.create for a new one).`,
  },
  full: {
    status: 429,
    name: 'RESOURCE_UNAVAILABLE',
    message: (sessionId) =>
      `Session ${sessionId} has as many live-view viewers as it may (SCREENCAST_MAX_VIEWERS); close one and retry.`,
  },
};

export function screencastRouter(hub: ScreencastSource, logger: Logger): Router {
  const router = express.Router();
  router.get('/sessions/:id/screencast', (req, res) => {
    const sessionId = req.params.id;
    const size = req.query.size ?? 'fit';
    if (!isSize(size)) {
      sendErrorEnvelope(
        res,
        400,
        'INVALID_PARAMS',
        `size must be one of ${SIZES.join(', ')} (fit: the small box's frames; full: the page's own size, capped).`,
      );
      return;
    }
    let open = true;
    let dropped = 0;
    const timers: { heartbeat?: NodeJS.Timeout } = {};
    const finish = (): void => {
      if (!open) return;
      open = false;
      clearInterval(timers.heartbeat);
    };
    const result = hub.watch(
      sessionId,
      principalOf(res),
      {
        frame(frame) {
          if (!open || res.headersSent === false) return;
          // One write in flight at most: a viewer whose socket is full skips frames until it drains.
          if (res.writableNeedDrain) {
            dropped++;
            return;
          }
          res.write(`id: ${frame.seq}\nevent: frame\ndata: ${JSON.stringify({ ...frame, dropped })}\n\n`);
        },
        location(url) {
          // A URL is a few bytes and the viewer needs the latest: it is written even when frames drop.
          if (open && res.headersSent !== false)
            res.write(`event: location\ndata: ${JSON.stringify({ url })}\n\n`);
        },
        end(reason) {
          if (!open) return;
          res.end(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
          finish();
        },
      },
      size,
    );
    if (typeof result === 'string') {
      open = false;
      const refused = WATCH_REFUSALS[result];
      sendErrorEnvelope(res, refused.status, refused.name, refused.message(sessionId));
      return;
    }
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    res.write(': live view\n\n');
    timers.heartbeat = setInterval(() => {
      if (!res.writableNeedDrain) res.write(': keep-alive\n\n');
    }, SCREENCAST_HEARTBEAT_MS);
    timers.heartbeat.unref();
    const unwatch = result;
    res.on('close', () => {
      finish();
      unwatch();
    });
    res.on('error', (error) => {
      // A viewer that went away mid-write: only the stream ends, and it says nothing secret.
      logger.debug({ sessionId, err: { message: error.message } }, 'screencast viewer gone');
    });
  });
  return router;
}
