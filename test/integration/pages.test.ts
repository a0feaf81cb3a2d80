// The pages of a session (issue 11): popups, window.open and target=_blank pages become pages p2,
// p3… listed by pages.list, made active by pages.select, closed by pages.close; refs never cross
// pages; each page stays behind the allow-list; the service's own pages (axe's helper) never count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDecoyServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { useServiceSuite } from '../helpers/suite.js';
import { waitFor } from '../helpers/testService.js';
import { MAX_POPUPS_PER_SESSION } from '../../src/browser/session/session.js';
import { POPUP_BURST } from '../../src/browser/engine/pageGuards.js';
import type { SessionEvent } from '../../src/browser/events/sessionEvents.js';
import { rpcFailure } from '../helpers/boundSession.js';

const suite = useServiceSuite();
let decoy: FixtureServer;
beforeAll(async () => {
  decoy = await startDecoyServer();
});
afterAll(async () => {
  await decoy?.close();
});

type Params = Record<string, unknown>;
interface PageRow {
  page_id: string;
  url: string;
  title: string;
  active: boolean;
  opener?: string;
}

/** The ref on the first snapshot line matching `line`, page prefix included (p2e5). */
function refOf(snapshot: string, line: RegExp): string {
  const m = new RegExp(`${line.source}[^\\n]*\\[ref=((?:p\\d+)?(?:f\\d+)?e\\d+)\\]`).exec(snapshot);
  if (m?.[1] === undefined) throw new Error(`no ref for ${line.source} in:\n${snapshot}`);
  return m[1];
}

async function open(path = '/opener') {
  const { service } = suite;
  const session_id = await suite.open(path);
  const call = <T = Params>(method: string, params: Params = {}) =>
    service.call<T>(method, { session_id, ...params });
  const list = async () => (await call<{ pages: PageRow[] }>('pages.list')).pages;
  return {
    session_id,
    call,
    list,
    fails: (method: string, params: Params, code: number) => rpcFailure(call(method, params), code),
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
    ref: async (line: RegExp) =>
      refOf((await call<{ snapshot: string }>('page.snapshot', { maxChars: 100_000 })).snapshot, line),
    /** Waits until the session has `n` pages, and answers them. */
    pages: async (n: number) => {
      let rows: PageRow[] = [];
      await waitFor(
        async () => {
          rows = await list();
          return rows.length === n;
        },
        15_000,
        `${n} pages`,
      );
      return rows;
    },
    events: (): SessionEvent[] =>
      service.running.services.sessions.get(session_id)?.events.since(0).events ?? [],
    consoleOf: async (type: string) =>
      (await call<{ console: { type: string; text: string }[] }>('logs.pull')).console
        .filter((c) => c.type === type)
        .map((c) => c.text),
    close: () => service.call('session.close', { session_id }),
  };
}

describe('pages.list and pages.select', () => {
  it('a target=_blank link opens p2: listed, not active, reported; pages.select makes calls act on it', async () => {
    const s = await open();
    expect(await s.list()).toEqual([
      { page_id: 'p1', url: `${suite.fixture.url}/opener`, title: 'Opener', active: true },
    ]);
    // The click answers once the new tab is a page of the session, and reports it.
    expect(await s.call('page.click', { selector: '#blank' })).toMatchObject({
      pages: [{ page_id: 'p2', url: `${suite.fixture.url}/pages-target?from=blank`, opener: 'p1' }],
    });
    const pages = await s.pages(2);
    expect(pages[1]).toMatchObject({
      page_id: 'p2',
      url: `${suite.fixture.url}/pages-target?from=blank`,
      active: false,
      opener: 'p1',
    });
    expect(pages[0]?.active).toBe(true);
    // Not active by itself: the next call still acts on p1.
    expect(await s.text('#out')).toBe('opener ready');
    await waitFor(() => s.events().some((e) => e.kind === 'page'), 5_000, 'the page event');
    expect(s.events().filter((e) => e.kind === 'page')).toEqual([
      expect.objectContaining({
        kind: 'page',
        page_id: 'p2',
        url: `${suite.fixture.url}/pages-target?from=blank`,
        opener: 'p1',
      }),
    ]);
    expect(await s.consoleOf('popup')).toEqual([
      `popup opened: ${suite.fixture.url}/pages-target?from=blank`,
    ]);

    expect(await s.call('pages.select', { page_id: 'p2' })).toEqual({
      page_id: 'p2',
      url: `${suite.fixture.url}/pages-target?from=blank`,
      title: 'Target blank',
    });
    expect(await s.text('#from')).toBe('blank');
    await s.call('page.click', { selector: '#mark' });
    expect(await s.text('#out')).toBe('target clicked');
    expect((await s.list()).map((p) => [p.page_id, p.active])).toEqual([
      ['p1', false],
      ['p2', true],
    ]);
    await s.call('pages.select', { page_id: 'p1' });
    expect(await s.text('#out')).toBe('opener ready');
    await s.close();
  });

  it('window.open pages get the next ids, never reused after a close', async () => {
    const s = await open();
    expect(await s.call('page.click', { selector: '#open' })).toMatchObject({ pages: [{ page_id: 'p2' }] });
    await s.pages(2);
    expect(await s.call('pages.close', { page_id: 'p2' })).toEqual({ closed: 'p2', active: 'p1' });
    expect((await s.list()).map((p) => p.page_id)).toEqual(['p1']);
    await s.call('page.click', { selector: '#open' });
    const pages = await s.pages(2);
    expect(pages.map((p) => p.page_id)).toEqual(['p1', 'p3']);
    expect(pages[1]?.url).toBe(`${suite.fixture.url}/pages-target?from=window-open`);
    await s.close();
  });

  it('an unknown page_id is INVALID_PARAMS for pages.select and pages.close; a malformed one too', async () => {
    const s = await open();
    const unknown = await s.fails('pages.select', { page_id: 'p9' }, -32602);
    expect(unknown.message).toContain('No page p9 in this session (pages: p1)');
    await s.fails('pages.close', { page_id: 'p9' }, -32602);
    await s.fails('pages.select', { page_id: 'main' }, -32602);
    await s.fails('pages.select', {}, -32602);
    await s.close();
  });
});

describe('pages.close', () => {
  it('closing the active page makes its opener active; the last page is refused', async () => {
    const s = await open();
    await s.call('page.click', { selector: '#open' });
    await s.pages(2);
    await s.call('pages.select', { page_id: 'p2' });
    expect(await s.call('pages.close', { page_id: 'p2' })).toEqual({ closed: 'p2', active: 'p1' });
    expect(await s.text('#out')).toBe('opener ready');
    const last = await s.fails('pages.close', { page_id: 'p1' }, -32602);
    expect(last.message).toContain('last page of this session');
    expect((await s.list()).map((p) => p.page_id)).toEqual(['p1']);
    await s.close();
  });

  it('closing p1 leaves the popup as the active page; a page that closes itself leaves the list', async () => {
    const s = await open();
    await s.call('page.click', { selector: '#open' });
    await s.call('page.click', { selector: '#blank' });
    await s.pages(3);
    expect(await s.call('pages.close', { page_id: 'p1' })).toMatchObject({ closed: 'p1', active: 'p3' });
    expect(await s.text('#from')).toBe('blank');
    await s.call('pages.select', { page_id: 'p2' });
    // window.close() of a page a script opened: it leaves, and the newest page left is active.
    await s.call('page.click', { selector: '#close' });
    const pages = await s.pages(1);
    expect(pages).toEqual([expect.objectContaining({ page_id: 'p3', active: true })]);
    await s.close();
  });

  it('a click whose page closes before the browser acknowledges it succeeds and says the page closed', async () => {
    const s = await open();
    await s.call('page.click', { selector: '#open' });
    await s.pages(2);
    await s.call('pages.select', { page_id: 'p2' });
    // The page closes on mousedown: the mouseup that completes the click has no page to reach.
    const clicked = await s.call<{ ok: boolean; closed?: boolean }>('page.click', {
      selector: '#close-early',
    });
    expect(clicked).toMatchObject({ ok: true, closed: true });
    expect(await s.pages(1)).toEqual([expect.objectContaining({ page_id: 'p1', active: true })]);
    // A page that did not close itself still fails as before: nothing of the kind on p1.
    await s.fails('page.click', { selector: '#nothing', timeout: 300 }, -32001);
    // With until, what the click was for was not seen: the close is a failure, saying so.
    await s.call('page.click', { selector: '#open' });
    const opened = (await s.pages(2)).find((p) => p.page_id !== 'p1');
    await s.call('pages.select', { page_id: opened?.page_id });
    const closing = await s.fails(
      'page.click',
      { selector: '#close-early', until: { text: 'never shown' } },
      -32000,
    );
    expect(closing.message).toContain('closed');
    await s.close();
  });
});

describe('refs belong to their page', () => {
  it('a ref of p1 is STALE_REF on p2 and a ref of p2 on p1, even when both snapshots hold the same number', async () => {
    const s = await open();
    const p1Ref = await s.ref(/button "Mark opener"/);
    expect(p1Ref).toMatch(/^e\d+$/);
    await s.call('page.click', { selector: '#open' });
    await s.pages(2);
    await s.call('pages.select', { page_id: 'p2' });
    const noSnapshot = await s.fails('page.click', { ref: p1Ref }, -32013);
    expect(noSnapshot.message).toContain('from a snapshot of page p1, not of the active page p2');
    const p2Ref = await s.ref(/button "Mark target"/);
    expect(p2Ref).toMatch(/^p2e\d+$/);
    // Even with a snapshot of p2 in hand, p1's ref does not act here.
    await s.fails('page.click', { ref: p1Ref }, -32013);
    await s.fails('page.click', { ref: p2Ref.replace(/^p2/, '') }, -32013);
    await s.call('page.click', { ref: p2Ref });
    expect(await s.text('#out')).toBe('target clicked');
    await s.call('pages.select', { page_id: 'p1' });
    await s.fails('page.click', { ref: p2Ref }, -32013);
    expect(await s.text('#out')).toBe('opener ready');
    await s.call('page.click', { ref: p1Ref });
    expect(await s.text('#out')).toBe('opener clicked');
    await s.close();
  });
});

describe('a popup past its evaluate deadline', () => {
  it('is replaced by a fresh page under the same id; the other pages are untouched', async () => {
    const s = await open();
    // A target=_blank page has no opener: its own renderer, so the loop below freezes only it.
    await s.call('page.click', { selector: '#blank' });
    await s.pages(2);
    await s.call('pages.select', { page_id: 'p2' });
    const p2Ref = await s.ref(/button "Mark target"/);
    await s.fails('page.evaluate', { expression: '(() => { for (;;) {} })()', timeout: 1_000 }, -32001);
    const pages = await s.list();
    expect(pages.map((p) => [p.page_id, p.active])).toEqual([
      ['p1', false],
      ['p2', true],
    ]);
    expect(pages[1]?.url).toBe('about:blank');
    // The fresh page is the session's own: no popup line, no page event for it.
    expect(await s.consoleOf('popup')).toEqual([
      `popup opened: ${suite.fixture.url}/pages-target?from=blank`,
    ]);
    await s.fails('page.click', { ref: p2Ref }, -32013);
    await s.call('pages.select', { page_id: 'p1' });
    expect(await s.text('#out')).toBe('opener ready');
    await s.close();
  });
});

describe('every page behind the allow-list', () => {
  it('a popup to 127.0.0.2 is recorded as blocked and the decoy is never hit', async () => {
    decoy.hits.length = 0;
    const target = `${decoy.url}/popup-page`;
    const s = await open(`/opener?to=${encodeURIComponent(target)}`);
    await s.call('page.click', { selector: '#open-to' });
    await waitFor(async () => (await s.consoleOf('popup')).length > 0, 15_000, 'the popup line');
    const network = await s.call<{ requests: { url: string; blocked?: boolean }[] }>('network.pull');
    expect(network.requests).toContainEqual(expect.objectContaining({ url: target, blocked: true }));
    expect(decoy.hits).toEqual([]);
    // The page opened on nothing: whatever it shows, no byte came from the decoy.
    for (const row of await s.list()) expect(row.title).not.toContain('Decoy');
    await s.close();
    expect(decoy.hits).toEqual([]);
  });
});

describe('the popup cap', () => {
  it(`at most ${MAX_POPUPS_PER_SESSION} opened pages are kept; closing one frees a slot`, async () => {
    // A document opens POPUP_BURST popups at once (then one a second): each new document of the
    // opener opens its share, until 3 more than the cap were opened.
    const s = await open(`/popups?n=${POPUP_BURST}`);
    for (let opened = 0; opened < MAX_POPUPS_PER_SESSION + 3; opened += POPUP_BURST) {
      const n = Math.min(POPUP_BURST, MAX_POPUPS_PER_SESSION + 3 - opened);
      await s.call('page.goto', { url: `${suite.fixture.url}/popups?n=${n}` });
      await s.call('page.click', { selector: '#open', timeout: 30_000 });
      expect(await s.text('#out')).toBe(`opened ${n}`);
    }
    await waitFor(
      async () => (await s.consoleOf('popup')).filter((t) => t.startsWith('closed:')).length === 3,
      30_000,
      'the 3 pages past the cap to close',
    );
    let pages = await s.pages(MAX_POPUPS_PER_SESSION + 1);
    expect(pages.at(-1)?.page_id).toBe(`p${MAX_POPUPS_PER_SESSION + 1}`);
    await s.call('pages.close', { page_id: 'p2' });
    await s.call('page.click', { selector: '#open', timeout: 30_000 });
    pages = await s.pages(MAX_POPUPS_PER_SESSION + 1);
    expect(pages.at(-1)?.page_id).toBe(`p${MAX_POPUPS_PER_SESSION + 2}`);
    await s.close();
  });
});

describe("the service's own pages", () => {
  it('axe.run 22 times in one session: no popup counted, listed or logged', async () => {
    const s = await open('/opener');
    for (let i = 0; i < 22; i++) {
      const result = await s.call<{ passes: number }>('axe.run', { include: 'main' });
      expect(result.passes).toBeGreaterThan(0);
    }
    expect((await s.list()).map((p) => p.page_id)).toEqual(['p1']);
    expect(await s.consoleOf('popup')).toEqual([]);
    expect(s.events().filter((e) => e.kind === 'page')).toEqual([]);
    await s.close();
    // Each run takes seconds on a loaded machine: 22 of them need more than the default test timeout.
  }, 300_000);
});
