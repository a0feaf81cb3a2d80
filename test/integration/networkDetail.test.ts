// Network detail (issue 14) on the fixture app's /network pages: request ids in network.pull and in
// an action's failedRequests; network.get with headers (secrets hidden, revealed on request), both
// bodies, a body cut at its cap, one too large to fetch, a binary one as base64; unknown and evicted
// ids refused; network.har in the HAR 1.2 shape, its secrets hidden, its cap enforced.
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS } from '../../src/config/configKeys.js';
import { API_AUTH, API_BODY, API_COOKIE, API_HEADER, PNG } from '../fixtures/routes/network.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite({ LOG_LEVEL: 'debug' });

// The caps' defaults (config keys): the suite above runs with them.
const MAX_NETWORK_BODY_BYTES = Number(CONFIG_DEFAULTS.MAX_NETWORK_BODY_BYTES);
const MAX_NETWORK_BODY_FETCH_BYTES = Number(CONFIG_DEFAULTS.MAX_NETWORK_BODY_FETCH_BYTES);
const MAX_NETWORK_DETAILS = Number(CONFIG_DEFAULTS.MAX_NETWORK_DETAILS);
const MAX_HAR_CHARS = Number(CONFIG_DEFAULTS.MAX_HAR_CHARS);

interface Entry {
  id: string;
  url: string;
  status: number | null;
  method: string;
}
interface Body {
  size: number | null;
  encoding?: string;
  content?: string;
  truncated?: boolean;
  unavailable?: string;
}
interface Detail {
  id: string;
  url: string;
  method: string;
  resourceType: string;
  status: number | null;
  statusText?: string;
  page_id?: string;
  finished: boolean;
  requestHeaders: Record<string, string>;
  responseHeaders?: Record<string, string>;
  headersComplete: boolean;
  timing?: Record<string, number>;
  sizes?: Record<string, number>;
  requestBody?: Body;
  responseBody?: Body;
}
type Har = { log: Record<string, unknown> & { entries: Record<string, Record<string, unknown>>[] } };

async function session(): Promise<BoundSession> {
  return bindSession(suite.service, await suite.open('/network/page'));
}

/** Every request network.pull drained, errors or not. */
async function pulled(s: BoundSession): Promise<Entry[]> {
  return (await s.call<{ requests: Entry[] }>('network.pull', { onlyErrors: false })).requests;
}

/** The id of the one pulled request whose URL contains `part`. */
async function idOf(s: BoundSession, part: string): Promise<string> {
  const found = (await pulled(s)).filter((e) => e.url.includes(part));
  expect(found, part).toHaveLength(1);
  return found[0]?.id ?? '';
}

/** Fetches a path from the page and reads the whole body, so the request has finished. */
const fetched = (s: BoundSession, path: string) =>
  s.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.arrayBuffer()).then((b) => b.byteLength)`);

describe('request ids and network.get', () => {
  it('answers a JSON POST: headers (secrets hidden, then revealed), both bodies, timing and sizes', async () => {
    const s = await session();
    try {
      await s.call('page.click', { selector: '#post' });
      expect(await s.text('#out')).toBe(JSON.stringify({ ok: true, got: API_BODY }));
      const entries = await pulled(s);
      for (const e of entries) expect(e.id).toMatch(/^r[1-9][0-9]*$/);
      expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
      const api = entries.find((e) => e.url.includes('/network/api'));
      expect(api).toMatchObject({ method: 'POST', status: 200 });

      const d = await s.call<Detail>('network.get', { request_id: api?.id });
      expect(d).toMatchObject({
        id: api?.id,
        url: `${suite.fixture.url}/network/api?q=1`,
        method: 'POST',
        resourceType: 'fetch',
        status: 200,
        statusText: 'OK',
        page_id: 'p1',
        finished: true,
        headersComplete: true,
      });
      expect(d.requestHeaders.authorization).toBe(`[redacted: ${API_AUTH.length} chars]`);
      expect(d.requestHeaders['content-type']).toBe('application/json');
      expect(d.responseHeaders?.[API_HEADER.name]).toBe(API_HEADER.value);
      expect(d.responseHeaders?.['set-cookie']).toBe(`[redacted: ${API_COOKIE.length} chars]`);
      expect(d.requestBody).toEqual({
        size: JSON.stringify(API_BODY).length,
        encoding: 'text',
        content: JSON.stringify(API_BODY),
      });
      expect(d.responseBody).toMatchObject({
        encoding: 'text',
        content: JSON.stringify({ ok: true, got: API_BODY }),
      });
      expect(d.timing?.startTime).toBeGreaterThan(0);
      expect(d.sizes?.requestBodySize).toBe(JSON.stringify(API_BODY).length);

      const revealed = await s.call<Detail>('network.get', {
        request_id: api?.id,
        reveal: true,
        bodies: false,
      });
      expect(revealed.requestHeaders.authorization).toBe(API_AUTH);
      expect(revealed.responseHeaders?.['set-cookie']).toBe(API_COOKIE);
      expect(revealed.requestBody).toBeUndefined();
      expect(revealed.responseBody).toBeUndefined();
      // The cookie the API set goes back with the next request, hidden the same way.
      await s.call('page.click', { selector: '#post' });
      const again = await s.call<Detail>('network.get', { request_id: await idOf(s, '/network/api') });
      expect(again.requestHeaders.cookie).toBe(`[redacted: ${'nsid=n-5e2b7c'.length} chars]`);
    } finally {
      await s.close();
    }
  });

  it("names the request in an action's failedRequests, and network.get reads it", async () => {
    const s = await session();
    try {
      const report = await s.call<{
        failedRequests?: { request_id: string; url: string; failure: string }[];
      }>('page.click', { selector: '#missing' });
      const failed = report.failedRequests?.find((f) => f.url.endsWith('/network/missing'));
      expect(failed?.failure).toBe('HTTP 404');
      expect(failed?.request_id).toMatch(/^r\d+$/);
      const d = await s.call<Detail>('network.get', { request_id: failed?.request_id });
      expect(d).toMatchObject({ status: 404, url: `${suite.fixture.url}/network/missing` });
      expect(d.responseBody).toMatchObject({ encoding: 'text', content: '{"error":"not here"}' });
      // The same id in network.pull.
      expect(await idOf(s, '/network/missing')).toBe(failed?.request_id);
      // A response whose body the page never read has not finished: said in place, not a failed call.
      expect(await s.evaluate("fetch('/network/missing?unread=1').then((r) => r.status)")).toBe(404);
      const unread = await s.call<Detail>('network.get', { request_id: await idOf(s, 'unread=1') });
      expect(unread.status).toBe(404);
      expect(unread.responseBody?.size).toBeNull();
      expect(unread.responseBody?.unavailable).toMatch(/not finished/);
      expect(unread.responseBody?.content).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it('cuts a big body at its cap with its size, refuses to fetch one too large, answers binary as base64', async () => {
    const s = await session();
    try {
      const over = MAX_NETWORK_BODY_BYTES + 4096;
      expect(await fetched(s, `/network/big?bytes=${over}`)).toBe(over);
      const cut = await s.call<Detail>('network.get', { request_id: await idOf(s, '/network/big') });
      expect(cut.responseBody).toMatchObject({ size: over, encoding: 'text', truncated: true });
      expect(cut.responseBody?.content).toBe('a'.repeat(MAX_NETWORK_BODY_BYTES));

      const huge = MAX_NETWORK_BODY_FETCH_BYTES + 1;
      expect(await fetched(s, `/network/big?bytes=${huge}`)).toBe(huge);
      const tooLarge = await s.call<Detail>('network.get', { request_id: await idOf(s, '/network/big') });
      expect(tooLarge.responseBody?.content).toBeUndefined();
      expect(tooLarge.responseBody?.size).toBe(huge);
      expect(tooLarge.responseBody?.unavailable).toMatch(/too large/);

      expect(await fetched(s, '/network/image')).toBe(PNG.length);
      const image = await s.call<Detail>('network.get', { request_id: await idOf(s, '/network/image') });
      expect(image.responseBody).toEqual({
        size: PNG.length,
        encoding: 'base64',
        content: PNG.toString('base64'),
      });
      // A body under the cap is whole: no truncated flag.
      expect(image.responseBody?.truncated).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it('refuses an unknown id, a malformed one, and one no longer kept, with INVALID_PARAMS', async () => {
    const s = await session();
    try {
      const unknown = await s.fails('network.get', { request_id: 'r999999' }, -32602);
      expect(unknown.message).toMatch(/no request r999999 in this session/);
      await s.fails('network.get', { request_id: 'nope' }, -32602);
      await s.fails('network.get', { request_id: '' }, -32602);
      // The page's own document is r1; past MAX_NETWORK_DETAILS more requests it is no longer kept.
      expect((await s.call<Detail>('network.get', { request_id: 'r1', bodies: false })).resourceType).toBe(
        'document',
      );
      await s.evaluate(
        `Promise.all(Array.from({ length: ${MAX_NETWORK_DETAILS} }, (_, i) => fetch('/network/tick?n=' + i).then((r) => r.text()))).then((a) => a.length)`,
      );
      const evicted = await s.fails('network.get', { request_id: 'r1' }, -32602);
      expect(evicted.message).toMatch(
        new RegExp(`no longer kept.*most recent ${MAX_NETWORK_DETAILS} requests`),
      );
      // The newest is still kept.
      const ids = (await pulled(s)).map((e) => Number(e.id.slice(1)));
      const newest = Math.max(...ids);
      expect((await s.call<Detail>('network.get', { request_id: `r${newest}`, bodies: false })).status).toBe(
        200,
      );
      const har = await s.call<{ entries: number; omitted?: number }>('network.har');
      expect(har.entries).toBe(MAX_NETWORK_DETAILS);
      expect(har.omitted).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});

/** The fields HAR 1.2 requires of an entry, its request and its response. */
function expectHarEntry(entry: Record<string, unknown>): void {
  expect(typeof entry.startedDateTime).toBe('string');
  expect(Number.isNaN(Date.parse(String(entry.startedDateTime)))).toBe(false);
  expect(typeof entry.time).toBe('number');
  expect(typeof entry.cache).toBe('object');
  const request = entry.request as Record<string, unknown>;
  for (const key of ['method', 'url', 'httpVersion']) expect(typeof request[key], key).toBe('string');
  for (const key of ['cookies', 'headers', 'queryString'])
    expect(Array.isArray(request[key]), key).toBe(true);
  for (const key of ['headersSize', 'bodySize']) expect(typeof request[key], key).toBe('number');
  const response = entry.response as Record<string, unknown>;
  for (const key of ['statusText', 'httpVersion', 'redirectURL'])
    expect(typeof response[key], key).toBe('string');
  for (const key of ['status', 'headersSize', 'bodySize']) expect(typeof response[key], key).toBe('number');
  for (const key of ['cookies', 'headers']) expect(Array.isArray(response[key]), key).toBe(true);
  const content = response.content as Record<string, unknown>;
  expect(typeof content.size).toBe('number');
  expect(typeof content.mimeType).toBe('string');
  const timings = entry.timings as Record<string, unknown>;
  for (const key of ['send', 'wait', 'receive']) expect(typeof timings[key], key).toBe('number');
}

describe('network.har', () => {
  it('exports the requests as HAR 1.2, secrets hidden unless revealed, bodies on request', async () => {
    const s = await session();
    try {
      await s.call('page.click', { selector: '#post' });
      const { har, entries } = await s.call<{ har: Har; entries: number }>('network.har');
      expect(har.log.version).toBe('1.2');
      expect(har.log.creator).toMatchObject({ name: 'playwright-jsonrpc' });
      expect(typeof (har.log.creator as { version: unknown }).version).toBe('string');
      const pages = har.log.pages as {
        id: string;
        title: string;
        startedDateTime: string;
        pageTimings: object;
      }[];
      expect(pages.map((p) => p.id)).toEqual(['p1']);
      expect(har.log.entries).toHaveLength(entries);
      for (const entry of har.log.entries) expectHarEntry(entry);
      const post = har.log.entries.find((e) => String(e.request?.url).includes('/network/api'));
      expect(post?.request).toMatchObject({
        method: 'POST',
        url: `${suite.fixture.url}/network/api?q=1`,
        queryString: [{ name: 'q', value: '1' }],
        postData: { mimeType: 'application/json', text: '' },
      });
      const headers = post?.request?.headers as { name: string; value: string }[];
      expect(headers).toContainEqual({
        name: 'authorization',
        value: `[redacted: ${API_AUTH.length} chars]`,
      });
      expect(post?.response).toMatchObject({
        status: 200,
        cookies: [{ name: 'nsid', httpOnly: true, path: '/' }],
      });
      expect(JSON.stringify(har)).not.toContain(API_AUTH);
      expect(JSON.stringify(har)).not.toContain('n-5e2b7c');
      expect(post?.pageref).toBe('p1');

      const full = await s.call<{ har: Har }>('network.har', { bodies: true, reveal: true });
      const posted = full.har.log.entries.find((e) => String(e.request?.url).includes('/network/api'));
      expect(posted?.request).toMatchObject({ postData: { text: JSON.stringify(API_BODY) } });
      expect(posted?.request?.headers).toContainEqual({ name: 'authorization', value: API_AUTH });
      expect(posted?.response).toMatchObject({
        cookies: [{ name: 'nsid', value: 'n-5e2b7c' }],
        content: { mimeType: 'application/json', text: JSON.stringify({ ok: true, got: API_BODY }) },
      });
    } finally {
      await s.close();
    }
  });

  it(`fails with LIMIT_REACHED past MAX_HAR_CHARS, and answers without the bodies`, async () => {
    const s = await session();
    try {
      // Each binary body answers MAX_NETWORK_BODY_BYTES as base64 (4/3 as many chars): enough of them pass the cap.
      const count = Math.ceil(MAX_HAR_CHARS / ((MAX_NETWORK_BODY_BYTES * 4) / 3)) + 1;
      const bytes = MAX_NETWORK_BODY_BYTES + 1;
      for (let i = 0; i < count; i++) await fetched(s, `/network/big?kind=binary&bytes=${bytes}&n=${i}`);
      const error = await s.fails('network.har', { bodies: true }, -32003);
      expect(error.data).toMatchObject({ limit: 'MAX_HAR_CHARS', max: MAX_HAR_CHARS });
      const { entries } = await s.call<{ entries: number }>('network.har');
      expect(entries).toBeGreaterThan(count);
    } finally {
      await s.close();
    }
  });
});

describe('the caps set lower (MAX_NETWORK_BODY_BYTES, _FETCH_BYTES, MAX_NETWORK_DETAILS, MAX_HAR_CHARS)', () => {
  const lowered = useServiceSuite({
    MAX_NETWORK_BODY_BYTES: '2000',
    MAX_NETWORK_BODY_FETCH_BYTES: '5000',
    MAX_NETWORK_DETAILS: '5',
    MAX_HAR_CHARS: '14000',
  });

  it('cuts, refuses to fetch, evicts and refuses the HAR at the configured values', async () => {
    const s = bindSession(lowered.service, await lowered.open('/network/page'));
    try {
      expect(await fetched(s, '/network/big?bytes=3000')).toBe(3000);
      const cut = await s.call<Detail>('network.get', { request_id: await idOf(s, 'bytes=3000') });
      expect(cut.responseBody).toMatchObject({ size: 3000, truncated: true, content: 'a'.repeat(2000) });

      expect(await fetched(s, '/network/big?bytes=6000')).toBe(6000);
      const tooLarge = await s.call<Detail>('network.get', { request_id: await idOf(s, 'bytes=6000') });
      expect(tooLarge.responseBody?.content).toBeUndefined();
      expect(tooLarge.responseBody?.unavailable).toMatch(
        /too large: 6000 bytes, over the 5000 \(MAX_NETWORK_BODY_FETCH_BYTES\)/,
      );

      // Five more requests: the page's document (r1) is no longer kept, the five are.
      for (let i = 0; i < 5; i++) await fetched(s, `/network/big?kind=binary&bytes=4000&n=${i}`);
      const evicted = await s.fails('network.get', { request_id: 'r1' }, -32602);
      expect(evicted.message).toMatch(/no longer kept.*most recent 5 requests \(MAX_NETWORK_DETAILS\)/);
      const har = await s.call<{ entries: number; omitted?: number }>('network.har');
      expect(har.entries).toBe(5);
      expect(har.omitted).toBeGreaterThan(0);

      // Their bodies (2000 bytes each, as base64) take the HAR past 14000 characters.
      const error = await s.fails('network.har', { bodies: true }, -32003);
      expect(error.data).toMatchObject({ limit: 'MAX_HAR_CHARS', max: 14000 });
      expect(error.message).toMatch(/14000 characters .*\(MAX_HAR_CHARS\)/);
    } finally {
      await s.close();
    }
  });
});
