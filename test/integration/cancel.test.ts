// A caller that goes away (HTTP request closed, WebSocket closed) while its call waits for the
// session lock: the call never runs, so a client that timed out and retries does not act twice.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

/** How long the holder call keeps the session's lock. */
const HOLD_MS = 2000;
/** When the impatient caller gives up, well inside HOLD_MS. */
const GIVE_UP_MS = 300;

const suite = useServiceSuite({ POOL_SIZE: '0' });
let sessionId: string | undefined;

afterEach(async () => {
  if (sessionId !== undefined) await suite.service.call('session.close', { session_id: sessionId });
  sessionId = undefined;
});

async function openSession(): Promise<string> {
  const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {});
  sessionId = session_id;
  await suite.service.call('page.goto', {
    session_id,
    url: `${suite.fixture.url}/static`,
    waitUntil: 'load',
  });
  return session_id;
}

const INCREMENT = 'window.__runs = (window.__runs ?? 0) + 1';

async function runs(session_id: string): Promise<number> {
  return (
    await suite.service.call<{ result: number }>('page.evaluate', {
      session_id,
      expression: 'window.__runs ?? 0',
    })
  ).result;
}

function rpcBody(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
}

/** Posts to the service and gives up after GIVE_UP_MS, as a client with a short timeout does. */
async function postAndAbandon(
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const impatient = new AbortController();
  const timer = setTimeout(() => impatient.abort(), GIVE_UP_MS);
  try {
    return await fetch(`${suite.service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, ...headers },
      body,
      signal: impatient.signal,
    }).catch((error: unknown) => error);
  } finally {
    clearTimeout(timer);
  }
}

describe('a caller that has gone', () => {
  it('over HTTP: a call still queued behind the session lock never runs', async () => {
    const session_id = await openSession();
    const holder = suite.service.rpc('page.waitFor', { session_id, state: 'idleFor', ms: HOLD_MS });
    const abandoned = await postAndAbandon(
      '/rpc',
      rpcBody('page.evaluate', { session_id, expression: INCREMENT }),
    );
    expect(abandoned).toBeInstanceOf(Error);
    expect((await holder).error).toBeUndefined();
    expect(await runs(session_id)).toBe(0);
    await waitFor(
      () => suite.service.logs.some((l) => l.includes('the caller disconnected while it waited')),
      5000,
      'the log line of the call that did not run',
    );
    // Control: the same call from a caller that waits does run.
    await suite.service.call('page.evaluate', { session_id, expression: INCREMENT });
    expect(await runs(session_id)).toBe(1);
  });

  it('over MCP: a tool call whose connection closes while it is queued never runs', async () => {
    const session_id = await openSession();
    const holder = suite.service.rpc('page.waitFor', { session_id, state: 'idleFor', ms: HOLD_MS });
    const abandoned = await postAndAbandon(
      '/mcp',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'page_evaluate', arguments: { session_id, expression: INCREMENT } },
      }),
      { accept: 'application/json, text/event-stream' },
    );
    expect(abandoned).toBeInstanceOf(Error);
    expect((await holder).error).toBeUndefined();
    expect(await runs(session_id)).toBe(0);
  });

  it('over the WebSocket: calls queued when the socket closes never run', async () => {
    const session_id = await openSession();
    const holder = suite.service.rpc('page.waitFor', { session_id, state: 'idleFor', ms: HOLD_MS });
    const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
      headers: { 'x-api-key': TEST_API_KEY },
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(rpcBody('page.evaluate', { session_id, expression: INCREMENT }));
    await new Promise((resolve) => setTimeout(resolve, GIVE_UP_MS));
    ws.terminate();
    expect((await holder).error).toBeUndefined();
    expect(await runs(session_id)).toBe(0);
  });

  it(
    'a page.waitFor idleFor pause ends when its caller goes, freeing the session',
    { timeout: 30_000 },
    async () => {
      const session_id = await openSession();
      // The longest pause there is: were it not cut short, the next call would wait past this test's timeout.
      const abandoned = await postAndAbandon(
        '/rpc',
        rpcBody('page.waitFor', { session_id, state: 'idleFor', ms: 60_000 }),
      );
      expect(abandoned).toBeInstanceOf(Error);
      const { text } = await suite.service.call<{ text: string }>('page.text', {
        session_id,
        selector: 'main',
      });
      expect(text.length).toBeGreaterThan(0);
    },
  );
});
