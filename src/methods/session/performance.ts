// Performance insights (performance.start / performance.stop): a Chromium performance trace of a page
// load or of what the agent does meanwhile, summarised for an agent (LCP, CLS, a lab INP, long tasks,
// render-blocking and largest requests) and kept whole as a trace of the session (trace.get), which
// the DevTools Performance panel opens. The recording itself is browser/artifacts/perfTrace.ts.
import { writeFile } from 'node:fs/promises';
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import {
  longTasksOf,
  LONG_TASK_MS,
  MAX_PERF_RECORD_MS,
  PERF_LIST_ROWS,
  recorderOf,
  type RawTrace,
} from '../../browser/artifacts/perfTrace.js';
import { tracesOf } from '../../browser/artifacts/traceStore.js';
import { MAX_VITALS_URL_CHARS, readVitals } from '../../browser/page/pageVitals.js';
import type { Session } from '../../browser/session/session.js';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { NAVIGATION_TIMEOUT_MS, timeoutParam } from '../params.js';
import type { Services } from '../services.js';
import { traceDeps } from './artifacts.js';
import { ownContext } from './storage.js';

/**
 * After a measured load, the recording goes on this long before it stops: LCP and layout shifts
 * keep coming after the load event, and the page's first tasks after it count as long tasks.
 */
export const PERF_AFTER_LOAD_MS = 1_000;
/** How long reading the page's vitals may take (one evaluation). */
const VITALS_TIMEOUT_MS = 5_000;

const Ms = (what: string) => Type.Union([Type.Integer(), Type.Null()], { description: what });

const Insights = {
  trace_id: Type.Optional(
    Type.String({
      description:
        "The whole trace (Chromium trace JSON of this page's processes), kept as a trace of the session: trace.get reads it; DevTools' Performance panel and ui.perfetto.dev open it. Absent when it was over MAX_PERF_TRACE_READ_BYTES (see notes).",
    }),
  ),
  bytes: Type.Optional(Type.Integer({ description: 'The size of the kept trace.' })),
  url: Type.String({ description: 'The document measured: the one the page shows at the stop.' }),
  durationMs: Type.Integer({ description: 'How long the recording ran.' }),
  stoppedBy: Type.Union([Type.Literal('call'), Type.Literal('limit')], {
    description: `call: performance.stop (or the measured load) ended it; limit: it ran MAX_PERF_RECORD_MS (${MAX_PERF_RECORD_MS} ms) and stopped by itself.`,
  }),
  metrics: Type.Object(
    {
      ttfbMs: Ms('Time to the first byte of the document, ms from its navigation start.'),
      fcpMs: Ms('First contentful paint.'),
      lcpMs: Ms('Largest contentful paint: the last candidate so far.'),
      lcpElement: Type.Union([Type.String(), Type.Null()], {
        description: 'The LCP element: tag, #id and the start of its text.',
      }),
      cls: Type.Number({
        description: 'Cumulative layout shift: the largest session window of shifts without input.',
      }),
      inpMs: Ms(
        'A lab INP: the longest interaction (click, tap, key) of the document so far; null when there was none.',
      ),
      interactions: Type.Integer({ description: 'Interactions the browser timed.' }),
      domContentLoadedMs: Ms('DOMContentLoaded ended.'),
      loadMs: Ms('The load event ended.'),
    },
    {
      description:
        "The document's vitals as the browser measured them (null: not measured, e.g. no paint yet).",
    },
  ),
  longTasks: Type.Object(
    {
      count: Type.Integer(),
      totalMs: Type.Integer({ description: 'Their time together.' }),
      blockingMs: Type.Integer({
        description: `Total blocking time: each one's time past ${LONG_TASK_MS} ms, added.`,
      }),
      longest: Type.Array(Type.Object({ startMs: Type.Integer(), durationMs: Type.Integer() }), {
        description: `The ${PERF_LIST_ROWS} longest, ms from the recording's start.`,
      }),
    },
    {
      description: `Tasks of the page's main thread of ${LONG_TASK_MS} ms or more during the recording, from the trace.`,
    },
  ),
  renderBlocking: Type.Array(Type.Object({ url: Type.String(), durationMs: Type.Integer() }), {
    description: `Requests that blocked the first render (the browser's renderBlockingStatus), the ${PERF_LIST_ROWS} slowest.`,
  }),
  largestRequests: Type.Array(
    Type.Object({
      url: Type.String(),
      bytes: Type.Integer(),
      durationMs: Type.Integer(),
      type: Type.String(),
    }),
    {
      description: `The ${PERF_LIST_ROWS} heaviest requests of the document (bytes transferred; 0 for a cross-origin one without Timing-Allow-Origin).`,
    },
  ),
  notes: Type.Array(Type.String(), { description: 'What to know reading the numbers.' }),
};

const InsightsResult = Type.Object(Insights);
/** performance.start's answer: the insights when it measured a load, none while it records. */
const optionalInsights = Object.fromEntries(
  Object.entries(Insights).map(([name, schema]) => [name, Type.Optional(schema)]),
) as { [K in keyof typeof Insights]: TOptional<(typeof Insights)[K]> };
type InsightsAnswer = Static<typeof InsightsResult>;

/** The summary of a finished recording, its trace kept; `raw` is what the recorder read. */
async function insights(session: Session, services: Services, raw: RawTrace): Promise<InsightsAnswer> {
  const vitals = await withDeadline(
    session.page.evaluate(readVitals, { rows: PERF_LIST_ROWS, urlChars: MAX_VITALS_URL_CHARS }),
    VITALS_TIMEOUT_MS,
    () => new ServiceError('TIMEOUT', `Reading the page's vitals took over ${VITALS_TIMEOUT_MS} ms.`),
  );
  const notes: string[] = [];
  if (raw.lost !== undefined) notes.push(raw.lost);
  if (raw.stoppedBy === 'limit')
    notes.push(`The recording stopped by itself after ${MAX_PERF_RECORD_MS} ms (MAX_PERF_RECORD_MS).`);
  if (vitals.interactions === 0)
    notes.push(
      'No interaction was timed: inpMs needs a click, tap or key press on the page while recording.',
    );
  const tasks = raw.events === undefined ? [] : longTasksOf(raw.events);
  let kept: { trace_id: string; bytes: number } | undefined;
  if (raw.events !== undefined) {
    const events = raw.events;
    const store = tracesOf(session, traceDeps(services));
    const trace = await store.keepWritten((path) =>
      writeFile(
        path,
        JSON.stringify({ traceEvents: events, metadata: { source: 'playwright-jsonrpc performance.stop' } }),
        {
          mode: 0o600,
        },
      ),
    );
    kept = { trace_id: trace.trace_id, bytes: trace.bytes };
  }
  const { renderBlocking, largestRequests, url, interactions, ...metrics } = vitals;
  return {
    ...(kept ?? {}),
    url,
    durationMs: raw.durationMs,
    stoppedBy: raw.stoppedBy,
    metrics: { ...metrics, interactions },
    longTasks: {
      count: tasks.length,
      totalMs: tasks.reduce((sum, t) => sum + t.durationMs, 0),
      blockingMs: tasks.reduce((sum, t) => sum + Math.max(0, t.durationMs - LONG_TASK_MS), 0),
      longest: [...tasks].sort((a, b) => b.durationMs - a.durationMs).slice(0, PERF_LIST_ROWS),
    },
    renderBlocking,
    largestRequests,
    notes,
  };
}

export const performanceStart = defineSessionMethod({
  name: 'performance.start',
  summary:
    'Record a performance trace of the page: of a load (reload or url: answered with the insights once it loaded), or of what you do until performance.stop',
  description: `Chromium's own trace, as the DevTools Performance panel records it, of the active page. With reload: true or url, the page loads (url as page.goto does, within the allow-list) and the answer is the insights, as performance.stop answers, ${PERF_AFTER_LOAD_MS} ms after the load event. Without them it answers {recording: true}: act on the page (clicks, typing), then performance.stop. The browser records one trace at a time for all sessions: while another session records, RESOURCE_UNAVAILABLE with retryAfterMs. A recording stops by itself after MAX_PERF_RECORD_MS (${MAX_PERF_RECORD_MS} ms). Not on an attached tab.`,
  params: {
    reload: Type.Boolean({
      default: false,
      description: 'Reload the page and answer the insights of that load (default false).',
    }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: 'Load this URL (as page.goto does) and answer the insights of that load.',
      }),
    ),
    timeout: timeoutParam(NAVIGATION_TIMEOUT_MS, 'the load, with reload or url'),
  },
  result: Type.Object({
    recording: Type.Boolean({
      description:
        'true: recording (no reload or url): act on the page, then performance.stop; false: the measured load ended it, and the insights are the other fields.',
    }),
    ...optionalInsights,
  }),
  errors: ['INVALID_PARAMS', 'RESOURCE_UNAVAILABLE', 'NAVIGATION_BLOCKED', 'TIMEOUT', 'LIMIT_REACHED'],
  readOnly: false,
  async handler(params, { session, services }) {
    ownContext(session, 'performance.start');
    if (params.reload && params.url !== undefined)
      throw new ServiceError(
        'INVALID_PARAMS',
        'Invalid params for performance.start: give reload or url, not both.',
        {
          errors: [{ path: '/url', message: 'not with reload', keyword: 'oneOf', params: {} }],
        },
      );
    const recorder = recorderOf(session.context);
    await recorder.start(session.page);
    if (!params.reload && params.url === undefined) return { recording: true };
    try {
      if (params.url !== undefined) await session.goto(params.url, 'load', params.timeout);
      else await session.reload('load', params.timeout);
      await new Promise((resolve) => setTimeout(resolve, PERF_AFTER_LOAD_MS));
    } catch (error) {
      // The load failed: the recording goes with it, and the slot is free for the next one.
      await recorder.stop();
      throw error;
    }
    return { recording: false, ...(await insights(session, services, await recorder.stop())) };
  },
});

export const performanceStop = defineSessionMethod({
  name: 'performance.stop',
  summary:
    'Stop the performance recording and answer its insights: LCP, CLS, a lab INP, long tasks, render-blocking and largest requests, with the whole trace kept',
  description:
    "The numbers are those of the document the page shows now (a navigation meanwhile starts them again); long tasks are those of the whole recording. The trace is kept as the session's trace_id (trace.get reads it; it counts under MAX_SESSION_TRACE_BYTES).",
  params: {},
  result: InsightsResult,
  errors: ['INVALID_PARAMS', 'LIMIT_REACHED', 'TIMEOUT'],
  readOnly: false,
  async handler(_params, { session, services }) {
    ownContext(session, 'performance.stop');
    return insights(session, services, await recorderOf(session.context).stop());
  },
});

export const performanceMethods = [performanceStart, performanceStop];
