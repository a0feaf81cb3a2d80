// idempotency_key against the real service (issue 13): a caller that times out while its click runs
// and retries with the same key gets the first run's answer, and the page's counter shows one click;
// the same over MCP, over the WebSocket and in a batch; concurrent duplicates run once; a key reused
// with other params is refused; keys of different API keys never meet. The click fetches a gate the
// test opens when it is ready (fixtures/routes/idempotency.ts), so no step depends on timing.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor, type JsonRpcReply } from '../helpers/testService.js';

const OTHER_KEY = 'idem-other-key-0123456789';
/** Bound on waiting for the service or the page to reach a state, and on each answer. */
const STATE_TIMEOUT_MS = 20_000;
const INVALID_PARAMS = -32602;
const LIMIT_REACHED = -32003;

// The click's settle waits for the gate's request until the test opens it (60 s at most).
const suite = useServiceSuite({
  API_KEY: `${TEST_API_KEY},${OTHER_KEY}`,
  ACTION_SETTLE_MS: '60000',
  IDEMPOTENCY_MAX_ANSWER_BYTES: '4096',
});
const opened: { id: string; key: string }[] = [];

afterEach(async () => {
  for (const { id, key } of opened.splice(0)) await rpcAs(key, 'session.close', { session_id: id });
});

async function rpcAs(key: string, method: string, params: Record<string, unknown>): Promise<JsonRpcReply> {
  const reply = await suite.service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'x-api-key': key,
  });
  return reply.body as JsonRpcReply;
}

/** A session of `key` on the counter page whose button waits at gate `gate`. */
async function openCounter(gate: string | undefined, key = TEST_API_KEY): Promise<string> {
  const created = await rpcAs(key, 'session.create', {});
  const id = String(created.result?.session_id);
  opened.push({ id, key });
  const url = `${suite.fixture.url}/idem/counter${gate === undefined ? '' : `?gate=${gate}`}`;
  const goto = await rpcAs(key, 'page.goto', { session_id: id, url, waitUntil: 'load' });
  expect(goto.error).toBeUndefined();
  return id;
}

async function count(session_id: string, key = TEST_API_KEY): Promise<string> {
  const reply = await rpcAs(key, 'page.evaluate', {
    session_id,
    expression: "document.getElementById('count').textContent",
  });
  return String(reply.result?.result);
}

const gateHits = (): number => suite.fixture.hits.filter((h) => h === 'GET /idem/gate').length;

/** Waits until the page's button has sent one more request to its gate than `before`: the click ran. */
async function clicked(before: number): Promise<void> {
  await waitFor(() => gateHits() > before, STATE_TIMEOUT_MS, 'the click to reach the gate');
}

async function openGate(gate: string): Promise<void> {
  const res = await fetch(`${suite.fixture.url}/idem/open?token=${gate}`);
  expect(await res.text()).toBe('1');
}

/** Waits until this many repeats wait in the store for a running call. */
async function waiting(n: number): Promise<void> {
  await waitFor(
    () => suite.service.running.idempotency.stats.waiting === n,
    STATE_TIMEOUT_MS,
    `${n} repeats waiting`,
  );
}

/** Posts a body and gives up, as a client with a short timeout does, once `ready` holds. */
async function postAndAbandon(
  path: string,
  body: unknown,
  ready: () => Promise<void>,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const impatient = new AbortController();
  const answer = fetch(`${suite.service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, ...headers },
    body: JSON.stringify(body),
    signal: impatient.signal,
  }).catch((error: unknown) => error);
  await ready();
  impatient.abort();
  return answer;
}

const rpcBody = (method: string, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params,
});

function logLines(key: string): Record<string, unknown>[] {
  return suite.service.logs
    .filter((l) => l.includes(`"idempotencyKey":"${key}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('idempotency_key', () => {
  it('over HTTP: a caller that times out mid-click and retries gets the first run; the click ran once', async () => {
    const gate = randomUUID();
    const session_id = await openCounter(gate);
    const params = { session_id, selector: '#inc', idempotency_key: `click-${gate}` };
    const before = gateHits();
    const abandoned = await postAndAbandon('/rpc', rpcBody('page.click', params), () => clicked(before));
    expect(abandoned).toBeInstanceOf(Error);
    // The first run is still settling (its fetch waits at the gate): the retry waits for it.
    const retry = suite.service.rpc('page.click', params);
    await waiting(1);
    await openGate(gate);
    const answer = await retry;
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ ok: true });
    // A later repeat gets the stored answer, the same one.
    const replay = await suite.service.rpc('page.click', params);
    expect(replay.result).toEqual(answer.result);
    expect(await count(session_id)).toBe('1');
    expect(gateHits()).toBe(before + 1);
    // The log says which answers were replayed, under the key.
    const lines = logLines(`click-${gate}`);
    expect(lines.map((l) => l.replayed).sort()).toEqual([false, true, true]);
    // Control: without a key, the same click runs again.
    const again = suite.service.rpc('page.click', { session_id, selector: '#inc' });
    await clicked(before + 1);
    await openGate(gate);
    expect((await again).error).toBeUndefined();
    expect(await count(session_id)).toBe('2');
  });

  it('over MCP: tools/call with idempotency_key in its arguments, abandoned and retried, clicks once', async () => {
    const gate = randomUUID();
    const session_id = await openCounter(gate);
    const args = { session_id, selector: '#inc', idempotency_key: `mcp-${gate}` };
    const before = gateHits();
    const abandoned = await postAndAbandon(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'page_click', arguments: args } },
      () => clicked(before),
      { accept: 'application/json, text/event-stream' },
    );
    expect(abandoned).toBeInstanceOf(Error);
    const client = new Client({ name: 'idem-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': TEST_API_KEY } },
      }),
      { timeout: STATE_TIMEOUT_MS },
    );
    try {
      const call = () =>
        client.callTool({ name: 'page_click', arguments: args }, undefined, {
          timeout: STATE_TIMEOUT_MS,
        }) as Promise<CallToolResult>;
      const retry = call();
      await waiting(1);
      await openGate(gate);
      const answer = await retry;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ ok: true });
      expect((await call()).structuredContent).toEqual(answer.structuredContent);
    } finally {
      await client.close();
    }
    expect(await count(session_id)).toBe('1');
  });

  it('over the WebSocket: a socket that drops mid-click, and a new one retrying, click once', async () => {
    const gate = randomUUID();
    const session_id = await openCounter(gate);
    const params = { session_id, selector: '#inc', idempotency_key: `ws-${gate}` };
    const connect = async (): Promise<WebSocket> => {
      const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
        headers: { 'x-api-key': TEST_API_KEY },
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      return ws;
    };
    const answerOf = (ws: WebSocket) =>
      new Promise<JsonRpcReply>((resolve) =>
        ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')) as JsonRpcReply)),
      );
    const before = gateHits();
    const first = await connect();
    first.send(JSON.stringify(rpcBody('page.click', params)));
    await clicked(before);
    first.terminate();
    const second = await connect();
    try {
      const answer = answerOf(second);
      second.send(JSON.stringify(rpcBody('page.click', params)));
      await waiting(1);
      await openGate(gate);
      const reply = await answer;
      expect(reply.error).toBeUndefined();
      expect(reply.result).toMatchObject({ ok: true });
    } finally {
      second.close();
    }
    expect(await count(session_id)).toBe('1');
  });

  it('two concurrent calls with one key run once and get the same answer', async () => {
    const gate = randomUUID();
    const session_id = await openCounter(gate);
    const params = { session_id, selector: '#inc', idempotency_key: `twin-${gate}` };
    const before = gateHits();
    const one = suite.service.rpc('page.click', params);
    const two = suite.service.rpc('page.click', params);
    await clicked(before);
    await waiting(1);
    await openGate(gate);
    const [a, b] = await Promise.all([one, two]);
    expect(a.error).toBeUndefined();
    expect(b.result).toEqual(a.result);
    expect(await count(session_id)).toBe('1');
  });

  it('a batch with a repeated key runs the call once; a key reused with other params is INVALID_PARAMS', async () => {
    const session_id = await openCounter(undefined);
    const bump = { session_id, expression: 'window.__n = (window.__n ?? 0) + 1' };
    const reply = await suite.service.post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'page.evaluate', params: { ...bump, idempotency_key: 'batch-1' } },
        { jsonrpc: '2.0', id: 2, method: 'page.evaluate', params: { ...bump, idempotency_key: 'batch-1' } },
      ]),
    );
    const [a, b] = reply.body as JsonRpcReply[];
    expect(a?.result).toEqual({ result: 1 });
    expect(b?.result).toEqual({ result: 1 });
    // Same key, other params: refused, and the first answer stays.
    const reused = await suite.service.rpc('page.evaluate', {
      session_id,
      expression: 'window.__n = 100',
      idempotency_key: 'batch-1',
    });
    expect(reused.error?.code).toBe(INVALID_PARAMS);
    expect(reused.error?.data).toMatchObject({
      reason: 'idempotency-key-reused',
      firstMethod: 'page.evaluate',
    });
    // Same key, another method: refused too.
    const otherMethod = await suite.service.rpc('page.click', {
      session_id,
      selector: '#inc',
      idempotency_key: 'batch-1',
    });
    expect(otherMethod.error?.code).toBe(INVALID_PARAMS);
    const read = await suite.service.call<{ result: number }>('page.evaluate', {
      session_id,
      expression: 'window.__n',
    });
    expect(read.result).toBe(1);
    expect(await count(session_id)).toBe('0');
  });

  it("keys of different API keys never meet: each runs its own call and never sees the other's answer", async () => {
    const mine = await openCounter(undefined);
    const theirs = await openCounter(undefined, OTHER_KEY);
    const bump = 'window.__n = (window.__n ?? 0) + 1';
    const key = 'shared-key-1';
    const a = await rpcAs(TEST_API_KEY, 'page.evaluate', {
      session_id: mine,
      expression: bump,
      idempotency_key: key,
    });
    expect(a.result).toEqual({ result: 1 });
    // The same key and the very same params from another API key: its own call runs (and fails:
    // the session is not its), it does not get the first caller's stored answer.
    const c = await rpcAs(OTHER_KEY, 'page.evaluate', {
      session_id: mine,
      expression: bump,
      idempotency_key: key,
    });
    expect(c.error?.code).toBe(-32010);
    // One key string with other params under each API key: not a reuse, each runs its own.
    const other = 'shared-key-2';
    const a2 = await rpcAs(TEST_API_KEY, 'page.evaluate', {
      session_id: mine,
      expression: bump,
      idempotency_key: other,
    });
    const b2 = await rpcAs(OTHER_KEY, 'page.evaluate', {
      session_id: theirs,
      expression: `${bump} + 10`,
      idempotency_key: other,
    });
    expect(a2.result).toEqual({ result: 2 });
    expect(b2.result).toEqual({ result: 11 });
    const again = await rpcAs(TEST_API_KEY, 'page.evaluate', {
      session_id: mine,
      expression: bump,
      idempotency_key: key,
    });
    expect(again.result).toEqual({ result: 1 });
    expect(await count(mine)).toBe('0');
  });

  it('a call queued when its caller left never ran, so the retry with its key runs it', async () => {
    const session_id = await openCounter(undefined);
    // Holds the session's lock: a read-only pause.
    const holder = suite.service.rpc('page.waitFor', { session_id, state: 'idleFor', ms: 3000 });
    const calls = () => suite.service.running.services.sessions.get(session_id)?.calls ?? 0;
    await waitFor(() => calls() === 1, STATE_TIMEOUT_MS, 'the holder to take the lock');
    const bump = {
      session_id,
      expression: 'window.__n = (window.__n ?? 0) + 1',
      idempotency_key: 'queued-1',
    };
    const gone = () => suite.service.logs.filter((l) => l.includes('"reason":"caller-gone"')).length;
    const goneBefore = gone();
    await postAndAbandon('/rpc', rpcBody('page.evaluate', bump), () =>
      waitFor(() => calls() === 2, STATE_TIMEOUT_MS, 'the call to queue'),
    );
    expect((await holder).error).toBeUndefined();
    await waitFor(() => gone() > goneBefore, STATE_TIMEOUT_MS, 'the caller-gone line');
    const retry = await suite.service.rpc('page.evaluate', bump);
    expect(retry.result).toEqual({ result: 1 });
    expect((await suite.service.rpc('page.evaluate', bump)).result).toEqual({ result: 1 });
  });

  it('a retry that comes while the abandoned call still queues gets one run', async () => {
    const session_id = await openCounter(undefined);
    const holder = suite.service.rpc('page.waitFor', { session_id, state: 'idleFor', ms: 3000 });
    const calls = () => suite.service.running.services.sessions.get(session_id)?.calls ?? 0;
    await waitFor(() => calls() === 1, STATE_TIMEOUT_MS, 'the holder to take the lock');
    const bump = {
      session_id,
      expression: 'window.__n = (window.__n ?? 0) + 1',
      idempotency_key: 'queued-2',
    };
    await postAndAbandon('/rpc', rpcBody('page.evaluate', bump), () =>
      waitFor(() => calls() === 2, STATE_TIMEOUT_MS, 'the call to queue'),
    );
    const retry = suite.service.rpc('page.evaluate', bump);
    await waiting(1);
    expect((await holder).error).toBeUndefined();
    expect((await retry).result).toEqual({ result: 1 });
    const n = await suite.service.call<{ result: number }>('page.evaluate', {
      session_id,
      expression: 'window.__n',
    });
    expect(n.result).toBe(1);
  });

  it('a read-only method takes a key and ignores it; a malformed key and a key in a page.act step are refused', async () => {
    const session_id = await openCounter(undefined);
    const text1 = await suite.service.rpc('page.text', {
      session_id,
      selector: 'main',
      idempotency_key: 'ro-1',
    });
    expect(text1.error).toBeUndefined();
    await suite.service.call('page.evaluate', {
      session_id,
      expression: "document.querySelector('h1').textContent = 'Changed'",
    });
    // Not replayed: a read-only call runs again and sees the page as it is now.
    const text2 = await suite.service.call<{ text: string }>('page.text', {
      session_id,
      selector: 'main',
      idempotency_key: 'ro-1',
    });
    expect(text2.text).toContain('Changed');
    for (const bad of ['', 'has space', 'k'.repeat(256), 'caf\u00e9']) {
      const reply = await suite.service.rpc('page.click', {
        session_id,
        selector: '#inc',
        idempotency_key: bad,
      });
      expect(reply.error?.code, JSON.stringify(bad)).toBe(INVALID_PARAMS);
    }
    const act = await suite.service.rpc('page.act', {
      session_id,
      steps: [{ method: 'page.click', params: { selector: '#inc', idempotency_key: 'step-1' } }],
    });
    expect(act.error?.code).toBe(INVALID_PARAMS);
    expect(await count(session_id)).toBe('0');
  });

  it('an answer over IDEMPOTENCY_MAX_ANSWER_BYTES reaches its caller; a repeat is told it ran, and it does not run again', async () => {
    const session_id = await openCounter(undefined);
    const big = {
      session_id,
      expression: "(window.__n = (window.__n ?? 0) + 1, 'x'.repeat(5000))",
      idempotency_key: 'big-1',
    };
    const first = await suite.service.rpc('page.evaluate', big);
    expect(String(first.result?.result)).toHaveLength(5000);
    const repeat = await suite.service.rpc('page.evaluate', big);
    expect(repeat.error?.code).toBe(LIMIT_REACHED);
    expect(repeat.error?.data).toMatchObject({
      reason: 'idempotent-answer-not-kept',
      ran: true,
      outcome: 'ok',
      limit: 'IDEMPOTENCY_MAX_ANSWER_BYTES',
    });
    const n = await suite.service.call<{ result: number }>('page.evaluate', {
      session_id,
      expression: 'window.__n',
    });
    expect(n.result).toBe(1);
  });
});
