// The session event log and its readers (issue 13): session.subscribe on WebSocket /rpc, GET
// /sessions/{id}/events (Server-Sent Events), logs.pull / network.pull with since, against the real
// service, Chromium and the fixture app (test/fixtures/routes/events.ts).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useServiceSuite } from '../helpers/suite.js';
import { Inbox } from '../helpers/inbox.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

/** Bound on any single wait for a message or an event. */
const WAIT_MS = 20_000;
const OTHER_KEY = 'other-key-0123456789abc';
const AGENT_SECRET = 'events-agent-secret-5b1d9e2c';
/** Small, so a flood of requests overflows it. */
const LOG_CAPACITY = 200;

const suite = useServiceSuite({
  API_KEY: `${TEST_API_KEY},${OTHER_KEY}`,
  MAX_SESSION_EVENTS: String(LOG_CAPACITY),
  // An action's settle waits for the request flood to end, so its report comes after it.
  ACTION_SETTLE_MS: '20000',
  AGENT_SECRET,
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

interface LogEvent {
  seq: number;
  kind: string;
  timestamp: string;
  [field: string]: unknown;
}
interface Notification {
  jsonrpc: '2.0';
  method?: string;
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  params?: {
    session_id: string;
    subscription_id: string;
    event?: LogEvent;
    dropped?: number;
    ended?: string;
  };
}

/** A WebSocket /rpc client: calls answered by id, notifications kept in arrival order. */
class Socket {
  readonly inbox = new Inbox<Notification>();
  private nextId = 1;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => this.inbox.push(JSON.parse(data.toString('utf8')) as Notification));
  }

  static async open(key = TEST_API_KEY): Promise<Socket> {
    const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
      headers: { 'x-api-key': key },
    });
    cleanups.push(() => ws.terminate());
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Socket(ws);
  }

  async rpc(method: string, params: Record<string, unknown>): Promise<Notification> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.inbox.next((m) => m.id === id, `the answer to ${method}`, WAIT_MS);
  }

  async subscribe(params: Record<string, unknown>): Promise<string> {
    const answer = await this.rpc('session.subscribe', params);
    expect(answer.error).toBeUndefined();
    return String(answer.result?.subscription_id);
  }

  /** Notifications of one subscription received so far. */
  of(subscription: string): NonNullable<Notification['params']>[] {
    return this.inbox.received
      .filter((m) => m.method === 'session.event' && m.params?.subscription_id === subscription)
      .flatMap((m) => (m.params === undefined ? [] : [m.params]));
  }
}

interface Frame {
  id?: string;
  event: string;
  data: string;
}

/** GET /sessions/{id}/events read frame by frame (exactly as the /ui parses it). */
async function openStream(
  sessionId: string,
  options: { key?: string; lastEventId?: string; query?: string } = {},
): Promise<{
  status: number;
  frames: Frame[];
  raw: () => string;
  ended: Promise<void>;
  close(): void;
  body?: string;
  contentType?: string | null;
}> {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const res = await fetch(`${suite.service.url}/sessions/${sessionId}/events${options.query ?? ''}`, {
    headers: {
      authorization: `Bearer ${options.key ?? TEST_API_KEY}`,
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
    },
    signal: abort.signal,
  });
  if (res.status !== 200)
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      frames: [],
      raw: () => '',
      ended: Promise.resolve(),
      close: () => undefined,
      body: await res.text(),
    };
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames: Frame[] = [];
  let text = '';
  let buffer = '';
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    for (;;) {
      const chunk = await reader?.read().catch(() => ({ done: true, value: undefined }));
      if (chunk === undefined || chunk.done) return;
      const s = decoder.decode(chunk.value, { stream: true });
      text += s;
      buffer += s;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue;
        const frame: Frame = { event: 'message', data: '' };
        for (const line of block.split('\n')) {
          const colon = line.indexOf(': ');
          const [name, value] = [line.slice(0, colon), line.slice(colon + 2)];
          if (name === 'id') frame.id = value;
          else if (name === 'event') frame.event = value;
          else if (name === 'data') frame.data = value;
        }
        frames.push(frame);
      }
    }
  })();
  return { status: 200, frames, raw: () => text, ended, close: () => abort.abort() };
}

const eventsOf = (frames: Frame[]): LogEvent[] =>
  frames.filter((f) => f.event === 'session.event').map((f) => JSON.parse(f.data) as LogEvent);

async function openSession(path: string): Promise<string> {
  return suite.open(path);
}

const call = <T = Record<string, unknown>>(method: string, params: Record<string, unknown>) =>
  suite.service.call<T>(method, params);

/** Crashes one page's renderer through CDP (killing renderer processes would hit every session). */
async function crash(sessionId: string): Promise<void> {
  const session = suite.service.running.services.sessions.get(sessionId);
  if (session === undefined) throw new Error('no session');
  const cdp = await session.context.newCDPSession(session.page);
  // The renderer dies before it can answer: the command never settles, so it is not awaited.
  cdp.send('Page.crash').catch(() => undefined);
}

describe('the session event log, pushed', () => {
  it('every kind reaches a WebSocket subscriber and an SSE stream in seq order, the same entries; the end ends both', async () => {
    const id = await openSession('/events/all');
    const ws = await Socket.open();
    const sub = await ws.subscribe({ session_id: id });
    const sse = await openStream(id);
    expect(sse.status).toBe(200);

    const click = await call<{ consoleErrors?: string[]; failedRequests?: { failure: string }[] }>(
      'page.click',
      {
        session_id: id,
        selector: '#all',
      },
    );
    // The action's report reads the same as before the log existed.
    expect(click.consoleErrors).toContain('events: error line');
    expect(click.failedRequests?.map((f) => f.failure)).toContain('HTTP 404');
    await waitFor(
      () =>
        ws.of(sub).some((n) => n.event?.kind === 'page') &&
        ws.of(sub).some((n) => n.event?.kind === 'download'),
      WAIT_MS,
      'the popup and the download',
    );
    await call('pages.close', { session_id: id, page_id: 'p2' });
    await call('page.goto', { session_id: id, url: `${suite.fixture.url}/events/popup`, waitUntil: 'load' });
    await crash(id);
    await waitFor(() => ws.of(sub).some((n) => n.event?.kind === 'crash'), WAIT_MS, 'the crash');
    await call('session.close', { session_id: id });
    await waitFor(() => ws.of(sub).some((n) => n.ended !== undefined), WAIT_MS, 'the end notification');
    await sse.ended;

    const pushed = ws.of(sub);
    const ended = pushed.at(-1);
    expect(ended).toMatchObject({ session_id: id, subscription_id: sub, ended: 'closed' });
    const events = pushed.flatMap((n) => (n.event === undefined ? [] : [n.event]));
    const kinds = new Set(events.map((e) => e.kind));
    for (const kind of [
      'console',
      'pageerror',
      'request',
      'response',
      'requestfailed',
      'dialog',
      'navigation',
      'download',
      'page',
      'pageclosed',
      'crash',
    ])
      expect(kinds, kind).toContain(kind);
    // seq strictly increasing by one: nothing lost, nothing repeated.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => (events[0]?.seq ?? 0) + i));
    expect(events.find((e) => e.kind === 'console' && e.level === 'warning')).toMatchObject({
      text: 'events: warn line',
      page_id: 'p1',
    });
    expect(events.find((e) => e.kind === 'response' && e.status === 404)).toMatchObject({
      method: 'GET',
      resourceType: 'fetch',
    });
    expect(String(events.find((e) => e.kind === 'requestfailed')?.failure)).toMatch(/^net::ERR_/);
    expect(String(events.find((e) => e.kind === 'pageerror')?.message)).toContain('events: uncaught');
    expect(events.find((e) => e.kind === 'dialog')).toMatchObject({
      type: 'alert',
      message: 'events: alert',
    });
    expect(events.find((e) => e.kind === 'page')).toMatchObject({ page_id: 'p2', opener: 'p1' });
    expect(events.find((e) => e.kind === 'pageclosed')).toMatchObject({ page_id: 'p2' });
    expect(
      events.find((e) => e.kind === 'navigation' && String(e.url).endsWith('/events/popup')),
    ).toMatchObject({ page_id: 'p1' });
    // Order: the warn line before the 404's response, the popup before its close.
    const at = (k: (e: LogEvent) => boolean) => events.findIndex(k);
    expect(at((e) => e.kind === 'console' && e.level === 'warning')).toBeLessThan(
      at((e) => e.kind === 'response' && e.status === 404),
    );
    expect(at((e) => e.kind === 'page')).toBeLessThan(at((e) => e.kind === 'pageclosed'));

    // The SSE reader got the same entries, framed exactly: id = seq, event: session.event, one data line.
    expect(eventsOf(sse.frames)).toEqual(events);
    expect(
      sse.frames
        .filter((f) => f.event === 'session.event')
        .every((f) => f.id === String((JSON.parse(f.data) as LogEvent).seq)),
    ).toBe(true);
    expect(sse.frames.at(-1)).toEqual({ event: 'end', data: '{"reason":"closed"}' });
    expect(sse.raw()).toContain(
      `id: ${events[0]?.seq}\nevent: session.event\ndata: {"seq":${events[0]?.seq},`,
    );
  });

  it('resumes from a cursor: since on subscribe, Last-Event-ID and ?since= on the stream; kinds filter', async () => {
    const id = await openSession('/events/all');
    for (let i = 0; i < 3; i++) await call('page.click', { session_id: id, selector: '#log' });
    const all = (
      await call<{ console: { seq: number; text: string }[] }>('logs.pull', { session_id: id, since: 0 })
    ).console;
    const lines = all.filter((c) => c.text.startsWith('events: once'));
    expect(lines).toHaveLength(3);
    const cursor = lines[0]?.seq ?? 0;

    const ws = await Socket.open();
    const sub = await ws.subscribe({ session_id: id, since: cursor, kinds: ['console'] });
    await waitFor(() => ws.of(sub).length >= 2, WAIT_MS, 'the backlog');
    expect(ws.of(sub).map((n) => n.event?.seq)).toEqual(lines.slice(1).map((l) => l.seq));

    const byHeader = await openStream(id, { lastEventId: String(cursor), query: '?kinds=console' });
    const byQuery = await openStream(id, { query: `?since=${cursor}&kinds=console,pageerror` });
    await waitFor(
      () => eventsOf(byHeader.frames).length >= 2 && eventsOf(byQuery.frames).length >= 2,
      WAIT_MS,
      'the streams',
    );
    expect(eventsOf(byHeader.frames).map((e) => e.seq)).toEqual(lines.slice(1).map((l) => l.seq));
    expect(eventsOf(byQuery.frames).map((e) => e.seq)).toEqual(lines.slice(1).map((l) => l.seq));
    // Without a cursor, only what comes next; a new entry reaches all three.
    const fresh = await openStream(id);
    await call('page.click', { session_id: id, selector: '#log' });
    await waitFor(
      () => eventsOf(fresh.frames).some((e) => e.kind === 'console'),
      WAIT_MS,
      'the fresh stream',
    );
    expect(eventsOf(fresh.frames).every((e) => e.seq > (lines[2]?.seq ?? 0))).toBe(true);
    await waitFor(
      () => ws.of(sub).length === 3 && eventsOf(byHeader.frames).length === 3,
      WAIT_MS,
      'the new line everywhere',
    );
    // kinds=console: no request, response or navigation reached them.
    expect(new Set(eventsOf(byHeader.frames).map((e) => e.kind))).toEqual(new Set(['console']));
    await call('session.close', { session_id: id });
  });

  it("a page's request flood overflows the log: readers behind get dropped: N, the action's console error stays in its report", async () => {
    const id = await openSession('/events/flood?n=300');
    // The settle waits for the flood to end (ACTION_SETTLE_MS is raised for this suite): the report
    // is built after 600 entries (a request and a response each) went through a log of 200.
    const click = await call<{
      consoleErrors?: string[];
      failedRequests?: unknown[];
      more?: Record<string, number>;
    }>('page.click', { session_id: id, selector: '#flood' });
    expect(click.consoleErrors).toEqual(['events: before the flood']);
    expect(click.more).toBeUndefined();
    expect(click.failedRequests).toBeUndefined();
    expect((await call<{ text: string }>('page.text', { session_id: id, selector: '#out' })).text).toBe(
      'flooded',
    );

    const pulled = await call<{ console: { seq: number }[]; dropped: { console: number }; cursor: number }>(
      'logs.pull',
      {
        session_id: id,
        since: 0,
      },
    );
    expect(pulled.dropped.console).toBeGreaterThan(0);
    const first = pulled.dropped.console + 1;

    const ws = await Socket.open();
    const sub = await ws.subscribe({ session_id: id, since: 0 });
    await waitFor(() => ws.of(sub).length > 0, WAIT_MS, 'the backlog');
    expect(ws.of(sub)[0]).toMatchObject({ dropped: pulled.dropped.console, event: { seq: first } });

    const sse = await openStream(id, { lastEventId: '0' });
    await waitFor(() => sse.frames.length >= 2, WAIT_MS, 'the stream backlog');
    expect(sse.frames[0]).toEqual({
      event: 'dropped',
      data: JSON.stringify({ dropped: pulled.dropped.console }),
    });
    expect(sse.frames[1]?.id).toBe(String(first));
    // The log holds at most its capacity.
    const held = await call<{ requests: unknown[]; dropped: number }>('network.pull', {
      session_id: id,
      since: 0,
      onlyErrors: false,
    });
    expect(held.requests.length).toBeLessThanOrEqual(LOG_CAPACITY);
    expect(held.dropped).toBeGreaterThan(0);
    await call('session.close', { session_id: id });
  });

  it('unsubscribe stops one subscription, the other on the socket goes on; closing the socket ends its subscriptions', async () => {
    const id = await openSession('/events/all');
    const ws = await Socket.open();
    const a = await ws.subscribe({ session_id: id, kinds: ['console'] });
    const b = await ws.subscribe({ session_id: id, kinds: ['console'] });
    expect(a).not.toBe(b);
    expect((await ws.rpc('session.unsubscribe', { subscription_id: a })).result).toEqual({ stopped: true });
    expect((await ws.rpc('session.unsubscribe', { subscription_id: a })).result).toEqual({ stopped: false });
    await call('page.click', { session_id: id, selector: '#log' });
    await waitFor(() => ws.of(b).length > 0, WAIT_MS, 'b to get the line');
    expect(ws.of(a)).toEqual([]);
    const log = suite.service.running.services.sessions.get(id)?.log;
    expect(log?.listening).toBe(1);
    ws.ws.close();
    await waitFor(() => log?.listening === 0, WAIT_MS, 'the socket close to stop b');
    await call('session.close', { session_id: id });
  });
});

describe('pulls with since', () => {
  it('read without draining: two readers both see the entries, with their seq; draining pulls are unchanged', async () => {
    const id = await openSession('/events/all');
    await call('page.click', { session_id: id, selector: '#all' });
    await waitFor(
      async () =>
        (await call<{ requests: unknown[] }>('network.pull', { session_id: id, since: 0 })).requests.length >=
        2,
      WAIT_MS,
      'the failed requests',
    );
    type Logs = {
      console: { seq: number; type: string; text: string }[];
      pageErrors: { seq: number }[];
      cursor?: number;
    };
    const one = await call<Logs>('logs.pull', { session_id: id, since: 0 });
    const two = await call<Logs>('logs.pull', { session_id: id, since: 0 });
    expect(two.console).toEqual(one.console);
    expect(one.console.find((c) => c.text === 'events: warn line')).toMatchObject({
      type: 'warning',
      seq: expect.any(Number) as unknown,
    });
    const net = await call<{ requests: { seq: number; status: number | null }[]; cursor: number }>(
      'network.pull',
      {
        session_id: id,
        since: 0,
      },
    );
    expect(net.requests.map((r) => r.status)).toEqual(expect.arrayContaining([404, null]));
    expect(
      (await call<{ requests: unknown[] }>('network.pull', { session_id: id, since: 0 })).requests,
    ).toEqual(net.requests);
    // From the cursor on: nothing new yet.
    const after = await call<Logs>('logs.pull', { session_id: id, since: one.cursor });
    expect(after.console).toEqual([]);
    expect(after.cursor).toBeGreaterThanOrEqual(one.cursor ?? 0);
    // The draining pull still has everything (since never drained), with the same seqs, then drains.
    const drained = await call<Logs>('logs.pull', { session_id: id });
    expect(drained.cursor).toBeUndefined();
    expect(drained.console.map((c) => c.seq)).toEqual(expect.arrayContaining(one.console.map((c) => c.seq)));
    expect((await call<Logs>('logs.pull', { session_id: id })).console).toEqual([]);
    const drainedNet = await call<{ requests: { seq: number }[] }>('network.pull', { session_id: id });
    expect(drainedNet.requests.map((r) => r.seq)).toEqual(net.requests.map((r) => r.seq));
    await call('session.close', { session_id: id });
  });
});

describe('refusals', () => {
  it("another key's session is refused on both streams, answered as an unknown one; a key never goes in the URL", async () => {
    const id = await openSession('/events/all');
    const other = await Socket.open(OTHER_KEY);
    const refused = await other.rpc('session.subscribe', { session_id: id });
    expect(refused.error?.code).toBe(-32010);
    const unknown = await other.rpc('session.subscribe', {
      session_id: 's_00000000-0000-4000-8000-000000000000',
    });
    expect(refused.error?.message).toBe(
      unknown.error?.message.replace('s_00000000-0000-4000-8000-000000000000', id),
    );

    const theirs = await openStream(id, { key: OTHER_KEY });
    const none = await openStream('s_00000000-0000-4000-8000-000000000000');
    expect(theirs.status).toBe(404);
    // A refusal is JSON, not an event stream.
    expect(theirs.contentType).toMatch(/^application\/json/);
    expect(theirs.body).toBe(none.body?.replace('s_00000000-0000-4000-8000-000000000000', id));
    // No key, or a key in the query string: 401 before anything is looked up.
    expect((await fetch(`${suite.service.url}/sessions/${id}/events`)).status).toBe(401);
    expect((await fetch(`${suite.service.url}/sessions/${id}/events?api_key=${TEST_API_KEY}`)).status).toBe(
      401,
    );
    await call('session.close', { session_id: id });
  });

  it('bad params are refused: POST /rpc and MCP cannot subscribe, unknown kinds, cursors past the log', async () => {
    const id = await openSession('/events/all');
    const posted = await suite.service.rpc('session.subscribe', { session_id: id });
    expect(posted.error?.code).toBe(-32600);
    expect(posted.error?.message).toMatch(/WebSocket \/rpc.*GET \/sessions\/\{id\}\/events/);

    const ws = await Socket.open();
    expect((await ws.rpc('session.subscribe', { session_id: id, kinds: ['bogus'] })).error?.code).toBe(
      -32602,
    );
    expect((await ws.rpc('session.subscribe', { session_id: id, since: 1_000_000 })).error?.code).toBe(
      -32602,
    );
    expect((await ws.rpc('session.unsubscribe', {})).error?.code).toBe(-32602);
    await expect(call('logs.pull', { session_id: id, since: 1_000_000 })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(call('logs.pull', { session_id: id, since: -1 })).rejects.toMatchObject({ code: -32602 });
    await expect(call('network.pull', { session_id: id, since: 1_000_000 })).rejects.toMatchObject({
      code: -32602,
    });

    expect((await openStream(id, { query: '?kinds=console,bogus' })).status).toBe(400);
    expect((await openStream(id, { lastEventId: 'abc' })).status).toBe(400);
    expect((await openStream(id, { query: '?since=1000000' })).status).toBe(400);

    // MCP: not listed; called anyway, a clear refusal.
    const client = new Client({ name: 'events-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': TEST_API_KEY } },
      }),
    );
    cleanups.push(() => void client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('logs_pull');
    expect(tools.map((t) => t.name)).not.toContain('session_subscribe');
    const viaMcp = await client.callTool({ name: 'session_subscribe', arguments: { session_id: id } });
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toMatch(/needs a connection that can carry notifications/);
    await call('session.close', { session_id: id });
  });
});

describe('MCP progress', () => {
  it('agents_evaluate reports progress to a caller that passed a progress token while the agent works', async () => {
    const agent = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/agents`);
    cleanups.push(() => agent.terminate());
    const inbox = new Inbox<{ type?: string; method?: string; id?: unknown }>();
    agent.on('message', (data: Buffer) => inbox.push(JSON.parse(data.toString('utf8')) as { type?: string }));
    await inbox.next((m) => m.type === 'welcome', 'welcome', WAIT_MS);
    const send = (m: unknown) => agent.send(JSON.stringify(m));
    send({
      type: 'register',
      clientId: randomUUID(),
      secretKey: AGENT_SECRET,
      capabilities: { tools: ['slow'], maxConcurrency: 1, version: 'test-1.0.0' },
    });
    expect(await inbox.next((m) => m.type === 'registration_ack', 'registration_ack', WAIT_MS)).toMatchObject(
      {
        status: 'accepted',
      },
    );
    send({ type: 'ready', timestamp: new Date().toISOString() });

    const client = new Client({ name: 'events-progress', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp?groups=agents`), {
        requestInit: { headers: { 'x-api-key': TEST_API_KEY } },
      }),
    );
    cleanups.push(() => void client.close());
    const progress: Progress[] = [];
    const answer = client.callTool(
      { name: 'agents_evaluate', arguments: { tool: 'slow', input: {}, timeout: 60_000 } },
      undefined,
      { timeout: 60_000, onprogress: (p) => progress.push(p) },
    );
    const request = await inbox.next((m) => m.method === 'evaluate', 'the evaluate request', WAIT_MS);
    // The agent answers only once the caller has seen the start and a tick while it ran.
    await waitFor(() => progress.length >= 2, WAIT_MS, 'progress while the agent works');
    send({ jsonrpc: '2.0', id: request.id, result: { status: 'success', output: { done: true } } });
    const result = await answer;
    expect(result.isError).toBeFalsy();
    expect(progress[0]?.progress).toBe(0);
    expect(progress[1]?.message).toMatch(/agents_evaluate running/);
    expect(progress.at(-1)?.message).toMatch(/finished/);
  });
});
