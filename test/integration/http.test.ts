// The HTTP edge: API keys, health routes, metrics, content types, body cap, rate limit, request
// ids, security headers, unknown routes, and secrets kept out of the logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { TEST_API_KEY, startTestService, type TestService } from '../helpers/testService.js';

const SECOND_KEY = 'second-key-9876543210';
const SECRET_COOKIE = 'SECRETCOOKIE123';
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list' });

let service: TestService;
let limited: TestService;
let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startTestService({
    API_KEY: `${TEST_API_KEY},${SECOND_KEY}`,
    BODY_LIMIT: '1kb',
    LOG_LEVEL: 'trace',
  });
  limited = await startTestService({ RATE_LIMIT_MAX: '5' });
});

afterAll(async () => {
  await service?.close();
  await limited?.close();
  await fixture?.close();
});

interface Raw {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** A raw request with exactly the headers given (no key unless the test adds one). */
async function raw(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  on: TestService = service,
): Promise<Raw> {
  const res = await fetch(`${on.url}${path}`, { method: init.method ?? 'GET', ...init });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

function postRpc(headers: Record<string, string>, body = LIST, path = '/rpc', on = service): Promise<Raw> {
  return raw(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }, on);
}

const UNAUTHORIZED_ERROR: unknown = expect.objectContaining({ code: -32002 });
// A refused request keeps its JSON-RPC id (LIST's is 1); a GET has none.
const unauthorized = { jsonrpc: '2.0', id: 1, error: UNAUTHORIZED_ERROR };
const unauthorizedGet = { jsonrpc: '2.0', id: null, error: UNAUTHORIZED_ERROR };
const ANY_NUMBER: unknown = expect.any(Number);

describe('API key', () => {
  it('a missing key is 401 with a JSON body', async () => {
    const r = await postRpc({});
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.json).toEqual(unauthorized);
    expect((r.json as { error: { message: string } }).error.message).toMatch(/x-api-key/);
  });

  it('a wrong key is 401', async () => {
    const r = await postRpc({ 'x-api-key': 'not-the-key' });
    expect(r.status).toBe(401);
    expect(r.json).toEqual(unauthorized);
  });

  it.each([
    ['a prefix of the key', TEST_API_KEY.slice(0, -1)],
    ['the key plus one character', `${TEST_API_KEY}0`],
    ['the key in upper case', TEST_API_KEY.toUpperCase()],
    ['both keys joined', `${TEST_API_KEY},${SECOND_KEY}`],
  ])('a look-alike key (%s) is 401', async (_what, key) => {
    expect((await postRpc({ 'x-api-key': key })).status).toBe(401);
    expect((await postRpc({ authorization: `Bearer ${key}` })).status).toBe(401);
  });

  it('both configured keys work, in x-api-key and as Authorization: Bearer', async () => {
    for (const key of [TEST_API_KEY, SECOND_KEY]) {
      const ways: Record<string, string>[] = [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }];
      for (const headers of ways) {
        const r = await postRpc(headers);
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ jsonrpc: '2.0', id: 1, result: { sessions: [] } });
      }
    }
  });

  it('another Authorization scheme carrying the key is 401', async () => {
    expect((await postRpc({ authorization: `Basic ${TEST_API_KEY}` })).status).toBe(401);
    expect((await postRpc({ authorization: TEST_API_KEY })).status).toBe(401);
  });

  it('a key in the query string is refused', async () => {
    for (const query of [`api_key=${TEST_API_KEY}`, `apiKey=${TEST_API_KEY}`, `x-api-key=${TEST_API_KEY}`]) {
      const r = await postRpc({}, LIST, `/rpc?${query}`);
      expect(r.status).toBe(401);
      expect(r.json).toEqual(unauthorized);
    }
  });
});

describe('health, readiness and metrics', () => {
  it('/healthz and /readyz answer without a key', async () => {
    const health = await raw('/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    const ready = await raw('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({ ready: true });
  });

  it('/metrics needs the key', async () => {
    const without = await raw('/metrics');
    expect(without.status).toBe(401);
    expect(without.json).toEqual(unauthorizedGet);
    expect(without.text).not.toContain('rpc_requests_total');
  });

  it('/metrics with the key has the RPC and session metrics', async () => {
    expect((await postRpc({ 'x-api-key': TEST_API_KEY })).status).toBe(200);
    const r = await raw('/metrics', { headers: { 'x-api-key': SECOND_KEY } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toContain('rpc_requests_total');
    expect(r.text).toContain('browser_sessions_active');
    expect(r.text).toMatch(/rpc_requests_total\{method="session\.list",outcome="ok"\} [1-9]/);
  });
});

describe('request bodies', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'a %s body is 415',
    async (type) => {
      const r = await raw('/rpc', {
        method: 'POST',
        headers: { 'content-type': type, 'x-api-key': TEST_API_KEY },
        body: LIST,
      });
      expect(r.status).toBe(415);
      expect(r.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    },
  );

  it('application/json with a charset is accepted', async () => {
    const r = await postRpc({ 'x-api-key': TEST_API_KEY, 'content-type': 'application/json; charset=utf-8' });
    expect(r.status).toBe(200);
  });

  it('a body under BODY_LIMIT (1kb) is served, one over it is 413', async () => {
    const padded = (n: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list', params: { pad: 'x'.repeat(n) } });
    const under = await postRpc({ 'x-api-key': TEST_API_KEY }, padded(800));
    expect(under.status).toBe(200);
    expect(under.json).toMatchObject({ error: { code: -32602 } });
    const over = await postRpc({ 'x-api-key': TEST_API_KEY }, padded(2000));
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect((over.json as { error: { message: string } }).error.message).toContain('BODY_LIMIT');
  });
});

describe('rate limit (RATE_LIMIT_MAX=5)', () => {
  it('answers 429 with a LIMIT_REACHED body within a few requests, keys or not', async () => {
    const statuses: number[] = [];
    let rejected: Raw | undefined;
    for (let i = 0; i < 20 && rejected === undefined; i++) {
      const r = await postRpc({ 'x-api-key': TEST_API_KEY }, LIST, '/rpc', limited);
      statuses.push(r.status);
      if (r.status === 429) rejected = r;
    }
    expect(statuses[0]).toBe(200);
    expect(rejected).toBeDefined();
    expect(statuses.length).toBeLessThanOrEqual(6);
    // The refused request's id is kept (LIST has id 1).
    expect(rejected?.json).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32003, data: { retryAfterMs: ANY_NUMBER } },
    });
    // Limited before authentication: key guessing is throttled too.
    expect((await postRpc({ 'x-api-key': 'guess' }, LIST, '/rpc', limited)).status).toBe(429);
    expect((await postRpc({}, LIST, '/rpc', limited)).status).toBe(429);
    // Health checks are not rate limited.
    expect((await raw('/healthz', {}, limited)).status).toBe(200);
  });
});

describe('request ids', () => {
  it('echoes a caller x-request-id and logs the call under it', async () => {
    const id = 'req-abc.123:XYZ';
    const r = await postRpc({ 'x-api-key': TEST_API_KEY, 'x-request-id': id });
    expect(r.headers.get('x-request-id')).toBe(id);
    expect(service.logs.some((l) => l.includes(`"requestId":"${id}"`) && l.includes('session.list'))).toBe(
      true,
    );
  });

  it('generates one when absent, a new one each time', async () => {
    const a = (await postRpc({ 'x-api-key': TEST_API_KEY })).headers.get('x-request-id');
    const b = (await postRpc({ 'x-api-key': TEST_API_KEY })).headers.get('x-request-id');
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it('replaces an unsafe x-request-id and still sets one on a 401', async () => {
    for (const bad of ['has space', 'x'.repeat(200), 'a"b']) {
      const r = await postRpc({ 'x-api-key': TEST_API_KEY, 'x-request-id': bad });
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const denied = await postRpc({ 'x-request-id': 'denied-1' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('x-request-id')).toBe('denied-1');
  });
});

describe('headers and routes', () => {
  it('helmet headers are on every response, x-powered-by is not', async () => {
    const responses = [
      await raw('/healthz'),
      await postRpc({}),
      await postRpc({ 'x-api-key': TEST_API_KEY }),
    ];
    for (const r of responses) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(r.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('an unknown route is a 404 JSON body (after the key check)', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/rpc'],
      ['POST', '/rpc/extra'],
    ] as const) {
      const r = await raw(path, { method, headers: { 'x-api-key': TEST_API_KEY } });
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.json).toMatchObject({ error: 'not found' });
    }
    expect((await raw('/nope')).status).toBe(401);
  });
});

describe('secrets never reach the logs', () => {
  it('API keys and storageState cookies are absent from every log line', async () => {
    const bearer = { authorization: `Bearer ${SECOND_KEY}` };
    const cookie = {
      name: 'sid',
      value: SECRET_COOKIE,
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    };
    const create = await service.post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'c',
        method: 'session.create',
        params: { storageState: { cookies: [cookie], origins: [] } },
      }),
      bearer,
    );
    const sessionId = (create.body as { result: { session_id: string } }).result.session_id;
    await service.call('page.goto', { session_id: sessionId, url: `${fixture.url}/`, waitUntil: 'load' });
    const seen = await service.call<{ result: string }>('page.evaluate', {
      session_id: sessionId,
      expression: 'document.cookie',
    });
    expect(seen.result).toContain(SECRET_COOKIE); // the cookie really was applied
    // A refused create that carries the cookie, and refused calls carrying keys.
    const bad = await service.rpc('session.create', {
      storageState: { cookies: [{ ...cookie, extra: SECRET_COOKIE }], origins: [] },
    });
    expect(bad.error?.code).toBe(-32602);
    await postRpc({}, LIST, `/rpc?api_key=${TEST_API_KEY}`);
    await postRpc({ 'x-api-key': `${TEST_API_KEY}x` });
    await service.call('session.close', { session_id: sessionId });

    expect(service.logs.some((l) => l.includes('session.create'))).toBe(true);
    expect(service.logs.some((l) => l.includes(sessionId))).toBe(true);
    for (const line of service.logs) {
      expect(line).not.toContain(TEST_API_KEY);
      expect(line).not.toContain(SECOND_KEY);
      expect(line).not.toContain(SECRET_COOKIE);
    }
    const metrics = await raw('/metrics', { headers: { 'x-api-key': TEST_API_KEY } });
    expect(metrics.text).not.toContain(TEST_API_KEY);
    expect(metrics.text).not.toContain(SECRET_COOKIE);
  });
});
