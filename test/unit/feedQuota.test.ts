// The feeds one key holds across its sockets and streams (FeedQuota, MAX_SUBSCRIPTIONS_PER_KEY):
// the count itself, and openFeed (what GET /sessions/{id}/events opens) spending and giving back
// its places.
import { describe, expect, it } from 'vitest';
import { openFeed, type FeedSink, type FeedSources } from '../../src/browser/events/eventFeed.js';
import { FEED_LIMIT, FeedQuota } from '../../src/browser/events/feedQuota.js';
import { SessionLog } from '../../src/browser/events/sessionLog.js';
import { ServiceError } from '../../src/errors/serviceError.js';

const A = { id: 'key:a', admin: false };
const B = { id: 'key:b', admin: false };

describe('FeedQuota', () => {
  it('counts each key apart up to the limit; a release gives one place back, once', () => {
    const quota = new FeedQuota(3);
    const releases = [quota.take(A.id), quota.take(A.id), quota.take(A.id)];
    expect(releases.every((r) => typeof r === 'function')).toBe(true);
    expect(quota.take(A.id)).toBeUndefined();
    expect(quota.heldBy(A.id)).toBe(3);
    // Another key is not counted with A.
    expect(quota.take(B.id)).toBeTypeOf('function');
    expect(quota.heldBy(B.id)).toBe(1);
    releases[0]?.();
    releases[0]?.();
    expect(quota.heldBy(A.id)).toBe(2);
    expect(quota.take(A.id)).toBeTypeOf('function');
    expect(quota.take(A.id)).toBeUndefined();
  });

  it('forgets a key that holds nothing, and refuses a limit that is not a positive integer', () => {
    const quota = new FeedQuota(2);
    const release = quota.take(A.id);
    expect(quota.owners).toBe(1);
    release?.();
    expect(quota.owners).toBe(0);
    expect(quota.heldBy(A.id)).toBe(0);
    expect(() => new FeedQuota(0)).toThrow(RangeError);
    expect(() => new FeedQuota(1.5)).toThrow(RangeError);
  });
});

/** One session `s1` owned by A, its log, and a quota of `limit` feeds per key. */
function sources(limit: number): FeedSources & { log: SessionLog } {
  const log = new SessionLog(100);
  return {
    log,
    quota: new FeedQuota(limit),
    sessions: {
      resolve(id, caller) {
        if (id !== 's1' || caller.id !== A.id)
          throw new ServiceError('SESSION_NOT_FOUND', `no session ${id}`);
        return { log };
      },
    },
  };
}

function quietSink(): FeedSink & { ended: string[] } {
  const ended: string[] = [];
  return {
    ended,
    event: () => true,
    dropped: () => undefined,
    end: (reason) => void ended.push(reason),
    whenWritable: () => () => undefined,
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('openFeed and the quota', () => {
  it('past the limit it refuses with `limit`, naming MAX_SUBSCRIPTIONS_PER_KEY; a stopped feed frees its place', () => {
    const src = sources(2);
    const options = { cursor: undefined, kinds: undefined };
    const first = openFeed(src, 's1', A, options, quietSink());
    const second = openFeed(src, 's1', A, options, quietSink());
    expect('stop' in first && 'stop' in second).toBe(true);
    const refused = openFeed(src, 's1', A, options, quietSink());
    expect(refused).toEqual({
      refused: 'limit',
      message: expect.stringContaining(`${FEED_LIMIT} = 2`) as unknown,
    });
    expect(src.log.listening).toBe(2);
    if ('stop' in first) first.stop();
    if ('stop' in first) first.stop();
    expect(src.quota.heldBy(A.id)).toBe(1);
    const again = openFeed(src, 's1', A, options, quietSink());
    expect('stop' in again).toBe(true);
    expect(src.quota.heldBy(A.id)).toBe(2);
  });

  it('other refusals spend no place, and are said before the limit', () => {
    const src = sources(1);
    expect(openFeed(src, 's1', B, { cursor: undefined, kinds: undefined }, quietSink())).toMatchObject({
      refused: 'session',
    });
    expect(openFeed(src, 's1', A, { cursor: undefined, kinds: ['nope'] }, quietSink())).toMatchObject({
      refused: 'kinds',
    });
    expect(openFeed(src, 's1', A, { cursor: 99, kinds: undefined }, quietSink())).toMatchObject({
      refused: 'cursor',
    });
    expect(src.quota.heldBy(A.id)).toBe(0);
    expect('stop' in openFeed(src, 's1', A, { cursor: undefined, kinds: undefined }, quietSink())).toBe(true);
    // Full now: an unknown session is still said as unknown, not as the limit.
    expect(openFeed(src, 's2', A, { cursor: undefined, kinds: undefined }, quietSink())).toMatchObject({
      refused: 'session',
    });
  });

  it('a feed that ends with its session gives its place back', async () => {
    const src = sources(1);
    const sink = quietSink();
    expect('stop' in openFeed(src, 's1', A, { cursor: undefined, kinds: undefined }, sink)).toBe(true);
    expect(src.quota.heldBy(A.id)).toBe(1);
    src.log.end('closed');
    for (let i = 0; i < 5 && sink.ended.length === 0; i++) await turn();
    expect(sink.ended).toEqual(['closed']);
    expect(src.quota.heldBy(A.id)).toBe(0);
  });
});
