// Cookies and storage during a session (issue 14) on the fixture app's /state pages: an httpOnly
// cookie the server set, read back with its attributes (and invisible to the page's scripts);
// cookies set in the minimal shape and seen by the server; cookies cleared by filter; a storage
// state exported from one session and imported into another, running or new. Each rule refused.
import { describe, expect, it } from 'vitest';
import { LOGIN_COOKIES } from '../fixtures/routes/state.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite({ LOG_LEVEL: 'debug' });

interface Cookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: string;
}

async function session(path: string): Promise<BoundSession> {
  return bindSession(suite.service, await suite.open(path));
}

const host = () => new URL(suite.fixture.url).hostname;

describe('cookies.get', () => {
  it('reads an httpOnly cookie the server set, with every attribute, which the page cannot read', async () => {
    const s = await session('/state/login');
    try {
      const { cookies, count, more } = await s.call<{ cookies: Cookie[]; count: number; more: number }>(
        'cookies.get',
      );
      expect(count).toBe(2);
      expect(more).toBe(0);
      expect(cookies.find((c) => c.name === 'sid')).toEqual({
        name: 'sid',
        value: LOGIN_COOKIES.sid,
        domain: host(),
        path: '/',
        expires: -1,
        httpOnly: true,
        secure: false,
        sameSite: 'Strict',
      });
      const theme = cookies.find((c) => c.name === 'theme');
      expect(theme).toMatchObject({ value: LOGIN_COOKIES.theme, path: '/state', httpOnly: false });
      expect(theme?.expires).toBeGreaterThan(Date.now() / 1000);
      // The page's own scripts see only the readable one.
      expect(await s.evaluate('document.cookie')).toBe(`theme=${LOGIN_COOKIES.theme}`);
    } finally {
      await s.close();
    }
  });

  it('filters by name, by domain (subdomains included) and by the URLs they would be sent to', async () => {
    const s = await session('/state/login');
    try {
      const names = async (params: Record<string, unknown>) =>
        (await s.call<{ cookies: Cookie[] }>('cookies.get', params)).cookies.map((c) => c.name).sort();
      expect(await names({ name: 'sid' })).toEqual(['sid']);
      expect(await names({ domain: host() })).toEqual(['sid', 'theme']);
      expect(await names({ domain: 'elsewhere.test' })).toEqual([]);
      // theme has Path=/state: not sent to /.
      expect(await names({ urls: [`${suite.fixture.url}/`] })).toEqual(['sid']);
      expect(await names({ urls: [`${suite.fixture.url}/state/view`] })).toEqual(['sid', 'theme']);
      await s.fails('cookies.get', { urls: ['not a url'] }, -32602);
      await s.fails('cookies.get', { name: '' }, -32602);
    } finally {
      await s.close();
    }
  });
});

describe('cookies.set and cookies.clear', () => {
  it('sets cookies in the minimal shape (url, or domain) that the server then receives', async () => {
    const s = await session('/state/view');
    try {
      const set = await s.call('cookies.set', {
        cookies: [
          { name: 'a', value: '1', url: `${suite.fixture.url}/state/echo` },
          { name: 'b', value: '2', domain: host(), httpOnly: true },
        ],
      });
      expect(set).toEqual({ set: 2, notStored: [] });
      const { cookies } = await s.call<{ cookies: Cookie[] }>('cookies.get', { name: 'a' });
      // A url gives the host, the path up to its last slash, and Secure only for https.
      expect(cookies[0]).toMatchObject({ domain: host(), path: '/state/', secure: false, httpOnly: false });
      await s.call('page.goto', { url: `${suite.fixture.url}/state/echo`, waitUntil: 'load' });
      const echoed = await s.text('body');
      expect(echoed).toContain('a=1');
      expect(echoed).toContain('b=2');
    } finally {
      await s.close();
    }
  });

  it('refuses a cookie with both or neither of url and domain, a path beside a url, or a bad url', async () => {
    const s = await session('/state/view');
    try {
      const url = `${suite.fixture.url}/`;
      const both = await s.fails(
        'cookies.set',
        { cookies: [{ name: 'x', value: '1', url, domain: host() }] },
        -32602,
      );
      expect(both.message).toContain('exactly one of url and domain');
      expect(both.data?.errors).toEqual([expect.objectContaining({ path: '/cookies/0/domain' })]);
      await s.fails('cookies.set', { cookies: [{ name: 'x', value: '1' }] }, -32602);
      await s.fails('cookies.set', { cookies: [{ name: 'x', value: '1', url, path: '/a' }] }, -32602);
      await s.fails('cookies.set', { cookies: [{ name: 'x', value: '1', url: 'ftp://h/' }] }, -32602);
      await s.fails('cookies.set', { cookies: [{ name: 'x', value: '1', url: 'nope' }] }, -32602);
      await s.fails('cookies.set', { cookies: [] }, -32602);
      // An expiry Playwright will not take: said as the caller's error, not the service's.
      const refused = await s.fails(
        'cookies.set',
        { cookies: [{ name: 'x', value: '1', domain: host(), expires: -5 }] },
        -32602,
      );
      expect(refused.message).toContain('the browser refused a cookie');
      // One the browser drops without an error (it expired in 1970) is named, not counted as set.
      const dropped = await s.call('cookies.set', {
        cookies: [
          { name: 'y', value: '1', domain: host(), expires: 1000 },
          { name: 'z', value: '1', domain: host() },
        ],
      });
      expect(dropped).toEqual({ set: 1, notStored: [{ name: 'y', domain: host(), path: '/' }] });
      await s.call('cookies.clear', { name: 'z' });
      expect(await s.call('cookies.get')).toEqual({ cookies: [], count: 0, more: 0 });
    } finally {
      await s.close();
    }
  });

  it('clears by name, by domain and path, or all, and says how many', async () => {
    const s = await session('/state/login');
    try {
      await s.call('cookies.set', { cookies: [{ name: 'c', value: '3', domain: host(), path: '/x' }] });
      expect(await s.call('cookies.clear', { name: 'nothing-of-that-name' })).toEqual({ cleared: 0 });
      expect(await s.call('cookies.clear', { domain: host(), path: '/x' })).toEqual({ cleared: 1 });
      expect(await s.call('cookies.clear', { name: 'theme' })).toEqual({ cleared: 1 });
      const left = await s.call<{ cookies: Cookie[] }>('cookies.get');
      expect(left.cookies.map((c) => c.name)).toEqual(['sid']);
      expect(await s.call('cookies.clear')).toEqual({ cleared: 1 });
      expect((await s.call<{ count: number }>('cookies.get')).count).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe('session.storageState and session.setStorageState', () => {
  it('carries cookies and localStorage from one session to another, running or new', async () => {
    const from = await session('/state/login');
    const into = await session('/state/view');
    let fresh: BoundSession | undefined;
    try {
      await from.call('page.goto', { url: `${suite.fixture.url}/state/view?set=cart=3`, waitUntil: 'load' });
      const { storageState } = await from.call<{
        storageState: { cookies: Cookie[]; origins: { origin: string; localStorage: unknown[] }[] };
      }>('session.storageState');
      expect(storageState.cookies.map((c) => c.name).sort()).toEqual(['sid', 'theme']);
      expect(storageState.origins).toEqual([
        { origin: suite.fixture.url, localStorage: [{ name: 'cart', value: '3' }] },
      ]);

      // Into a running session: its own state is replaced.
      await into.call('cookies.set', { cookies: [{ name: 'old', value: '1', domain: host() }] });
      expect(await into.call('session.setStorageState', { storageState })).toEqual({
        cookies: 2,
        origins: 1,
      });
      const names = (await into.call<{ cookies: Cookie[] }>('cookies.get')).cookies.map((c) => c.name);
      expect(names.sort()).toEqual(['sid', 'theme']);
      await into.call('page.reload', { waitUntil: 'load' });
      expect(await into.text('#storage')).toBe('{"cart":"3"}');
      expect(await into.text('#cookies')).toBe(`theme=${LOGIN_COOKIES.theme}`);

      // Into a new one, at session.create, cookies in the minimal shape.
      const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
        storageState: {
          cookies: [{ name: 'sid', value: 'minimal', url: `${suite.fixture.url}/` }],
          origins: storageState.origins,
        },
      });
      fresh = bindSession(suite.service, session_id);
      await fresh.call('page.goto', { url: `${suite.fixture.url}/state/echo`, waitUntil: 'load' });
      expect(await fresh.text('body')).toBe('cookie: sid=minimal');
    } finally {
      await from.close();
      await into.close();
      await fresh?.close();
    }
  });

  it('refuses a storage state with a cookie it cannot place, at session.create too', async () => {
    const s = await session('/state/view');
    try {
      const bad = { cookies: [{ name: 'x', value: '1' }], origins: [] };
      const refused = await s.fails('session.setStorageState', { storageState: bad }, -32602);
      expect(refused.data?.errors).toEqual([
        expect.objectContaining({ path: '/storageState/cookies/0/url' }),
      ]);
      const created = suite.service.call('session.create', { storageState: bad });
      await expect(created).rejects.toMatchObject({ code: -32602 });
    } finally {
      await s.close();
    }
  });

  it('never writes a cookie value or a storage value to the log, even at debug', async () => {
    const secret = 'cookie-secret-7d1e42';
    const s = await session('/state/view');
    try {
      await s.call('cookies.set', { cookies: [{ name: 'token', value: secret, domain: host() }] });
      await s.call('cookies.get');
      await s.fails('cookies.set', { cookies: [{ name: 'token', value: secret }] }, -32602);
      await s.call('session.setStorageState', {
        storageState: { cookies: [{ name: 'token', value: secret, domain: host() }], origins: [] },
      });
      await s.call('session.storageState');
    } finally {
      await s.close();
    }
    expect(suite.service.logs.join('')).not.toContain(secret);
  });
});

describe('MAX_STORAGE_STATE_CHARS set lower', () => {
  const lowered = useServiceSuite({ MAX_STORAGE_STATE_CHARS: '3000' });

  it('answers a state under the configured size and refuses one over it, naming the key', async () => {
    const s = bindSession(lowered.service, await lowered.open('/state/view'));
    try {
      await s.call('session.storageState');
      await s.evaluate(`(localStorage.setItem('big', 'x'.repeat(4000)), true)`);
      const refused = await s.fails('session.storageState', {}, -32003);
      expect(refused.message).toMatch(/over the 3000 a call answers \(MAX_STORAGE_STATE_CHARS\)/);
      expect(refused.data).toMatchObject({ limit: 'MAX_STORAGE_STATE_CHARS', max: 3000 });
      expect(refused.data?.size).toBeGreaterThan(4000);
    } finally {
      await s.close();
    }
  });
});
