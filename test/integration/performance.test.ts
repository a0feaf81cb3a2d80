// performance.start / performance.stop on the fixture app's /artifacts/perf page: the insights of a
// load (LCP, CLS, long tasks, the render-blocking stylesheet, the heaviest request) and of an
// interaction (a lab INP), the raw Chromium trace kept for trace.get and cut to the page's own
// renderer processes, the browser's one trace slot shared between sessions, and each rule refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  PerformanceStartResult as Measured,
  PerformanceStopResult as Insights,
} from '../../client/src/methods.generated.js';
import { PERF_LONG_TASK_MS } from '../fixtures/routes/artifacts.js';
import { startDecoyServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const INVALID = -32602;
const UNAVAILABLE = -32005;
const BLOCKED = -32011;

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  args?: { name?: string };
}

const suite = useServiceSuite();
let decoy: FixtureServer;
beforeAll(async () => {
  decoy = await startDecoyServer();
});
afterAll(async () => {
  await decoy?.close();
});

const open = async (path = '/artifacts/trace'): Promise<BoundSession> =>
  bindSession(suite.service, await suite.open(path));

/** A kept trace read whole with trace.get. */
async function readTrace(s: BoundSession, trace_id: string): Promise<{ events: TraceEvent[]; mime: string }> {
  const parts: Buffer[] = [];
  let offset: number | undefined = 0;
  let mime = '';
  while (offset !== undefined) {
    const slice: { base64: string; nextOffset?: number; mime: string } = await s.call('trace.get', {
      trace_id,
      offset,
    });
    parts.push(Buffer.from(slice.base64, 'base64'));
    mime = slice.mime;
    offset = slice.nextOffset;
  }
  const parsed = JSON.parse(Buffer.concat(parts).toString('utf8')) as { traceEvents: TraceEvent[] };
  return { events: parsed.traceEvents, mime };
}

describe('performance insights', () => {
  it('a measured load: vitals, long tasks, the render-blocking stylesheet, the heaviest request, the trace kept', async () => {
    const s = await open();
    const other = await open();
    const url = `${suite.fixture.url}/artifacts/perf`;
    const measured = await s.call<Measured & Insights>('performance.start', { url });
    expect(measured.recording).toBe(false);
    expect(measured.url).toBe(url);
    expect(measured.stoppedBy).toBe('call');
    expect(measured.metrics.fcpMs).toBeGreaterThan(0);
    expect(measured.metrics.lcpMs).toBeGreaterThanOrEqual(measured.metrics.fcpMs ?? 0);
    expect(measured.metrics.lcpElement).not.toBeNull();
    expect(measured.metrics.cls).toBeGreaterThan(0);
    expect(measured.metrics.loadMs).toBeGreaterThan(0);
    expect(measured.metrics.inpMs).toBeNull();
    expect(measured.notes.join(' ')).toContain('No interaction');
    expect(measured.longTasks.count).toBeGreaterThanOrEqual(1);
    expect(measured.longTasks.longest[0]?.durationMs).toBeGreaterThanOrEqual(PERF_LONG_TASK_MS);
    expect(measured.longTasks.blockingMs).toBeGreaterThanOrEqual(PERF_LONG_TASK_MS - 50);
    expect(measured.renderBlocking.map((r) => r.url)).toContain(`${suite.fixture.url}/artifacts/slow.css`);
    expect(measured.largestRequests[0]?.url).toBe(`${suite.fixture.url}/artifacts/figure?n=1`);
    expect(measured.largestRequests[0]?.bytes).toBeGreaterThan(700_000);

    // The trace: JSON, the page's renderer main thread in it, no browser process and no other page.
    expect(measured.trace_id).toMatch(/^t\d+$/);
    const { events, mime } = await readTrace(s, measured.trace_id ?? '');
    expect(mime).toBe('application/json');
    const threads = events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args?.name);
    expect(threads).toContain('CrRendererMain');
    expect(threads).not.toContain('CrBrowserMain');
    expect(threads).not.toContain('CrGpuMain');
    // Every process in it is a renderer of this page (a navigation may move the page to another).
    const renderers = new Set(
      events.filter((e) => e.ph === 'M' && e.args?.name === 'CrRendererMain').map((e) => e.pid),
    );
    expect(events.every((e) => renderers.has(e.pid))).toBe(true);
    expect(events.some((e) => e.name === 'RunTask')).toBe(true);
    await other.close();
    await s.close();
  });

  it('an interaction recorded between start and stop: a lab INP, and no other session in the trace', async () => {
    const s = await open('/artifacts/perf');
    const neighbour = await open();
    expect(await s.call('performance.start')).toEqual({ recording: true });
    // Another tenant's page loads while this one records: none of it may reach this trace.
    await neighbour.call('page.goto', { url: `${suite.fixture.url}/artifacts/perf?who=neighbour-secret` });
    await s.call('page.click', { selector: '#slow' });
    expect(await s.text('#out')).toBe('clicked');
    const stopped = await s.call<Insights>('performance.stop');
    expect(stopped.metrics.interactions).toBeGreaterThanOrEqual(1);
    expect(stopped.metrics.inpMs).toBeGreaterThanOrEqual(PERF_LONG_TASK_MS - 20);
    expect(stopped.longTasks.count).toBeGreaterThanOrEqual(1);
    const { events } = await readTrace(s, stopped.trace_id ?? '');
    expect(JSON.stringify(events)).not.toContain('neighbour-secret');
    await neighbour.close();
    await s.close();
  });

  it('the browser records one trace at a time: another session is told when to try again; a close frees it', async () => {
    const a = await open();
    const b = await open();
    await a.call('performance.start');
    const refused = await b.fails('performance.start', {}, UNAVAILABLE);
    expect(refused.message).toContain('one at a time');
    expect((refused.data as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    await a.call('performance.stop');
    expect(await b.call('performance.start')).toEqual({ recording: true });
    // A session that ends while recording frees the slot at once.
    await b.close();
    expect(await a.call('performance.start')).toEqual({ recording: true });
    await a.call('performance.stop');
    await a.close();
  });

  it('refuses: stop without start, start twice, reload with url, bad types; a blocked URL frees the slot', async () => {
    const s = await open();
    await s.fails('performance.stop', {}, INVALID);
    await s.fails('performance.start', { reload: true, url: `${suite.fixture.url}/artifacts/perf` }, INVALID);
    await s.fails('performance.start', { reload: 'yes' }, INVALID);
    await s.fails('performance.start', { url: '' }, INVALID);
    await s.fails('performance.start', { extra: 1 }, INVALID);
    await s.call('performance.start');
    await s.fails('performance.start', {}, INVALID);
    await s.call('performance.stop');
    await s.fails('performance.start', { url: `${decoy.url}/` }, BLOCKED);
    // The failed load ended its recording: a new one starts.
    expect(await s.call('performance.start')).toEqual({ recording: true });
    const reloaded = await s.fails('performance.start', { reload: true }, INVALID);
    expect(reloaded.message).toContain('already running');
    await s.call('performance.stop');
    await s.close();
  });
});
