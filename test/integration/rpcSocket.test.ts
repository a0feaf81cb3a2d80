// JSON-RPC 2.0 over WebSocket /rpc: the same methods, envelope rules, key and limits as POST /rpc,
// against the real service, the real Chromium and the fixture app.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket, { type ClientOptions } from 'ws';
import { MAX_SOCKET_INFLIGHT } from '../../src/http/rpcSocket.js';
import { useServiceSuite } from '../helpers/suite.js';
import {
  TEST_API_KEY,
  startTestService,
  type JsonRpcReply,
  type TestService,
} from '../helpers/testService.js';
import { Inbox } from '../helpers/inbox.js';

/** Bound on any single wait for a message in these tests. */
const MESSAGE_TIMEOUT_MS = 20_000;

const suite = useServiceSuite({ BODY_LIMIT: '64kb' });
const sockets: RpcSocket[] = [];
const extraServices: TestService[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) s.ws.terminate();
});

afterAll(async () => {
  for (const s of extraServices) await s.close();
});

function socketUrl(base: string): string {
  return `${base.replace(/^http/, 'ws')}/rpc`;
}

/** A JSON-RPC client on one socket: answers are matched to calls by id. */
class RpcSocket {
  private readonly inbox = new Inbox<unknown>();
  readonly closed: Promise<number>;
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => this.inbox.push(JSON.parse(data.toString('utf8')) as unknown));
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  static async open(base = suite.service.url, options: ClientOptions = {}): Promise<RpcSocket> {
    const ws = new WebSocket(socketUrl(base), { headers: { 'x-api-key': TEST_API_KEY }, ...options });
    const socket = new RpcSocket(ws);
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return socket;
  }

  sendRaw(text: string | Buffer, binary = false): void {
    this.ws.send(text, { binary });
  }

  /** The first message not taken yet that matches, in arrival order, waiting for it with a deadline. */
  next(match: (m: unknown) => boolean, what: string): Promise<unknown> {
    return this.inbox.next(match, what, MESSAGE_TIMEOUT_MS);
  }

  /** The first message, whatever it is. */
  first(): Promise<unknown> {
    return this.next(() => true, 'any message');
  }

  async rpc(method: string, params?: unknown): Promise<JsonRpcReply> {
    const id = this.nextId++;
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return (await this.next(
      (m) => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id,
      `the answer to ${method}`,
    )) as JsonRpcReply;
  }

  async call<T>(method: string, params?: unknown): Promise<T> {
    const reply = await this.rpc(method, params);
    if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
    return reply.result as T;
  }
}

/** The HTTP status a refused handshake got. */
function handshakeStatus(base: string, options: ClientOptions, path = '/rpc'): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${path}`, options);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the handshake was accepted'));
    });
    ws.once('error', () => undefined);
  });
}

describe('WebSocket /rpc', () => {
  it('drives a session: create, goto, text, click, close', async () => {
    const s = await RpcSocket.open();
    const { session_id } = await s.call<{ session_id: string }>('session.create', {});
    expect(session_id).toMatch(/^s_/);
    const nav = await s.call<{ title: string; status: number }>('page.goto', {
      session_id,
      url: `${suite.fixture.url}/projects`,
    });
    expect(nav).toMatchObject({ title: 'Projects', status: 200 });
    const { text } = await s.call<{ text: string }>('page.text', { session_id, selector: 'main' });
    expect(text).toContain('Apollo');
    expect(await s.call('page.click', { session_id, selector: "role=button[name='New Project']" })).toEqual({
      ok: true,
    });
    // The session is the service's, not the socket's: HTTP sees it too.
    const listed = await suite.service.call<{ sessions: { session_id: string }[] }>('session.list');
    expect(listed.sessions.map((x) => x.session_id)).toContain(session_id);
    expect(await s.call('session.close', { session_id })).toMatchObject({ ok: true });
  });

  it('answers errors with the same codes as HTTP', async () => {
    const s = await RpcSocket.open();
    expect((await s.rpc('no.such.method')).error?.code).toBe(-32601);
    expect((await s.rpc('constructor')).error?.code).toBe(-32601);
    const invalid = await s.rpc('page.goto', { session_id: 's_x', url: 42 });
    expect(invalid.error?.code).toBe(-32602);
    expect(invalid.error?.data).toMatchObject({ method: 'page.goto' });
    expect((await s.rpc('page.text', { session_id: 's_missing' })).error?.code).toBe(-32010);
  });

  it('answers a batch with one array, a parse error with id null, and a notification with nothing', async () => {
    const s = await RpcSocket.open();
    s.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'session.list' },
        { jsonrpc: '2.0', method: 'session.list' },
        { jsonrpc: '2.0', id: 'b', method: 'nope' },
      ]),
    );
    const batch = (await s.first()) as JsonRpcReply[];
    expect(Array.isArray(batch)).toBe(true);
    expect(batch.map((r) => r.id).sort()).toEqual(['a', 'b']);
    expect(batch.find((r) => r.id === 'b')?.error?.code).toBe(-32601);

    s.sendRaw('{"jsonrpc":"2.0","id":1,"method":');
    expect(await s.first()).toMatchObject({ id: null, error: { code: -32700 } });

    s.sendRaw('[]');
    expect(await s.first()).toMatchObject({ id: null, error: { code: -32600 } });

    s.sendRaw(Buffer.from('{"jsonrpc":"2.0","id":7,"method":"session.list"}'), true);
    expect(await s.first()).toMatchObject({ id: null, error: { code: -32600 } });

    // A notification gets no message: the next message is the answer to the call sent after it.
    s.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'session.list' }));
    s.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'session.list' }));
    expect(await s.first()).toMatchObject({ id: 'after' });
  });

  it('refuses handshakes without the key, with a wrong key, with the key in the query, or from a browser origin', async () => {
    const base = suite.service.url;
    expect(await handshakeStatus(base, {})).toBe(401);
    expect(await handshakeStatus(base, { headers: { 'x-api-key': `${TEST_API_KEY}x` } })).toBe(401);
    expect(await handshakeStatus(base, {}, `/rpc?api_key=${TEST_API_KEY}`)).toBe(401);
    expect(
      await handshakeStatus(base, {
        headers: { 'x-api-key': TEST_API_KEY, origin: 'http://127.0.0.1:8080' },
      }),
    ).toBe(403);
    // Bearer works as on HTTP.
    const s = await RpcSocket.open(base, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect((await s.rpc('session.list')).result).toBeDefined();
  });

  it("refuses a page loaded by the service's own Chromium", async () => {
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {});
    await suite.service.call('page.goto', {
      session_id,
      url: `${suite.fixture.url}/static`,
      waitUntil: 'load',
    });
    const { result } = await suite.service.call<{ result: string }>('page.evaluate', {
      session_id,
      expression: `(url) => new Promise((resolve) => {
        const ws = new WebSocket(url);
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('error');
      })`,
      arg: socketUrl(suite.service.url),
    });
    expect(result).toBe('error');
    await suite.service.call('session.close', { session_id });
  });

  it('closes a socket that sends a message over BODY_LIMIT with 1009, and keeps serving others', async () => {
    const big = await RpcSocket.open();
    big.sendRaw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'session.list',
        params: { pad: 'x'.repeat(70 * 1024) },
      }),
    );
    expect(await big.closed).toBe(1009);
    const other = await RpcSocket.open();
    expect((await other.rpc('session.list')).error).toBeUndefined();
  });

  it('applies RATE_LIMIT_MAX per key to messages (a batch counts each member), answering by id', async () => {
    const limited = await startTestService({ RATE_LIMIT_MAX: '6', RATE_LIMIT_WINDOW_MS: '600000' });
    extraServices.push(limited);
    // A handshake with a valid key spends no call of the key's budget; six calls fit, the seventh does not.
    const s = await RpcSocket.open(limited.url);
    for (let i = 0; i < 6; i++) expect((await s.rpc('session.list')).error).toBeUndefined();
    const over = await s.rpc('session.list');
    expect(over.error?.code).toBe(-32003);
    expect(over.error?.data).toMatchObject({ limit: 'RATE_LIMIT_MAX' });
    s.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'x', method: 'session.list' },
        { jsonrpc: '2.0', id: 'y', method: 'session.list' },
      ]),
    );
    const refused = (await s.first()) as JsonRpcReply[];
    expect(refused.map((r) => r.error?.code)).toEqual([-32003, -32003]);
    // Junk counts too, and the socket stays open: a refusal is an answer, not a disconnect.
    s.sendRaw('not json');
    expect(await s.first()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('applies RATE_LIMIT_MAX per key across addresses', async () => {
    const limited = await startTestService({ RATE_LIMIT_MAX: '6', RATE_LIMIT_WINDOW_MS: '600000' });
    extraServices.push(limited);
    // Two addresses, one key: each address stays under its budget while the key runs out.
    const a = await RpcSocket.open(limited.url, { localAddress: '127.0.0.1' });
    const b = await RpcSocket.open(limited.url, { localAddress: '127.0.0.3' });
    for (let i = 0; i < 3; i++) expect((await a.rpc('session.list')).error).toBeUndefined();
    for (let i = 0; i < 3; i++) expect((await b.rpc('session.list')).error).toBeUndefined();
    const over = await b.rpc('session.list');
    expect(over.error?.code).toBe(-32003);
  });

  it(`refuses calls past ${MAX_SOCKET_INFLIGHT} in flight on one socket, answering each at once`, async () => {
    const s = await RpcSocket.open();
    const { session_id } = await s.call<{ session_id: string }>('session.create', {});
    // The first call holds the session's lock; the others queue behind it, so all stay in flight.
    const holder = s.rpc('page.waitFor', { session_id, state: 'idleFor', ms: 3000 });
    const queued = Array.from({ length: MAX_SOCKET_INFLIGHT + 1 }, () => s.rpc('logs.pull', { session_id }));
    const answers = await Promise.all([holder, ...queued]);
    const refused = answers.filter((a) => a.error?.code === -32003);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.error?.data).toMatchObject({ limit: 'MAX_SOCKET_INFLIGHT' });
    expect(answers.filter((a) => a.error === undefined)).toHaveLength(MAX_SOCKET_INFLIGHT);
    // Once answered, calls are admitted again.
    expect((await s.rpc('session.list')).error).toBeUndefined();
    await s.call('session.close', { session_id });
  });

  it('closes open sockets with 1001 when the service shuts down', async () => {
    const own = await startTestService();
    const s = await RpcSocket.open(own.url);
    expect((await s.rpc('session.list')).error).toBeUndefined();
    const closed = s.closed;
    await own.close();
    expect(await closed).toBe(1001);
  });
});
