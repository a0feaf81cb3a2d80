// The answers of calls made with an idempotency_key, per caller and key, for a bounded window: a
// repeat gets the first answer instead of acting twice, a concurrent repeat waits for it. Bounded per
// caller (each API key has its own bucket, so no caller's keys can push another's out): keys (oldest
// forgotten first), bytes of answers (oldest dropped first, the key kept).
import { ServiceError, type PartWay } from '../errors/serviceError.js';
import { fingerprint, loggedKey } from './idempotencyKey.js';

export interface IdempotencyLimits {
  /** IDEMPOTENCY_TTL_MS: how long an answer is kept after the call ended. */
  ttlMs: number;
  /** IDEMPOTENCY_MAX_KEYS: keys one caller holds at most, running calls included. */
  maxKeys: number;
  /** IDEMPOTENCY_MAX_ANSWER_BYTES: a longer answer (as JSON) is not kept, only that it ran. */
  maxAnswerBytes: number;
  /** IDEMPOTENCY_MAX_BYTES: one caller's kept answers together; past it its oldest answers are dropped. */
  maxBytes: number;
}

/** What a call ended with, as its caller sees it. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: ServiceError };

/**
 * One run of a call: `ran: false` when it never started (caller gone, refused), so nothing is kept;
 * `partWay` when it stopped part way because its callers left, so the key keeps how far it got and
 * the next call with it continues from there.
 */
export interface Attempt {
  outcome: Outcome;
  ran: boolean;
  partWay?: PartWay;
}

export interface IdempotentAnswer {
  outcome: Outcome;
  /** True when this caller did not run the call: the answer is another run's (stored or awaited). */
  replayed: boolean;
}

export interface IdempotentRequest {
  /** The caller's principal id: keys of different callers never meet. */
  principal: string;
  key: string;
  method: string;
  /** The validated params without the key. */
  params: Record<string, unknown>;
}

/** Why a kept key has no answer any more. */
type Dropped = 'IDEMPOTENCY_MAX_ANSWER_BYTES' | 'IDEMPOTENCY_MAX_BYTES';

interface Stored {
  /** The answer as JSON (a replay parses it: a fresh object, what the wire carried), or why it is gone. */
  answer: { json: string; bytes: number } | { dropped: Dropped };
  ok: boolean;
  /** The error's catalogue name and message, for a stored error (its data is in json). */
  error: { name: ServiceError['errorName']; message: string } | undefined;
  expiresAt: number;
}

interface Entry {
  method: string;
  fingerprint: string;
  /** Set while the first call runs; its waiters share the promise. */
  running: Promise<Attempt> | undefined;
  stored: Stored | undefined;
  /** Set when the run stopped part way because its callers left: the next call continues it. */
  partial: { partWay: PartWay; expiresAt: number } | undefined;
}

/** What an entry costs besides its answer (key, fingerprint, bookkeeping), for IDEMPOTENCY_MAX_BYTES. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A signal that aborts once every caller waiting on a run has gone: a run whose first caller timed
 * out still counts as wanted while its retry waits, so the retry gets it instead of a run refused
 * at the session's lock. A caller without a signal (a notification, an internal call) never goes.
 */
class Interest {
  readonly controller = new AbortController();
  private live = 0;
  private pinned = false;
  private readonly detach: (() => void)[] = [];

  join(signal: AbortSignal | undefined): void {
    if (signal === undefined) this.pinned = true;
    else if (!signal.aborted) {
      this.live += 1;
      const onAbort = () => {
        this.live -= 1;
        this.check();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.detach.push(() => signal.removeEventListener('abort', onAbort));
    }
    this.check();
  }

  /** Unhooks from the callers' signals (a WebSocket's lives as long as its socket). */
  end(): void {
    for (const undo of this.detach.splice(0)) undo();
  }

  private check(): void {
    if (this.live === 0 && !this.pinned) this.controller.abort();
  }
}

/** One caller's keys and the bytes of their kept answers: the bounds hold per caller. */
interface Bucket {
  entries: Map<string, Entry>;
  answerBytes: number;
}

export class IdempotencyStore {
  /** Per caller (principal id), its keys in the order their answers were stored (oldest first). */
  private readonly buckets = new Map<string, Bucket>();
  /** Interest in each running entry's run. */
  private readonly interest = new Map<Entry, Interest>();
  /** Repeats waiting for a running call's answer. */
  private waiting = 0;

  constructor(
    private readonly limits: IdempotencyLimits,
    /** Called when a key is forgotten before its window ended (IDEMPOTENCY_MAX_KEYS). */
    private readonly onEvict: () => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keys held (running and ended), the bytes of the answers kept, repeats waiting for a run: every caller's. */
  get stats(): { keys: number; answerBytes: number; waiting: number } {
    let keys = 0;
    let answerBytes = 0;
    for (const bucket of this.buckets.values()) {
      keys += bucket.entries.size;
      answerBytes += bucket.answerBytes;
    }
    return { keys, answerBytes, waiting: this.waiting };
  }

  /**
   * The answer for this key: the stored one, the running call's once it ends, or `run`'s (which gets
   * a signal that aborts when every caller waiting for it has gone). A run that never started is
   * not kept: a waiter then runs the call itself.
   */
  async call(
    request: IdempotentRequest,
    signal: AbortSignal | undefined,
    run: (signal: AbortSignal, resume: PartWay | undefined) => Promise<Attempt>,
  ): Promise<IdempotentAnswer> {
    const print = fingerprint(request.method, request.params);
    for (;;) {
      this.sweep();
      const bucket = this.bucketOf(request.principal);
      const entry = bucket.entries.get(request.key);
      if (entry === undefined)
        return { outcome: await this.start(bucket, request, print, signal, run, undefined), replayed: false };
      if (entry.method !== request.method || entry.fingerprint !== print) throw mismatch(request, entry);
      if (entry.stored !== undefined) return { outcome: replay(request, entry.stored), replayed: true };
      const running = entry.running;
      if (running === undefined) {
        // The last run stopped part way when its callers left: this call continues it.
        if (entry.partial === undefined)
          throw new Error('an idempotency entry neither runs nor has an answer');
        bucket.entries.delete(request.key);
        const resume = entry.partial.partWay;
        return { outcome: await this.start(bucket, request, print, signal, run, resume), replayed: false };
      }
      this.interest.get(entry)?.join(signal);
      this.waiting += 1;
      const attempt = await running.finally(() => (this.waiting -= 1));
      // The run never started (all its callers had gone, or it was refused), or it stopped part way
      // as they left before this one came: run it (or the rest of it) for this one.
      if (attempt.ran && attempt.partWay === undefined) return { outcome: attempt.outcome, replayed: true };
    }
  }

  private bucketOf(principal: string): Bucket {
    let bucket = this.buckets.get(principal);
    if (bucket === undefined) {
      bucket = { entries: new Map(), answerBytes: 0 };
      this.buckets.set(principal, bucket);
    }
    return bucket;
  }

  private async start(
    bucket: Bucket,
    request: IdempotentRequest,
    print: string,
    signal: AbortSignal | undefined,
    run: (signal: AbortSignal, resume: PartWay | undefined) => Promise<Attempt>,
    resume: PartWay | undefined,
  ): Promise<Outcome> {
    this.makeRoom(bucket, request);
    const interest = new Interest();
    interest.join(signal);
    const entry: Entry = {
      method: request.method,
      fingerprint: print,
      running: undefined,
      stored: undefined,
      partial: undefined,
    };
    const running = run(interest.controller.signal, resume).catch((error: unknown): Attempt => ({
      // run maps its own errors; this only keeps a bug in it from leaving waiters hanging.
      outcome: { ok: false, error: new ServiceError('INTERNAL_ERROR', undefined, undefined, error) },
      ran: true,
    }));
    entry.running = running;
    bucket.entries.set(request.key, entry);
    this.interest.set(entry, interest);
    const attempt = await running;
    interest.end();
    this.interest.delete(entry);
    bucket.entries.delete(request.key);
    if (attempt.partWay !== undefined) {
      // Not an answer: how far it got, for the next call with the key to continue from.
      entry.running = undefined;
      entry.partial = { partWay: attempt.partWay, expiresAt: this.now() + this.limits.ttlMs };
      bucket.entries.set(request.key, entry);
    } else if (attempt.ran) {
      // Re-inserted, so the map's order is the order answers were stored in (oldest first).
      entry.running = undefined;
      entry.stored = this.keep(bucket, attempt.outcome);
      bucket.entries.set(request.key, entry);
      this.fitBytes(bucket);
    }
    // The bucket may have been swept away meanwhile (it was empty then): it holds this key now.
    if (bucket.entries.size > 0) this.buckets.set(request.principal, bucket);
    return attempt.outcome;
  }

  private keep(bucket: Bucket, outcome: Outcome): Stored {
    const expiresAt = this.now() + this.limits.ttlMs;
    const error = outcome.ok ? undefined : { name: outcome.error.errorName, message: outcome.error.message };
    const json = JSON.stringify(outcome.ok ? (outcome.value ?? null) : (outcome.error.data ?? null));
    const bytes = Buffer.byteLength(json) + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.limits.maxAnswerBytes)
      return { answer: { dropped: 'IDEMPOTENCY_MAX_ANSWER_BYTES' }, ok: outcome.ok, error, expiresAt };
    bucket.answerBytes += bytes;
    return { answer: { json, bytes }, ok: outcome.ok, error, expiresAt };
  }

  /** Drops the caller's oldest answers (their keys stay: a repeat is told, not run) until the rest fit. */
  private fitBytes(bucket: Bucket): void {
    for (const entry of bucket.entries.values()) {
      if (bucket.answerBytes <= this.limits.maxBytes) return;
      const stored = entry.stored;
      if (stored === undefined || !('json' in stored.answer)) continue;
      bucket.answerBytes -= stored.answer.bytes;
      stored.answer = { dropped: 'IDEMPOTENCY_MAX_BYTES' };
    }
  }

  /**
   * Forgets the keys whose window ended, every caller's: each bucket is stored oldest first, so its
   * sweep stops at a live one; an emptied bucket goes.
   */
  private sweep(): void {
    const now = this.now();
    for (const [principal, bucket] of this.buckets) {
      for (const [key, entry] of bucket.entries) {
        const expiresAt = entry.stored?.expiresAt ?? entry.partial?.expiresAt;
        if (expiresAt === undefined) continue;
        if (expiresAt > now) break;
        this.forget(bucket, key, entry);
      }
      if (bucket.entries.size === 0) this.buckets.delete(principal);
    }
  }

  /** Room for one more key of this caller: its oldest ended ones are forgotten; running calls never. */
  private makeRoom(bucket: Bucket, request: IdempotentRequest): void {
    for (const [key, entry] of bucket.entries) {
      if (bucket.entries.size < this.limits.maxKeys) return;
      if (entry.running !== undefined) continue;
      this.forget(bucket, key, entry);
      this.onEvict();
    }
    if (bucket.entries.size >= this.limits.maxKeys)
      throw new ServiceError(
        'LIMIT_REACHED',
        `${request.method} was not run: ${bucket.entries.size} of your calls with an idempotency_key are running, the most IDEMPOTENCY_MAX_KEYS allows one API key. Retry once some have answered.`,
        {
          method: request.method,
          reason: 'idempotency-keys',
          limit: this.limits.maxKeys,
          retryAfterMs: 1000,
        },
      );
  }

  private forget(bucket: Bucket, key: string, entry: Entry): void {
    if (entry.stored !== undefined && 'json' in entry.stored.answer)
      bucket.answerBytes -= entry.stored.answer.bytes;
    bucket.entries.delete(key);
  }
}

function mismatch(request: IdempotentRequest, entry: Entry): ServiceError {
  const what = entry.method === request.method ? 'other params' : `another method (${entry.method})`;
  return new ServiceError(
    'INVALID_PARAMS',
    `Invalid params for ${request.method}: idempotency_key "${loggedKey(request.key)}" was used with ${what} within IDEMPOTENCY_TTL_MS; a repeat must send the same method and params, a new call needs a new key.`,
    {
      method: request.method,
      reason: 'idempotency-key-reused',
      idempotency_key: request.key,
      firstMethod: entry.method,
    },
  );
}

function replay(request: IdempotentRequest, stored: Stored): Outcome {
  if ('dropped' in stored.answer) {
    throw new ServiceError(
      'LIMIT_REACHED',
      `${request.method} already ran with idempotency_key "${loggedKey(request.key)}" (${stored.ok ? 'it succeeded' : `it failed with ${stored.error?.name ?? 'an error'}`}), but its answer was too large to keep (${stored.answer.dropped}). It is not run again: read the state you need, or send a new key to run it again.`,
      {
        method: request.method,
        reason: 'idempotent-answer-not-kept',
        ran: true,
        outcome: stored.ok ? 'ok' : (stored.error?.name ?? 'error'),
        limit: stored.answer.dropped,
      },
    );
  }
  const parsed: unknown = JSON.parse(stored.answer.json);
  if (stored.ok) return { ok: true, value: parsed };
  const data =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  return {
    ok: false,
    error: new ServiceError(stored.error?.name ?? 'INTERNAL_ERROR', stored.error?.message, data),
  };
}
