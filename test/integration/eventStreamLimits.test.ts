// The event streams' limits, refused (issue 13): the 17th GET /sessions/{id}/events stream of one
// key (MAX_EVENT_STREAMS_PER_KEY), the 33rd session.subscribe on one WebSocket
// (MAX_SUBSCRIPTIONS_PER_SOCKET), and the heartbeat comment (EVENT_STREAM_HEARTBEAT_MS, lowered
// here). The caps are constants, so the streams and subscriptions are real ones on one session.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_EVENT_STREAMS_PER_KEY } from '../../src/http/eventStream.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/methods/session/sessionSubscribe.js';
import { Inbox } from '../helpers/inbox.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

const WAIT_MS = 20_000;
const OTHER_KEY = 'other-key-limits-0123456789';
const HEARTBEAT_MS = 200;

const suite = useServiceSuite({
  API_KEY: `${TEST_API_KEY},${OTHER_KEY}`,
  EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

interface Stream {
  status: number;
  body: string;
  /** Everything the stream sent so far, comment lines included. */
  raw(): string;
  close(): void;
}

/** Opens GET /sessions/{id}/events; a refusal's body is read whole, a stream's as it comes. */
async function openStream(sessionId: string, key = TEST_API_KEY): Promise<Stream> {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const res = await fetch(`${suite.service.url}/sessions/${sessionId}/events`, {
    headers: { authorization: `Bearer ${key}` },
    signal: abort.signal,
  });
  if (res.status !== 200)
    return { status: res.status, body: await res.text(), raw: () => '', close: () => abort.abort() };
  let text = '';
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      // An aborted stream rejects its read: that is its end here.
      const chunk = await reader?.read().catch(() => ({ done: true, value: undefined }));
      if (chunk === undefined || chunk.done) return;
      text += decoder.decode(chunk.value, { stream: true });
    }
  })();
  return { status: 200, body: '', raw: () => text, close: () => abort.abort() };
}

interface Reply {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

async function openSocket(): Promise<{ rpc(method: string, params: unknown): Promise<Reply> }> {
  const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
    headers: { 'x-api-key': TEST_API_KEY },
  });
  cleanups.push(() => ws.terminate());
  const inbox = new Inbox<Reply>();
  ws.on('message', (data: Buffer) => inbox.push(JSON.parse(data.toString('utf8')) as Reply));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  return {
    rpc(method, params) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return inbox.next((m) => m.id === id, `the answer to ${method}`, WAIT_MS);
    },
  };
}

describe('event stream limits', () => {
  it(`the ${MAX_EVENT_STREAMS_PER_KEY + 1}th open stream of one key is 429; another key is not counted; closing one admits one`, async () => {
    const id = await suite.open('/events/all');
    const streams: Stream[] = [];
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_KEY; i++) {
      const stream = await openStream(id);
      expect(stream.status, `stream ${i + 1}`).toBe(200);
      streams.push(stream);
    }
    const refused = await openStream(id);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      error: expect.stringContaining(`MAX_EVENT_STREAMS_PER_KEY = ${MAX_EVENT_STREAMS_PER_KEY}`) as unknown,
    });
    // The count is per key: the other key's stream is admitted (and its session is not theirs: 404,
    // past the cap check, which proves the cap did not refuse it).
    expect((await openStream(id, OTHER_KEY)).status).toBe(404);
    // A closed stream frees its place once the service sees the close.
    streams[0]?.close();
    let again: Stream | undefined;
    await waitFor(
      async () => {
        const attempt = await openStream(id);
        if (attempt.status === 200) again = attempt;
        return attempt.status === 200;
      },
      WAIT_MS,
      'a place after a close',
    );
    expect(again?.status).toBe(200);
    expect((await openStream(id)).status).toBe(429);
    await suite.service.call('session.close', { session_id: id });
  });

  it(`the ${MAX_SUBSCRIPTIONS_PER_SOCKET + 1}th session.subscribe on one socket is LIMIT_REACHED; an unsubscribe admits one`, async () => {
    const id = await suite.open('/events/all');
    const socket = await openSocket();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) {
      const answer = await socket.rpc('session.subscribe', { session_id: id });
      expect(answer.error, `subscription ${i + 1}`).toBeUndefined();
      ids.push(String(answer.result?.subscription_id));
    }
    const refused = await socket.rpc('session.subscribe', { session_id: id });
    expect(refused.error?.code).toBe(-32003);
    expect(refused.error?.message).toMatch(/MAX_SUBSCRIPTIONS_PER_SOCKET/);
    expect(refused.error?.data).toMatchObject({ limit: 'MAX_SUBSCRIPTIONS_PER_SOCKET' });
    const log = suite.service.running.services.sessions.get(id)?.log;
    expect(log?.listening).toBe(MAX_SUBSCRIPTIONS_PER_SOCKET);
    // Another socket has its own count.
    const other = await openSocket();
    expect((await other.rpc('session.subscribe', { session_id: id })).error).toBeUndefined();
    expect((await socket.rpc('session.unsubscribe', { subscription_id: ids[0] })).result).toEqual({
      stopped: true,
    });
    expect((await socket.rpc('session.subscribe', { session_id: id })).error).toBeUndefined();
    expect((await socket.rpc('session.subscribe', { session_id: id })).error?.code).toBe(-32003);
    await suite.service.call('session.close', { session_id: id });
  });

  it('an open stream sends a `: ping` comment line every EVENT_STREAM_HEARTBEAT_MS while nothing happens', async () => {
    const id = await suite.open('/events/all');
    const stream = await openStream(id);
    expect(stream.status).toBe(200);
    await waitFor(() => stream.raw().split(': ping\n\n').length > 2, WAIT_MS, 'two heartbeats');
    // Only comment lines: no event was made up to fill the silence.
    expect(stream.raw().replaceAll(': ping\n\n', '')).toBe('');
    stream.close();
    await suite.service.call('session.close', { session_id: id });
  });
});
