// Limits at the edge that one caller must not turn against another: traffic without a valid key
// spends its address's budget, never a key's; a batch counts once per member; one key or one
// address cannot hold every /rpc socket. Each test speaks from its own loopback address, so their
// address budgets are apart (the service is shared).
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { REFUSAL_LOG_MAX } from '../../src/http/refusalLog.js';
import { startTestService, type TestService } from '../helpers/testService.js';
import { wsHandshake } from '../helpers/wsHandshake.js';

const KEY_A = 'edge-key-a-0123456789';
const KEY_B = 'edge-key-b-0123456789';
const KEY_C = 'edge-key-c-0123456789';
const KEY_D = 'edge-key-d-0123456789';
const KEY_E = 'edge-key-e-0123456789';
const KEY_F = 'edge-key-f-0123456789';
const LIMIT = 5;
/** Bound on any single wait for a handshake or a message in these tests. */
const WAIT_MS = 20_000;

let service: TestService;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  service = await startTestService({
    API_KEY: [KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F].join(','),
    RATE_LIMIT_MAX: String(LIMIT),
    MAX_RPC_SOCKETS_PER_KEY: '2',
    MAX_RPC_SOCKETS_PER_ADDRESS: '3',
    // Long enough that no window ends during the file.
    RATE_LIMIT_WINDOW_MS: '600000',
  });
});

afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
});

afterAll(async () => service?.close());

interface Reply {
  status: number;
  body: unknown;
  retryAfter?: string;
}

/** Retry-After (seconds) is data.retryAfterMs rounded up: the two say the same time. */
function retryAfterAgrees(reply: Reply): boolean {
  const bodies = Array.isArray(reply.body) ? reply.body : [reply.body];
  return bodies.every((body) => {
    const ms = (body as { error?: { data?: { retryAfterMs?: unknown } } }).error?.data?.retryAfterMs;
    return typeof ms === 'number' && reply.retryAfter === String(Math.ceil(ms / 1000));
  });
}

/** One request from a chosen loopback source address, with exactly the headers given. */
function request(
  localAddress: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  const url = new URL(`${service.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: body === undefined ? 'GET' : 'POST',
        localAddress,
        agent: false,
        headers: {
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? undefined : (JSON.parse(text) as unknown),
            ...(retryAfter === undefined ? {} : { retryAfter }),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const call = (id: number | string = 1): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'session.list',
});

function postRpc(localAddress: string, key: string | undefined, message: unknown): Promise<Reply> {
  return request(
    localAddress,
    '/rpc',
    key === undefined ? {} : { 'x-api-key': key },
    JSON.stringify(message),
  );
}

/** Opens a /rpc socket; resolves with the socket, or with the HTTP status of a refused handshake. */
function openSocket(localAddress: string, key: string | undefined): Promise<WebSocket | number> {
  const headers: Record<string, string> = key === undefined ? {} : { 'x-api-key': key };
  return wsHandshake(
    `${service.url.replace(/^http/, 'ws')}/rpc`,
    { localAddress, headers },
    sockets,
    WAIT_MS,
  );
}

function opened(result: WebSocket | number): WebSocket {
  if (typeof result === 'number') throw new Error(`the handshake was refused with ${result}`);
  return result;
}

/** Sends one message on a socket and waits for the one answer. */
function ask(ws: WebSocket, message: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer in time')), WAIT_MS);
    ws.once('message', (data: Buffer) => {
      clearTimeout(timer);
      resolve(JSON.parse(data.toString('utf8')) as unknown);
    });
    ws.send(JSON.stringify(message));
  });
}

describe('traffic without a valid key does not starve a key', () => {
  it('HTTP: no-key requests spend the address budget; the key still gets through', async () => {
    // What a web page's no-cors fetches look like: no key, same address as the operator.
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++)
      statuses.push((await postRpc('127.0.0.11', undefined, call())).status);
    expect(statuses.slice(0, LIMIT)).toEqual(Array<number>(LIMIT).fill(401));
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429]);
    const keyed = await postRpc('127.0.0.11', KEY_A, call());
    expect(keyed.status).toBe(200);
    expect(keyed.body).toMatchObject({ result: expect.anything() as unknown });
    // Still refused without the key: the address budget is spent.
    expect((await postRpc('127.0.0.11', undefined, call())).status).toBe(429);
  });

  it('HTTP: past the budget of wrong keys, every key from the address gets the same 429 (no oracle)', async () => {
    for (let i = 0; i < LIMIT; i++)
      expect((await postRpc('127.0.0.12', 'wrong-key', call())).status).toBe(401);
    const wrong = await postRpc('127.0.0.12', 'wrong-key', call());
    const right = await postRpc('127.0.0.12', KEY_B, call());
    expect(wrong.status).toBe(429);
    // The same answer but for the time left in the window.
    const withoutTime = (r: Reply): unknown => JSON.stringify(r).replace(/"retryAfterMs":\d+/, '');
    expect(withoutTime(right)).toBe(withoutTime(wrong));
    expect(right.body).toMatchObject({ error: { code: -32003, data: { limit: 'RATE_LIMIT_MAX per IP' } } });
    // Another address with the same key is not affected.
    expect((await postRpc('127.0.0.13', KEY_B, call())).status).toBe(200);
  });

  it('WebSocket: no-key handshakes spend the address budget; a keyed socket still opens and is served', async () => {
    const refused: (WebSocket | number)[] = [];
    for (let i = 0; i < LIMIT + 2; i++) refused.push(await openSocket('127.0.0.14', undefined));
    expect(refused.slice(0, LIMIT)).toEqual(Array<number>(LIMIT).fill(401));
    expect(refused.slice(LIMIT)).toEqual([429, 429]);
    const ws = opened(await openSocket('127.0.0.14', KEY_C));
    // The key's whole budget is its own: LIMIT calls pass, the next is refused by id.
    for (let i = 0; i < LIMIT; i++) expect(await ask(ws, call(i))).toMatchObject({ id: i, result: {} });
    expect(await ask(ws, call('over'))).toMatchObject({
      id: 'over',
      error: { code: -32003, data: { retryAfterMs: expect.any(Number) as unknown } },
    });
  });
});

describe('a batch counts once per member', () => {
  const batch = (n: number, prefix: string): unknown[] =>
    Array.from({ length: n }, (_, i) => call(`${prefix}${i}`));

  it('HTTP /rpc: a batch that does not fit in what is left of the key budget is refused whole', async () => {
    const first = await postRpc('127.0.0.21', KEY_D, batch(3, 'a'));
    expect(first.status).toBe(200);
    expect((first.body as unknown[]).length).toBe(3);
    // Three of five are spent: a batch of three does not fit, and none of its calls runs.
    const over = await postRpc('127.0.0.21', KEY_D, batch(3, 'b'));
    expect(over.status).toBe(429);
    // Answered as the batch would have been, every call refused by its id.
    const refused = {
      code: -32003,
      data: { limit: 'RATE_LIMIT_MAX per key', calls: 3, retryAfterMs: expect.any(Number) as unknown },
    };
    expect(over.body).toMatchObject([
      { id: 'b0', error: refused },
      { id: 'b1', error: refused },
      { id: 'b2', error: refused },
    ]);
    expect(retryAfterAgrees(over)).toBe(true);
    // The refused batch cost one use (the request itself); one call is still left.
    expect((await postRpc('127.0.0.21', KEY_D, call())).status).toBe(200);
    expect((await postRpc('127.0.0.21', KEY_D, call())).status).toBe(429);
  });

  it('/mcp: a batch of MCP messages counts once per member too', async () => {
    const tools = (n: number): unknown[] =>
      Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const mcp = (body: unknown): Promise<Reply> =>
      request(
        '127.0.0.22',
        '/mcp',
        { 'x-api-key': KEY_E, accept: 'application/json, text/event-stream' },
        JSON.stringify(body),
      );
    expect((await mcp(tools(4))).status).toBe(200);
    const over = await mcp(tools(2));
    expect(over.status).toBe(429);
    const refused = { error: { code: -32003, data: { limit: 'RATE_LIMIT_MAX per key' } } };
    expect(over.body).toMatchObject([
      { id: 0, ...refused },
      { id: 1, ...refused },
    ]);
  });
});

describe('open /rpc sockets per key and per address', () => {
  it('MAX_RPC_SOCKETS_PER_KEY: a key past its sockets is refused; another key is not', async () => {
    const a = opened(await openSocket('127.0.0.31', KEY_F));
    opened(await openSocket('127.0.0.32', KEY_F));
    expect(await openSocket('127.0.0.33', KEY_F)).toBe(429);
    opened(await openSocket('127.0.0.33', KEY_A));
    // A socket closed is a socket given back.
    a.close();
    await new Promise((resolve) => a.once('close', resolve));
    let reopened: WebSocket | number = 429;
    const deadline = Date.now() + WAIT_MS;
    while (typeof reopened === 'number' && Date.now() < deadline)
      reopened = await openSocket('127.0.0.31', KEY_F);
    opened(reopened);
  });

  it('MAX_RPC_SOCKETS_PER_ADDRESS: an address past its sockets is refused, whatever the key', async () => {
    opened(await openSocket('127.0.0.41', KEY_B));
    opened(await openSocket('127.0.0.41', KEY_C));
    opened(await openSocket('127.0.0.41', KEY_D));
    expect(await openSocket('127.0.0.41', KEY_E)).toBe(429);
    opened(await openSocket('127.0.0.42', KEY_E));
  });
});

describe('the 429 answer', () => {
  it('keeps the id of the refused request, and Retry-After agrees with data.retryAfterMs', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await postRpc('127.0.0.51', undefined, call())).status).toBe(401);
    const over = await postRpc('127.0.0.51', undefined, call('keep-me'));
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ id: 'keep-me', error: { code: -32003 } });
    expect(retryAfterAgrees(over)).toBe(true);
    // A body past what a refusal reads for its id is answered with id null, still a 429.
    const big = { ...call('too-big'), params: { pad: 'x'.repeat(70 * 1024) } };
    const bigOver = await postRpc('127.0.0.51', undefined, big);
    expect(bigOver.status).toBe(429);
    expect(bigOver.body).toMatchObject({ id: null, error: { code: -32003 } });
    // Not JSON: id null as for a parse error.
    const junk = await request('127.0.0.51', '/rpc', {}, '{"id": "half');
    expect(junk.status).toBe(429);
    expect(junk.body).toMatchObject({ id: null });
  });

  it('one key past its budget does not limit another key from the same address', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await postRpc('127.0.0.52', KEY_F, call())).status).toBe(200);
    const over = await postRpc('127.0.0.52', KEY_F, call(42));
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ id: 42, error: { data: { limit: 'RATE_LIMIT_MAX per key' } } });
    expect(retryAfterAgrees(over)).toBe(true);
    expect((await postRpc('127.0.0.52', KEY_C, call())).status).toBe(200);
  });

  it('logs refused keys (reason, path, address, never the key), at most REFUSAL_LOG_MAX a window', async () => {
    const secret = 'edge-wrong-key-that-must-not-be-logged';
    for (let i = 0; i < REFUSAL_LOG_MAX + 10; i++) await postRpc('127.0.0.53', secret, call());
    const lines = service.logs
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('request refused'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(REFUSAL_LOG_MAX);
    expect(lines).toContainEqual(
      expect.objectContaining({ reason: 'missing', path: '/rpc', address: '127.0.0.11', status: 401 }),
    );
    expect(service.logs.join('')).not.toContain(secret);
    expect(service.logs.join('')).not.toContain('wrong-key');
  });
});

describe('retry time', () => {
  const WINDOW_MS = 3_000;
  let short: TestService;
  beforeAll(async () => {
    short = await startTestService({
      API_KEY: KEY_A,
      RATE_LIMIT_MAX: '2',
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    });
  });
  afterAll(async () => short?.close());

  it('a caller that waits data.retryAfterMs is admitted again', async () => {
    const post = async (): Promise<Reply> => {
      const res = await fetch(`${short.url}/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY_A },
        body: JSON.stringify(call('again')),
      });
      const retryAfter = res.headers.get('retry-after');
      return { status: res.status, body: await res.json(), ...(retryAfter === null ? {} : { retryAfter }) };
    };
    let over: Reply | undefined;
    for (let i = 0; i < 5 && over === undefined; i++) {
      const reply = await post();
      if (reply.status === 429) over = reply;
    }
    if (over === undefined) throw new Error('never refused');
    expect(retryAfterAgrees(over)).toBe(true);
    const ms = (over.body as { error: { data: { retryAfterMs: number } } }).error.data.retryAfterMs;
    expect(ms).toBeGreaterThan(0);
    expect(ms).toBeLessThanOrEqual(WINDOW_MS);
    await new Promise((resolve) => setTimeout(resolve, ms));
    expect((await post()).status).toBe(200);
  });
});
