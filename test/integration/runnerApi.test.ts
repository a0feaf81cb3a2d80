// Seed 002's runner API (POST /sessions, GET /sessions, POST /sessions/{id}/execute, POST /execute,
// DELETE /sessions/{id}), a projection of the method table: each answer must be what the method
// answers on POST /rpc, behind the same key, limits and body rules.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, startTestService, waitFor, type TestService } from '../helpers/testService.js';

const KEY_A = 'runner-a-key-0123456789';
const KEY_B = 'runner-b-key-0123456789';
const SESSION_NOT_FOUND = -32010;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;
const ACTION_FAILED = -32000;
const PARSE_ERROR = -32700;
const TIMEOUT = -32001;
const NAVIGATION_BLOCKED = -32011;
const PNG_SIGNATURE = '89504e470d0a1a0a';

const suite = useServiceSuite({ API_KEY: `${KEY_A},${KEY_B}` });

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & {
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

/** One request to the service; body is JSON unless `raw` gives the text and content type. */
async function rest(
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; raw?: { text: string; type: string } } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? KEY_A : options.key;
  if (key !== null) headers['x-api-key'] = key;
  let body: string | undefined;
  if (options.raw !== undefined) {
    headers['content-type'] = options.raw.type;
    body = options.raw.text;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`${suite.service.url}${path}`, { method, headers, body });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text === '' ? {} : (JSON.parse(text) as Reply['body']),
  };
}

async function createSession(key = KEY_A): Promise<string> {
  const created = await rest('POST', '/sessions', { body: { env_type: 'browser' }, key });
  expect(created.status).toBe(201);
  expect(created.body.session_id).toMatch(/^s_/);
  return String(created.body.session_id);
}

function execute(id: string, body: unknown, key = KEY_A): Promise<Reply> {
  return rest('POST', `/sessions/${id}/execute`, { body, key });
}

interface StreamedEvent {
  event: string;
  data: Record<string, unknown>;
}

/** The events of an event-stream body, in order (each `event:` line with its one `data:` line). */
function parseEvents(text: string): StreamedEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? 'message';
      const data = lines.find((l) => l.startsWith('data: '))?.slice('data: '.length) ?? 'null';
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** POST /sessions/{id}/execute asking for the event stream; the whole stream once it ended. */
async function executeStreamed(
  id: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; events: StreamedEvent[]; text: string }> {
  const res = await fetch(`${suite.service.url}/sessions/${id}/execute`, {
    method: 'POST',
    headers: {
      'x-api-key': KEY_A,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    type,
    events: type.startsWith('text/event-stream') ? parseEvents(text) : [],
    text,
  };
}

describe('seed 002 runner API', () => {
  it('POST /sessions creates, GET /sessions lists, DELETE /sessions/{id} closes', async () => {
    const id = await createSession();
    const listed = await rest('GET', '/sessions');
    expect(listed.status).toBe(200);
    const ids = (listed.body.sessions as { session_id: string }[]).map((s) => s.session_id);
    expect(ids).toContain(id);
    const deleted = await rest('DELETE', `/sessions/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ ok: true, closed: true });
    const after = await rest('GET', '/sessions');
    expect((after.body.sessions as { session_id: string }[]).map((s) => s.session_id)).not.toContain(id);
    // Deleting it again: it is this key's, already ended (session.close answers closed: false).
    const again = await rest('DELETE', `/sessions/${id}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ ok: true, closed: false });
  });

  it('POST /sessions takes session.create params, and refuses a bad one or an unknown env_type', async () => {
    const made = await rest('POST', '/sessions', { body: { viewport: { width: 400, height: 300 } } });
    expect(made.status).toBe(201);
    const id = String(made.body.session_id);
    const width = await execute(id, { tool_name: 'page.evaluate', args: { expression: 'innerWidth' } });
    expect(width.body.details).toMatchObject({ result: 400 });
    await rest('DELETE', `/sessions/${id}`);
    const bad = await rest('POST', '/sessions', { body: { viewport: { width: 5, height: 300 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe(INVALID_PARAMS);
    const env = await rest('POST', '/sessions', { body: { env_type: 'kernelbench' } });
    expect(env.status).toBe(400);
    expect(env.body.error?.message).toContain('browser');
  });

  it('execute runs a method by its name or MCP tool name: content is the text, details the result', async () => {
    const id = await createSession();
    const url = `${suite.fixture.url}/projects`;
    const went = await execute(id, { tool_name: 'page.goto', args: { url, waitUntil: 'load' } });
    expect(went.status).toBe(200);
    expect(went.body.details).toMatchObject({ url });
    expect(JSON.parse(String(went.body.content))).toEqual(went.body.details);
    const text = await execute(id, { tool_name: 'page_text', args: { selector: 'h1' } });
    expect(text.status).toBe(200);
    expect(text.body.content).toBe('Projects');
    expect(text.body.details).toEqual({ text: 'Projects' });
    await rest('DELETE', `/sessions/${id}`);
  });

  it("POST /execute takes the session in the body (the seed's browser loop)", async () => {
    const id = await createSession();
    const reply = await rest('POST', '/execute', {
      body: { session_id: id, tool_name: 'page.evaluate', args: { expression: '6 * 7' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.details).toMatchObject({ result: 42 });
    const missing = await rest('POST', '/execute', { body: { tool_name: 'page.text' } });
    expect(missing.status).toBe(400);
    await rest('DELETE', `/sessions/${id}`);
  });

  it('a screenshot says so in content and keeps its base64 in details', async () => {
    const id = await createSession();
    const shot = await execute(id, { tool_name: 'screenshot', args: {} });
    expect(shot.status).toBe(200);
    expect(shot.body.content).toMatch(/^Screenshot image\/png, \d+x\d+ px/);
    const base64 = String((shot.body.details as { base64: string }).base64);
    expect(Buffer.from(base64, 'base64').subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
    await rest('DELETE', `/sessions/${id}`);
  });

  it('a failing method answers its status and the JSON-RPC error object', async () => {
    const id = await createSession();
    await execute(id, { tool_name: 'page.goto', args: { url: `${suite.fixture.url}/projects` } });
    const click = await execute(id, {
      tool_name: 'page.click',
      args: { selector: '#nothing', timeout: 500 },
    });
    expect(click.status).toBe(504);
    expect(click.body.error?.code).toBe(TIMEOUT);
    const blocked = await execute(id, { tool_name: 'page.goto', args: { url: 'http://example.com/' } });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error?.code).toBe(NAVIGATION_BLOCKED);
    const hidden = await execute(id, { tool_name: 'page.fill', args: { selector: 'button', value: 'x' } });
    expect(hidden.status).toBe(422);
    expect(hidden.body.error?.code).toBe(ACTION_FAILED);
    const badArgs = await execute(id, { tool_name: 'page.goto', args: { nope: 1 } });
    expect(badArgs.status).toBe(400);
    expect(badArgs.body.error?.code).toBe(INVALID_PARAMS);
    await rest('DELETE', `/sessions/${id}`);
  });

  it('an unknown tool is 404, a method that is not a session method is refused', async () => {
    const id = await createSession();
    const unknown = await execute(id, { tool_name: 'page.teleport', args: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe(METHOD_NOT_FOUND);
    const notSession = await execute(id, { tool_name: 'session.list' });
    expect(notSession.status).toBe(400);
    expect(notSession.body.error?.message).toContain('not a session method');
    await rest('DELETE', `/sessions/${id}`);
  });

  it('a session id in args or body other than the path is refused, and nothing runs', async () => {
    const id = await createSession();
    const other = await createSession();
    const inArgs = await execute(id, {
      tool_name: 'page.goto',
      args: { session_id: other, url: `${suite.fixture.url}/projects` },
    });
    expect(inArgs.status).toBe(400);
    expect(inArgs.body.error?.code).toBe(INVALID_PARAMS);
    const inBody = await execute(id, { session_id: other, tool_name: 'page.text' });
    expect(inBody.status).toBe(400);
    const list = await rest('GET', '/sessions');
    const mine = (list.body.sessions as { session_id: string; url: string }[]).filter((s) =>
      [id, other].includes(s.session_id),
    );
    expect(mine.map((s) => s.url)).toEqual(['about:blank', 'about:blank']);
    await rest('DELETE', `/sessions/${id}`);
    await rest('DELETE', `/sessions/${other}`);
  });

  it('no key is 401; another key sees no session of this one (404)', async () => {
    expect((await rest('GET', '/sessions', { key: null })).status).toBe(401);
    expect((await rest('POST', '/sessions', { key: null, body: {} })).status).toBe(401);
    const id = await createSession(KEY_A);
    const foreign = await execute(id, { tool_name: 'page.text' }, KEY_B);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.code).toBe(SESSION_NOT_FOUND);
    const del = await rest('DELETE', `/sessions/${id}`, { key: KEY_B });
    expect(del.status).toBe(404);
    const listB = await rest('GET', '/sessions', { key: KEY_B });
    expect((listB.body.sessions as { session_id: string }[]).map((s) => s.session_id)).not.toContain(id);
    // Still A's, still open.
    expect((await execute(id, { tool_name: 'page.text' })).status).toBe(200);
    await rest('DELETE', `/sessions/${id}`);
    expect((await rest('DELETE', '/sessions/s_00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('a body that is not a JSON object, of another type or too large is refused', async () => {
    const id = await createSession();
    const path = `/sessions/${id}/execute`;
    const broken = await rest('POST', path, { raw: { text: '{"tool_name":', type: 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.body.error?.code).toBe(PARSE_ERROR);
    const array = await rest('POST', path, { raw: { text: '[]', type: 'application/json' } });
    expect(array.status).toBe(400);
    expect(array.body.error?.code).toBe(INVALID_REQUEST);
    const plain = await rest('POST', path, {
      raw: { text: JSON.stringify({ tool_name: 'page.text' }), type: 'text/plain' },
    });
    expect(plain.status).toBe(415);
    const noTool = await execute(id, { args: {} });
    expect(noTool.status).toBe(400);
    const extra = await execute(id, { tool_name: 'page.text', params: {} });
    expect(extra.status).toBe(400);
    expect(extra.body.error?.message).toContain('params');
    const big = await execute(id, {
      tool_name: 'page.evaluate',
      args: { expression: `'${'x'.repeat(600 * 1024)}'.length` },
    });
    expect(big.status).toBe(413);
    await rest('DELETE', `/sessions/${id}`);
  });

  it('a foreign Host is refused before any call, and the request id is echoed', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: new URL(suite.service.url).port,
          path: '/sessions',
          method: 'GET',
          agent: false,
          headers: { host: 'rebind.example', 'x-api-key': KEY_A },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    const res = await fetch(`${suite.service.url}/sessions`, {
      headers: { 'x-api-key': KEY_A, 'x-request-id': 'runner-req-1' },
    });
    await res.text();
    expect(res.headers.get('x-request-id')).toBe('runner-req-1');
  });

  it('an unknown route is 404 with the route list, which names these routes', async () => {
    const reply = await rest('GET', '/sessions/x/nothing');
    expect(reply.status).toBe(404);
    expect(reply.body.routes).toEqual(
      expect.arrayContaining(['POST /sessions', 'POST /sessions/{id}/execute', 'DELETE /sessions/{id}']),
    );
  });

  it('execute with idempotency_key runs a click once', async () => {
    const id = await createSession();
    await execute(id, { tool_name: 'page.goto', args: { url: `${suite.fixture.url}/rest-counter` } });
    const click = { tool_name: 'page.click', args: { selector: '#inc' }, idempotency_key: 'toolu_01' };
    const first = await execute(id, click);
    expect(first.status).toBe(200);
    const second = await execute(id, click);
    expect(second.status).toBe(200);
    expect(second.body.details).toEqual(first.body.details);
    const count = await execute(id, { tool_name: 'page.text', args: { selector: '#count' } });
    expect(count.body.content).toBe('1');
    // The same key with other args is a mistake of the caller's, not a new click.
    const reused = await execute(id, { ...click, args: { selector: 'h1' } });
    expect(reused.status).toBe(400);
    expect(reused.body.error?.code).toBe(INVALID_PARAMS);
    // A read-only tool takes a key too (the runner sends every tool call's id).
    const read = await execute(id, {
      tool_name: 'page.text',
      args: { selector: '#count' },
      idempotency_key: 'toolu_02',
    });
    expect(read.body.content).toBe('1');
    await rest('DELETE', `/sessions/${id}`);
  });
});

describe('seed 002 execute as Server-Sent Events (Accept: text/event-stream)', () => {
  it('sends progress at once and while the call runs, then one result with the plain answer', async () => {
    const id = await createSession();
    const call = { tool_name: 'page.waitFor', args: { state: 'idleFor', ms: 2500 } };
    const streamed = await executeStreamed(id, call);
    expect(streamed.status).toBe(200);
    expect(streamed.type).toMatch(/^text\/event-stream/);
    const kinds = streamed.events.map((e) => e.event);
    // At least the progress sent at the start, every progress before the one result, nothing after it.
    expect(kinds[0]).toBe('progress');
    expect(kinds.filter((k) => k === 'result')).toEqual(['result']);
    expect(kinds[kinds.length - 1]).toBe('result');
    expect(kinds.slice(0, -1).every((k) => k === 'progress')).toBe(true);
    const progress = streamed.events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress[0]).toEqual({ tool: 'page.waitFor', elapsedMs: 0 });
    const elapsed = progress.map((p) => Number(p.elapsedMs));
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
    // The result is what the plain form answers for the same call.
    const plain = await execute(id, call);
    expect(plain.status).toBe(200);
    expect(streamed.events[kinds.length - 1]?.data).toEqual(plain.body);
    expect(plain.body).toEqual({
      content: JSON.stringify({ state: 'idleFor' }),
      details: { state: 'idleFor' },
    });
    // The MCP tool name and POST /execute stream too.
    const byTool = await executeStreamed(id, { tool_name: 'page_text', args: {} });
    expect(byTool.events.map((e) => e.event)).toEqual(['progress', 'result']);
    expect(byTool.events[0]?.data).toEqual({ tool: 'page.text', elapsedMs: 0 });
    const res = await fetch(`${suite.service.url}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_A, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ session_id: id, tool_name: 'page.evaluate', args: { expression: '6 * 7' } }),
    });
    const viaBody = parseEvents(await res.text());
    expect(viaBody.map((e) => e.event)).toEqual(['progress', 'result']);
    expect(viaBody[1]?.data.details).toMatchObject({ result: 42 });
    await rest('DELETE', `/sessions/${id}`);
  });

  it('a failing call ends the stream with one error event carrying the REST error body', async () => {
    const id = await createSession();
    await execute(id, { tool_name: 'page.goto', args: { url: `${suite.fixture.url}/projects` } });
    const click = { tool_name: 'page.click', args: { selector: '#nothing', timeout: 500 } };
    const streamed = await executeStreamed(id, click);
    // The stream had started: 200, and the error's code says what failed.
    expect(streamed.status).toBe(200);
    const kinds = streamed.events.map((e) => e.event);
    expect(kinds[0]).toBe('progress');
    expect(kinds.filter((k) => k === 'error')).toEqual(['error']);
    expect(kinds[kinds.length - 1]).toBe('error');
    expect(kinds).not.toContain('result');
    const error = streamed.events[kinds.length - 1]?.data.error as {
      code: number;
      message: string;
      data?: unknown;
    };
    expect(error.code).toBe(TIMEOUT);
    expect(error.message).toContain('#nothing');
    // The same call in the plain form: its status, and the same error object.
    const plain = await execute(id, click);
    expect(plain.status).toBe(504);
    expect(Object.keys(plain.body.error ?? {}).sort()).toEqual(Object.keys(error).sort());
    expect(plain.body.error?.code).toBe(error.code);
    // Args the method refuses are found by the call itself: an error event too.
    const badArgs = await executeStreamed(id, { tool_name: 'page.goto', args: { nope: 1 } });
    expect(badArgs.status).toBe(200);
    expect(badArgs.events.map((e) => e.event)).toEqual(['progress', 'error']);
    expect((badArgs.events[1]?.data.error as { code: number }).code).toBe(INVALID_PARAMS);
    await rest('DELETE', `/sessions/${id}`);
  });

  it('refusals of the body or the tool stay plain JSON with their status; a wildcard Accept gets JSON', async () => {
    const id = await createSession();
    const noTool = await executeStreamed(id, { args: {} });
    expect(noTool.status).toBe(400);
    expect(noTool.type).toMatch(/^application\/json/);
    expect((JSON.parse(noTool.text) as Reply['body']).error?.code).toBe(INVALID_PARAMS);
    const extra = await executeStreamed(id, { tool_name: 'page.text', params: {} });
    expect(extra.status).toBe(400);
    expect(extra.type).toMatch(/^application\/json/);
    const unknown = await executeStreamed(id, { tool_name: 'page.teleport' });
    expect(unknown.status).toBe(404);
    expect((JSON.parse(unknown.text) as Reply['body']).error?.code).toBe(METHOD_NOT_FOUND);
    const notSession = await executeStreamed(id, { tool_name: 'session.list' });
    expect(notSession.status).toBe(400);
    // Only an Accept that names text/event-stream streams: */* and JSON keep the plain answer.
    for (const accept of ['*/*', 'application/json', 'text/event-stream;q=0']) {
      const plain = await executeStreamed(id, { tool_name: 'page.text' }, { accept });
      expect(plain.status, accept).toBe(200);
      expect(plain.type, accept).toMatch(/^application\/json/);
      expect(JSON.parse(plain.text), accept).toEqual({ content: '', details: { text: '' } });
    }
    await rest('DELETE', `/sessions/${id}`);
  });

  it('the client going away aborts the call: the session is free for the next one', async () => {
    const id = await createSession();
    const requestId = `runner-sse-gone-${Date.now()}`;
    const controller = new AbortController();
    const res = await fetch(`${suite.service.url}/sessions/${id}/execute`, {
      method: 'POST',
      headers: {
        'x-api-key': KEY_A,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-request-id': requestId,
      },
      // A pause far longer than the test: only the abort can end it in time.
      body: JSON.stringify({ tool_name: 'page.waitFor', args: { state: 'idleFor', ms: 60_000 } }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (reader === undefined) throw new Error('the stream has no body');
    // The first progress arrives while the call runs.
    let received = '';
    const decoder = new TextDecoder();
    while (!received.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before its first event: ${received}`);
      received += decoder.decode(value, { stream: true });
    }
    expect(parseEvents(received)[0]).toEqual({
      event: 'progress',
      data: { tool: 'page.waitFor', elapsedMs: 0 },
    });
    controller.abort();
    // The call ended (its log line is written when it ends), long before its 60 s pause.
    await waitFor(
      () => suite.service.logs.some((l) => l.includes(requestId) && l.includes('"method":"page.waitFor"')),
      15_000,
      'the aborted page.waitFor to end',
    );
    const next = await execute(id, { tool_name: 'page.text' });
    expect(next.status).toBe(200);
    await rest('DELETE', `/sessions/${id}`);
  });
});

describe('seed 002 runner API behind the rate limit', () => {
  let limited: TestService;
  beforeAll(async () => {
    limited = await startTestService({ RATE_LIMIT_MAX: '3' });
  });
  afterAll(async () => limited?.close());

  it('each request costs its key one use: the fourth in a window is 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await fetch(`${limited.url}/sessions`, { headers: { 'x-api-key': TEST_API_KEY } });
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
