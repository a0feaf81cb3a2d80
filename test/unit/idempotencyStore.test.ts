// The idempotency store alone: windows, bounds, fingerprints, concurrent repeats and runs that never
// started. A fake clock, so no test waits for time to pass.
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/errors/serviceError.js';
import { canonicalJson, fingerprint, loggedKey } from '../../src/rpc/idempotencyKey.js';
import {
  IdempotencyStore,
  type Attempt,
  type IdempotencyLimits,
  type IdempotentRequest,
} from '../../src/rpc/idempotencyStore.js';

const LIMITS: IdempotencyLimits = { ttlMs: 1000, maxKeys: 100, maxAnswerBytes: 10_000, maxBytes: 100_000 };

function storeWith(limits: Partial<IdempotencyLimits> = {}) {
  let now = 0;
  let evictions = 0;
  const store = new IdempotencyStore(
    { ...LIMITS, ...limits },
    () => (evictions += 1),
    () => now,
  );
  return {
    store,
    advance: (ms: number) => (now += ms),
    evictions: () => evictions,
  };
}

function req(
  key: string,
  params: Record<string, unknown> = { a: 1 },
  principal = 'key:one',
): IdempotentRequest {
  return { principal, key, method: 'page.click', params };
}

/** A run that counts itself and answers `value`. */
function counter(value: unknown = { ok: true }) {
  let runs = 0;
  return {
    run: (): Promise<Attempt> => {
      runs += 1;
      return Promise.resolve({ outcome: { ok: true, value }, ran: true });
    },
    runs: () => runs,
  };
}

/** A run that stays open until released, so a test can make repeats while it runs. */
function gate() {
  let release: (attempt: Attempt) => void = () => undefined;
  let runs = 0;
  let signal: AbortSignal | undefined;
  return {
    run: (s: AbortSignal): Promise<Attempt> => {
      runs += 1;
      signal = s;
      return new Promise<Attempt>((resolve) => (release = resolve));
    },
    release: (attempt: Attempt) => release(attempt),
    runs: () => runs,
    signal: () => signal,
  };
}

async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('IdempotencyStore', () => {
  it('a repeat within the window gets the stored answer without running; after it, runs again', async () => {
    const { store, advance } = storeWith();
    const c = counter({ clicked: true });
    const first = await store.call(req('k1'), undefined, c.run);
    expect(first).toEqual({ outcome: { ok: true, value: { clicked: true } }, replayed: false });
    advance(999);
    const again = await store.call(req('k1'), undefined, c.run);
    expect(again).toEqual({ outcome: { ok: true, value: { clicked: true } }, replayed: true });
    expect(c.runs()).toBe(1);
    advance(1);
    const late = await store.call(req('k1'), undefined, c.run);
    expect(late.replayed).toBe(false);
    expect(c.runs()).toBe(2);
  });

  it('keeps an error the handler answered, and replays it with its code, message and data', async () => {
    const { store } = storeWith();
    let runs = 0;
    const failing = (): Promise<Attempt> => {
      runs += 1;
      const error = new ServiceError('ACTION_FAILED', 'no such button', {
        method: 'page.click',
        selector: '#x',
      });
      return Promise.resolve({ outcome: { ok: false, error }, ran: true });
    };
    await store.call(req('k'), undefined, failing);
    const again = await store.call(req('k'), undefined, failing);
    expect(runs).toBe(1);
    expect(again.replayed).toBe(true);
    if (again.outcome.ok) throw new Error('expected the stored error');
    expect(again.outcome.error.errorName).toBe('ACTION_FAILED');
    expect(again.outcome.error.message).toBe('no such button');
    expect(again.outcome.error.data).toEqual({ method: 'page.click', selector: '#x' });
  });

  it('keeps nothing of a run that never started: the retry runs', async () => {
    const { store } = storeWith();
    const gone = new ServiceError('RESOURCE_UNAVAILABLE', 'not run', { reason: 'caller-gone' });
    await store.call(req('k'), undefined, () =>
      Promise.resolve({ outcome: { ok: false, error: gone }, ran: false }),
    );
    const c = counter();
    const retry = await store.call(req('k'), undefined, c.run);
    expect(retry.replayed).toBe(false);
    expect(c.runs()).toBe(1);
    expect(store.stats.keys).toBe(1);
  });

  it('the same key with other params, or another method, is INVALID_PARAMS; key order does not matter', async () => {
    const { store } = storeWith();
    const c = counter();
    await store.call(req('k', { a: 1, b: { x: 1, y: 2 } }), undefined, c.run);
    const reordered = await store.call(req('k', { b: { y: 2, x: 1 }, a: 1 }), undefined, c.run);
    expect(reordered.replayed).toBe(true);
    await expect(store.call(req('k', { a: 2, b: { x: 1, y: 2 } }), undefined, c.run)).rejects.toMatchObject({
      errorName: 'INVALID_PARAMS',
      data: { reason: 'idempotency-key-reused', firstMethod: 'page.click' },
    });
    const other = { ...req('k', { a: 1, b: { x: 1, y: 2 } }), method: 'page.fill' };
    await expect(store.call(other, undefined, c.run)).rejects.toMatchObject({
      errorName: 'INVALID_PARAMS',
      message: expect.stringContaining('another method (page.click)') as string,
    });
    expect(c.runs()).toBe(1);
  });

  it('keys of different principals never meet', async () => {
    const { store } = storeWith();
    const one = counter('one');
    const two = counter('two');
    await store.call(req('shared', { a: 1 }, 'key:one'), undefined, one.run);
    const theirs = await store.call(req('shared', { a: 2 }, 'key:two'), undefined, two.run);
    expect(theirs).toEqual({ outcome: { ok: true, value: 'two' }, replayed: false });
    expect((await store.call(req('shared', { a: 1 }, 'key:one'), undefined, one.run)).outcome).toEqual({
      ok: true,
      value: 'one',
    });
    expect([one.runs(), two.runs()]).toEqual([1, 1]);
  });

  it('a concurrent repeat waits for the running call and gets its answer', async () => {
    const { store } = storeWith();
    const g = gate();
    const first = store.call(req('k'), undefined, g.run);
    const second = store.call(req('k'), undefined, g.run);
    await settled();
    expect(g.runs()).toBe(1);
    g.release({ outcome: { ok: true, value: { n: 1 } }, ran: true });
    expect(await first).toEqual({ outcome: { ok: true, value: { n: 1 } }, replayed: false });
    expect(await second).toEqual({ outcome: { ok: true, value: { n: 1 } }, replayed: true });
  });

  it("the run's signal aborts only once every caller waiting for it has gone", async () => {
    const { store } = storeWith();
    const g = gate();
    const firstCaller = new AbortController();
    const retry = new AbortController();
    const first = store.call(req('k'), firstCaller.signal, g.run);
    await settled();
    firstCaller.abort();
    // Nobody waits now: the run is told (at the session's lock it would not start).
    expect(g.signal()?.aborted).toBe(true);

    const g3 = gate();
    const caller = new AbortController();
    const run3 = store.call(req('k3'), caller.signal, g3.run);
    const joined = store.call(req('k3'), retry.signal, g3.run);
    await settled();
    caller.abort();
    // The retry still waits: the run is still wanted.
    expect(g3.signal()?.aborted).toBe(false);
    g3.release({ outcome: { ok: true, value: 3 }, ran: true });
    expect((await joined).outcome).toEqual({ ok: true, value: 3 });
    expect((await run3).replayed).toBe(false);
    g.release({ outcome: { ok: true, value: 1 }, ran: true });
    await first;
  });

  it('a waiter whose run never started runs the call itself', async () => {
    const { store } = storeWith();
    const g = gate();
    const first = store.call(req('k'), undefined, g.run);
    const c = counter('mine');
    const second = store.call(req('k'), undefined, c.run);
    await settled();
    const gone = new ServiceError('RESOURCE_UNAVAILABLE', 'not run', { reason: 'caller-gone' });
    g.release({ outcome: { ok: false, error: gone }, ran: false });
    expect((await first).outcome.ok).toBe(false);
    expect(await second).toEqual({ outcome: { ok: true, value: 'mine' }, replayed: false });
    expect(c.runs()).toBe(1);
  });

  it('a run cut short as its callers left is not the answer: the next call continues from where it stopped', async () => {
    const { store, advance } = storeWith();
    const cut = new ServiceError('RESOURCE_UNAVAILABLE', 'stopped part way', { reason: 'caller-gone' });
    const partWay = { method: 'page.click', done: 3 };
    const first = await store.call(req('k'), undefined, () =>
      Promise.resolve({ outcome: { ok: false, error: cut }, ran: true, partWay }),
    );
    expect(first.outcome.ok).toBe(false);
    expect(store.stats.keys).toBe(1);
    // Other params with the key are still refused: the key names this call.
    await expect(store.call(req('k', { a: 2 }), undefined, counter().run)).rejects.toMatchObject({
      errorName: 'INVALID_PARAMS',
    });
    const resumes: unknown[] = [];
    const retry = await store.call(req('k'), undefined, (_signal, resume) => {
      resumes.push(resume);
      return Promise.resolve({ outcome: { ok: true, value: 'rest typed' }, ran: true });
    });
    expect(retry).toEqual({ outcome: { ok: true, value: 'rest typed' }, replayed: false });
    expect(resumes).toEqual([partWay]);
    // Finished: that answer is the key's now.
    const c = counter();
    expect(await store.call(req('k'), undefined, c.run)).toEqual({
      outcome: { ok: true, value: 'rest typed' },
      replayed: true,
    });
    expect(c.runs()).toBe(0);
    // A stop part way is kept for the window only: after it the key is forgotten, and runs from the start.
    await store.call(req('j'), undefined, () =>
      Promise.resolve({ outcome: { ok: false, error: cut }, ran: true, partWay }),
    );
    advance(LIMITS.ttlMs + 1);
    const fresh: unknown[] = [];
    await store.call(req('j'), undefined, (_signal, resume) => {
      fresh.push(resume);
      return Promise.resolve({ outcome: { ok: true, value: 1 }, ran: true });
    });
    expect(fresh).toEqual([undefined]);
  });

  it('a waiter that came as the run was cut short continues it itself', async () => {
    const { store } = storeWith();
    const g = gate();
    const first = store.call(req('k'), undefined, g.run);
    const resumes: unknown[] = [];
    const second = store.call(req('k'), undefined, (_signal, resume) => {
      resumes.push(resume);
      return Promise.resolve({ outcome: { ok: true, value: 'mine' }, ran: true });
    });
    await settled();
    const cut = new ServiceError('RESOURCE_UNAVAILABLE', 'stopped part way', { reason: 'caller-gone' });
    g.release({ outcome: { ok: false, error: cut }, ran: true, partWay: { method: 'page.click', done: 2 } });
    expect((await first).outcome.ok).toBe(false);
    expect(await second).toEqual({ outcome: { ok: true, value: 'mine' }, replayed: false });
    expect(resumes).toEqual([{ method: 'page.click', done: 2 }]);
  });

  it('past IDEMPOTENCY_MAX_KEYS the oldest ended key is forgotten, and counted', async () => {
    const { store, evictions } = storeWith({ maxKeys: 2 });
    const c = counter();
    await store.call(req('a'), undefined, c.run);
    await store.call(req('b'), undefined, c.run);
    await store.call(req('c'), undefined, c.run);
    expect(store.stats.keys).toBe(2);
    expect(evictions()).toBe(1);
    expect((await store.call(req('b'), undefined, c.run)).replayed).toBe(true);
    expect(c.runs()).toBe(3);
    // a was forgotten: it runs again (and pushes out b, now the oldest).
    expect((await store.call(req('a'), undefined, c.run)).replayed).toBe(false);
    expect(c.runs()).toBe(4);
  });

  it('never forgets a running call: when every kept key runs, a new key is LIMIT_REACHED', async () => {
    const { store } = storeWith({ maxKeys: 1 });
    const g = gate();
    const running = store.call(req('a'), undefined, g.run);
    await settled();
    const c = counter();
    await expect(store.call(req('b'), undefined, c.run)).rejects.toMatchObject({
      errorName: 'LIMIT_REACHED',
      data: { reason: 'idempotency-keys', limit: 1 },
    });
    expect(c.runs()).toBe(0);
    g.release({ outcome: { ok: true, value: 1 }, ran: true });
    await running;
    expect((await store.call(req('b'), undefined, c.run)).replayed).toBe(false);
  });

  it('an answer over IDEMPOTENCY_MAX_ANSWER_BYTES reaches its callers; a later repeat is told, never run', async () => {
    const { store } = storeWith({ maxAnswerBytes: 1000 });
    const big = 'x'.repeat(2000);
    const g = gate();
    const first = store.call(req('k'), undefined, g.run);
    const waiting = store.call(req('k'), undefined, g.run);
    await settled();
    g.release({ outcome: { ok: true, value: big }, ran: true });
    expect((await first).outcome).toEqual({ ok: true, value: big });
    expect((await waiting).outcome).toEqual({ ok: true, value: big });
    expect(store.stats.answerBytes).toBe(0);
    await expect(store.call(req('k'), undefined, g.run)).rejects.toMatchObject({
      errorName: 'LIMIT_REACHED',
      data: {
        reason: 'idempotent-answer-not-kept',
        ran: true,
        outcome: 'ok',
        limit: 'IDEMPOTENCY_MAX_ANSWER_BYTES',
      },
    });
    expect(g.runs()).toBe(1);
  });

  it('past IDEMPOTENCY_MAX_BYTES the oldest answers are dropped, their keys kept', async () => {
    const { store } = storeWith({ maxAnswerBytes: 1000, maxBytes: 2000 });
    const c = counter('y'.repeat(600));
    await store.call(req('a'), undefined, c.run);
    await store.call(req('b'), undefined, c.run);
    await store.call(req('c'), undefined, c.run);
    expect(store.stats.answerBytes).toBeLessThanOrEqual(2000);
    await expect(store.call(req('a'), undefined, c.run)).rejects.toMatchObject({
      data: { reason: 'idempotent-answer-not-kept', limit: 'IDEMPOTENCY_MAX_BYTES' },
    });
    expect((await store.call(req('c'), undefined, c.run)).replayed).toBe(true);
    expect(c.runs()).toBe(3);
    expect(store.stats.keys).toBe(3);
  });

  it("the bounds hold per caller: one key's calls never push out another key's keys or answers", async () => {
    const { store, evictions } = storeWith({ maxKeys: 2, maxAnswerBytes: 1000, maxBytes: 2000 });
    const c = counter('z'.repeat(600));
    await store.call(req('theirs', { a: 1 }, 'key:two'), undefined, c.run);
    // The other caller fills its keys many times over, and its bytes too.
    for (let i = 0; i < 10; i += 1) await store.call(req(`mine-${i}`), undefined, c.run);
    expect(evictions()).toBe(8);
    const theirs = await store.call(req('theirs', { a: 1 }, 'key:two'), undefined, c.run);
    expect(theirs).toEqual({ outcome: { ok: true, value: 'z'.repeat(600) }, replayed: true });
    expect(c.runs()).toBe(11);
    // Every kept running call of one caller refuses only that caller's new keys.
    const [g1, g2] = [gate(), gate()];
    const running = [store.call(req('r1'), undefined, g1.run), store.call(req('r2'), undefined, g2.run)];
    await settled();
    await expect(store.call(req('r3'), undefined, c.run)).rejects.toMatchObject({
      errorName: 'LIMIT_REACHED',
    });
    expect((await store.call(req('new', { a: 1 }, 'key:two'), undefined, c.run)).replayed).toBe(false);
    g1.release({ outcome: { ok: true, value: 1 }, ran: true });
    g2.release({ outcome: { ok: true, value: 2 }, ran: true });
    await Promise.all(running);
  });

  it('a replay is a fresh copy: changing one answer does not change the next', async () => {
    const { store } = storeWith();
    const c = counter({ list: [1] });
    await store.call(req('k'), undefined, c.run);
    const a = await store.call(req('k'), undefined, c.run);
    if (a.outcome.ok) (a.outcome.value as { list: number[] }).list.push(2);
    const b = await store.call(req('k'), undefined, c.run);
    expect(b.outcome).toEqual({ ok: true, value: { list: [1] } });
  });
});

describe('idempotency keys', () => {
  it('canonical JSON sorts keys at every depth; the fingerprint follows it', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 1, e: 2 }] } })).toBe(
      '{"a":{"c":[{"e":2,"f":1}],"d":2},"b":1}',
    );
    expect(fingerprint('m', { a: 1, b: 2 })).toBe(fingerprint('m', { b: 2, a: 1 }));
    expect(fingerprint('m', { a: 1 })).not.toBe(fingerprint('n', { a: 1 }));
    expect(fingerprint('m', { a: [1, 2] })).not.toBe(fingerprint('m', { a: [2, 1] }));
  });

  it('a log line carries at most 64 characters of a key', () => {
    expect(loggedKey('short')).toBe('short');
    expect(loggedKey('k'.repeat(255))).toBe(`${'k'.repeat(64)}…`);
  });
});
