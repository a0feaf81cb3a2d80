// One session's log read by many subscriptions: each entry is serialised once and shared, the
// session.event notification is framed around that text, and a socket that is not read holds a
// bounded amount (SocketPush's MAX_PUSH_BUFFERED_BYTES plus one entry per subscription) while what
// its subscriptions miss reaches them as dropped counts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventFeed } from '../../src/browser/events/eventFeed.js';
import { SessionLog, type LogEvent } from '../../src/browser/events/sessionLog.js';
import { MAX_PUSH_BUFFERED_BYTES, SocketPush, type PushSocket } from '../../src/http/socketPush.js';
import {
  MAX_SUBSCRIPTIONS_PER_SOCKET,
  SESSION_EVENT,
  subscriptionSink,
} from '../../src/methods/session/sessionSubscribe.js';

/** A WebSocket stand-in: what is sent is kept, and counts as buffered until `drain()` while not read. */
class FakeSocket implements PushSocket {
  readonly OPEN = 1 as const;
  readyState: PushSocket['readyState'] = 1;
  bufferedAmount = 0;
  /** The most bufferedAmount reached. */
  peak = 0;
  reading = true;
  readonly sent: string[] = [];

  send(data: unknown): void {
    if (typeof data !== 'string') throw new TypeError('notifications are sent as text');
    this.sent.push(data);
    if (this.reading) return;
    this.bufferedAmount += Buffer.byteLength(data);
    this.peak = Math.max(this.peak, this.bufferedAmount);
  }

  /** The client reads again: everything buffered leaves. */
  drain(): void {
    this.reading = true;
    this.bufferedAmount = 0;
  }

  notifications(): { jsonrpc: string; method: string; params: Record<string, unknown> }[] {
    return this.sent.map(
      (s) => JSON.parse(s) as { jsonrpc: string; method: string; params: Record<string, unknown> },
    );
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** Polls `done` once per turn of the event loop (timers included) until it holds or `ms` pass. */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const closers: AbortController[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const c of closers.splice(0)) c.abort();
});

/** `n` subscriptions of session s1 on one socket, read from `cursor`, started. */
function subscribeMany(log: SessionLog, socket: FakeSocket, n: number, cursor = 0): EventFeed[] {
  const closed = new AbortController();
  closers.push(closed);
  const push = new SocketPush(socket, closed.signal).forCall(Promise.resolve());
  return Array.from({ length: n }, (_, i) => {
    const feed = new EventFeed(log, subscriptionSink(push, 's1', `sub_${i}`), { cursor, kinds: undefined });
    feed.start();
    return feed;
  });
}

const plain = (e: LogEvent | undefined) => JSON.parse(JSON.stringify(e)) as unknown;

describe('an entry sent to many subscriptions', () => {
  it('is frozen, serialised once for every feed, and the same text each time', async () => {
    const log = new SessionLog(100);
    const socket = new FakeSocket();
    const stringify = vi.spyOn(JSON, 'stringify');
    subscribeMany(log, socket, 20);
    for (let i = 0; i < 5; i++) log.record({ kind: 'console', level: 'log', text: `line ${i}` });
    await until(() => socket.sent.length === 100, 2000, 'every subscription to send every entry');
    // Log entries are the frozen objects stringified (a string is frozen too: not counted).
    const ofEntries = stringify.mock.calls.filter(
      ([value]) => typeof value === 'object' && value !== null && Object.isFrozen(value),
    );
    expect(ofEntries).toHaveLength(5);
    const entry = log.since(0).events[0];
    expect(Object.isFrozen(entry)).toBe(true);
    expect(entry === undefined ? undefined : log.json(entry)).toBe(JSON.stringify(entry));
  });

  it('is framed as a JSON-RPC session.event notification: session_id, subscription_id, event, dropped, ended', async () => {
    const log = new SessionLog(3);
    const socket = new FakeSocket();
    const [feed] = subscribeMany(log, socket, 1);
    // Quotes, a newline, a backslash and non-ASCII go through the shared text unharmed.
    log.record({ kind: 'console', level: 'error', text: 'a "quoted"\nline \\ é ☃', location: 'x.js:1' });
    await until(() => socket.sent.length === 1, 2000, 'the first notification');
    expect(socket.notifications()[0]).toEqual({
      jsonrpc: '2.0',
      method: SESSION_EVENT,
      params: { session_id: 's1', subscription_id: 'sub_0', event: plain(log.since(0).events[0]) },
    });
    // Backed up past the mark: the feed pauses, the log (capacity 3) drops what it could not send.
    socket.reading = false;
    socket.bufferedAmount = MAX_PUSH_BUFFERED_BYTES + 1;
    log.record({ kind: 'navigation', url: 'http://localhost/a' });
    await until(() => socket.sent.length === 2, 2000, 'the notification that finds the socket backed up');
    for (let i = 0; i < 6; i++) log.record({ kind: 'navigation', url: `http://localhost/${i}` });
    await turn();
    expect(socket.sent).toHaveLength(2);
    socket.drain();
    await until(() => socket.sent.length === 5, 2000, 'the rest after the drain');
    const [, , resumed] = socket.notifications();
    expect(resumed?.params).toEqual({
      session_id: 's1',
      subscription_id: 'sub_0',
      event: plain(log.since(0).events[0]),
      dropped: 3,
    });
    expect(Object.keys(resumed?.params ?? {})).toEqual(['session_id', 'subscription_id', 'event', 'dropped']);
    log.end('closed');
    await until(() => socket.sent.length === 6, 2000, 'the end');
    expect(socket.notifications()[5]?.params).toEqual({
      session_id: 's1',
      subscription_id: 'sub_0',
      ended: 'closed',
    });
    expect(feed?.active).toBe(false);
  });
});

describe('a socket that is not read', () => {
  it(`holds at most MAX_PUSH_BUFFERED_BYTES plus one entry per subscription; what its ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions miss arrives counted`, async () => {
    const log = new SessionLog(200);
    const socket = new FakeSocket();
    socket.reading = false;
    const feeds = subscribeMany(log, socket, MAX_SUBSCRIPTIONS_PER_SOCKET);
    const total = 5000;
    // ~3 KB an entry: unbounded, 32 subscriptions would buffer ~500 MB.
    const text = 'x'.repeat(3000);
    for (let i = 0; i < total; i += 100) {
      for (let j = 0; j < 100; j++) log.record({ kind: 'console', level: 'log', text: `${text} ${i + j}` });
      await turn();
    }
    await turn();
    const largest = Math.max(...socket.sent.map((s) => Buffer.byteLength(s)));
    expect(socket.peak).toBeGreaterThan(MAX_PUSH_BUFFERED_BYTES);
    expect(socket.peak).toBeLessThanOrEqual(MAX_PUSH_BUFFERED_BYTES + MAX_SUBSCRIPTIONS_PER_SOCKET * largest);
    expect(socket.sent.length).toBeLessThan((total * MAX_SUBSCRIPTIONS_PER_SOCKET) / 10);
    // The client reads again: every subscription goes on, and learns what it lost.
    socket.drain();
    log.end('closed');
    await until(() => feeds.every((f) => !f.active), 5000, 'every subscription to reach the end');
    const bySubscription = new Map<string, { events: number; dropped: number; ended: boolean }>();
    for (const { params } of socket.notifications()) {
      const id = String(params.subscription_id);
      const seen = bySubscription.get(id) ?? { events: 0, dropped: 0, ended: false };
      if (params.event !== undefined) seen.events++;
      if (typeof params.dropped === 'number') seen.dropped += params.dropped;
      if (params.ended !== undefined) seen.ended = true;
      bySubscription.set(id, seen);
    }
    expect(bySubscription.size).toBe(MAX_SUBSCRIPTIONS_PER_SOCKET);
    for (const [id, seen] of bySubscription) {
      // Nothing lost silently: each entry was sent or counted.
      expect(seen.events + seen.dropped, id).toBe(total);
      expect(seen.dropped, id).toBeGreaterThan(0);
      expect(seen.ended, id).toBe(true);
    }
  });
});
