// One reader of a session's event log that pushes what it reads to a transport (a session.subscribe
// subscription on the /rpc WebSocket, a GET /sessions/{id}/events stream). The reader holds only a
// cursor into the shared, bounded log: its queue is the log's entries after its cursor, so a slow
// reader costs no memory of its own. It writes while the transport takes more and pauses while the
// transport is backed up; entries the log drops meanwhile are counted, never buffered, and the
// transport says how many were lost (`dropped: N`) before the next entry it delivers. Every feed
// of a log is handed the entry's one JSON text (SessionLog.json), so many readers of a session cost
// one serialisation per entry, and each feed holds a place of its key's FeedQuota until it stops.
import { ServiceError } from '../../errors/serviceError.js';
import type { SessionCaller } from '../engine/sessionOwners.js';
import { feedLimitMessage, type FeedQuota } from './feedQuota.js';
import { EVENT_KINDS, type LogEvent, type SessionLog } from './sessionLog.js';

/** Entries read from the log per turn of the event loop: a reader far behind does not hog the loop. */
export const FEED_BATCH = 100;

/** What a transport does with what the feed reads. */
export interface FeedSink {
  /**
   * Delivers one entry, with its JSON text (shared by every feed of the log: frame it, do not
   * serialise the entry again); false when the transport is backed up now (the feed waits for
   * whenWritable).
   */
  event(event: LogEvent, json: string): boolean;
  /** `n` entries after the cursor were dropped by the log before this reader could read them. */
  dropped(n: number): void;
  /** The session ended (after every entry still held was delivered); the feed stops. */
  end(reason: string): void;
  /** Calls `resume` once the transport can take more; answers a function that cancels the wait. */
  whenWritable(resume: () => void): () => void;
}

export interface FeedOptions {
  /** The last seq the reader has seen: it gets what comes after. */
  cursor: number;
  /** Only these kinds (every kind when undefined). */
  kinds: ReadonlySet<string> | undefined;
  /** Gives back the feed's place in its key's FeedQuota; called once the feed stops. */
  release?: () => void;
}

export class EventFeed {
  private cursor: number;
  private stopped = false;
  private waiting = false;
  private scheduled = false;
  private endReason: string | undefined;
  private unlisten: () => void = () => undefined;
  /** Cancels the wait for a backed-up transport, when the feed waits. */
  private cancelWait: () => void = () => undefined;

  constructor(
    private readonly log: SessionLog,
    private readonly sink: FeedSink,
    private readonly options: FeedOptions,
  ) {
    this.cursor = options.cursor;
  }

  /** Starts reading: what the log holds after the cursor first, then each entry as it is recorded. */
  start(): void {
    this.unlisten = this.log.listen({
      recorded: () => this.schedule(),
      ended: (reason) => {
        this.endReason = reason;
        this.schedule();
      },
    });
    this.schedule();
  }

  /** Stops for good (unsubscribed, or the transport closed); nothing more reaches the sink. */
  stop(): void {
    this.stopped = true;
    this.unlisten();
    this.cancelWait();
    this.options.release?.();
  }

  get active(): boolean {
    return !this.stopped;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.stopped || this.waiting) return;
    const read = this.log.since(this.cursor, this.options.kinds, FEED_BATCH);
    if (read.dropped > 0) this.sink.dropped(read.dropped);
    for (const event of read.events) {
      this.cursor = event.seq;
      if (this.stopped) return;
      if (!this.sink.event(event, this.log.json(event))) {
        this.waiting = true;
        this.cancelWait = this.sink.whenWritable(() => {
          this.cancelWait = () => undefined;
          this.waiting = false;
          this.schedule();
        });
        return;
      }
    }
    // The read also covered entries of other kinds: the next one starts after them.
    this.cursor = read.cursor;
    if (read.events.length === FEED_BATCH) {
      this.schedule();
      return;
    }
    if (this.endReason !== undefined && this.cursor >= this.log.latest) {
      this.stop();
      this.sink.end(this.endReason);
    }
  }
}

/** Why a feed could not be opened: the transport answers each in its own way (HTTP 404 / 400 / 429). */
export interface FeedRefusal {
  refused: 'session' | 'kinds' | 'cursor' | 'limit';
  message: string;
}

/** What opening a feed needs of the session registry: the session's log, for this caller only. */
export interface FeedSessions {
  resolve(id: string, caller: SessionCaller): { log: SessionLog };
}

/** Where a feed comes from: the sessions, and the quota of feeds every key holds. */
export interface FeedSources {
  sessions: FeedSessions;
  quota: FeedQuota;
}

/**
 * Opens (and starts) a feed of a session's log for a caller that may reach it: another owner's
 * session is refused exactly as an unknown one, and a caller holding its quota of feeds is refused
 * last (after every other check, so a refusal never spends a place). `cursor` undefined reads only
 * what comes next.
 */
export function openFeed(
  { sessions, quota }: FeedSources,
  sessionId: string,
  caller: SessionCaller,
  options: { cursor: number | undefined; kinds: readonly string[] | undefined },
  sink: FeedSink,
): EventFeed | FeedRefusal {
  let log: SessionLog;
  try {
    ({ log } = sessions.resolve(sessionId, caller));
  } catch (error) {
    if (error instanceof ServiceError && error.errorName === 'SESSION_NOT_FOUND')
      return { refused: 'session', message: error.message };
    throw error;
  }
  const unknown = (options.kinds ?? []).filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0 || options.kinds?.length === 0)
    return {
      refused: 'kinds',
      message: `Unknown event kinds: ${unknown.join(', ') || '(none given)'}. Known kinds: ${EVENT_KINDS.join(', ')}.`,
    };
  const { cursor = log.latest } = options;
  if (!Number.isSafeInteger(cursor) || cursor < 0 || cursor > log.latest)
    return {
      refused: 'cursor',
      message: `The cursor ${cursor} is not a seq of this session's log: give 0 to ${log.latest} (the last seq you saw).`,
    };
  const release = quota.take(caller.id);
  if (release === undefined) return { refused: 'limit', message: feedLimitMessage(quota.limit) };
  const feed = new EventFeed(log, sink, {
    cursor,
    kinds: options.kinds === undefined ? undefined : new Set(options.kinds),
    release,
  });
  feed.start();
  return feed;
}
