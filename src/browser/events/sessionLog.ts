// Room browser/events/: a session's event log, its digest for action reports and the feeds that push it; imports engine/.
// A session's event log: everything its pages did, in order, each entry with a seq that is monotonic
// in the session. Readers hold a cursor (the last seq they saw) and read after it without draining:
// logs.pull / network.pull with `since`, session.subscribe on the /rpc WebSocket and the
// GET /sessions/{id}/events stream all read this one log. It is bounded (MAX_SESSION_EVENTS): past
// its capacity the oldest entries go, and a reader whose cursor fell behind them learns how many it
// lost (`dropped`). An action's report reads its own digest of the kinds it reports
// (SessionEvents), so a page's traffic can never push an action's errors out of its report.

/** Every kind of entry, in the order docs/behaviour.md lists them. */
export const EVENT_KINDS = [
  'console',
  'pageerror',
  'request',
  'response',
  'requestfailed',
  'dialog',
  'navigation',
  'download',
  'page',
  'pageclosed',
  'crash',
  // A call on the session (methods/actionTimeline.ts): method, masked params, duration, outcome.
  'action',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** The log a session keeps when MAX_SESSION_EVENTS is not configured. */
export const DEFAULT_SESSION_EVENTS = 1000;
/** A text field of an entry (a console message, an error stack) is cut here: one entry stays small. */
export const MAX_EVENT_TEXT_CHARS = 4000;

type Field = string | number | boolean | null;

/** What a source records: the kind and its own fields (undefined ones are left out). */
export interface EventBody {
  kind: EventKind;
  [field: string]: Field | undefined;
}

/** An entry of the log as every reader sees it: frozen once recorded, so its JSON text is too. */
export interface LogEvent {
  readonly seq: number;
  readonly kind: EventKind;
  readonly timestamp: string;
  readonly [field: string]: Field;
}

/** An entry while record() builds it, before it is frozen. */
type EntryDraft = { -readonly [K in keyof LogEvent]: LogEvent[K] };

/** Why the log ended: its session closed, expired, or was lost with the browser. */
export type LogEndReason = string;

export interface LogRead {
  events: LogEvent[];
  /** Entries after the cursor that the log no longer holds (of any kind: the log is shared). */
  dropped: number;
  /** The cursor to read from next: the newest seq this read covered. */
  cursor: number;
}

export interface LogListener {
  /** An entry was recorded (readers read it with `since`; the listener only learns there is one). */
  recorded(): void;
  /** The log ended: nothing more will be recorded. */
  ended(reason: LogEndReason): void;
}

function clip(value: Field | undefined): Field | undefined {
  return typeof value === 'string' && value.length > MAX_EVENT_TEXT_CHARS
    ? `${value.slice(0, MAX_EVENT_TEXT_CHARS)}… [${value.length - MAX_EVENT_TEXT_CHARS} more chars]`
    : value;
}

export class SessionLog {
  /** Contiguous seqs: items[i].seq === first + i. */
  private items: LogEvent[] = [];
  private head = 0;
  private nextSeq = 1;
  private readonly listeners = new Set<LogListener>();
  /**
   * Each entry's JSON, made when a reader first sends it and shared by every reader after: a
   * session watched by many subscriptions and streams serialises an entry once, not once per
   * reader. Weak, so an entry the log evicts takes its text with it.
   */
  private readonly texts = new WeakMap<LogEvent, string>();
  /** Set once the session ended; the entries stay readable by the streams still finishing. */
  endReason: LogEndReason | undefined;

  constructor(readonly capacity = DEFAULT_SESSION_EVENTS) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
  }

  /** Records an entry and answers its seq (0 once the log ended: nothing is recorded then). */
  record(body: EventBody): number {
    if (this.endReason !== undefined) return 0;
    const draft: EntryDraft = {
      seq: this.nextSeq++,
      kind: body.kind,
      timestamp: new Date().toISOString(),
    };
    for (const [name, value] of Object.entries(body)) {
      if (name === 'kind' || name === 'seq' || name === 'timestamp') continue;
      const clipped = clip(value);
      if (clipped !== undefined) draft[name] = clipped;
    }
    // Frozen: every reader shares this object and its cached JSON text (json()).
    const entry: LogEvent = Object.freeze(draft);
    this.items.push(entry);
    // Evicting by moving a head index, compacted now and then: shift() on every push is O(n).
    if (this.items.length - this.head > this.capacity) this.head++;
    if (this.head > this.capacity) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    for (const listener of this.listeners) listener.recorded();
    return entry.seq;
  }

  /** The newest seq recorded so far (0 before the first): a cursor that reads only what comes next. */
  get latest(): number {
    return this.nextSeq - 1;
  }

  /** The oldest seq still held (latest + 1 when the log is empty). */
  private get first(): number {
    return this.items[this.head]?.seq ?? this.nextSeq;
  }

  /**
   * The entries after `cursor` (at most `max`), of the given kinds when given, oldest first. The
   * cursor must be one this log answered: 0 or a seq it has recorded.
   */
  since(cursor: number, kinds?: ReadonlySet<string>, max = Number.POSITIVE_INFINITY): LogRead {
    if (!Number.isInteger(cursor) || cursor < 0 || cursor > this.latest)
      throw new RangeError(`cursor ${cursor} is not a seq of this log (0 to ${this.latest})`);
    const dropped = Math.max(0, this.first - 1 - cursor);
    const events: LogEvent[] = [];
    let next = Math.max(cursor, this.first - 1);
    for (let i = this.head + (next + 1 - this.first); i < this.items.length; i++) {
      if (events.length >= max) break;
      const entry = this.items[i];
      if (entry === undefined) break;
      next = entry.seq;
      if (kinds === undefined || kinds.has(entry.kind)) events.push(entry);
    }
    return { events, dropped, cursor: next };
  }

  /** An entry of this log as JSON text, serialised once however many readers send it. */
  json(entry: LogEvent): string {
    let text = this.texts.get(entry);
    if (text === undefined) {
      text = JSON.stringify(entry);
      this.texts.set(entry, text);
    }
    return text;
  }

  /** Starts telling a listener about new entries and the end; answers the function that stops it. */
  listen(listener: LogListener): () => void {
    if (this.endReason !== undefined) {
      listener.ended(this.endReason);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The session ended: every listener is told once, and nothing more is recorded. */
  end(reason: LogEndReason): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener.ended(reason);
  }

  /** Listeners attached now (streams and subscriptions reading this log). */
  get listening(): number {
    return this.listeners.size;
  }
}
