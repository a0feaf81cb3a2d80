// Every action settles and reports (issue 11): it waits for the navigation and the requests it
// started, bounded by ACTION_SETTLE_MS, and answers what changed, on the fixture app's /settle page.
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { rpcFailure } from '../helpers/boundSession.js';
import { ATTACHMENT_TEXT } from '../fixtures/routes/files.js';

/** A short settle bound, so the never-answering request is reported without a long wait. */
const SETTLE_MS = 1500;
/** A request with no answer stops holding a navigation's load wait after this (SETTLE_MAX_PENDING_MS). */
const MAX_PENDING_MS = 1000;
const suite = useServiceSuite({
  ACTION_SETTLE_MS: String(SETTLE_MS),
  SETTLE_MAX_PENDING_MS: String(MAX_PENDING_MS),
});

type Report = {
  ok: boolean;
  navigated?: true;
  title: string;
  url?: string;
  pending?: string[];
  consoleErrors?: string[];
  failedRequests?: { url: string; failure: string }[];
  observed?: { snapshot: string; revision: number; since?: number; note?: string };
};

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

async function open(path = '/settle') {
  const session_id = await suite.open(path);
  opened.push(session_id);
  const call = <T = Report>(method: string, params: Record<string, unknown> = {}) =>
    suite.service.call<T>(method, { session_id, ...params });
  return {
    session_id,
    call,
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
  };
}

describe('an action settles and reports', () => {
  it('reports nothing more than ok when it started nothing (no navigated: false)', async () => {
    const s = await open();
    const report = await s.call('page.click', { selector: '#title' });
    expect(report).toEqual({ ok: true });
    expect(await s.text('#out')).toBe('renamed');
  });

  it('waits for the navigation a click starts and answers the new URL and title', async () => {
    const s = await open();
    const report = await s.call('page.click', { selector: '#nav' });
    expect(report).toMatchObject({ ok: true, navigated: true, title: 'Widgets B' });
    expect(report.url).toBe(`${suite.fixture.url}/widgets-b`);
    // The new document is usable at once: no waitFor needed.
    expect(await s.text('h1')).toBe('Page B');
  });

  it('waits for the request a click starts: the page shows its answer when the click returns', async () => {
    const s = await open();
    const report = await s.call('page.click', { selector: '#fetch' });
    expect(report).toEqual({ ok: true });
    expect(await s.text('#out')).toBe('fetched 42');
  });

  it('reports the console errors and failed requests since the action, and only those', async () => {
    const s = await open();
    const report = await s.call('page.click', { selector: '#fail' });
    expect(report.consoleErrors).toEqual(['settle: something broke']);
    expect(report.failedRequests).toEqual([
      expect.objectContaining({ url: `${suite.fixture.url}/api/fail`, failure: 'HTTP 500' }),
    ]);
    const next = await s.call('page.click', { selector: '#title' });
    expect(next.consoleErrors).toBeUndefined();
    expect(next.failedRequests).toBeUndefined();
  });

  it('stops waiting at ACTION_SETTLE_MS and names the request still pending', async () => {
    const s = await open();
    const report = await s.call('page.click', { selector: '#hang' });
    expect(report.ok).toBe(true);
    expect(report.pending).toEqual([`${suite.fixture.url}/api/silent`]);
    expect(await s.text('#out')).toBe('waiting');
  });

  it('with observe: true answers the snapshot diff since the last snapshot, with refs', async () => {
    const s = await open();
    const { revision } = await s.call<{ revision: number }>('page.snapshot');
    const report = await s.call('page.click', { selector: '#fetch', observe: true });
    expect(report.observed?.since).toBe(revision);
    expect(report.observed?.revision).toBeGreaterThan(revision);
    expect(report.observed?.snapshot).toMatch(/~ .*fetched 42/);
    expect(report.observed?.snapshot).toMatch(/was: .*idle/);
  });

  it('with observe: true and no earlier snapshot answers the whole snapshot with a note', async () => {
    const s = await open();
    const report = await s.call('page.click', { selector: '#title', observe: true });
    expect(report.observed?.since).toBeUndefined();
    expect(report.observed?.note).toMatch(/no earlier snapshot/);
    expect(report.observed?.snapshot).toMatch(/button "Load data" \[ref=e\d+\]/);
  });

  it('reports the download a click started, once it was saved', async () => {
    const s = await open('/files/downloads');
    const report = await s.call<Report & { downloads?: Record<string, unknown>[] }>('page.click', {
      selector: '#attachment',
    });
    expect(report.navigated).toBeUndefined();
    expect(report.failedRequests).toBeUndefined();
    expect(report.downloads).toHaveLength(1);
    expect(report.downloads?.[0]).toMatchObject({
      name: 'hello.txt',
      bytes: Buffer.byteLength(ATTACHMENT_TEXT),
      mime: 'text/plain',
      state: 'saved',
    });
    expect(report.downloads?.[0]?.download_id).toMatch(/^d\d+$/);
  });

  it('refuses an observe that is not a boolean', async () => {
    const s = await open();
    await expect(s.call('page.click', { selector: '#title', observe: 'yes' })).rejects.toMatchObject({
      code: -32602,
    });
  });
});

describe('page.goto when the load event never fires', () => {
  type Nav = { title: string; status: number; loadPending?: { requests: string[]; note: string } };

  it('answers with the usable document, naming the request that holds load', async () => {
    const s = await open();
    for (const waitUntil of ['load', 'networkidle']) {
      const nav = await s.call<Nav>('page.goto', { url: `${suite.fixture.url}/never-loads`, waitUntil });
      expect(nav).toMatchObject({ title: 'Never loads', status: 200 });
      expect(nav.loadPending?.requests).toEqual([`${suite.fixture.url}/api/silent-image`]);
      expect(nav.loadPending?.note).toMatch(/load event did not fire/);
      expect(await s.text('h1')).toBe('Readable');
    }
  });

  it('answers a page that loads without loadPending', async () => {
    const s = await open();
    const nav = await s.call<Nav>('page.goto', { url: `${suite.fixture.url}/widgets-b`, waitUntil: 'load' });
    expect(nav.title).toBe('Widgets B');
    expect(nav.loadPending).toBeUndefined();
  });

  it('fails a document that never answers with TIMEOUT and advice about the server, not a selector', async () => {
    const s = await open();
    const error = await rpcFailure(
      s.call('page.goto', { url: `${suite.fixture.url}/never-answers`, timeout: 1000 }),
      -32001,
    );
    expect(error.message).toMatch(/did not reach a usable document/);
    expect(error.message).not.toMatch(/selector/i);
  });
});

describe('page.evaluate while the page navigates', () => {
  // Navigates away on /settle and never settles there; on any other page answers its title.
  const expression = `location.pathname === '/settle'
    ? (location.href = '/widgets-b', new Promise(() => {}))
    : document.title`;

  it('fails with PAGE_NAVIGATED (not ACTION_FAILED) once the new document is ready', async () => {
    const s = await open();
    const error = await rpcFailure(s.call('page.evaluate', { expression }), -32015);
    expect(error.message).toMatch(/navigated .*widgets-b/);
    // The new document is ready: the next call reads it.
    expect(await s.text('h1')).toBe('Page B');
  });

  it('runs a read-only expression again once in the new document with retryOnNavigation', async () => {
    const s = await open();
    const { result } = await s.call<{ result: string }>('page.evaluate', {
      expression,
      retryOnNavigation: true,
    });
    expect(result).toBe('Widgets B');
  });
});
