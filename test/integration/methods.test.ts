import { createServer } from 'node:net';
// Every method of the seed's surface (§4) works as documented, against the real service and Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';
import { rpcFailure } from '../helpers/boundSession.js';

let service: TestService;
/** A second service with tiny response caps, for the LIMIT_REACHED cases. */
let capped: TestService;
let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startTestService();
  capped = await startTestService({ MAX_EVALUATE_RESULT_CHARS: '1000', MAX_SCREENSHOT_BYTES: '2000' });
});

afterAll(async () => {
  await service?.close();
  await capped?.close();
  await fixture?.close();
});

type Params = Record<string, unknown>;

/** Session-scoped calls with session_id filled in (both read late: describes bind before beforeAll). */
function bind(id: () => string, svc: () => TestService = () => service) {
  const call = <T = Params>(method: string, params: Params = {}) =>
    svc().call<T>(method, { session_id: id(), ...params });
  return {
    id,
    call,
    open: (path: string, params: Params = {}) =>
      call<Params>('page.goto', { url: `${fixture.url}${path}`, ...params }),
    text: async (selector = 'body') => (await call<{ text: string }>('page.text', { selector })).text,
    evaluate: async <T = unknown>(expression: string, arg?: unknown) =>
      (await call<{ result: T }>('page.evaluate', { expression, arg })).result,
    close: () => svc().call('session.close', { session_id: id() }),
  };
}

async function newSession(params: Params = {}, svc = service) {
  const { session_id } = await svc.call<{ session_id: string }>('session.create', params);
  return bind(
    () => session_id,
    () => svc,
  );
}

/** One session shared by the tests of the enclosing describe, optionally opened on a fixture path. */
function sharedSession(path?: string) {
  let id = '';
  const s = bind(() => id);
  beforeAll(async () => {
    id = (await newSession()).id();
    if (path !== undefined) await s.open(path);
  });
  afterAll(async () => {
    await s.close();
  });
  return s;
}

type Shot = { base64: string; mime: string; bytes: number };
const png = (shot: Shot) => Buffer.from(shot.base64, 'base64');
/** Width and height from a PNG's IHDR chunk. */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

describe('session.*', () => {
  it('session.create applies viewport and userAgent', async () => {
    const s = await newSession({ viewport: { width: 640, height: 480 }, userAgent: 'FixtureAgent/1.0' });
    await s.open('/form');
    expect(await s.evaluate('({ w: innerWidth, h: innerHeight })')).toEqual({ w: 640, h: 480 });
    expect(await s.evaluate('navigator.userAgent')).toBe('FixtureAgent/1.0');
    await s.close();
  });

  it('session.create seeds cookies from storageState', async () => {
    const cookie = { domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false };
    const s = await newSession({
      storageState: { cookies: [{ name: 'seeded', value: 'yes', ...cookie, sameSite: 'Lax' }], origins: [] },
    });
    await s.open('/show-cookie');
    expect(await s.text('#cookies')).toContain('seeded=yes');
    await s.close();
  });

  it('session.create refuses headless:false and proxy with -32602, accepts headless:true', async () => {
    await rpcFailure(service.call('session.create', { headless: false }), -32602);
    await rpcFailure(service.call('session.create', { proxy: { server: 'http://127.0.0.1:1' } }), -32602);
    const s = await newSession({ headless: true });
    expect(s.id()).toMatch(/^s_[0-9a-f-]{36}$/);
    await s.close();
  });

  it('session.list reports id, url, title, createdAt, lastUsedAt, expiresAt and pages', async () => {
    const s = await newSession();
    await s.open('/form');
    const { sessions } = await service.call<{ sessions: Record<string, string>[] }>('session.list');
    const entry = sessions.find((e) => e.session_id === s.id());
    expect(entry).toMatchObject({ url: `${fixture.url}/form`, title: 'Form' });
    const created = Date.parse(entry?.createdAt ?? '');
    expect(Number.isNaN(created)).toBe(false);
    expect(Date.parse(entry?.lastUsedAt ?? '')).toBeGreaterThanOrEqual(created);
    // It closes SESSION_TTL_MS after its last call unless another comes.
    expect(Date.parse(String(entry?.expiresAt)) - Date.parse(entry?.lastUsedAt ?? '')).toBe(
      service.running.services.config.sessionTtlMs,
    );
    expect(entry?.pages).toBe(1);
    await s.close();
  });

  it('session.close is idempotent and the id is then unknown', async () => {
    const s = await newSession();
    expect(await s.close()).toEqual({ ok: true, closed: true });
    expect(await s.close()).toEqual({ ok: true, closed: false });
    const { sessions } = await service.call<{ sessions: { session_id: string }[] }>('session.list');
    expect(sessions.map((e) => e.session_id)).not.toContain(s.id());
    const err = await rpcFailure(s.call('page.text'), -32010);
    expect(err.data?.reason).toBe('closed');
  });
});

describe('navigation and waits', () => {
  const s = sharedSession();

  it('page.goto returns url, title and status; networkidle waits for the XHR-rendered list', async () => {
    const nav = await s.open('/projects');
    expect(nav).toMatchObject({
      url: `${fixture.url}/projects`,
      title: 'Projects',
      status: 200,
    });
    // The allow-list refused nothing: the answer has no blocked list to read.
    expect(nav).not.toHaveProperty('blocked');
    expect(await s.text('#projects')).toContain('Apollo');
  });

  it.each(['load', 'domcontentloaded', 'networkidle'])('page.goto waitUntil %s', async (waitUntil) => {
    const nav = await s.open('/form', { waitUntil });
    expect(nav).toMatchObject({ url: `${fixture.url}/form`, title: 'Form', status: 200 });
  });

  it('page.goto networkidle completes on a page with an unread no-store response', async () => {
    const nav = await s.open('/hang-nostore', { waitUntil: 'networkidle', timeout: 20_000 });
    expect(nav).toMatchObject({ title: 'Hang', status: 200 });
    expect(await s.text('main')).toBe('hang page');
  });

  it('a server that refuses the connection answers 502 from the egress proxy, saying why', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
      });
    });
    const nav = await s.call<{ status: number }>('page.goto', {
      url: `http://127.0.0.1:${closed}/`,
      waitUntil: 'load',
    });
    expect(nav.status).toBe(502);
    expect(await s.text('body')).toContain('ECONNREFUSED');
    expect(await s.open('/form', { waitUntil: 'load' })).toMatchObject({ title: 'Form', status: 200 });
  });

  it('page.waitFor load, domcontentloaded and networkidle after a commit-only goto', async () => {
    await s.open('/projects', { waitUntil: 'commit' });
    for (const state of ['domcontentloaded', 'load', 'networkidle'])
      expect(await s.call('page.waitFor', { state })).toEqual({ state });
    expect(await s.text('#projects')).toContain('Cygnus');
  });

  it('page.waitFor idleFor pauses for ms, letting page timers run', async () => {
    await s.open('/form');
    await s.evaluate("setTimeout(() => { document.title = 'later'; }, 50)");
    expect(await s.call('page.waitFor', { state: 'idleFor', ms: 1500 })).toEqual({ state: 'idleFor' });
    expect(await s.evaluate('document.title')).toBe('later');
    await rpcFailure(s.call('page.waitFor', { state: 'idleFor', ms: 600_000 }), -32602);
  });

  it('page.reload reloads the document (typed input is gone)', async () => {
    await s.open('/form');
    await s.call('page.fill', { selector: '#name', value: 'typed' });
    expect(await s.evaluate("document.getElementById('name').value")).toBe('typed');
    const nav = await s.call('page.reload', { waitUntil: 'load' });
    expect(nav).toMatchObject({ url: `${fixture.url}/form`, title: 'Form', status: 200 });
    expect(await s.evaluate("document.getElementById('name').value")).toBe('');
  });
});

describe('reading', () => {
  const s = sharedSession('/big');

  it('page.text reads a selector, and maxChars cuts at a line end with truncated:true', async () => {
    expect(await s.call('page.text', { selector: 'h1' })).toEqual({ text: 'Big' });
    const cut = await s.call('page.text', { selector: 'main', maxChars: 10 });
    expect(cut).toMatchObject({ text: 'Big\n\n', truncated: true, cursor: expect.any(String) as unknown });
    expect(cut.length).toBeGreaterThan(100_000);
  });

  it('page.text normalize:false keeps raw whitespace; the default folds it', async () => {
    const pre = '<pre id=raw>  a   b  \\n\\n\\n\\n c  </pre>';
    await s.evaluate(`document.querySelector('main').insertAdjacentHTML('afterbegin', '${pre}')`);
    const raw = await s.call('page.text', { selector: '#raw', normalize: false });
    expect(raw).toMatchObject({ text: '  a   b  \n\n\n\n c  ' });
    expect(await s.text('#raw')).toBe('a b\n\nc');
  });

  it('page.text on a selector that matches nothing fails with TIMEOUT', async () => {
    const err = await rpcFailure(s.call('page.text', { selector: '#does-not-exist', timeout: 300 }), -32001);
    expect(err.data).toMatchObject({ selector: '#does-not-exist' });
  });

  it('page.content returns the post-JS HTML', async () => {
    await s.open('/show-cookie');
    const { html, truncated } = await s.call<{ html: string; truncated: boolean }>('page.content');
    expect(html).toContain('<title>Show Cookie</title>');
    expect(html).toMatch(/<main id="cookies">\s*<\/main>/);
    expect(truncated).toBe(false);
  });
});

describe('page.evaluate', () => {
  const s = sharedSession('/form');

  it('evaluates expressions, functions with arg, and promises', async () => {
    expect(await s.evaluate('document.title')).toBe('Form');
    expect(await s.evaluate('(arg) => arg.x * 2', { x: 21 })).toBe(42);
    expect(await s.evaluate("new Promise((r) => setTimeout(() => r('done'), 10))")).toBe('done');
    expect(await s.evaluate('undefined')).toBeNull();
    expect(await s.evaluate('({ a: [1, "two", null] })')).toEqual({ a: [1, 'two', null] });
  });

  it('a thrown error is ACTION_FAILED with its message', async () => {
    const err = await rpcFailure(s.evaluate("(() => { throw new Error('kaboom'); })()"), -32000);
    expect(err.message).toContain('kaboom');
  });

  it('a result that is not JSON (a BigInt) is ACTION_FAILED, not an internal error', async () => {
    const err = await rpcFailure(s.evaluate('10n'), -32000);
    expect(err.message).toContain('JSON');
  });

  it('a result over MAX_EVALUATE_RESULT_CHARS is LIMIT_REACHED', async () => {
    const small = await newSession({}, capped);
    expect(await small.evaluate("'x'.repeat(500)")).toHaveLength(500);
    const err = await rpcFailure(small.evaluate("'x'.repeat(5000)"), -32003);
    expect(err.data).toMatchObject({ limit: 1000 });
    await small.close();
  });
});

describe('acting', () => {
  const s = sharedSession();

  it('page.fill and page.click on /form', async () => {
    await s.open('/form');
    expect(await s.call('page.fill', { selector: '#name', value: 'Ada' })).toMatchObject({ ok: true });
    expect(await s.call('page.click', { selector: '#greet' })).toMatchObject({ ok: true });
    expect(await s.text('#greeting')).toBe('Hello, Ada!');
    await rpcFailure(s.call('page.click', { selector: '#nope', timeout: 300 }), -32001);
  });

  it('page.press Enter on /projects adds a list item', async () => {
    await s.open('/projects');
    const count = () => s.evaluate<number>("document.querySelectorAll('#projects li').length");
    expect(await count()).toBe(3);
    await s.call('page.click', { selector: "role=button[name='New Project']" });
    await s.call('page.fill', { selector: '#new-project-name', value: 'Zephyr' });
    expect(await s.call('page.press', { selector: '#new-project-name', key: 'Enter' })).toMatchObject({
      ok: true,
    });
    expect(await count()).toBe(4);
    expect(await s.text('#projects')).toContain('Zephyr');
  });
});

describe('debug signals', () => {
  const s = sharedSession();
  type Logs = {
    console: { type: string; text: string }[];
    pageErrors: { message: string }[];
    dropped: { console: number; pageErrors: number };
  };
  type Net = { requests: { url: string; status: number | null; failure?: string }[] };

  it('logs.pull returns console messages and page errors, and drains', async () => {
    await s.open('/errors');
    const seen: Logs = { console: [], pageErrors: [], dropped: { console: 0, pageErrors: 0 } };
    const collect = async () => {
      const logs = await s.call<Logs>('logs.pull');
      seen.console.push(...logs.console);
      seen.pageErrors.push(...logs.pageErrors);
      return seen.pageErrors.length > 0;
    };
    await waitFor(collect, 10_000, 'the uncaught error of /errors');
    expect(seen.console).toContainEqual(
      expect.objectContaining({ type: 'warning', text: 'fixture warning' }),
    );
    expect(seen.pageErrors[0]?.message).toContain('fixture uncaught error');
    const again = await s.call('logs.pull');
    expect(again).toEqual({ console: [], pageErrors: [], dropped: { console: 0, pageErrors: 0 } });
  });

  it('network.pull onlyErrors:true keeps failures only; both modes drain', async () => {
    await s.open('/projects');
    const errors = await s.call<Net>('network.pull', { onlyErrors: true });
    expect(errors.requests).toContainEqual(
      expect.objectContaining({ url: `${fixture.url}/api/fail`, status: 500 }),
    );
    expect(errors.requests.every((r) => r.status === null || r.status >= 400)).toBe(true);
    expect((await s.call<Net>('network.pull', { onlyErrors: false })).requests).toEqual([]);

    await s.call('page.reload');
    const all = (await s.call<Net>('network.pull', { onlyErrors: false })).requests;
    // The first page's unread /api/fail body is aborted by the reload: that shows up too, so match, not find.
    const has = (path: string, fields: Params) =>
      expect(all).toContainEqual(expect.objectContaining({ url: `${fixture.url}${path}`, ...fields }));
    has('/projects', { status: 200, resourceType: 'document' });
    has('/api/projects', { status: 200 });
    has('/api/fail', { status: 500 });
    expect((await s.call<Net>('network.pull', { onlyErrors: false })).requests).toEqual([]);
  });

  it('network.pull reports a failed request with its failure text', async () => {
    await s.open('/form');
    await s.call('network.pull', { onlyErrors: false });
    // Aborted while the server is still answering: the request fails without a response.
    await s.evaluate(`(async () => {
      const c = new AbortController();
      setTimeout(() => c.abort(), 300);
      return fetch('/slow?ms=10000', { signal: c.signal }).then(() => 'answered', () => 'aborted');
    })()`);
    const failed: Net['requests'] = [];
    const collect = async () => {
      failed.push(...(await s.call<Net>('network.pull')).requests);
      return failed.some((r) => r.url.includes('/slow'));
    };
    await waitFor(collect, 10_000, 'the aborted request in network.pull');
    const slow = failed.find((r) => r.url.includes('/slow'));
    expect(slow?.status).toBeNull();
    expect(slow?.failure).toMatch(/ERR_ABORTED|abort/i);
  });

  it('screenshot returns a PNG of the viewport, a JPEG, and a taller full page', async () => {
    await s.open('/big');
    const shot = await s.call<Shot>('screenshot');
    const bytes = png(shot);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(shot).toMatchObject({ mime: 'image/png', bytes: bytes.length });
    expect(pngSize(bytes)).toEqual({ width: 1280, height: 800 });

    const jpeg = await s.call<Shot>('screenshot', { mime: 'image/jpeg', quality: 40 });
    expect([...png(jpeg).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(jpeg.mime).toBe('image/jpeg');

    // A full-page PNG of all of /big is over the default 10 MB cap: keep enough to be 3+ screens tall.
    await s.evaluate("document.querySelectorAll('main p').forEach((p, i) => { if (i >= 80) p.remove(); })");
    const full = await s.call<Shot>('screenshot', { fullPage: true });
    expect(pngSize(png(full)).height).toBeGreaterThan(800);
  });

  it('screenshot refuses quality with PNG, and an image over MAX_SCREENSHOT_BYTES', async () => {
    await rpcFailure(s.call('screenshot', { quality: 50 }), -32602);
    const small = await newSession({}, capped);
    await small.open('/big');
    const err = await rpcFailure(small.call('screenshot'), -32003);
    expect(err.data).toMatchObject({ limit: 2000 });
    await small.close();
  });
});

describe('accessibility', () => {
  const s = sharedSession();

  it('find.byRole returns a selector page.click accepts; exact is case-sensitive; no match is count 0', async () => {
    await s.open('/form');
    await s.call('page.fill', { selector: '#name', value: 'Grace' });
    const found = await s.call<{ selector: string; count: number }>('find.byRole', {
      role: 'button',
      name: 'greet',
    });
    expect(found.count).toBe(1);
    await s.call('page.click', { selector: found.selector });
    expect(await s.text('#greeting')).toBe('Hello, Grace!');

    expect(await s.call('find.byRole', { role: 'button' })).toMatchObject({ count: 2 });
    const exact = await s.call('find.byRole', { role: 'button', name: 'Greet', exact: true });
    expect(exact).toMatchObject({ count: 1 });
    // Nothing matching is an answer, not an error (issue 10).
    const none = { count: 0, matches: [] };
    expect(await s.call('find.byRole', { role: 'button', name: 'greet', exact: true })).toMatchObject(none);
    expect(await s.call('find.byRole', { role: 'button', name: 'Nope' })).toMatchObject(none);
  });

  it('axe.run on /a11y finds image-alt and button-name; include narrows the check', async () => {
    await s.open('/a11y');
    type Axe = { violations: { id: string }[]; passes: number };
    const ids = async (params: Params) => (await s.call<Axe>('axe.run', params)).violations.map((v) => v.id);
    expect(await ids({})).toEqual(expect.arrayContaining(['image-alt', 'button-name']));
    const nav = await ids({ include: 'nav' });
    expect(nav).not.toContain('image-alt');
    expect(nav).not.toContain('button-name');
    expect(await ids({ include: ['#empty'] })).toEqual(['button-name']);
  });
});

describe('unknown session', () => {
  /** A valid value for each required param a session method may take. */
  const SAMPLE: Params = {
    ...{ url: 'http://127.0.0.1:1/', state: 'load', expression: '1', selector: 'body' },
    ...{ value: 'x', key: 'Enter', role: 'button' },
  };
  const SEED_METHODS = [
    ...['page.goto', 'page.waitFor', 'page.reload', 'page.text', 'page.content', 'page.evaluate'],
    ...['page.click', 'page.fill', 'page.press', 'logs.pull', 'network.pull', 'screenshot'],
    ...['find.byRole', 'axe.run'],
  ];

  it('every session method answers SESSION_NOT_FOUND (-32010) for an unknown id', async () => {
    type Param = { name: string; required: boolean; schema: Params };
    const doc = await service.call<{ methods: { name: string; params: Param[] }[] }>('rpc.discover');
    const scoped = doc.methods.filter(
      (m) => m.name !== 'session.close' && m.params.some((p) => p.name === 'session_id' && p.required),
    );
    expect(scoped.map((m) => m.name)).toEqual(expect.arrayContaining(SEED_METHODS));
    const session_id = 's_00000000-0000-4000-8000-000000000000';
    const tested: string[] = [];
    for (const method of scoped) {
      // A param with a schema default is filled in by validation even when listed as required.
      const needed = method.params.filter(
        (p) => p.required && p.name !== 'session_id' && !('default' in p.schema),
      );
      // A method added later with a required param this table cannot fill is covered by its own tests.
      if (needed.some((p) => !(p.name in SAMPLE))) continue;
      const params: Params = { session_id };
      for (const p of needed) params[p.name] = SAMPLE[p.name];
      const err = await rpcFailure(service.call(method.name, params), -32010);
      expect(err.data).toMatchObject({ method: method.name, session_id, reason: 'unknown' });
      tested.push(method.name);
    }
    expect(tested).toEqual(expect.arrayContaining(SEED_METHODS));
  });
});
