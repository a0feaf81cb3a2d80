// GET /sessions/{id}/screencast: the live view of a session's active page as Server-Sent Events,
// one JPEG (base64) per `frame` event. Behind the API key; another key's session is a 404, as an id
// that never existed. A viewer that reads slower than frames come loses frames, never queues them.
import express, { type Router } from 'express';
import type { Logger } from '../observability/logger.js';
import { errorResponse } from '../rpc/jsonRpc.js';
import { principalOf } from './auth.js';

/** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. */
export const SCREENCAST_HEARTBEAT_MS = 15_000;

interface Frame {
  data: string;
  width: number;
  height: number;
  seq: number;
  timestamp: number;
}

/** The screencast hub, structurally (http/ reaches browser/ through the composition root). */
export interface ScreencastSource {
  watch(
    sessionId: string,
    caller: { id: string; admin: boolean },
    viewer: { frame(frame: Frame): void; end(reason: 'closed' | 'shutdown'): void },
  ): (() => void) | 'not_found' | 'full';
}

export function screencastRouter(hub: ScreencastSource, logger: Logger): Router {
  const router = express.Router();
  router.get('/sessions/:id/screencast', (req, res) => {
    const sessionId = req.params.id;
    let open = true;
    let dropped = 0;
    const timers: { heartbeat?: NodeJS.Timeout } = {};
    const finish = (): void => {
      if (!open) return;
      open = false;
      clearInterval(timers.heartbeat);
    };
    const result = hub.watch(sessionId, principalOf(res), {
      frame(frame) {
        if (!open || res.headersSent === false) return;
        // One write in flight at most: a viewer whose socket is full skips frames until it drains.
        if (res.writableNeedDrain) {
          dropped++;
          return;
        }
        res.write(`id: ${frame.seq}\nevent: frame\ndata: ${JSON.stringify({ ...frame, dropped })}\n\n`);
      },
      end(reason) {
        if (!open) return;
        res.end(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
        finish();
      },
    });
    if (result === 'not_found') {
      open = false;
      res
        .status(404)
        .json(
          errorResponse(
            null,
            'SESSION_NOT_FOUND',
            `Session ${sessionId} not found: unknown, closed or expired (call session.create for a new one).`,
          ),
        );
      return;
    }
    if (result === 'full') {
      open = false;
      res
        .status(429)
        .json(
          errorResponse(
            null,
            'RESOURCE_UNAVAILABLE',
            `Session ${sessionId} has as many live-view viewers as it may (SCREENCAST_MAX_VIEWERS); close one and retry.`,
          ),
        );
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
