// API keys are tenants: a session belongs to the key that created it, every other key gets the
// SESSION_NOT_FOUND an unknown id gets (on POST /rpc, WebSocket /rpc and /mcp alike), ADMIN_API_KEY
// reaches every session, and one key cannot take every slot (MAX_SESSIONS_PER_KEY).
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useServiceSuite } from '../helpers/suite.js';
import { startCdpChrome, type CdpChrome } from '../helpers/cdpChrome.js';
import {
  RpcCallError,
  startTestService,
  type JsonRpcReply,
  type TestService,
} from '../helpers/testService.js';
import { Inbox } from '../helpers/inbox.js';

const KEY_A = 'tenant-a-key-0123456789';
const KEY_B = 'tenant-b-key-0123456789';
const KEY_ADMIN = 'tenant-admin-key-0123456789';
/** Bound on each wait for a WebSocket answer or an MCP call. */
const ANSWER_TIMEOUT_MS = 30_000;
/** The JSON-RPC code of SESSION_NOT_FOUND (errors/catalogue.ts). */
const SESSION_NOT_FOUND = -32010;
const LIMIT_REACHED = -32003;
const ACTION_FAILED = -32000;

// Two tenant keys share MAX_SESSIONS = 4: with MAX_SESSIONS_PER_KEY unset, each may hold 2.
const suite = useServiceSuite({ API_KEY: `${KEY_A},${KEY_B}`, ADMIN_API_KEY: KEY_ADMIN, MAX_SESSIONS: '4' });

type Params = Record<string, unknown>;
type RpcError = NonNullable<JsonRpcReply['error']>;

/** Calls one method over POST /rpc with `key`; the whole JSON-RPC response. */
async function rpcAs(
  key: string,
  method: string,
  params: Params = {},
  service: TestService = suite.service,
): Promise<JsonRpcReply> {
  const reply = await service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'x-api-key': key,
  });
  expect(reply.status).toBe(200);
  return reply.body as JsonRpcReply;
}

async function callAs<T = Params>(key: string, method: string, params: Params = {}): Promise<T> {
  const reply = await rpcAs(key, method, params);
  if (reply.error) throw new RpcCallError(reply.error.code, reply.error.message, reply.error.data);
  return reply.result as T;
}

/** The error a call with `key` fails with; fails the test when it succeeds. */
async function errorAs(key: string, method: string, params: Params): Promise<RpcError> {
  const reply = await rpcAs(key, method, params);
  if (reply.error === undefined) throw new Error(`${method} succeeded: ${JSON.stringify(reply.result)}`);
  return reply.error;
}

/** An error with the session id replaced, so errors about two ids can be compared whole. */
function withoutId(error: RpcError | Params, id: string): unknown {
  return JSON.parse(JSON.stringify(error).replaceAll(id, '<id>')) as unknown;
}

const opened: { key: string; id: string }[] = [];

async function createAs(key: string): Promise<string> {
  const { session_id } = await callAs<{ session_id: string }>(key, 'session.create');
  opened.push({ key, id: session_id });
  return session_id;
}

afterEach(async () => {
  for (const { key, id } of opened.splice(0)) await callAs(key, 'session.close', { session_id: id });
});

async function evaluateAs(key: string, sessionId: string, expression: string): Promise<unknown> {
  const { result } = await callAs<{ result: unknown }>(key, 'page.evaluate', {
    session_id: sessionId,
    expression,
  });
  return result;
}

async function listAs(key: string): Promise<string[]> {
  const { sessions } = await callAs<{ sessions: { session_id: string }[] }>(key, 'session.list');
  return sessions.map((s) => s.session_id);
}

describe('API keys are tenants', () => {
  it("another key gets for a session exactly what an unknown id gets, and the owner's session is untouched", async () => {
    const a = await createAs(KEY_A);
    const cookiePage = `${suite.fixture.url}/set-cookie?name=secret&value=a-only`;
    await callAs(KEY_A, 'page.goto', { session_id: a, url: cookiePage });
    const unknown = `s_${randomUUID()}`;

    expect(await listAs(KEY_A)).toContain(a);
    expect(await listAs(KEY_B)).not.toContain(a);
    const attempts: [string, Params][] = [
      ['page.goto', { url: `${suite.fixture.url}/form` }],
      ['page.evaluate', { expression: 'document.cookie' }],
      ['page.text', {}],
      ['screenshot', {}],
      ['logs.pull', {}],
      ['session.close', {}],
    ];
    for (const [method, params] of attempts) {
      const refused = await errorAs(KEY_B, method, { session_id: a, ...params });
      const never = await errorAs(KEY_B, method, { session_id: unknown, ...params });
      expect(refused.code, method).toBe(SESSION_NOT_FOUND);
      expect(withoutId(refused, a), method).toEqual(withoutId(never, unknown));
    }

    // Nothing B tried reached the session: still open, on its page, with its cookie.
    expect(await listAs(KEY_A)).toContain(a);
    expect(await evaluateAs(KEY_A, a, '[location.href, document.cookie]')).toEqual([
      cookiePage,
      'secret=a-only',
    ]);
  });

  it("an ended session stays the owner's: its reason is the owner's to read, another key sees an unknown id", async () => {
    const a = await createAs(KEY_A);
    expect(await callAs(KEY_A, 'session.close', { session_id: a })).toEqual({ ok: true, closed: true });
    opened.splice(0);
    expect(await callAs(KEY_A, 'session.close', { session_id: a })).toEqual({ ok: true, closed: false });
    expect((await errorAs(KEY_A, 'page.text', { session_id: a })).data?.reason).toBe('closed');

    const unknown = `s_${randomUUID()}`;
    for (const method of ['page.text', 'session.close']) {
      const refused = await errorAs(KEY_B, method, { session_id: a });
      expect(refused.data?.reason, method).toBe('unknown');
      expect(withoutId(refused, a), method).toEqual(
        withoutId(await errorAs(KEY_B, method, { session_id: unknown }), unknown),
      );
    }
  });

  it("the admin key lists every key's sessions and acts on them", async () => {
    const a = await createAs(KEY_A);
    const b = await createAs(KEY_B);
    expect(await listAs(KEY_ADMIN)).toEqual(expect.arrayContaining([a, b]));
    expect(await listAs(KEY_A)).not.toContain(b);
    await callAs(KEY_ADMIN, 'page.goto', { session_id: a, url: `${suite.fixture.url}/form` });
    expect(await evaluateAs(KEY_A, a, 'location.href')).toBe(`${suite.fixture.url}/form`);
    expect(await callAs(KEY_ADMIN, 'session.close', { session_id: b })).toEqual({ ok: true, closed: true });
    expect(await listAs(KEY_B)).not.toContain(b);
    opened.splice(
      opened.findIndex((o) => o.id === b),
      1,
    );
  });

  it('one key past its share of MAX_SESSIONS gets LIMIT_REACHED while another key still creates', async () => {
    // Three creates at once: the share holds against a race too (slots are reserved per key).
    const replies = await Promise.all([1, 2, 3].map(() => rpcAs(KEY_A, 'session.create')));
    for (const r of replies) if (r.result) opened.push({ key: KEY_A, id: String(r.result.session_id) });
    expect(opened).toHaveLength(2);
    const refused = replies.find((r) => r.error !== undefined)?.error;
    expect(refused?.code).toBe(LIMIT_REACHED);
    expect(refused?.data).toMatchObject({ limit: 'MAX_SESSIONS_PER_KEY', maxSessionsPerKey: 2 });
    expect(refused?.data?.retryAfterMs).toEqual(expect.any(Number));
    expect(await listAs(KEY_B)).toHaveLength(0);
    await createAs(KEY_B);
    expect(await listAs(KEY_B)).toHaveLength(1);
  });

  it('WebSocket /rpc scopes sessions to the key of its handshake', async () => {
    const a = await createAs(KEY_A);
    const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
      headers: { 'x-api-key': KEY_B },
    });
    const inbox = new Inbox<JsonRpcReply>();
    ws.on('message', (data: Buffer) => inbox.push(JSON.parse(data.toString('utf8')) as JsonRpcReply));
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'page.text', params: { session_id: a } }));
      const reply = await inbox.next((m) => m.id === 1, 'the answer to page.text', ANSWER_TIMEOUT_MS);
      expect(reply.error).toMatchObject({ code: SESSION_NOT_FOUND, data: { reason: 'unknown' } });
    } finally {
      ws.terminate();
    }
  });

  it('/mcp scopes sessions to the key of the request', async () => {
    const a = await createAs(KEY_A);
    const client = new Client({ name: 'tenant-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': KEY_B } },
    });
    await client.connect(transport, { timeout: ANSWER_TIMEOUT_MS });
    try {
      const result = (await client.callTool({ name: 'page_text', arguments: { session_id: a } }, undefined, {
        timeout: ANSWER_TIMEOUT_MS,
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      const part = result.content.find((c) => c.type === 'text');
      expect(part?.type === 'text' ? JSON.parse(part.text) : undefined).toMatchObject({
        code: SESSION_NOT_FOUND,
        data: { reason: 'unknown' },
      });
    } finally {
      await client.close();
    }
  });

  it('no key reaches a log line', () => {
    const logs = suite.service.logs.join('');
    for (const key of [KEY_A, KEY_B, KEY_ADMIN]) expect(logs).not.toContain(key);
    expect(logs).toMatch(/"principal":"key:[0-9a-f]{16}"/);
  });
});

describe('tabs.attach makes a session of the attaching key', () => {
  let chrome: CdpChrome | undefined;
  let service: TestService | undefined;
  beforeAll(async () => {
    chrome = await startCdpChrome();
    // Two keys share MAX_SESSIONS = 2: one session each, attached tabs included.
    service = await startTestService({
      API_KEY: `${KEY_A},${KEY_B}`,
      ADMIN_API_KEY: KEY_ADMIN,
      MAX_SESSIONS: '2',
      POOL_SIZE: '0',
      CDP_URL: chrome.url,
    });
  });
  afterAll(async () => {
    await service?.close();
    await chrome?.stop();
  });

  const on = (): TestService => {
    if (service === undefined) throw new Error('the CDP service is used before beforeAll started it');
    return service;
  };
  const as = async <T = Params>(key: string, method: string, params: Params = {}): Promise<T> => {
    const reply = await rpcAs(key, method, params, on());
    if (reply.error) throw new RpcCallError(reply.error.code, reply.error.message, reply.error.data);
    return reply.result as T;
  };

  it("another key neither reaches the tab's session nor attaches the tab; the tab counts in its key's share", async () => {
    const { tabId } = await as<{ tabId: string }>(KEY_A, 'tabs.open', {
      url: `${suite.fixture.url}/form`,
      background: true,
    });
    const { session_id: a } = await as<{ session_id: string }>(KEY_A, 'tabs.attach', { tabId });
    try {
      expect((await rpcAs(KEY_B, 'page.text', { session_id: a }, on())).error).toMatchObject({
        code: SESSION_NOT_FOUND,
        data: { reason: 'unknown' },
      });
      const { sessions } = await as<{ sessions: { session_id: string }[] }>(KEY_B, 'session.list');
      expect(sessions.map((s) => s.session_id)).not.toContain(a);
      const attach = await rpcAs(KEY_B, 'tabs.attach', { tabId }, on());
      expect(attach.error?.code).toBe(ACTION_FAILED);
      expect(attach.error?.message).not.toContain(a);
      expect(await as(KEY_A, 'tabs.attach', { tabId })).toMatchObject({ session_id: a });

      expect((await rpcAs(KEY_A, 'session.create', {}, on())).error?.data).toMatchObject({
        limit: 'MAX_SESSIONS_PER_KEY',
      });
    } finally {
      expect(await as(KEY_A, 'session.close', { session_id: a })).toEqual({ ok: true, closed: true });
    }
  });

  it("tabs.list and GET /clients/{id}/tabs show a key's tab, and its session_id, only to that key and the admin", async () => {
    const { tabId } = await as<{ tabId: string }>(KEY_A, 'tabs.open', {
      url: `${suite.fixture.url}/form`,
      background: true,
    });
    type Tab = { tabId: string; session_id: string | null; attached: boolean };
    const tabOf = async (key: string) =>
      (await as<{ tabs: Tab[] }>(key, 'tabs.list')).tabs.find((t) => t.tabId === tabId);
    expect(await tabOf(KEY_A)).toMatchObject({ session_id: null, attached: false });
    expect(await tabOf(KEY_B)).toBeUndefined();
    const { session_id: a } = await as<{ session_id: string }>(KEY_A, 'tabs.attach', { tabId });
    try {
      expect(await tabOf(KEY_A)).toMatchObject({ session_id: a, attached: true });
      expect(await tabOf(KEY_ADMIN)).toMatchObject({ session_id: a, attached: true });
      expect(await tabOf(KEY_B)).toBeUndefined();
      // Seed 000's projection of tabs.list says the same, and B's answer names A's tab nowhere.
      const rest = async (key: string) => {
        const res = await fetch(`${on().url}/clients/cdp/tabs`, { headers: { 'x-api-key': key } });
        expect(res.status).toBe(200);
        return res.text();
      };
      const seenByB = await rest(KEY_B);
      expect(seenByB).not.toContain(a);
      expect(seenByB).not.toContain(tabId);
      expect(await rest(KEY_A)).toContain(a);
    } finally {
      expect(await as(KEY_A, 'session.close', { session_id: a })).toEqual({ ok: true, closed: true });
    }
    // Detached: no session, and still A's tab, which B does not see.
    expect(await tabOf(KEY_A)).toMatchObject({ session_id: null, attached: false });
    expect(await tabOf(KEY_B)).toBeUndefined();
    await as(KEY_A, 'tabs.close', { tabId });
  });
});
