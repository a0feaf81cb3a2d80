// What a new user meets at the service's door: the RateLimit fields on every rate-limited answer
// (counting down, then a 429 with Retry-After), refusals counted in /metrics by route and reason and
// logged without the key or query values, GET / leading a browser to the console, and a client
// whose API_KEY was never set told so plainly on /mcp. Each test speaks from its own loopback
// address and with its own key, so their budgets are apart (the service is shared).
import http, { type IncomingHttpHeaders } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSET_KEY_PLACEHOLDER } from '../../src/http/auth.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const LIMIT = 6;
/** RATE_LIMIT_WINDOW_MS here: long enough that no window ends during the file. */
const WINDOW_MS = 600_000;
const COUNTDOWN_KEY = 'front-door-countdown-key-0123';
const REST_KEY = 'front-door-rest-key-0123456';
const METRICS_KEY = 'front-door-metrics-key-01234';
const LIMITED_KEY = 'front-door-limited-key-01234';
const BATCH_KEY = 'front-door-batch-key-0123456';
const FRONT_KEY = 'front-door-front-key-0123456';
const WRONG_KEY = 'front-door-WRONG-key-987654321';
const QUERY_SECRET = 'query-value-never-logged-42';
/** Bound on the MCP client's connect. */
const MCP_TIMEOUT_MS = 20_000;

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    API_KEY: [COUNTDOWN_KEY, REST_KEY, METRICS_KEY, LIMITED_KEY, BATCH_KEY, FRONT_KEY].join(','),
    RATE_LIMIT_MAX: String(LIMIT),
    RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
  });
});

afterAll(async () => service?.close());

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request from a chosen loopback source address, with exactly the headers given. */
function request(
  localAddress: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const url = new URL(`${service.url}${path}`);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        localAddress,
        agent: false,
        headers: {
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const list = (id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'session.list' });
const mcpHeaders = { accept: 'application/json, text/event-stream' };
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'front-door', version: '1' },
  },
};

/** The http_refusals_total series /metrics shows now, by their label text. */
async function refusalCounts(): Promise<Map<string, number>> {
  const res = await request('127.0.0.1', '/metrics', { headers: { 'x-api-key': METRICS_KEY } });
  expect(res.status).toBe(200);
  const counts = new Map<string, number>();
  for (const line of res.text.split('\n')) {
    const m = /^http_refusals_total\{(.*)\} (\d+)$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) counts.set(m[1], Number(m[2]));
  }
  return counts;
}

const series = (route: string, reason: string, status: number): string =>
  `route="${route}",reason="${reason}",status="${status}"`;

function refusalLines(): Record<string, unknown>[] {
  return service.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('request refused'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('RateLimit fields', () => {
  it('count down on every answer of a rate-limited route, and a 429 adds Retry-After', async () => {
    const seen: Reply[] = [];
    for (let i = 0; i < LIMIT; i++)
      seen.push(
        await request('127.0.0.71', '/rpc', { headers: { 'x-api-key': COUNTDOWN_KEY }, body: list(i) }),
      );
    expect(seen.map((r) => r.status)).toEqual(Array<number>(LIMIT).fill(200));
    expect(seen.map((r) => r.headers['ratelimit-remaining'])).toEqual(
      Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)),
    );
    for (const r of seen) {
      expect(r.headers['ratelimit-limit']).toBe(String(LIMIT));
      expect(r.headers['ratelimit-policy']).toBe(`${LIMIT};w=${WINDOW_MS / 1000}`);
      const reset = Number(r.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(WINDOW_MS / 1000);
    }
    const over = await request('127.0.0.71', '/rpc', {
      headers: { 'x-api-key': COUNTDOWN_KEY },
      body: list(9),
    });
    expect(over.status).toBe(429);
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect(over.headers['retry-after']).toBe(over.headers['ratelimit-reset']);
    const { error } = JSON.parse(over.text) as { error: { data: { retryAfterMs: number } } };
    expect(over.headers['retry-after']).toBe(String(Math.ceil(error.data.retryAfterMs / 1000)));
  });

  it('are on the REST routes and refusals too, and not on the routes without a budget', async () => {
    const rest = await request('127.0.0.72', '/sessions', { headers: { 'x-api-key': REST_KEY } });
    expect(rest.status).toBe(200);
    expect(rest.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
    // Without a key the address's budget answers: the refusal says what is left of it.
    const refused = await request('127.0.0.72', '/rpc', { body: list() });
    expect(refused.status).toBe(401);
    expect(refused.headers['ratelimit-remaining']).toBe(String(LIMIT - 2));
    for (const path of ['/healthz', '/readyz', '/ui/']) {
      const free = await request('127.0.0.72', path);
      expect(free.headers['ratelimit-limit'], path).toBeUndefined();
    }
  });

  it('a WebSocket handshake past the address budget gets 429 with Retry-After', async () => {
    const handshake = (): Promise<Reply> =>
      request('127.0.0.73', '/rpc', {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': Buffer.from('front-door-key!!').toString('base64'),
        },
      });
    const statuses: number[] = [];
    let last: Reply | undefined;
    for (let i = 0; i <= LIMIT; i++) {
      last = await handshake();
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), 429]);
    expect(last?.headers['retry-after']).toMatch(/^\d+$/);
    expect(last?.headers['ratelimit-remaining']).toBe('0');
    expect(last?.headers['retry-after']).toBe(last?.headers['ratelimit-reset']);
  });
});

describe('refusals', () => {
  it('are counted in /metrics by route template and reason, and logged without a key or a query value', async () => {
    const before = await refusalCounts();
    const from = '127.0.0.74';
    const missing = await request(from, `/rpc?api_key=${QUERY_SECRET}`, { body: list() });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    const wrongMcp = await request(from, '/mcp', {
      headers: { ...mcpHeaders, 'x-api-key': WRONG_KEY },
      body: initialize,
    });
    expect(wrongMcp.status).toBe(403);
    const host = await request(from, '/rpc', { headers: { host: 'evil.example', 'x-api-key': LIMITED_KEY } });
    expect(host.status).toBe(403);
    const events = await request(from, '/sessions/s_not-a-session/events');
    expect(events.status).toBe(401);
    const batch = await request(from, '/rpc', {
      headers: { 'x-api-key': BATCH_KEY },
      body: Array.from({ length: LIMIT + 1 }, (_, i) => list(i)),
    });
    expect(batch.status).toBe(429);
    const spent: number[] = [];
    for (let i = 0; i <= LIMIT; i++)
      spent.push(
        (await request(from, '/rpc', { headers: { 'x-api-key': LIMITED_KEY }, body: list(i) })).status,
      );
    expect(spent).toEqual([...Array<number>(LIMIT).fill(200), 429]);

    const after = await refusalCounts();
    const delta = (route: string, reason: string, status: number): number =>
      (after.get(series(route, reason, status)) ?? 0) - (before.get(series(route, reason, status)) ?? 0);
    expect(delta('/rpc', 'missing', 401)).toBe(1);
    expect(delta('/mcp', 'invalid', 403)).toBe(1);
    expect(delta('/rpc', 'host', 403)).toBe(1);
    expect(delta('/sessions/{id}/events', 'missing', 401)).toBe(1);
    expect(delta('/rpc', 'batch_limit', 429)).toBe(1);
    expect(delta('/rpc', 'key_limit', 429)).toBe(1);
    // No raw path becomes a label.
    for (const labels of after.keys()) expect(labels).not.toContain('s_not-a-session');

    const lines = refusalLines().filter((l) => l.address === from);
    for (const reason of ['missing', 'invalid', 'host', 'batch_limit', 'key_limit'])
      expect(lines, reason).toContainEqual(expect.objectContaining({ reason }));
    expect(lines).toContainEqual(
      expect.objectContaining({ reason: 'missing', route: '/rpc', path: '/rpc', status: 401 }),
    );
    const all = service.logs.join('');
    for (const secret of [QUERY_SECRET, WRONG_KEY, LIMITED_KEY, BATCH_KEY, METRICS_KEY])
      expect(all).not.toContain(secret);
  });
});

describe('the front door', () => {
  it('GET / leads a browser to the console; an API client keeps the 401 or 404 JSON', async () => {
    const browser = await request('127.0.0.75', '/', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/ui/');
    expect(browser.headers.vary).toMatch(/accept/i);
    const page = await request('127.0.0.75', '/ui/', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);

    const api = await request('127.0.0.75', '/', { headers: { accept: '*/*' } });
    expect(api.status).toBe(401);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
    const keyed = await request('127.0.0.75', '/', { headers: { 'x-api-key': FRONT_KEY } });
    expect(keyed.status).toBe(404);
    const notFound = JSON.parse(keyed.text) as { error: string; routes: string[] };
    expect(notFound.error).toBe('not found');
    expect(notFound.routes).toContain('POST /mcp');
  });
});

describe('a client whose API_KEY was never set', () => {
  it('gets a plain 400 on /mcp saying to set API_KEY: no challenge, no OAuth to discover', async () => {
    for (const placeholder of ['${API_KEY}', UNSET_KEY_PLACEHOLDER]) {
      const res = await request('127.0.0.76', '/mcp', {
        headers: { ...mcpHeaders, 'x-api-key': placeholder },
        body: initialize,
      });
      expect(res.status, placeholder).toBe(400);
      expect(res.headers['www-authenticate']).toBeUndefined();
      const body = JSON.parse(res.text) as { id: unknown; error: { code: number; message: string } };
      expect(body).toMatchObject({ id: 1, error: { code: -32002 } });
      expect(body.error.message).toContain('Set API_KEY in your environment');
      expect(body.error.message).not.toMatch(/unauthori[sz]ed|oauth/i);
    }
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
    ])
      expect((await request('127.0.0.76', path)).status, path).toBe(404);
    const counts = await refusalCounts();
    expect(counts.get(series('/mcp', 'placeholder', 400))).toBe(2);
    expect(refusalLines()).toContainEqual(
      expect.objectContaining({ reason: 'placeholder', route: '/mcp', status: 400, address: '127.0.0.76' }),
    );
  });

  it("an MCP client's connect fails with that message", async () => {
    const client = new Client({ name: 'front-door', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': UNSET_KEY_PLACEHOLDER } },
    });
    await expect(client.connect(transport, { timeout: MCP_TIMEOUT_MS })).rejects.toThrow(
      /Set API_KEY in your environment/,
    );
    await client.close();
  });
});
