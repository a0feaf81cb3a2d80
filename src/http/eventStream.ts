// GET /sessions/{id}/events: a session's event log as Server-Sent Events, behind the API key (a
// header, never the URL) like every route. Each entry is one `session.event` event whose id is its
// seq, so an EventSource (or curl) that reconnects with Last-Event-ID resumes after the last one it
// got; entries the log dropped before this stream could send them are one `dropped` event with the
// count; when the session ends, an `end` event and the response ends. The stream pauses while its
// client does not read (res.write answers false) and the session's bounded log is its only queue.
import { Router, type Request, type Response } from 'express';
import type { Logger } from '../observability/logger.js';
import type { Principal } from '../rpc/defineMethod.js';
import { principalOf } from './auth.js';

/**
 * Open event streams one API key may hold: each holds a connection and a listener on a log. They
 * also count, with the key's subscriptions, against MAX_SUBSCRIPTIONS_PER_KEY (openFeed refuses).
 */
export const MAX_EVENT_STREAMS_PER_KEY = 16;

/** An entry of a session's log as the stream sends it: its seq is the event id. */
export interface StreamEvent {
  seq: number;
  [field: string]: unknown;
}

/** What the stream does with what it reads (browser/events/eventFeed.ts FeedSink, structurally). */
export interface StreamSink {
  /** `json` is the entry's JSON text, shared by every reader of the log: it is sent as it is. */
  event(event: StreamEvent, json: string): boolean;
  dropped(n: number): void;
  end(reason: string): void;
  whenWritable(resume: () => void): () => void;
}

/** Opens a feed of a session's log for a caller, or says why not (the composition root injects it). */
export type OpenEventFeed = (
  sessionId: string,
  caller: Principal,
  options: { cursor: number | undefined; kinds: readonly string[] | undefined },
  sink: StreamSink,
) => { stop(): void } | { refused: 'session' | 'kinds' | 'cursor' | 'limit'; message: string };

export interface EventStreamOptions {
  openFeed: OpenEventFeed;
  logger: Logger;
  /** EVENT_STREAM_HEARTBEAT_MS: a comment line is sent this often, so proxies and clients see a live connection. */
  heartbeatMs: number;
}

/** The cursor a client resumes from: Last-Event-ID, else ?since=; undefined for "from now on". */
function cursorOf(req: Request): number | undefined | 'invalid' {
  const header = req.get('last-event-id');
  const query = typeof req.query.since === 'string' ? req.query.since : undefined;
  const raw = header ?? query;
  if (raw === undefined) return undefined;
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : 'invalid';
}

function kindsOf(req: Request): string[] | undefined | 'invalid' {
  const raw = req.query.kinds;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') return 'invalid';
  return raw.split(',').map((k) => k.trim());
}

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * One entry of the log: its seq is the event id, its data the entry's shared JSON text, sent as it
 * is (one line: JSON.stringify escapes newlines, as data: needs).
 */
const entryFrame = (seq: number, json: string): string =>
  `id: ${seq}\nevent: session.event\ndata: ${json}\n\n`;

export function eventStreamRouter(options: EventStreamOptions): Router {
  const router = Router();
  const openPerKey = new Map<string, number>();
  router.get('/sessions/:id/events', (req: Request, res: Response) => {
    const principal = principalOf(res);
    const cursor = cursorOf(req);
    const kinds = kindsOf(req);
    if (cursor === 'invalid' || kinds === 'invalid') {
      res.status(400).json({
        error:
          cursor === 'invalid'
            ? 'Last-Event-ID (or since) must be a seq: the last one you got, or 0.'
            : 'kinds must be one comma-separated list.',
      });
      return;
    }
    const open = openPerKey.get(principal.id) ?? 0;
    if (open >= MAX_EVENT_STREAMS_PER_KEY) {
      res.status(429).json({
        error: `Too many open event streams for this API key (MAX_EVENT_STREAMS_PER_KEY = ${MAX_EVENT_STREAMS_PER_KEY}); close one first.`,
      });
      return;
    }
    const id = String(req.params.id);
    const sink: StreamSink = {
      event: (event, json) => res.write(entryFrame(event.seq, json)),
      dropped: (n) => void res.write(frame('dropped', { dropped: n })),
      end: (reason) => {
        res.end(frame('end', { reason }));
      },
      whenWritable: (resume) => {
        res.once('drain', resume);
        return () => res.off('drain', resume);
      },
    };
    // Headers first: the feed may write its backlog at once.
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // A reverse proxy (nginx) would otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    const opened = options.openFeed(id, principal, { cursor, kinds }, sink);
    if ('refused' in opened) {
      // Not a stream after all: the refusal is JSON, labelled so.
      res.removeHeader('x-accel-buffering');
      // MAX_SUBSCRIPTIONS_PER_KEY, counted with the key's subscriptions, answers as the stream cap does.
      const status = { session: 404, limit: 429, kinds: 400, cursor: 400 }[opened.refused];
      res
        .status(status)
        .set('content-type', 'application/json; charset=utf-8')
        .json({ error: opened.message });
      return;
    }
    openPerKey.set(principal.id, open + 1);
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const heartbeat = setInterval(() => res.write(': ping\n\n'), options.heartbeatMs);
    res.once('close', () => {
      clearInterval(heartbeat);
      opened.stop();
      const n = (openPerKey.get(principal.id) ?? 1) - 1;
      if (n > 0) openPerKey.set(principal.id, n);
      else openPerKey.delete(principal.id);
      options.logger.debug({ sessionId: id }, 'event stream closed');
    });
  });
  return router;
}
