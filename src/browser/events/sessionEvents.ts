// What happened in a session, in order, each with a monotonic seq: an action's answer reports the
// events since it started (console errors, failed requests, dialogs, downloads, new pages). Bounded:
// past its capacity the oldest go, and a reader whose mark fell behind learns how many it missed.
// It is the action report's digest of the session's log (SessionLog): it holds only the kinds a
// report lists, so a page's requests and console chatter never push them out. Dialogs, downloads
// and new pages are recorded in the log as they are here; console errors and failed requests reach
// the log from their sources (SessionSignals) as console, pageerror, response and requestfailed.
import type { SessionLog } from './sessionLog.js';

/** The report events a session keeps; an action that causes more reports the newest. */
export const MAX_REPORT_EVENTS = 500;

export interface ConsoleErrorEvent {
  kind: 'consoleError';
  /** An uncaught exception of the page (pageerror) or a console.error message. */
  source: 'console' | 'pageerror';
  text: string;
}

export interface RequestFailedEvent {
  kind: 'requestFailed';
  /** The request's id (network.get). */
  request_id: string;
  url: string;
  method: string;
  resourceType: string;
  /** net::ERR_…, an HTTP status of 400 or more, or "blocked by the allow-list". */
  failure: string;
}

export interface DialogEvent {
  kind: 'dialog';
  /** alert, confirm, prompt or beforeunload. */
  type: string;
  message: string;
  /** What the service did with it: accepted, dismissed, or pending (left for dialog.handle). */
  outcome: string;
  page_id?: string;
}

export interface DownloadEvent {
  kind: 'download';
  download_id: string;
  name: string;
  bytes: number | null;
  mime: string | null;
  /** saved, failed (with why), or refused (over the size cap). */
  state: string;
  page_id?: string;
}

export interface PageOpenedEvent {
  kind: 'page';
  page_id: string;
  url: string;
  /** The page that opened it, when known. */
  opener?: string;
}

export type SessionEventBody =
  ConsoleErrorEvent | RequestFailedEvent | DialogEvent | DownloadEvent | PageOpenedEvent;

export type SessionEvent = SessionEventBody & { seq: number; timestamp: string };

export class SessionEvents {
  private items: SessionEvent[] = [];
  private nextSeq = 1;

  constructor(
    readonly capacity = MAX_REPORT_EVENTS,
    /** The session's log, which gets the dialog, download and page events as they are. */
    private readonly log?: SessionLog,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
  }

  push(event: SessionEventBody): void {
    if (event.kind === 'dialog' || event.kind === 'download' || event.kind === 'page')
      this.log?.record({ ...event });
    this.items.push({ ...event, seq: this.nextSeq++, timestamp: new Date().toISOString() });
    if (this.items.length > this.capacity) this.items.shift();
  }

  /** The seq the next event will get: events since a mark have seq ≥ it. */
  mark(): number {
    return this.nextSeq;
  }

  /** The events since a mark, oldest first, and how many of them were dropped before this read. */
  since(mark: number): { events: SessionEvent[]; dropped: number } {
    const events = this.items.filter((e) => e.seq >= mark);
    const first = events[0]?.seq ?? this.nextSeq;
    return { events, dropped: Math.max(0, first - mark) };
  }
}
