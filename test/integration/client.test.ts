// The typed client (client/src) against the real service, Chromium and fixture app: typed calls,
// typed errors, and the retry policy (read-only methods only; TIMEOUT, RESOURCE_UNAVAILABLE, network
// errors, HTTP 429/503; 200 ms then 600 ms).
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createClient,
  READ_ONLY_METHODS,
  RETRY_DELAYS_MS,
  RpcClientError,
  RpcTransportError,
  type PageGotoResult,
  type PageTextResult,
  type RpcClient,
} from '../../client/src/index.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/testService.js';

let service: TestService;
let fixture: FixtureServer;
let client: RpcClient;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startTestService();
  client = createClient({ url: service.url, apiKey: TEST_API_KEY });
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
});

/** The rejection of a promise that must reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

interface Attempt {
  method: string;
  at: number;
}

/**
 * A fetch that lets `inject` answer an attempt instead of the service (a Response to return, an
 * Error to throw, undefined to pass through), recording every attempt with its time.
 */
function instrumentedFetch(
  inject: (method: string, attemptOfMethod: number) => Response | Error | undefined,
) {
  const attempts: Attempt[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const method =
      typeof body === 'object' && body !== null && 'method' in body ? String(body.method) : '(unknown)';
    attempts.push({ method, at: performance.now() });
    const injected = inject(method, attempts.filter((a) => a.method === method).length);
    if (injected instanceof Error) throw injected;
    return injected ?? fetch(input, init);
  };
  const of = (method: string): Attempt[] => attempts.filter((a) => a.method === method);
  return { fetchImpl, of };
}

const unavailable = (): Response => new Response('Service Unavailable', { status: 503 });

/** Timers never fire early by more than a millisecond of rounding. */
function expectGapAtLeast(earlier: Attempt | undefined, later: Attempt | undefined, ms: number): void {
  expect(earlier).toBeDefined();
  expect(later).toBeDefined();
  expect((later?.at ?? 0) - (earlier?.at ?? 0)).toBeGreaterThanOrEqual(ms - 2);
}

async function openProjects(c: RpcClient): Promise<string> {
  const { session_id } = await c.session.create();
  await c.page.goto({ session_id, url: `${fixture.url}/projects` });
  return session_id;
}

describe('typed client: calls', () => {
  it('posts to the /rpc endpoint of the base URL', () => {
    expect(client.url).toBe(`${service.url}/rpc`);
    expect(createClient({ url: `${service.url}/rpc`, apiKey: 'k' }).url).toBe(`${service.url}/rpc`);
  });

  it('runs the seed flow with results typed from the method table', async () => {
    const { session_id } = await client.session.create();
    expectTypeOf(session_id).toEqualTypeOf<string>();
    const nav = await client.page.goto({
      session_id,
      url: `${fixture.url}/projects`,
      waitUntil: 'networkidle',
    });
    expectTypeOf(nav).toEqualTypeOf<PageGotoResult>();
    expect(nav).toMatchObject({ title: 'Projects', status: 200 });
    expect(nav).not.toHaveProperty('blocked');

    const read = await client.call('page.text', { session_id, selector: 'main' });
    expectTypeOf(read).toEqualTypeOf<PageTextResult>();
    expect(read.text).toContain('Apollo');

    await client.page.click({ session_id, selector: 'role=button[name="New Project"]' });
    await client.page.fill({ session_id, selector: '#new-project-name', value: 'Zephyr' });
    expect((await client.page.text({ session_id, selector: '#echo' })).text).toBe('Typed: Zephyr');

    const network = await client.network.pull({ session_id });
    expect(network.requests.map((r) => [new URL(r.url).pathname, r.status])).toContainEqual([
      '/api/fail',
      500,
    ]);
    expect(await client.session.close({ session_id })).toEqual({ ok: true, closed: true });
  });

  it('leaves out params when every one of them is optional', async () => {
    const { sessions } = await client.session.list();
    expect(Array.isArray(sessions)).toBe(true);
    const doc = await client.call('rpc.discover');
    expect(doc.methods.length).toBeGreaterThan(0);
  });
});

describe('typed client: errors', () => {
  it('rejects with RpcClientError SESSION_NOT_FOUND (code -32010) for an unknown session, without retrying', async () => {
    const session_id = 's_00000000-0000-4000-8000-000000000000';
    const error = await rejection(client.page.text({ session_id }));
    expect(error).toBeInstanceOf(RpcClientError);
    if (!(error instanceof RpcClientError)) return;
    expect(error).toMatchObject({
      code: -32010,
      errorName: 'SESSION_NOT_FOUND',
      method: 'page.text',
      attempts: 1,
      httpStatus: 200,
    });
    expect(error.data).toMatchObject({ session_id });
    expect(error.message).toMatch(/session\.create/);
  });

  it('carries data.errors for params the schema refuses (INVALID_PARAMS)', async () => {
    const { session_id } = await client.session.create();
    const error = await rejection(client.page.text({ session_id, maxChars: 0 }));
    expect(error).toBeInstanceOf(RpcClientError);
    expect(error).toMatchObject({ errorName: 'INVALID_PARAMS', code: -32602 });
    if (error instanceof RpcClientError) expect(Array.isArray(error.data?.errors)).toBe(true);
    await client.session.close({ session_id });
  });

  it('rejects with UNAUTHORIZED and HTTP 401 for a wrong API key, without retrying', async () => {
    const { fetchImpl, of } = instrumentedFetch(() => undefined);
    const wrong = createClient({ url: service.url, apiKey: 'not-the-key', fetch: fetchImpl });
    const error = await rejection(wrong.session.list());
    expect(error).toBeInstanceOf(RpcClientError);
    expect(error).toMatchObject({ errorName: 'UNAUTHORIZED', httpStatus: 401, attempts: 1 });
    expect(of('session.list')).toHaveLength(1);
  });

  it('rejects with RpcTransportError when nothing listens', async () => {
    const closed = await startFixtureServer();
    const url = closed.url;
    await closed.close();
    const offline = createClient({ url, apiKey: 'k', retries: 0 });
    const error = await rejection(offline.session.list());
    expect(error).toBeInstanceOf(RpcTransportError);
    expect(error).toMatchObject({ method: 'session.list', httpStatus: undefined, attempts: 1 });
  });
});

describe('typed client: retries', () => {
  it('has read-only page.text and not page.click in the generated list', () => {
    expect(READ_ONLY_METHODS).toContain('page.text');
    expect(READ_ONLY_METHODS).not.toContain('page.click');
    expect(RETRY_DELAYS_MS).toEqual([200, 600]);
  });

  it('retries read-only page.text after an HTTP 503, after 200 ms', async () => {
    const { fetchImpl, of } = instrumentedFetch((method, n) =>
      method === 'page.text' && n === 1 ? unavailable() : undefined,
    );
    const flaky = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const session_id = await openProjects(flaky);
    const { text } = await flaky.page.text({ session_id, selector: 'h1' });
    expect(text).toBe('Projects');
    const attempts = of('page.text');
    expect(attempts).toHaveLength(2);
    expectGapAtLeast(attempts[0], attempts[1], 200);
    await flaky.session.close({ session_id });
  });

  it('never retries page.click (not read-only) after an HTTP 503', async () => {
    const { fetchImpl, of } = instrumentedFetch((method, n) =>
      method === 'page.click' && n === 1 ? unavailable() : undefined,
    );
    const flaky = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const session_id = await openProjects(flaky);
    const error = await rejection(flaky.page.click({ session_id, selector: 'text=New Project' }));
    expect(error).toBeInstanceOf(RpcTransportError);
    expect(error).toMatchObject({ httpStatus: 503, attempts: 1, method: 'page.click' });
    expect(of('page.click')).toHaveLength(1);
    await flaky.session.close({ session_id });
  });

  it('retries read-only page.text on a real TIMEOUT twice, 200 ms then 600 ms apart', async () => {
    const { fetchImpl, of } = instrumentedFetch(() => undefined);
    const c = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const session_id = await openProjects(c);
    const error = await rejection(c.page.text({ session_id, selector: '#never-there', timeout: 50 }));
    expect(error).toBeInstanceOf(RpcClientError);
    expect(error).toMatchObject({ errorName: 'TIMEOUT', code: -32001, attempts: 3 });
    const attempts = of('page.text');
    expect(attempts).toHaveLength(3);
    expectGapAtLeast(attempts[0], attempts[1], 200);
    expectGapAtLeast(attempts[1], attempts[2], 600);
    await c.session.close({ session_id });
  });

  it('does not retry page.click on a real TIMEOUT', async () => {
    const { fetchImpl, of } = instrumentedFetch(() => undefined);
    const c = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const session_id = await openProjects(c);
    const error = await rejection(c.page.click({ session_id, selector: '#never-there', timeout: 50 }));
    expect(error).toMatchObject({ errorName: 'TIMEOUT', attempts: 1 });
    expect(of('page.click')).toHaveLength(1);
    await c.session.close({ session_id });
  });

  it('retries a read-only call after a network error and after HTTP 429, and not with retries: 0', async () => {
    const limited = (): Response =>
      Response.json(
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32003, message: 'Rate limit reached', data: { retryAfterMs: 1 } },
        },
        { status: 429 },
      );
    const { fetchImpl, of } = instrumentedFetch((method, n) => {
      if (method === 'page.content' && n === 1) return new TypeError('fetch failed');
      if (method === 'page.content' && n === 2) return limited();
      if (method === 'screenshot') return new TypeError('fetch failed');
      return undefined;
    });
    const c = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const session_id = await openProjects(c);
    const { html } = await c.page.content({ session_id });
    expect(html).toContain('New Project');
    expect(of('page.content')).toHaveLength(3);

    const noRetry = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl, retries: 0 });
    const error = await rejection(noRetry.screenshot({ session_id }));
    expect(error).toBeInstanceOf(RpcTransportError);
    expect(of('screenshot')).toHaveLength(1);
    await c.session.close({ session_id });
  });

  it('gives up after 2 retries and reports the last error; a 429 keeps its JSON-RPC code', async () => {
    const { fetchImpl, of } = instrumentedFetch((method) =>
      method === 'session.list'
        ? Response.json(
            { jsonrpc: '2.0', id: null, error: { code: -32003, message: 'Rate limit reached', data: {} } },
            { status: 429 },
          )
        : undefined,
    );
    const c = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const error = await rejection(c.session.list());
    expect(error).toBeInstanceOf(RpcClientError);
    expect(error).toMatchObject({ errorName: 'LIMIT_REACHED', httpStatus: 429, attempts: 3 });
    expect(of('session.list')).toHaveLength(3);
  });

  it('stops retrying as soon as the call is aborted', async () => {
    const { fetchImpl, of } = instrumentedFetch((method) =>
      method === 'session.list' ? unavailable() : undefined,
    );
    const c = createClient({ url: service.url, apiKey: TEST_API_KEY, fetch: fetchImpl });
    const controller = new AbortController();
    const pending = rejection(c.session.list(undefined, { signal: controller.signal }));
    // Abort while the client waits out its first backoff.
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    const error = await pending;
    expect(error).toEqual(new Error('caller gave up'));
    expect(of('session.list')).toHaveLength(1);
  });
});
