// Opening pages without a link on the page: pages.open (a new page of the session, active, on a
// URL or blank) and session.create {url} (a session already on its first page); the allow-list
// holds for both before anything opens, and bad input is refused.
import { describe, expect, it } from 'vitest';
import { bindSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
/** A loopback address outside the test allow-list: refused before any connection. */
const BLOCKED = 'http://127.0.0.2:9/';

describe('pages.open', () => {
  it('opens a page of the session, active, blank or on a URL, sharing its cookies', async () => {
    const s = bindSession(suite.service, await suite.open('/static'));
    try {
      await s.evaluate('document.cookie = "seen=1; path=/"');
      const blank = await s.call('pages.open');
      expect(blank).toEqual({ page_id: 'p2', url: 'about:blank', title: '', status: null });
      const opened = await s.call<{ page_id: string; url: string; title: string; status: number }>(
        'pages.open',
        { url: `${suite.fixture.url}/form` },
      );
      expect(opened).toMatchObject({
        page_id: 'p3',
        url: `${suite.fixture.url}/form`,
        title: 'Form',
        status: 200,
      });
      // The same browser profile: the cookie the first page set is there.
      expect(await s.evaluate('document.cookie')).toBe('seen=1');
      const { pages } = await s.call<{ pages: { page_id: string; active: boolean }[] }>('pages.list');
      expect(pages.map((p) => [p.page_id, p.active])).toEqual([
        ['p1', false],
        ['p2', false],
        ['p3', true],
      ]);
      // Calls act on the new page.
      expect(await s.text('main')).toContain('Greet');
      await s.call('pages.select', { page_id: 'p1' });
      expect(await s.text('main')).toBe('Static content');
    } finally {
      await s.close();
    }
  });

  it('refuses a URL outside the allow-list before a page opens, and bad params', async () => {
    const s = bindSession(suite.service, await suite.open('/static'));
    try {
      await s.fails('pages.open', { url: BLOCKED }, -32011);
      const { pages } = await s.call<{ pages: unknown[] }>('pages.list');
      expect(pages).toHaveLength(1);
      for (const bad of [{ url: '' }, { url: 5 }, { waitUntil: 'never' }, { other: true }])
        await s.fails('pages.open', bad, -32602);
    } finally {
      await s.close();
    }
  });
});

describe('session.create url', () => {
  it('answers a session already on the page, with its url, title and status', async () => {
    const created = await suite.service.call<{
      session_id: string;
      url: string;
      title: string;
      status: number;
    }>('session.create', { url: `${suite.fixture.url}/form` });
    expect(created).toMatchObject({ url: `${suite.fixture.url}/form`, title: 'Form', status: 200 });
    const s = bindSession(suite.service, created.session_id);
    expect(await s.text('main')).toContain('Greet');
    await s.close();
  });

  it('creates no session for a URL outside the allow-list, nor for one that fails to load', async () => {
    const before = (await suite.service.call<{ sessions: unknown[] }>('session.list')).sessions.length;
    const blocked = await suite.service.rpc('session.create', { url: BLOCKED });
    expect(blocked.error?.code).toBe(-32011);
    // Allowed but nothing listens there: the navigation fails and the session it made is closed.
    const refused = await suite.service.rpc('session.create', { url: 'http://127.0.0.1:9/' });
    expect(refused.error).toBeDefined();
    expect((await suite.service.call<{ sessions: unknown[] }>('session.list')).sessions).toHaveLength(before);
    expect((await suite.service.rpc('session.create', { url: 42 })).error?.code).toBe(-32602);
  });
});
