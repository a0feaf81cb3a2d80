import { describe, expect, it } from 'vitest';
import { EventFeed, FEED_BATCH, type FeedSink } from '../../src/browser/events/eventFeed.js';
import { MAX_EVENT_TEXT_CHARS, SessionLog, type LogEvent } from '../../src/browser/events/sessionLog.js';

const line = (text: string) => ({ kind: 'console' as const, level: 'log', text });

describe('SessionLog', () => {
  it('numbers entries 1, 2, … and reads after a cursor without draining', () => {
    const log = new SessionLog(10);
    expect(log.latest).toBe(0);
    log.record(line('a'));
    log.record({ kind: 'request', url: 'http://x/', page_id: undefined });
    log.record(line('b'));
    const read = log.since(1);
    expect(read.events.map((e) => e.seq)).toEqual([2, 3]);
    expect(read).toMatchObject({ dropped: 0, cursor: 3 });
    expect(log.since(1)).toEqual(read);
    // Undefined fields are left out; seq, kind and timestamp are the log's.
    expect(read.events[0]).toEqual({
      seq: 2,
      kind: 'request',
      timestamp: expect.any(String) as unknown,
      url: 'http://x/',
    });
  });

  it('filters by kind and still moves the cursor past the others', () => {
    const log = new SessionLog(10);
    log.record(line('a'));
    log.record({ kind: 'navigation', url: 'u' });
    expect(log.since(0, new Set(['navigation']))).toMatchObject({ events: [{ seq: 2 }], cursor: 2 });
    expect(log.since(0, new Set(['crash']))).toMatchObject({ events: [], cursor: 2 });
  });

  it('keeps its capacity, counts what a reader behind lost, and bounds a read with max', () => {
    const log = new SessionLog(3);
    for (let i = 0; i < 8; i++) log.record(line(String(i)));
    const read = log.since(0);
    expect(read.events.map((e) => e.text)).toEqual(['5', '6', '7']);
    expect(read.dropped).toBe(5);
    expect(log.since(6).dropped).toBe(0);
    expect(log.since(4)).toMatchObject({ dropped: 1, events: [{ seq: 6 }, { seq: 7 }, { seq: 8 }] });
    expect(log.since(0, undefined, 2)).toMatchObject({ events: [{ seq: 6 }, { seq: 7 }], cursor: 7 });
  });

  it('refuses a cursor that is not one of its seqs, and a capacity that is not positive', () => {
    const log = new SessionLog(3);
    log.record(line('a'));
    expect(() => log.since(2)).toThrow(RangeError);
    expect(() => log.since(-1)).toThrow(RangeError);
    expect(() => new SessionLog(0)).toThrow(RangeError);
  });

  it(`cuts a text past MAX_EVENT_TEXT_CHARS (${MAX_EVENT_TEXT_CHARS})`, () => {
    const log = new SessionLog(3);
    log.record(line('x'.repeat(MAX_EVENT_TEXT_CHARS + 10)));
    const text = String(log.since(0).events[0]?.text);
    expect(text.startsWith('x'.repeat(MAX_EVENT_TEXT_CHARS))).toBe(true);
    expect(text).toContain('[10 more chars]');
  });

  it('tells listeners, ends once, and records nothing after the end', () => {
    const log = new SessionLog(3);
    const seen: string[] = [];
    const stop = log.listen({ recorded: () => seen.push('r'), ended: (why) => seen.push(why) });
    log.record(line('a'));
    log.end('closed');
    log.end('expired');
    expect(log.record(line('b'))).toBe(0);
    expect(seen).toEqual(['r', 'closed']);
    expect(log.listening).toBe(0);
    stop();
    const late: string[] = [];
    log.listen({ recorded: () => late.push('r'), ended: (why) => late.push(why) });
    expect(late).toEqual(['closed']);
  });
});

/** A sink that takes `room` entries, then is backed up until `drain()`. */
function sink(room: number) {
  const got: (LogEvent | { dropped: number } | { end: string })[] = [];
  let free = room;
  let resume: (() => void) | undefined;
  let cancelled = 0;
  const s: FeedSink = {
    event: (e) => {
      got.push(e);
      free--;
      return free > 0;
    },
    dropped: (n) => void got.push({ dropped: n }),
    end: (reason) => void got.push({ end: reason }),
    whenWritable: (r) => {
      resume = r;
      return () => {
        cancelled += 1;
        resume = undefined;
      };
    },
  };
  return {
    s,
    got,
    cancelled: () => cancelled,
    drain(n: number) {
      free = n;
      const r = resume;
      resume = undefined;
      r?.();
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const settle = async () => {
  for (let i = 0; i < 20; i++) await turn();
};

describe('EventFeed', () => {
  it('pauses while its transport is backed up; entries the log dropped meanwhile arrive as a count, never buffered', async () => {
    const log = new SessionLog(5);
    const out = sink(2);
    const feed = new EventFeed(log, out.s, { cursor: 0, kinds: undefined });
    feed.start();
    for (let i = 1; i <= 2; i++) log.record(line(String(i)));
    await settle();
    expect(out.got.map((g) => ('seq' in g ? g.seq : g))).toEqual([1, 2]);
    for (let i = 3; i <= 12; i++) log.record(line(String(i)));
    await settle();
    expect(out.got).toHaveLength(2);
    out.drain(100);
    await settle();
    // 3..7 went out of the log (capacity 5) while the transport was backed up.
    expect(out.got.slice(2)).toEqual([
      { dropped: 5 },
      ...[8, 9, 10, 11, 12].map((seq) => expect.objectContaining({ seq }) as unknown),
    ]);
    log.end('closed');
    await settle();
    expect(out.got.at(-1)).toEqual({ end: 'closed' });
    expect(feed.active).toBe(false);
  });

  it('reads a long backlog in batches, filtered by kind; stop() ends delivery', async () => {
    const log = new SessionLog(1000);
    for (let i = 0; i < FEED_BATCH * 2 + 5; i++)
      log.record(i % 2 === 0 ? line(String(i)) : { kind: 'request', url: 'u' });
    const out = sink(10_000);
    const feed = new EventFeed(log, out.s, { cursor: 0, kinds: new Set(['console']) });
    feed.start();
    await settle();
    expect(out.got).toHaveLength(FEED_BATCH + 3);
    feed.stop();
    log.record(line('late'));
    await settle();
    expect(out.got).toHaveLength(FEED_BATCH + 3);
    expect(log.listening).toBe(0);
  });

  it('stop() while it waits for a backed-up transport cancels the wait', async () => {
    const log = new SessionLog(10);
    const out = sink(1);
    const feed = new EventFeed(log, out.s, { cursor: 0, kinds: undefined });
    feed.start();
    log.record(line('fills the transport'));
    await settle();
    expect(out.cancelled()).toBe(0);
    feed.stop();
    expect(out.cancelled()).toBe(1);
    expect(log.listening).toBe(0);
  });
});
