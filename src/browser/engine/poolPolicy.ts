// The warm pool's policy: how many ready contexts to keep, and how many to open now,
// learned from the recent creates. Pure: time comes in as `now` and the service's state as numbers,
// so unit tests drive it; contextPool.ts does what it says.
//
// Before this, the pool refilled only after POOL_REFILL_IDLE_MS without a call or a create, so a
// caller creating sessions back to back drained it and every later create opened its context inline
// (~the floor's newContext + newPage). Now creates are demand: the pool grows to the creates that
// arrived within DEMAND_SPAN_OPENS context openings (POOL_SIZE..POOL_MAX_SIZE, within MAX_SESSIONS),
// and while creates keep arriving it refills at once: POOL_MAX_OPENING at a time, but never while a
// session call runs or within CALL_GAP_MS of one. An opening costs Chromium's browser process
// 100-400 ms of the CPU every session's calls need; refilling while another tenant's calls ran made
// them 5-10x slower (bench --only neighbours, session churn: control p50 165 ms with the refill
// running under its calls, 27 ms without a pool). A caller whose own calls keep the pool from
// refilling gets its context opened for it on create, as without a pool.

/** The limits, from the configuration. */
export interface PoolPolicyLimits {
  /** POOL_SIZE: the size with no demand; 0 turns the pool off. */
  minSize: number;
  /** POOL_MAX_SIZE: the most ready contexts under demand. */
  maxSize: number;
  /** POOL_MAX_OPENING: background openings at once while no call runs. */
  maxOpening: number;
  /** POOL_DEMAND_WINDOW_MS: how far back creates count. */
  windowMs: number;
  /** POOL_REFILL_IDLE_MS: with no demand, the refill waits this long without calls. */
  refillIdleMs: number;
}

/** What the pool and the service look like when the policy decides. */
export interface PoolState {
  now: number;
  /** Ready contexts. */
  ready: number;
  /** Contexts being opened by the pool. */
  opening: number;
  /** Contexts MAX_SESSIONS still allows beyond every session, reservation, ready and opening one. */
  room: number;
  /** Session calls running now (a create or a close is not one). */
  callsRunning: number;
  /** Milliseconds since a call, create or close last ran (0 while one runs). */
  idleMs: number;
  /** Milliseconds since a session call last ran, creates and closes aside (0 while one runs). */
  callIdleMs: number;
}

/** What to do now. */
export interface PoolDecision {
  /** Openings to start now. */
  open: number;
  /** Ready contexts to close (the demand passed). */
  shrink: number;
  /** The pool is short but waits (calls run, or the idle time has not passed): look again later. */
  waiting: boolean;
}

/**
 * The refill waits this long after any session call before it opens a context, even while creates
 * keep arriving: back-to-back calls leave gaps of a few milliseconds, and an opening started in one
 * runs under the next call.
 */
export const CALL_GAP_MS = 50;
/** The pool holds the creates that arrived within this many context openings (its refill time). */
export const DEMAND_SPAN_OPENS = 2;
/** Creates within POOL_DEMAND_WINDOW_MS from which the refill no longer waits for idle time. */
export const URGENT_CREATES = 2;
/** What an opening is taken to cost until one was measured. */
export const INITIAL_OPEN_MS = 300;
/** Weight of the newest opening in the moving average of the opening time. */
export const OPEN_MS_WEIGHT = 0.3;
/** Openings longer than this are counted as this (one stall must not size the pool to its maximum). */
export const OPEN_MS_CAP = 5_000;
/** Creates remembered at most, whatever the window (the memory bound of the demand log). */
export const DEMAND_SAMPLES_MAX = 4_096;

export class PoolPolicy {
  /** Times of recent creates, oldest first. */
  private creates: number[] = [];
  private openMs = INITIAL_OPEN_MS;

  constructor(readonly limits: PoolPolicyLimits) {}

  /** A create that asked the pool for a context, whether it got one or not. */
  recordCreate(now: number): void {
    this.creates.push(now);
    if (this.creates.length > DEMAND_SAMPLES_MAX)
      this.creates.splice(0, this.creates.length - DEMAND_SAMPLES_MAX);
  }

  /** How long one background opening took. */
  recordOpen(ms: number): void {
    const sample = Math.min(Math.max(ms, 0), OPEN_MS_CAP);
    this.openMs = this.openMs * (1 - OPEN_MS_WEIGHT) + sample * OPEN_MS_WEIGHT;
  }

  /** The moving average of the opening time. */
  get openEstimateMs(): number {
    return this.openMs;
  }

  /** Creates within the window before `now`. */
  demand(now: number): number {
    this.forget(now);
    return this.creates.length;
  }

  /** The most creates within any DEMAND_SPAN_OPENS openings' time in the window. */
  peak(now: number): number {
    this.forget(now);
    const span = DEMAND_SPAN_OPENS * this.openMs;
    let most = 0;
    let first = 0;
    for (let last = 0; last < this.creates.length; last++) {
      const at = this.creates[last] ?? 0;
      while ((this.creates[first] ?? at) < at - span) first++;
      most = Math.max(most, last - first + 1);
    }
    return most;
  }

  /** Ready contexts the pool aims at: the peak demand within POOL_SIZE..POOL_MAX_SIZE (0 when off). */
  target(now: number): number {
    const { minSize, maxSize } = this.limits;
    if (minSize === 0) return 0;
    return Math.min(maxSize, Math.max(minSize, this.peak(now)));
  }

  decide(state: PoolState): PoolDecision {
    const target = this.target(state.now);
    // Above POOL_SIZE the target falls as the demand passes: look again until it has.
    const decaying = target > this.limits.minSize;
    if (state.ready > target)
      // Closing costs CPU too: never while calls run, nor within CALL_GAP_MS of one.
      return state.callsRunning === 0 && state.callIdleMs >= CALL_GAP_MS
        ? { open: 0, shrink: state.ready - target, waiting: decaying }
        : { open: 0, shrink: 0, waiting: true };
    const short = Math.min(target - state.ready - state.opening, state.room);
    if (short <= 0) return { open: 0, shrink: 0, waiting: decaying };
    const urgent = this.demand(state.now) >= URGENT_CREATES;
    let cap: number;
    if (state.callsRunning > 0 || state.callIdleMs < CALL_GAP_MS) cap = 0;
    else cap = urgent || state.idleMs >= this.limits.refillIdleMs ? this.limits.maxOpening : 0;
    const open = Math.max(0, Math.min(short, cap - state.opening));
    // With openings in flight, each one's end looks again; with none allowed, a timer must.
    return { open, shrink: 0, waiting: decaying || cap === 0 };
  }

  private forget(now: number): void {
    const from = now - this.limits.windowMs;
    let drop = 0;
    while (drop < this.creates.length && (this.creates[drop] ?? now) < from) drop++;
    if (drop > 0) this.creates.splice(0, drop);
  }
}

/** What /readyz reports: open sessions (attached tabs too), MAX_SESSIONS, free slots, ready contexts. */
export interface ServiceCapacity {
  sessions: number;
  maxSessions: number;
  /** Creates that would be accepted now: MAX_SESSIONS less open sessions and creates under way. */
  free: number;
  /** Ready pooled contexts (they are part of `free`: a create takes one). */
  pool: number;
}

export function capacityOf(
  maxSessions: number,
  sessions: number,
  creating: number,
  poolReady: number,
): ServiceCapacity {
  return { sessions, maxSessions, free: Math.max(0, maxSessions - sessions - creating), pool: poolReady };
}
