import { describe, expect, it } from 'vitest';
import {
  DEMAND_SAMPLES_MAX,
  DEMAND_SPAN_OPENS,
  INITIAL_OPEN_MS,
  OPEN_MS_CAP,
  CALL_GAP_MS,
  PoolPolicy,
  capacityOf,
  type PoolPolicyLimits,
  type PoolState,
} from '../../src/browser/engine/poolPolicy.js';
import { loadConfig } from '../../src/config/config.js';
import { agentLine, readiness } from '../../src/http/health.js';

const LIMITS: PoolPolicyLimits = {
  minSize: 2,
  maxSize: 12,
  maxOpening: 2,
  windowMs: 10_000,
  refillIdleMs: 150,
};
const T0 = 1_000_000;

const state = (over: Partial<PoolState> = {}): PoolState => ({
  now: T0,
  ready: 0,
  opening: 0,
  room: 100,
  callsRunning: 0,
  idleMs: 0,
  callIdleMs: 1e6,
  ...over,
});

/** A policy that saw `n` creates `gapMs` apart, the last at `T0`. */
function withCreates(n: number, gapMs: number, limits = LIMITS): PoolPolicy {
  const policy = new PoolPolicy(limits);
  for (let k = n - 1; k >= 0; k--) policy.recordCreate(T0 - k * gapMs);
  return policy;
}

describe('pool policy: learning the demand', () => {
  it('counts creates within the window only', () => {
    const policy = withCreates(5, 1000);
    expect(policy.demand(T0)).toBe(5);
    // Creates at T0-4000 … T0: 6.5 s later the window starts at T0-3500 and holds 4; 10 s later none.
    expect(policy.demand(T0 + 6_500)).toBe(4);
    expect(policy.demand(T0 + 10_001)).toBe(0);
  });

  it('the peak is the most creates within DEMAND_SPAN_OPENS openings', () => {
    // 8 creates at once (a burst), then 3 spread far apart.
    const policy = new PoolPolicy(LIMITS);
    for (let k = 0; k < 8; k++) policy.recordCreate(T0 - 5000);
    for (let k = 0; k < 3; k++) policy.recordCreate(T0 - 3000 + k * 1000);
    expect(policy.peak(T0)).toBe(8);
    // Back to back, one every 100 ms: an opening of 300 ms → a span of 600 ms holds 7.
    const steady = withCreates(20, 100);
    expect(steady.peak(T0)).toBe(Math.floor((DEMAND_SPAN_OPENS * INITIAL_OPEN_MS) / 100) + 1);
  });

  it('the opening time is a moving average, capped, and widens the span', () => {
    const policy = withCreates(20, 100);
    const before = policy.peak(T0);
    for (let k = 0; k < 20; k++) policy.recordOpen(600);
    expect(policy.openEstimateMs).toBeGreaterThan(590);
    expect(policy.peak(T0)).toBeGreaterThan(before);
    for (let k = 0; k < 50; k++) policy.recordOpen(10 * OPEN_MS_CAP);
    expect(policy.openEstimateMs).toBeLessThanOrEqual(OPEN_MS_CAP);
  });

  it('remembers at most DEMAND_SAMPLES_MAX creates', () => {
    const policy = withCreates(DEMAND_SAMPLES_MAX + 500, 0);
    expect(policy.demand(T0)).toBe(DEMAND_SAMPLES_MAX);
  });
});

describe('pool policy: the target size', () => {
  it('is POOL_SIZE with no demand, the peak under demand, never over POOL_MAX_SIZE', () => {
    expect(new PoolPolicy(LIMITS).target(T0)).toBe(2);
    expect(withCreates(5, 10).target(T0)).toBe(5);
    expect(withCreates(40, 1).target(T0)).toBe(12);
    // The demand passes: back to POOL_SIZE.
    expect(withCreates(40, 1).target(T0 + 10_001)).toBe(2);
  });

  it('is 0 when POOL_SIZE is 0 (the pool is off), whatever the demand', () => {
    const off = withCreates(40, 1, { ...LIMITS, minSize: 0 });
    expect(off.target(T0)).toBe(0);
    expect(off.decide(state({ idleMs: 1e6 }))).toEqual({ open: 0, shrink: 0, waiting: false });
  });
});

describe('pool policy: what to open now', () => {
  it('with no demand, waits for POOL_REFILL_IDLE_MS without calls, then opens up to POOL_MAX_OPENING', () => {
    const policy = new PoolPolicy(LIMITS);
    expect(policy.decide(state({ idleMs: 10 }))).toEqual({ open: 0, shrink: 0, waiting: true });
    expect(policy.decide(state({ idleMs: 150 }))).toEqual({ open: 2, shrink: 0, waiting: false });
    expect(policy.decide(state({ idleMs: 1e6, callsRunning: 1 }))).toMatchObject({ open: 0, waiting: true });
  });

  it('under demand opens at once, POOL_MAX_OPENING, but never while a call runs or within CALL_GAP_MS of one', () => {
    const policy = withCreates(10, 50);
    expect(policy.decide(state({ idleMs: 0 })).open).toBe(LIMITS.maxOpening);
    expect(policy.decide(state({ idleMs: 0, callsRunning: 3, callIdleMs: 0 }))).toMatchObject({
      open: 0,
      waiting: true,
    });
    expect(policy.decide(state({ idleMs: 0, callIdleMs: CALL_GAP_MS - 1 })).open).toBe(0);
    expect(policy.decide(state({ idleMs: 0, callIdleMs: CALL_GAP_MS })).open).toBe(LIMITS.maxOpening);
    // Openings in flight count against the bound.
    expect(policy.decide(state({ opening: 2 })).open).toBe(0);
    expect(policy.decide(state({ opening: 1, callsRunning: 1 })).open).toBe(0);
  });

  it('one create is no demand yet: the refill still waits for idle time', () => {
    const policy = withCreates(1, 0);
    expect(policy.decide(state({ idleMs: 0, callsRunning: 1 })).open).toBe(0);
    expect(policy.decide(state({ idleMs: 0 })).open).toBe(0);
  });

  it('never opens past MAX_SESSIONS (room) or past the target', () => {
    const policy = withCreates(10, 10, { ...LIMITS, maxOpening: 16 });
    expect(policy.decide(state({ room: 3 })).open).toBe(3);
    expect(policy.decide(state({ room: 0 })).open).toBe(0);
    expect(policy.decide(state({ room: -2 })).open).toBe(0);
    expect(policy.decide(state({ ready: 8, opening: 1 })).open).toBe(1);
    expect(policy.decide(state({ ready: 10 })).open).toBe(0);
    for (let room = -3; room < 20; room++)
      for (let ready = 0; ready < 14; ready++)
        expect(policy.decide(state({ room, ready })).open).toBeLessThanOrEqual(Math.max(0, room));
  });

  it('shrinks to the target when the demand passed, never while calls run', () => {
    const policy = withCreates(10, 10);
    const later = T0 + 10_001;
    expect(policy.decide(state({ now: later, ready: 10 }))).toMatchObject({ open: 0, shrink: 8 });
    expect(policy.decide(state({ now: later, ready: 10, callsRunning: 1 }))).toMatchObject({
      shrink: 0,
      waiting: true,
    });
    // While the demand lasts, nothing is closed.
    expect(withCreates(10, 10).decide(state({ ready: 10 })).shrink).toBe(0);
  });
});

describe('/readyz capacity', () => {
  it('free is MAX_SESSIONS less open sessions and creates under way, never negative', () => {
    expect(capacityOf(8, 3, 1, 2)).toEqual({ sessions: 3, maxSessions: 8, free: 4, pool: 2 });
    expect(capacityOf(8, 8, 1, 0).free).toBe(0);
  });

  it('ready, full or unavailable, and the HAProxy agent line of each', () => {
    expect(readiness(true, capacityOf(8, 2, 0, 2))).toEqual({ status: 'ready', free: 6 });
    expect(readiness(true, capacityOf(8, 8, 0, 0))).toEqual({ status: 'full', free: 0 });
    expect(readiness(false, capacityOf(8, 0, 0, 0))).toEqual({ status: 'unavailable', free: 0 });
    expect(agentLine('ready', 6, 8)).toBe('up 75%');
    expect(agentLine('ready', 1, 1000)).toBe('up 1%');
    expect(agentLine('full', 0, 8)).toBe('drain');
    expect(agentLine('unavailable', 0, 8)).toBe('down');
  });
});

describe('pool config keys', () => {
  it('reads the defaults and refuses POOL_MAX_SIZE under POOL_SIZE or out of range', () => {
    const base = { API_KEY: 'k-0123456789abcdef' };
    const config = loadConfig(base);
    expect(config.poolSize).toBe(2);
    expect(config.poolMaxSize).toBeGreaterThanOrEqual(config.poolSize);
    expect(config.poolMaxOpening).toBeGreaterThanOrEqual(1);
    expect(() => loadConfig({ ...base, POOL_SIZE: '5', POOL_MAX_SIZE: '4' })).toThrow(/POOL_MAX_SIZE/);
    expect(() => loadConfig({ ...base, POOL_MAX_OPENING: '0' })).toThrow(/POOL_MAX_OPENING/);
    expect(() => loadConfig({ ...base, POOL_DEMAND_WINDOW_MS: '10' })).toThrow(/POOL_DEMAND_WINDOW_MS/);
  });
});
