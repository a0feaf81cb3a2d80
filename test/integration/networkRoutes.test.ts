// Interception, offline, throttling and extra headers (issue 14) on the fixture app's /routes pages:
// a mocked JSON API changes what the page renders, abort fails a fetch, continue changes a header the
// server sees, times and unroute are honoured, and a route never answers for a host outside the
// allow-list (the decoy on 127.0.0.2 stays untouched, the request is recorded as blocked). Offline,
// throttling (read back through navigator.connection, which Chromium's emulation overrides) on the
// main page and on a popup opened later, extra headers seen by the server and absent from the log.
// Every cap and bad input refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADERS } from '../../src/browser/network/httpHeaders.js';
import { MAX_ROUTES } from '../../src/browser/network/sessionRoutes.js';
import { CONFIG_DEFAULTS } from '../../src/config/configKeys.js';
import { MAX_ROUTE_PATTERN_CHARS } from '../../src/methods/network/networkRoutes.js';
import { REAL_ITEMS } from '../fixtures/routes/mocking.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { startCdpChrome } from '../helpers/cdpChrome.js';
import { useFixtureAndDecoy } from '../helpers/suite.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';

const servers = useFixtureAndDecoy();
let service: TestService;

beforeAll(async () => {
  // debug: the most a log line may carry, for the extra-headers case; a body limit past MAX_ROUTE_BODY_BYTES.
  service = await startTestService({ LOG_LEVEL: 'debug', BODY_LIMIT: '16mb' });
});
afterAll(async () => {
  await service?.close();
});

// The body caps' defaults (config keys): the service above runs with them.
const MAX_ROUTE_BODY_BYTES = Number(CONFIG_DEFAULTS.MAX_ROUTE_BODY_BYTES);
const MAX_ROUTE_BODIES_BYTES = Number(CONFIG_DEFAULTS.MAX_ROUTE_BODIES_BYTES);

const INVALID = -32602;
const LIMIT = -32003;
const fx = (path: string) => `${servers.fixture.url}${path}`;

interface NetEntry {
  url: string;
  status: number | null;
  failure?: string;
  blocked?: boolean;
}
interface RouteInfo {
  route_id: string;
  served: number;
  times: number | null;
  headers?: string[];
}

async function session(): Promise<BoundSession> {
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  return bindSession(service, session_id);
}

/** Opens the items page (fetching ?url= when given) and waits until its fetch has ended. */
async function items(s: BoundSession, api?: string): Promise<{ items: string; status: string }> {
  const path = api === undefined ? '/routes/items' : `/routes/items?url=${encodeURIComponent(api)}`;
  await s.call('page.goto', { url: fx(path), waitUntil: 'load' });
  let status = '';
  await waitFor(
    async () => {
      status = await s.text('#status');
      return status !== 'loading';
    },
    15_000,
    'the items page to finish its fetch',
  );
  return { items: await s.text('#items'), status };
}

const route = (s: BoundSession, params: Record<string, unknown>) =>
  s.call<{ route_id: string }>('network.route', params);
const routes = async (s: BoundSession) => (await s.call<{ routes: RouteInfo[] }>('network.routes')).routes;

describe('network.route', () => {
  it('fulfil: a mocked JSON API changes what the page renders; unroute restores the real answer', async () => {
    const s = await session();
    try {
      expect((await items(s)).items).toBe(REAL_ITEMS.join('\n'));
      const { route_id } = await route(s, {
        pattern: '**/routes/api/items',
        action: 'fulfill',
        contentType: 'application/json',
        body: JSON.stringify(['Mocked one', 'Mocked two', 'Mocked three']),
      });
      expect(route_id).toBe('rt1');
      const mocked = await items(s);
      expect(mocked).toEqual({ items: 'Mocked one\nMocked two\nMocked three', status: 'loaded 200' });
      expect(servers.fixture.hits.filter((h) => h === 'GET /routes/api/items')).toHaveLength(1);
      expect(await routes(s)).toMatchObject([
        { route_id: 'rt1', served: 1, times: null, headers: ['content-type'] },
      ]);

      // A route with brace options, a base64 body and a status of its own; the newest route is tried first.
      await route(s, {
        pattern: '**/routes/api/{items,other}',
        action: 'fulfill',
        status: 201,
        bodyBase64: Buffer.from('["From base64"]').toString('base64'),
      });
      expect(await items(s)).toEqual({ items: 'From base64', status: 'loaded 201' });

      expect(await s.call('network.unroute', { route_id: 'rt2' })).toMatchObject({
        removed: 1,
        routes: [{ route_id: 'rt1' }],
      });
      expect((await items(s)).items).toBe('Mocked one\nMocked two\nMocked three');
      expect(await s.call('network.unroute', { all: true })).toEqual({ removed: 1, routes: [] });
      expect((await items(s)).items).toBe(REAL_ITEMS.join('\n'));
      // Gone already: nothing removed; an id never issued is still a well-formed id.
      expect(await s.call('network.unroute', { route_id: 'rt1' })).toEqual({ removed: 0, routes: [] });
    } finally {
      await s.close();
    }
  });

  it('abort: the fetch fails, and network.pull shows it failed', async () => {
    const s = await session();
    try {
      await route(s, { pattern: '**/routes/api/items', action: 'abort', errorCode: 'connectionrefused' });
      await s.call('network.pull');
      expect(await items(s)).toEqual({ items: '', status: 'failed: TypeError' });
      const { requests } = await s.call<{ requests: NetEntry[] }>('network.pull');
      expect(requests).toContainEqual(
        expect.objectContaining({
          url: fx('/routes/api/items'),
          status: null,
          failure: 'net::ERR_CONNECTION_REFUSED',
        }),
      );
    } finally {
      await s.close();
    }
  });

  it('continue: a changed header reaches the server; times: served only so many times', async () => {
    const s = await session();
    try {
      await route(s, {
        pattern: '**/routes/headers',
        action: 'continue',
        headers: { 'X-Route-Mark': 'marked' },
        times: 2,
      });
      const seen = async () => {
        await s.call('page.goto', { url: fx('/routes/headers'), waitUntil: 'load' });
        return JSON.parse(await s.text('body')) as Record<string, string>;
      };
      expect(await seen()).toEqual({ 'x-route-mark': 'marked' });
      expect(await routes(s)).toMatchObject([{ served: 1, times: 2 }]);
      expect(await seen()).toEqual({ 'x-route-mark': 'marked' });
      // Used up: gone from the list, and the third request goes as it is.
      expect(await routes(s)).toEqual([]);
      expect(await seen()).toEqual({});
    } finally {
      await s.close();
    }
  });

  it('never answers for a host outside the allow-list: the request stays blocked and recorded', async () => {
    const s = await session();
    try {
      const outside = `${servers.decoy.url}/routes/api/items`;
      await route(s, {
        pattern: `${servers.decoy.url}/**`,
        action: 'fulfill',
        headers: { 'access-control-allow-origin': '*' },
        contentType: 'application/json',
        body: '["Mocked outside"]',
      });
      await route(s, { pattern: '**/never-matches', action: 'continue', headers: { 'x-a': '1' } });
      await s.call('network.pull');
      expect(await items(s, outside)).toEqual({ items: '', status: 'failed: TypeError' });
      const { requests } = await s.call<{ requests: NetEntry[] }>('network.pull');
      expect(requests).toContainEqual(expect.objectContaining({ url: outside, blocked: true }));
      expect(servers.decoy.hits).toEqual([]);
      expect((await routes(s)).map((r) => r.served)).toEqual([0, 0]);
      // A navigation there is refused as without routes.
      await s.fails('page.goto', { url: outside }, -32011);
      expect(servers.decoy.hits).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('refuses bad input and past its caps', async () => {
    const s = await session();
    try {
      const base = { pattern: '**/x', action: 'fulfill' };
      await s.fails('network.route', { ...base, pattern: '' }, INVALID);
      await s.fails('network.route', { ...base, pattern: 'x'.repeat(MAX_ROUTE_PATTERN_CHARS + 1) }, INVALID);
      // Regular expressions are not taken; a glob that cannot be parsed or is too large is refused.
      await s.fails('network.route', { ...base, regex: true }, INVALID);
      await s.fails('network.route', { ...base, pattern: '**/{a,b' }, INVALID);
      await s.fails('network.route', { ...base, pattern: '**/{a,b}{c,d}{e,f}{g,h}{i,j}' }, INVALID);
      await s.fails('network.route', { ...base, pattern: '**/{a*,b}' }, INVALID);
      // 16 alternatives of 200 characters: over MAX_GLOB_STATES, although the pattern is short.
      await s.fails(
        'network.route',
        { ...base, pattern: `**/${'x'.repeat(200)}{a,b}{c,d}{e,f}{g,h}` },
        INVALID,
      );
      // Five routes of 1,728 states fit; a sixth passes MAX_SESSION_GLOB_STATES.
      const big = (n: number) => `**/${String(n).repeat(100)}{a,b}{c,d}{e,f}{g,h}`;
      for (let n = 1; n <= 5; n++) await s.call('network.route', { ...base, pattern: big(n) });
      await s.fails('network.route', { ...base, pattern: big(6) }, -32003);
      await s.call('network.unroute', { all: true });
      await s.fails('network.route', { ...base, action: 'redirect' }, INVALID);
      await s.fails('network.route', { ...base, status: 99 }, INVALID);
      await s.fails('network.route', { ...base, body: 'a', bodyBase64: 'YQ==' }, INVALID);
      await s.fails('network.route', { ...base, bodyBase64: 'not base64!' }, INVALID);
      await s.fails('network.route', { ...base, errorCode: 'failed' }, INVALID);
      await s.fails('network.route', { ...base, body: 'é'.repeat(MAX_ROUTE_BODY_BYTES / 2 + 1) }, INVALID);
      await s.fails('network.route', { ...base, times: 0 }, INVALID);
      await s.fails('network.route', { ...base, headers: { 'bad name': 'x' } }, INVALID);
      await s.fails('network.route', { ...base, headers: { 'x-a': 'line\nbreak' } }, INVALID);
      const many = Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`x-h${i}`, 'v']));
      await s.fails('network.route', { ...base, headers: many }, INVALID);
      await s.fails('network.route', { pattern: '**/x', action: 'abort', errorCode: 'nosuchcode' }, INVALID);
      await s.fails('network.route', { pattern: '**/x', action: 'abort', status: 200 }, INVALID);
      // continue changes headers only: not the URL, not the Host, not the proxy's headers.
      await s.fails('network.route', { pattern: '**/x', action: 'continue', url: fx('/') }, INVALID);
      await s.fails(
        'network.route',
        { pattern: '**/x', action: 'continue', headers: { Host: 'a' } },
        INVALID,
      );
      await s.fails(
        'network.route',
        { pattern: '**/x', action: 'continue', headers: { 'proxy-authorization': 'a' } },
        INVALID,
      );
      await s.fails('network.route', { pattern: '**/x', action: 'continue' }, INVALID);
      await s.fails('network.unroute', {}, INVALID);
      await s.fails('network.unroute', { route_id: 'rt1', all: true }, INVALID);
      await s.fails('network.unroute', { route_id: 'r1' }, INVALID);
      expect(await routes(s)).toEqual([]);

      // Bodies together: MAX_ROUTE_BODIES_BYTES at most.
      const full = 'a'.repeat(MAX_ROUTE_BODY_BYTES);
      for (let i = 0; i < MAX_ROUTE_BODIES_BYTES / MAX_ROUTE_BODY_BYTES; i++)
        await route(s, { pattern: `**/big-${i}`, action: 'fulfill', body: full });
      const heavy = await s.fails('network.route', { ...base, body: 'a' }, LIMIT);
      expect(heavy.data).toMatchObject({ limit: 'MAX_ROUTE_BODIES_BYTES' });
      await s.call('network.unroute', { all: true });

      for (let i = 0; i < MAX_ROUTES; i++) await route(s, { pattern: `**/cap-${i}`, action: 'abort' });
      const past = await s.fails('network.route', { pattern: '**/one-more', action: 'abort' }, LIMIT);
      expect(past.data).toMatchObject({ limit: 'MAX_ROUTES' });
      // With MAX_ROUTES routes in place the pages still load as without them.
      expect((await items(s)).items).toBe(REAL_ITEMS.join('\n'));
      expect(await s.call('network.unroute', { all: true })).toMatchObject({ removed: MAX_ROUTES });
    } finally {
      await s.close();
    }
    await s.fails('network.route', { pattern: '**/x', action: 'abort' }, -32010);
  });
});

describe('network.offline and network.throttle', () => {
  it('offline makes a fetch fail; back online it succeeds', async () => {
    const s = await session();
    try {
      await s.call('page.goto', { url: fx('/routes/items'), waitUntil: 'load' });
      expect(await s.call('network.offline', { offline: true })).toEqual({ offline: true });
      expect(await s.evaluate('navigator.onLine')).toBe(false);
      expect(await s.evaluate("fetch('/routes/api/items').then(() => 'ok', (e) => e.name)")).toBe(
        'TypeError',
      );
      await s.call('network.offline', { offline: false });
      expect(await s.evaluate("fetch('/routes/api/items').then((r) => r.json())")).toEqual(REAL_ITEMS);
      await s.fails('network.offline', {}, INVALID);
    } finally {
      await s.close();
    }
  });

  it('throttles every page, a popup opened later included, and lifts it; bad input refused', async () => {
    const s = await session();
    try {
      await s.call('page.goto', { url: fx('/routes/items'), waitUntil: 'load' });
      const rtt = () => s.evaluate<number>('navigator.connection.rtt');
      const unthrottled = await rtt();
      expect(unthrottled).toBeLessThan(1000);
      expect(await s.call('network.throttle', { preset: 'slow-3g' })).toEqual({
        throttle: { latencyMs: 2000, downloadKbps: 400, uploadKbps: 400 },
      });
      // Chromium reports the emulated latency there, rounded and with up to 10% noise per host.
      expect(await rtt()).toBeGreaterThanOrEqual(1500);
      await s.evaluate("window.open('/routes/items'), true");
      await waitFor(
        async () => (await s.call<{ pages: unknown[] }>('pages.list')).pages.length === 2,
        15_000,
        'the popup',
      );
      await s.call('pages.select', { page_id: 'p2' });
      await waitFor(async () => (await rtt()) >= 1500, 10_000, 'the popup to be throttled');
      // Offline and back keeps the throttling (Playwright's setOffline sends conditions of its own).
      await s.call('network.offline', { offline: true });
      await s.call('network.offline', { offline: false });
      expect(await rtt()).toBeGreaterThanOrEqual(1500);
      await s.call('network.throttle', { custom: { latencyMs: 300, downloadKbps: 1000, uploadKbps: 500 } });
      expect(await rtt()).toBeLessThan(1000);
      expect(await rtt()).toBeGreaterThanOrEqual(200);
      expect(await s.call('network.throttle', { preset: 'none' })).toEqual({ throttle: null });
      expect(await rtt()).toBeLessThan(200);

      await s.fails('network.throttle', { preset: '5g' }, INVALID);
      await s.fails('network.throttle', {}, INVALID);
      await s.fails(
        'network.throttle',
        { preset: 'none', custom: { latencyMs: 1, downloadKbps: 1, uploadKbps: 1 } },
        INVALID,
      );
      await s.fails(
        'network.throttle',
        { custom: { latencyMs: -1, downloadKbps: 1, uploadKbps: 1 } },
        INVALID,
      );
      await s.fails(
        'network.throttle',
        { custom: { latencyMs: 1, downloadKbps: 0, uploadKbps: 1 } },
        INVALID,
      );
      await s.fails(
        'network.throttle',
        { custom: { latencyMs: 1e9, downloadKbps: 1, uploadKbps: 1 } },
        INVALID,
      );
    } finally {
      await s.close();
    }
  });
});

describe('network.setExtraHeaders', () => {
  it('sends the headers with every request, and their values never reach the log', async () => {
    const secret = 'Bearer SECRET-extra-header-7f3a';
    const s = await session();
    try {
      expect(
        await s.call('network.setExtraHeaders', { headers: { Authorization: secret, 'X-Tenant': 'acme' } }),
      ).toEqual({ headers: ['authorization', 'x-tenant'] });
      await s.call('page.goto', { url: fx('/routes/headers'), waitUntil: 'load' });
      expect(JSON.parse(await s.text('body'))).toEqual({ authorization: secret, 'x-tenant': 'acme' });
      // The page's own fetches carry them too.
      const fromPage = await s.evaluate<Record<string, string>>(
        "fetch('/routes/headers').then((r) => r.json())",
      );
      expect(fromPage).toEqual({ authorization: secret, 'x-tenant': 'acme' });
      // Refused calls with a secret in them: the refusal names the header, not its value.
      const refused = await s.fails('network.setExtraHeaders', { headers: { Host: secret } }, INVALID);
      expect(refused.message).not.toContain(secret);
      const twice = await s.fails(
        'network.setExtraHeaders',
        { headers: { 'X-A': secret, 'x-a': secret } },
        INVALID,
      );
      expect(twice.message).not.toContain(secret);
      await s.fails('network.setExtraHeaders', { headers: { 'x-a': 'x'.repeat(8193) } }, INVALID);
      const many = Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`x-h${i}`, 'v']));
      await s.fails('network.setExtraHeaders', { headers: many }, INVALID);
      const big = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`x-big${i}`, 'v'.repeat(8000)]));
      await s.fails('network.setExtraHeaders', { headers: big }, INVALID);
      await s.fails('network.setExtraHeaders', {}, INVALID);
      // {} clears them.
      await s.call('network.setExtraHeaders', { headers: {} });
      await s.call('page.goto', { url: fx('/routes/headers'), waitUntil: 'load' });
      expect(JSON.parse(await s.text('body'))).toEqual({});
    } finally {
      await s.close();
    }
    const lines = service.logs.join('');
    expect(lines).toContain('"method":"network.setExtraHeaders"');
    expect(lines).not.toContain('SECRET-extra-header');
  });
});

describe('on an attached tab (tabs.attach over CDP_URL)', () => {
  it("every method is refused: the tab belongs to the user's own browser", async () => {
    const chrome = await startCdpChrome();
    const cdpPort = Number(new URL(chrome.url).port);
    const tabService = await startTestService({
      CDP_URL: `http://127.0.0.1:${cdpPort}`,
      CDP_TIMEOUT_MS: '10000',
    });
    try {
      const { tabId } = await tabService.call<{ tabId: string }>('tabs.open', { url: fx('/routes/items') });
      const { session_id } = await tabService.call<{ session_id: string }>('tabs.attach', { tabId });
      const s = bindSession(tabService, session_id);
      for (const [method, params] of [
        ['network.route', { pattern: '**/*', action: 'abort' }],
        ['network.unroute', { all: true }],
        ['network.routes', {}],
        ['network.offline', { offline: true }],
        ['network.throttle', { preset: 'slow-3g' }],
        ['network.setExtraHeaders', { headers: { 'x-a': '1' } }],
      ] as const) {
        const refused = await s.fails(method, params, INVALID);
        expect(refused.message).toContain('attached tab');
      }
      // The tab still loads as before.
      await s.call('page.reload', { waitUntil: 'load' });
      expect(await s.text('h1')).toBe('Items');
    } finally {
      await tabService.close();
      await chrome.stop();
    }
  });
});

describe('MAX_ROUTE_BODY_BYTES and MAX_ROUTE_BODIES_BYTES set lower', () => {
  let lowered: TestService;
  beforeAll(async () => {
    lowered = await startTestService({ MAX_ROUTE_BODY_BYTES: '1000', MAX_ROUTE_BODIES_BYTES: '2500' });
  });
  afterAll(async () => {
    await lowered?.close();
  });

  it('refuses a body over the configured size (in bytes), and bodies past their total', async () => {
    const { session_id } = await lowered.call<{ session_id: string }>('session.create', {});
    const s = bindSession(lowered, session_id);
    try {
      const base = { pattern: '**/x', action: 'fulfill' };
      const over = await s.fails('network.route', { ...base, body: 'a'.repeat(1001) }, INVALID);
      expect(over.message).toMatch(/\/body is over 1000 bytes \(MAX_ROUTE_BODY_BYTES\)/);
      // 501 characters, 1002 bytes of UTF-8.
      await s.fails('network.route', { ...base, body: 'é'.repeat(501) }, INVALID);
      const base64 = Buffer.alloc(1001).toString('base64');
      const overBase64 = await s.fails('network.route', { ...base, bodyBase64: base64 }, INVALID);
      expect(overBase64.message).toMatch(/\/bodyBase64 is over 1000/);
      expect(await routes(s)).toEqual([]);

      await route(s, { ...base, body: 'a'.repeat(1000) });
      await route(s, { ...base, bodyBase64: Buffer.alloc(1000).toString('base64') });
      const heavy = await s.fails('network.route', { ...base, body: 'a'.repeat(501) }, LIMIT);
      expect(heavy.data).toMatchObject({ limit: 'MAX_ROUTE_BODIES_BYTES', max: 2500 });
      expect(heavy.message).toMatch(/over the 2500 allowed \(MAX_ROUTE_BODIES_BYTES\)/);
      await route(s, { ...base, body: 'a'.repeat(500) });
      expect(await routes(s)).toHaveLength(3);
    } finally {
      await s.close();
    }
  });
});
