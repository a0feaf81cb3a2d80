// Performance traces of a session's page (performance.start / performance.stop): Chromium's own
// trace (the one the DevTools Performance panel records) of a load or of what the agent does, cut to
// the page's own renderer processes, summarised for an agent, and kept as a JSON file of the session.
//
// Chromium records one trace at a time for the whole browser, and that trace holds every process of
// it, other tenants' renderers included. So a recording holds the browser's one slot (a second
// session is refused with RESOURCE_UNAVAILABLE and when to try again, never queued), stops by itself
// after MAX_PERF_RECORD_MS, and keeps only the events of the processes that rendered this page's main
// frame (with their thread names): no event of the browser process or another page leaves it.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';

/** A recording stops by itself after this long, so a forgotten one does not hold the browser's slot. */
export const MAX_PERF_RECORD_MS = 30_000;
/** Chromium's trace is read up to this many bytes: past it the raw trace is not kept (the summary is). */
export const MAX_PERF_TRACE_READ_BYTES = 64 * 1024 * 1024;
/** One IO.read of the trace stream. */
const TRACE_READ_CHUNK_BYTES = 1024 * 1024;
/** A task on the page's main thread at least this long is a long task (the web's definition). */
export const LONG_TASK_MS = 50;
/** Rows of each list of the summary (long tasks, render-blocking and largest requests). */
export const PERF_LIST_ROWS = 5;

/** What DevTools' Performance panel records, less screenshots and JS samples (big, not summarised). */
const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'loading',
  'toplevel',
  'blink.user_timing',
  'latencyInfo',
  'v8.execute',
  '__metadata',
];

/** One event of a Chromium trace (the Trace Event Format). */
export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  cat?: string;
  args?: { name?: string; data?: Record<string, unknown> };
}

interface Recording {
  cdp: CDPSession;
  targetId: string;
  startedAt: number;
  /** Set when MAX_PERF_RECORD_MS ended it: the stop that follows reads the trace taken then. */
  autoStopped?: Promise<RawTrace>;
  timer: NodeJS.Timeout;
}

export interface RawTrace {
  events: TraceEvent[] | undefined;
  /** Why there are no events (the trace was over MAX_PERF_TRACE_READ_BYTES), when there are none. */
  lost?: string;
  durationMs: number;
  stoppedBy: 'call' | 'limit';
}

/** Per browser, the session whose recording holds its one trace slot, and when that recording ends. */
const slots = new WeakMap<Browser, { owner: object; endsAt: number }>();

function busy(endsAt: number): ServiceError {
  const retryAfterMs = Math.max(1000, endsAt - Date.now());
  return new ServiceError(
    'RESOURCE_UNAVAILABLE',
    `Another session is recording a performance trace: the browser records one at a time. Try again in ${Math.ceil(retryAfterMs / 1000)} s (a recording stops by itself after ${MAX_PERF_RECORD_MS / 1000} s).`,
    { retryAfterMs },
  );
}

function refuse(message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', message, {
    errors: [{ path: '/session_id', message, keyword: 'recording', params: {} }],
  });
}

/** One session's performance recording: at most one at a time. */
export class PerfRecorder {
  private recording: Recording | undefined;

  constructor(private readonly context: BrowserContext) {
    // A session that ends while recording frees the browser's slot at once, not at its time limit.
    const browser = context.browser();
    context.once('close', () => {
      if (this.recording !== undefined) clearTimeout(this.recording.timer);
      this.recording = undefined;
      if (browser !== null && slots.get(browser)?.owner === this) slots.delete(browser);
    });
  }

  get active(): boolean {
    return this.recording !== undefined;
  }

  /** Starts Chromium's trace on `page`, holding the browser's trace slot. */
  async start(page: Page): Promise<void> {
    if (this.recording !== undefined)
      throw refuse(
        'A performance recording is already running on this session: call performance.stop first.',
      );
    const browser = this.context.browser();
    if (browser === null) throw refuse('This session has no browser of its own to trace.');
    const held = slots.get(browser);
    if (held !== undefined && held.owner !== this) throw busy(held.endsAt);
    const startedAt = Date.now();
    slots.set(browser, { owner: this, endsAt: startedAt + MAX_PERF_RECORD_MS });
    let cdp: CDPSession | undefined;
    try {
      cdp = await this.context.newCDPSession(page);
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      await cdp.send('Tracing.start', {
        transferMode: 'ReturnAsStream',
        traceConfig: { includedCategories: TRACE_CATEGORIES, excludedCategories: ['*'] },
      });
      const timer = setTimeout(() => {
        const recording = this.recording;
        if (recording === undefined) return;
        recording.autoStopped = this.finish(recording, 'limit');
        // Read by the stop that follows; a failure here is that stop's answer.
        recording.autoStopped.catch(() => undefined);
      }, MAX_PERF_RECORD_MS);
      timer.unref();
      this.recording = { cdp, targetId: targetInfo.targetId, startedAt, timer };
    } catch (error) {
      slots.delete(browser);
      await cdp?.detach().catch(() => undefined);
      if (error instanceof Error && /already been started/i.test(error.message))
        throw busy(Date.now() + MAX_PERF_RECORD_MS);
      throw error;
    }
  }

  /** Ends the recording: the trace cut to this page's renderer processes. */
  async stop(): Promise<RawTrace> {
    const recording = this.recording;
    if (recording === undefined)
      throw refuse('No performance recording is running on this session: call performance.start first.');
    return recording.autoStopped ?? this.finish(recording, 'call');
  }

  private async finish(recording: Recording, stoppedBy: RawTrace['stoppedBy']): Promise<RawTrace> {
    clearTimeout(recording.timer);
    const { cdp } = recording;
    try {
      const complete = new Promise<{ stream?: string }>((resolve) =>
        cdp.once('Tracing.tracingComplete', (event: { stream?: string }) => resolve(event)),
      );
      await cdp.send('Tracing.end');
      const { stream } = await complete;
      const durationMs = Date.now() - recording.startedAt;
      if (stream === undefined) return { events: [], durationMs, stoppedBy };
      const text = await readStream(cdp, stream);
      if (text === undefined)
        return {
          events: undefined,
          lost: `Chromium's trace passed ${MAX_PERF_TRACE_READ_BYTES} bytes (MAX_PERF_TRACE_READ_BYTES): it was not kept; record a shorter span.`,
          durationMs,
          stoppedBy,
        };
      return { events: ownEvents(parseTrace(text), recording.targetId), durationMs, stoppedBy };
    } finally {
      if (this.recording === recording) this.recording = undefined;
      const browser = this.context.browser();
      if (browser !== null && slots.get(browser)?.owner === this) slots.delete(browser);
      await cdp.detach().catch(() => undefined);
    }
  }
}

/** The trace stream's text, or undefined past MAX_PERF_TRACE_READ_BYTES (the stream is closed either way). */
async function readStream(cdp: CDPSession, handle: string): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const chunk = await cdp.send('IO.read', { handle, size: TRACE_READ_CHUNK_BYTES });
      const data = Buffer.from(chunk.data, chunk.base64Encoded === true ? 'base64' : 'utf8');
      bytes += data.length;
      if (bytes > MAX_PERF_TRACE_READ_BYTES) return undefined;
      parts.push(data);
      if (chunk.eof) return Buffer.concat(parts).toString('utf8');
    }
  } finally {
    await cdp.send('IO.close', { handle }).catch(() => undefined);
  }
}

function parseTrace(text: string): TraceEvent[] {
  const parsed: unknown = JSON.parse(text);
  const events: unknown = Array.isArray(parsed)
    ? parsed
    : typeof parsed === 'object' && parsed !== null && 'traceEvents' in parsed
      ? parsed.traceEvents
      : [];
  return Array.isArray(events) ? (events as TraceEvent[]) : [];
}

/**
 * The events of the processes that rendered the page's main frame (`targetId`: Chromium names a
 * page's main frame by its target id): the one at the start (TracingStartedInBrowser) and each one a
 * navigation committed it to (FrameCommittedInBrowser), with their process and thread names.
 */
export function ownEvents(events: TraceEvent[], targetId: string): TraceEvent[] {
  const pids = new Set<number>();
  for (const event of events) {
    const data = event.args?.data;
    if (event.name === 'TracingStartedInBrowser' && Array.isArray(data?.frames)) {
      for (const frame of data.frames as { frame?: string; processId?: number }[])
        if (frame.frame === targetId && typeof frame.processId === 'number') pids.add(frame.processId);
    } else if (event.name === 'FrameCommittedInBrowser' && data?.frame === targetId) {
      if (typeof data.processId === 'number') pids.add(data.processId);
    }
  }
  return events.filter((e) => pids.has(e.pid));
}

/** The page's main-thread tasks of at least LONG_TASK_MS, in ms from the recording's first event. */
export function longTasksOf(events: TraceEvent[]): { startMs: number; durationMs: number }[] {
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const origin = events.reduce((min, e) => (e.ts > 0 && e.ts < min ? e.ts : min), Number.POSITIVE_INFINITY);
  return events
    .filter(
      (e) =>
        e.ph === 'X' &&
        e.name === 'RunTask' &&
        (e.dur ?? 0) >= LONG_TASK_MS * 1000 &&
        mainThreads.has(`${e.pid}:${e.tid}`),
    )
    .map((e) => ({
      startMs: Math.round((e.ts - origin) / 1000),
      durationMs: Math.round((e.dur ?? 0) / 1000),
    }));
}

const recorders = new WeakMap<BrowserContext, PerfRecorder>();

/** The performance recorder of a session's context, made on first use. */
export function recorderOf(context: BrowserContext): PerfRecorder {
  let recorder = recorders.get(context);
  if (recorder === undefined) {
    recorder = new PerfRecorder(context);
    recorders.set(context, recorder);
  }
  return recorder;
}
