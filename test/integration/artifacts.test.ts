// Artifacts (issue 14) on the fixture app's /artifacts pages: page.pdf (magic bytes, page count,
// options, MAX_PDF_BYTES), Playwright traces (a zip the trace viewer reads: trace.trace opening with
// context-options, trace.network; inline or read with trace.get in byte-identical slices;
// MAX_SESSION_TRACE_BYTES), traces of failed calls (traceOnFailure, MAX_FAILURE_TRACES), and every
// file gone with the session. Each rule refused.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRINTED_PAGES } from '../fixtures/routes/artifacts.js';
import { TRACE_RESTART_CHUNKS } from '../../src/browser/artifacts/traceStore.js';
import { bindSession, rpcFailure, type BoundSession } from '../helpers/boundSession.js';
import { startCdpChrome, type CdpChrome } from '../helpers/cdpChrome.js';
import { useFixtureAndDecoy, useServiceSuite, type ServiceSuite } from '../helpers/suite.js';
import { RpcCallError, startTestService, type TestService } from '../helpers/testService.js';
import { zipEntries } from '../helpers/zipEntries.js';

const INVALID = -32602;
const LIMIT = -32003;

interface Stopped {
  trace_id: string;
  bytes: number;
  base64?: string;
}
interface Slice {
  base64: string;
  bytes: number;
  offset: number;
  size: number;
  nextOffset?: number;
}

/** A session on a fixture page, its calls bound. */
async function session(suite: ServiceSuite, path: string): Promise<BoundSession> {
  return bindSession(suite.service, await suite.open(path));
}

/** The directory of a session's files (downloads and traces), once created. */
async function filesDir(suite: ServiceSuite, id: string): Promise<string> {
  const dir = await suite.service.running.services.sessions.get(id)?.files.created;
  if (dir === undefined) throw new Error(`session ${id} has no directory`);
  return dir;
}

/** A kept trace read whole with trace.get, slice by slice. */
async function readTrace(s: BoundSession, trace_id: string, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const slice: Slice = await s.call<Slice>('trace.get', { trace_id, offset, maxBytes });
    expect(slice.offset).toBe(offset);
    expect(slice.bytes).toBeLessThanOrEqual(maxBytes);
    parts.push(Buffer.from(slice.base64, 'base64'));
    offset = slice.nextOffset;
  }
  return Buffer.concat(parts);
}

/** What the trace viewer needs of a zip: trace.trace opening with context-options and a version, and trace.network. */
function viewerTrace(zip: Buffer): { events: Record<string, unknown>[]; network: string } {
  const files = zipEntries(zip);
  const trace = files.get('trace.trace');
  const network = files.get('trace.network');
  expect(trace, `entries: ${[...files.keys()].join(', ')}`).toBeDefined();
  expect(network).toBeDefined();
  const events = (trace?.toString('utf8') ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(events[0]).toMatchObject({ type: 'context-options', browserName: 'chromium' });
  expect(typeof events[0]?.version).toBe('number');
  return { events, network: network?.toString('utf8') ?? '' };
}

/** Records a click on /artifacts/trace (its fetch included) as a trace; the trace.stop answer. */
async function clickTrace(s: BoundSession, params: Record<string, unknown> = {}): Promise<Stopped> {
  await s.call('trace.start', params);
  await s.call('page.click', { selector: '#go' });
  expect(await s.text('#out')).toBe('loaded');
  return s.call<Stopped>('trace.stop');
}

describe('with the default caps', () => {
  const suite = useServiceSuite();

  describe('page.pdf', () => {
    it('prints a PDF with its page count: three pages for three sections with page breaks', async () => {
      const s = await session(suite, '/artifacts/pages');
      try {
        const pdf = await s.call<{ base64: string; bytes: number; pages: number }>('page.pdf');
        const bytes = Buffer.from(pdf.base64, 'base64');
        expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect(pdf.bytes).toBe(bytes.length);
        expect(pdf.pages).toBe(PRINTED_PAGES);
        const some = await s.call<{ pages: number }>('page.pdf', {
          format: 'A4',
          landscape: true,
          printBackground: true,
          scale: 0.5,
          pageRanges: '2-3',
          margin: { top: '1cm', bottom: '10mm' },
        });
        expect(some.pages).toBe(2);
        const sized = await s.call<{ pages: number }>('page.pdf', {
          width: '8.5in',
          height: '1100px',
          pageRanges: '1',
        });
        expect(sized.pages).toBe(1);
      } finally {
        await s.close();
      }
    });

    it('refuses every bad option', async () => {
      const s = await session(suite, '/artifacts/pages');
      try {
        for (const params of [
          { format: 'B9' },
          { scale: 0 },
          { scale: 2.5 },
          { pageRanges: 'first' },
          { pageRanges: '0-2' },
          { pageRanges: '9' },
          { width: '10in' },
          { height: '10in' },
          { format: 'A4', width: '10in', height: '10in' },
          { width: '10 feet', height: '10in' },
          { margin: { top: '1cm', middle: '1cm' } },
          { margin: { top: '-1cm' } },
          { landscape: 'yes' },
          { timeout: 0 },
          { path: '/tmp/out.pdf' },
        ])
          await s.fails('page.pdf', params, INVALID);
      } finally {
        await s.close();
      }
    });
  });

  describe('trace.start and trace.stop', () => {
    it('answers a small trace inline: a zip the trace viewer reads, with the click and its request', async () => {
      const s = await session(suite, '/artifacts/trace');
      try {
        const stopped = await clickTrace(s, { title: 'the click' });
        expect(stopped.trace_id).toBe('t1');
        const zip = Buffer.from(stopped.base64 ?? '', 'base64');
        expect(zip.length).toBe(stopped.bytes);
        const { events, network } = viewerTrace(zip);
        expect(events[0]?.title).toBe('the click');
        expect(events.some((e) => e.type === 'before' && e.method === 'click')).toBe(true);
        expect(network).toContain('/artifacts/data');
        // Kept too: trace.get reads it again, in slices, the same bytes.
        expect((await readTrace(s, 't1', 1000)).equals(zip)).toBe(true);
        const last = await s.call<Slice>('trace.get', { trace_id: 't1', offset: stopped.bytes });
        expect(last).toMatchObject({ bytes: 0, size: stopped.bytes });
        expect(last.nextOffset).toBeUndefined();
        // Without screenshots and snapshots: a trace still, smaller.
        const bare = await clickTrace(s, { screenshots: false, snapshots: false });
        expect(bare.trace_id).toBe('t2');
        expect(bare.bytes).toBeLessThan(stopped.bytes);
        viewerTrace(Buffer.from(bare.base64 ?? '', 'base64'));
      } finally {
        await s.close();
      }
    });

    it('refuses a second start, a stop without a start, unknown traces and bad params', async () => {
      const s = await session(suite, '/artifacts/trace');
      try {
        await s.fails('trace.stop', {}, INVALID);
        await s.call('trace.start', { screenshots: false });
        const again = await s.fails('trace.start', {}, INVALID);
        expect(again.message).toMatch(/already recording/);
        await s.call('trace.stop');
        await s.fails('trace.stop', {}, INVALID);
        await s.fails('trace.get', { trace_id: 't9' }, INVALID);
        await s.fails('trace.get', { trace_id: 'd1' }, INVALID);
        await s.fails('trace.get', { trace_id: 't1', offset: 1e9 }, INVALID);
        await s.fails('trace.get', { trace_id: 't1', offset: -1 }, INVALID);
        await s.fails('trace.get', { trace_id: 't1', maxBytes: 0 }, INVALID);
        await s.fails('trace.get', { trace_id: 't1', maxBytes: 6 * 1024 * 1024 }, INVALID);
        await s.fails('trace.start', { title: '' }, INVALID);
        await s.fails('trace.start', { screenshots: 'no' }, INVALID);
        await s.fails('trace.start', { sources: true }, INVALID);
      } finally {
        await s.close();
      }
      await rpcFailure(suite.service.call('trace.start', { session_id: s.id }), -32010);
      await rpcFailure(suite.service.call('session.create', { traceOnFailure: 'yes' }), INVALID);
    });

    it("deletes the session's directory and Playwright's files of its traces when the session closes", async () => {
      const s = await session(suite, '/artifacts/trace');
      await clickTrace(s);
      await s.call('trace.start');
      await s.call('page.click', { selector: '#go' });
      const dir = await filesDir(suite, s.id);
      expect(readdirSync(dir)).toEqual(['t1.zip']);
      const tracesDir = suite.service.running.services.browser.tracesDir;
      const own = () => readdirSync(tracesDir).filter((f) => f.startsWith(s.id));
      // A trace still recording has its files in the browser's tracesDir.
      expect(own().length).toBeGreaterThan(0);
      await s.close();
      expect(existsSync(dir)).toBe(false);
      await expect.poll(own, { timeout: 10_000 }).toEqual([]);
      // No other context traced: the resources every trace of the browser shares went too.
      await expect.poll(() => readdirSync(tracesDir), { timeout: 10_000 }).toEqual([]);
    });
  });

  it('a session closed while trace.stop saves its zip leaves no directory behind', async () => {
    const s = await session(suite, '/artifacts/trace');
    await clickTrace(s);
    const dir = await filesDir(suite, s.id);
    await s.call('trace.start');
    await s.call('page.click', { selector: '#go' });
    // session.close does not wait for the call in progress; whichever ends first, nothing is left.
    const stopping = suite.service.rpc('trace.stop', { session_id: s.id });
    await s.close();
    const stopped = await stopping;
    expect(stopped.error === undefined || [-32010, -32006].includes(stopped.error.code)).toBe(true);
    await expect.poll(() => existsSync(dir), { timeout: 10_000 }).toBe(false);
  });

  describe('traceOnFailure', () => {
    it('starts its tracing afresh every TRACE_RESTART_CHUNKS succeeding calls, so the network file stays bounded', async () => {
      const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
        traceOnFailure: true,
      });
      const s = bindSession(suite.service, session_id);
      try {
        const tracesDir = suite.service.running.services.browser.tracesDir;
        const named = (n: number) =>
          readdirSync(tracesDir).filter((f) => f.startsWith(`${session_id}-${n}.`));
        await s.call('page.goto', { url: `${suite.fixture.url}/artifacts/trace` });
        expect(named(1)).toContain(`${session_id}-1.network`);
        for (let i = 1; i < TRACE_RESTART_CHUNKS; i++) await s.evaluate('1');
        expect(named(1)).toEqual([]);
        // Playwright writes a trace's files in the background: the new network file appears soon after.
        await expect.poll(() => named(2)).toContain(`${session_id}-2.network`);
        const failed = await s.fails('page.click', { selector: '#nothing-here', timeout: 300 }, -32001);
        expect(failed.data).toMatchObject({ trace_id: 't1' });
      } finally {
        await s.close();
      }
    });

    it("keeps a failed call's trace (trace_id in its error data), discards a succeeding call's", async () => {
      const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
        traceOnFailure: true,
      });
      const s = bindSession(suite.service, session_id);
      try {
        await s.call('page.goto', { url: `${suite.fixture.url}/artifacts/trace` });
        await s.call('page.click', { selector: '#go' });
        const failed = await s.fails('page.click', { selector: '#nothing-here', timeout: 300 }, -32001);
        expect(failed.data).toMatchObject({
          method: 'page.click',
          selector: '#nothing-here',
          trace_id: 't1',
        });
        // The succeeding calls before it kept nothing: its directory holds the one trace.
        expect(readdirSync(await filesDir(suite, s.id))).toEqual(['t1.zip']);
        const { events } = viewerTrace(await readTrace(s, 't1', 5 * 1024 * 1024));
        // The trace is of the failed call only, not of the click before it.
        const clicks = events.filter((e) => e.type === 'before' && e.method === 'click');
        expect(clicks).toHaveLength(1);
        expect(JSON.stringify(clicks[0])).toContain('#nothing-here');
        await s.call('page.text', { selector: '#out' });
        expect(readdirSync(await filesDir(suite, s.id))).toEqual(['t1.zip']);
        // trace.start is not for such a session.
        const refused = await s.fails('trace.start', {}, INVALID);
        expect(refused.message).toMatch(/traceOnFailure/);
        await s.fails('trace.stop', {}, INVALID);
      } finally {
        await s.close();
      }
    });

    it("puts the trace of a page.act whose step failed in that step's error data", async () => {
      const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
        traceOnFailure: true,
      });
      const s = bindSession(suite.service, session_id);
      try {
        await s.call('page.goto', { url: `${suite.fixture.url}/artifacts/trace` });
        const act = await s.call<{ ok: boolean; failedAt: number; steps: { error?: { data?: unknown } }[] }>(
          'page.act',
          {
            steps: [
              { method: 'page.click', params: { selector: '#go' } },
              { method: 'page.click', params: { selector: '#missing', timeout: 300 } },
            ],
          },
        );
        expect(act.ok).toBe(false);
        expect(act.steps[1]?.error?.data).toMatchObject({ trace_id: 't1' });
        const { events } = viewerTrace(await readTrace(s, 't1', 5 * 1024 * 1024));
        // One chunk for the whole page.act: both of its clicks.
        expect(events.filter((e) => e.type === 'before' && e.method === 'click')).toHaveLength(2);
        const ok = await s.call<{ ok: boolean }>('page.act', { steps: [{ expect: { text: 'loaded' } }] });
        expect(ok.ok).toBe(true);
        expect(readdirSync(await filesDir(suite, s.id))).toEqual(['t1.zip']);
      } finally {
        await s.close();
      }
    });
  });
});

describe('with small caps', () => {
  const suite = useServiceSuite({
    MAX_PDF_BYTES: '2000',
    MAX_TRACE_INLINE_BYTES: '1000',
    MAX_SESSION_TRACE_BYTES: '20000',
    MAX_FAILURE_TRACES: '2',
  });

  it('refuses a PDF over MAX_PDF_BYTES', async () => {
    const s = await session(suite, '/artifacts/pages');
    try {
      const error = await s.fails('page.pdf', {}, LIMIT);
      expect(error.data).toMatchObject({ limit: 'MAX_PDF_BYTES', max: 2000 });
    } finally {
      await s.close();
    }
  });

  it('keeps a trace over MAX_TRACE_INLINE_BYTES, read back in slices byte-identical', async () => {
    const s = await session(suite, '/artifacts/trace');
    try {
      const stopped = await clickTrace(s);
      expect(stopped.bytes).toBeGreaterThan(1000);
      expect(stopped.base64).toBeUndefined();
      const read = await readTrace(s, stopped.trace_id, 999);
      expect(read.equals(readFileSync(join(await filesDir(suite, s.id), `${stopped.trace_id}.zip`)))).toBe(
        true,
      );
      viewerTrace(read);
    } finally {
      await s.close();
    }
  });

  it('refuses and deletes a trace that would pass MAX_SESSION_TRACE_BYTES', async () => {
    const s = await session(suite, '/artifacts/trace');
    try {
      const kept: Stopped[] = [];
      let error: RpcCallError | undefined;
      for (let i = 0; i < 20 && error === undefined; i++) {
        await s.call('trace.start');
        await s.call('page.click', { selector: '#go' });
        const outcome = await s.call<Stopped>('trace.stop').catch((e: unknown) => e);
        if (outcome instanceof RpcCallError) error = outcome;
        else kept.push(outcome as Stopped);
      }
      expect(kept.length).toBeGreaterThan(0);
      expect(error?.code).toBe(LIMIT);
      expect(error?.data).toMatchObject({ limit: 'MAX_SESSION_TRACE_BYTES', max: 20000 });
      expect(kept.reduce((sum, t) => sum + t.bytes, 0)).toBeLessThanOrEqual(20000);
      expect(readdirSync(await filesDir(suite, s.id)).sort()).toEqual(
        kept.map((t) => `${t.trace_id}.zip`).sort(),
      );
      // The refused one's id reads nothing.
      await s.fails('trace.get', { trace_id: `t${kept.length + 1}` }, INVALID);
    } finally {
      await s.close();
    }
  });

  it('keeps at most MAX_FAILURE_TRACES traces of failed calls, deleting the oldest', async () => {
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
      traceOnFailure: true,
    });
    const s = bindSession(suite.service, session_id);
    try {
      await s.call('page.goto', { url: `${suite.fixture.url}/artifacts/trace` });
      const ids: unknown[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await s.fails('page.click', { selector: '#none', timeout: 200 }, -32001)).data?.trace_id);
      expect(ids).toEqual(['t1', 't2', 't3']);
      await s.fails('trace.get', { trace_id: 't1' }, INVALID);
      viewerTrace(await readTrace(s, 't3', 5 * 1024 * 1024));
      expect(readdirSync(await filesDir(suite, s.id)).sort()).toEqual(['t2.zip', 't3.zip']);
    } finally {
      await s.close();
    }
  });
});

describe('on a tab attached with tabs.attach', () => {
  let chrome: CdpChrome | undefined;
  let service: TestService | undefined;
  const apps = useFixtureAndDecoy();
  beforeAll(async () => {
    chrome = await startCdpChrome();
    service = await startTestService({ CDP_URL: chrome.url, CDP_TIMEOUT_MS: '10000' });
  });
  afterAll(async () => {
    await service?.close();
    await chrome?.stop();
  });

  it("refuses tracing: the tab's context is the user's own browser", async () => {
    if (service === undefined) throw new Error('no service');
    const { tabId } = await service.call<{ tabId: string }>('tabs.open', {
      url: `${apps.fixture.url}/artifacts/trace`,
    });
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const s = bindSession(service, session_id);
    const refused = await s.fails('trace.start', {}, INVALID);
    expect(refused.message).toMatch(/attached tab/);
    await s.fails('trace.stop', {}, INVALID);
    await s.close();
    await service.call('tabs.close', { tabId });
  });
});

describe('with MAX_TRACE_SHARED_BYTES lowered', () => {
  const suite = useServiceSuite({ MAX_TRACE_SHARED_BYTES: '1' });

  it('a traceOnFailure session stops tracing, and says so, once the shared trace resources pass the cap', async () => {
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
      traceOnFailure: true,
    });
    const s = bindSession(suite.service, session_id);
    try {
      await s.call('page.goto', { url: `${suite.fixture.url}/artifacts/trace` });
      for (let i = 1; i < TRACE_RESTART_CHUNKS; i++) await s.evaluate('1');
      const failed = await s.fails('page.click', { selector: '#nothing-here', timeout: 300 }, -32001);
      expect(failed.data?.trace_id).toBeUndefined();
      const logs = await s.call<{ console: { text: string }[] }>('logs.pull');
      expect(logs.console.map((c) => c.text).join('\n')).toContain('traceOnFailure stopped');
    } finally {
      await s.close();
    }
  });
});
