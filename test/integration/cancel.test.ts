// A caller that goes away (HTTP request closed, WebSocket closed) while its call waits for the
// session lock: the call never runs, so a retry does not repeat a call that had not started.
// Each test waits for the service's own state (calls on the session) before the caller leaves, so
// the order of events does not depend on timing.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor, type JsonRpcReply } from '../helpers/testService.js';

/** How long the holder call keeps the session's lock: long enough for every step of a test. */
const HOLD_MS = 5000;
/** Bound on waiting for the service to reach a state. */
const STATE_TIMEOUT_MS = 10_000;

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

/** Waits until this many calls run on the session or wait for its lock. */
async function callsOn(session_id: string, n: number): Promise<void> {
  await waitFor(
    () => suite.service.running.services.sessions.get(session_id)?.calls === n,
    STATE_TIMEOUT_MS,
    `${n} calls on the session`,
  );
}

/**
 * Starts a call that holds the session's lock for HOLD_MS and returns once it has the lock, with
 * its answer still to come (wrapped, so awaiting this does not wait for the answer).
 */
async function hold(session_id: string): Promise<{ answer: Promise<JsonRpcReply> }> {
  const answer = suite.service.rpc('page.waitFor', { session_id, state: 'idleFor', ms: HOLD_MS });
  await callsOn(session_id, 1);
  return { answer };
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

/** Log lines of calls that did not run because their caller had gone. */
function callerGoneLines(): number {
  return suite.service.logs.filter((l) => l.includes('"reason":"caller-gone"')).length;
}

/**
 * Posts to the service and gives up, as a client with a short timeout does, once `ready` holds
 * (the call has reached the session). Returns what fetch gave: the abort error.
 */
async function postAndAbandon(
  path: string,
  body: string,
  ready: () => Promise<void>,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const impatient = new AbortController();
  const answer = fetch(`${suite.service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, ...headers },
    body,
    signal: impatient.signal,
  }).catch((error: unknown) => error);
  await ready();
  impatient.abort();
  return answer;
}

describe('a caller that has gone', () => {
  it('over HTTP: a call still queued behind the session lock never runs', async () => {
    const session_id = await openSession();
    const holder = await hold(session_id);
    const before = callerGoneLines();
    const abandoned = await postAndAbandon(
      '/rpc',
      rpcBody('page.evaluate', { session_id, expression: INCREMENT }),
      () => callsOn(session_id, 2),
    );
    expect(abandoned).toBeInstanceOf(Error);
    expect((await holder.answer).error).toBeUndefined();
    expect(await runs(session_id)).toBe(0);
    await waitFor(() => callerGoneLines() > before, STATE_TIMEOUT_MS, 'the caller-gone log line');
    // Control: the same call from a caller that waits does run.
    await suite.service.call('page.evaluate', { session_id, expression: INCREMENT });
    expect(await runs(session_id)).toBe(1);
  });

  it('over MCP: a tool call whose connection closes while it is queued never runs', async () => {
    const session_id = await openSession();
    const holder = await hold(session_id);
    const before = callerGoneLines();
    const abandoned = await postAndAbandon(
      // page_evaluate is in the inspect group of tools.
      '/mcp?groups=inspect',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'page_evaluate', arguments: { session_id, expression: INCREMENT } },
      }),
      () => callsOn(session_id, 2),
      { accept: 'application/json, text/event-stream' },
    );
    expect(abandoned).toBeInstanceOf(Error);
    expect((await holder.answer).error).toBeUndefined();
    expect(await runs(session_id)).toBe(0);
    await waitFor(() => callerGoneLines() > before, STATE_TIMEOUT_MS, 'the caller-gone log line');
  });

  it('over the WebSocket: calls queued when the socket closes never run; notifications still do', async () => {
    const session_id = await openSession();
    const holder = await hold(session_id);
    const before = callerGoneLines();
    const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
      headers: { 'x-api-key': TEST_API_KEY },
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(rpcBody('page.evaluate', { session_id, expression: INCREMENT }));
    // A notification (no id): its caller never waits, so the socket closing does not cancel it.
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'page.evaluate',
        params: { session_id, expression: 'window.__notified = true' },
      }),
    );
    await callsOn(session_id, 3);
    ws.terminate();
    expect((await holder.answer).error).toBeUndefined();
    expect(await runs(session_id)).toBe(0);
    await waitFor(() => callerGoneLines() > before, STATE_TIMEOUT_MS, 'the caller-gone log line');
    const notified = await suite.service.call<{ result: unknown }>('page.evaluate', {
      session_id,
      expression: 'window.__notified ?? false',
    });
    expect(notified.result).toBe(true);
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
        () => callsOn(session_id, 1),
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
