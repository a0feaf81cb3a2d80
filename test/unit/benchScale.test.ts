// The scale curve's verdicts and chart (bench/lib/scale.ts, bench/lib/chart.ts) on hand-made results.
import { describe, expect, it } from 'vitest';
import { niceAxis, scaleChart } from '../../bench/lib/chart.js';
import {
  scaleLatency,
  scaleTargets,
  type ScaleResult,
  type ScaleThroughputPoint,
} from '../../bench/lib/scale.js';

const point = (
  clients: number,
  perSec: number,
  p50: number,
  p99: number,
  errors = 0,
): ScaleThroughputPoint => ({
  clients,
  done: clients,
  calls: clients * 4,
  seconds: 1,
  perSec,
  latency: { n: clients, p50, p99, max: p99 },
  errors,
});

const memory = (sessions: number, floorMiB: number, serviceMiB: number): ScaleResult['memory'][number] => {
  const at = (mib: number) => ({
    sessions,
    baselinePssKiB: 100_000,
    totalPssKiB: 100_000 + mib * 1024 * sessions,
    perSessionPssMiB: mib,
    processes: sessions + 5,
    driverBaselineRssMiB: 150,
    driverRssMiB: 160,
    text: { n: 100, p50: 5, p99: 9, max: 12 },
  });
  return { sessions, systems: { floor: at(floorMiB), service: at(serviceMiB) } };
};

function result(levels: number[], clients: number[], serviceRate: number, serviceP99: number): ScaleResult {
  const throughput = clients.map((c) => ({
    clients: c,
    systems: { floor: point(c, 2, 100, 200), service: point(c, serviceRate, 100, serviceP99) },
  }));
  return {
    sessions: levels,
    clients,
    textCalls: 100,
    flowsPerClient: 1,
    loopsPerClient: 1,
    serviceEnv: { MAX_SESSIONS: '160' },
    memory: levels.map((n) => memory(n, 50, 15)),
    reached: { floor: levels.at(-1) ?? 0, service: levels.at(-1) ?? 0 },
    flows: throughput,
    loops: throughput,
    errors: [],
    skipped: [],
  };
}

describe('scale targets', () => {
  it('are met when the service fits 128, uses ≤ 0.4 × the PSS, and runs ≥ 1.5 × with a short tail', () => {
    const targets = scaleTargets(result([1, 128], [16, 32], 3.2, 350));
    expect(targets.every((t) => t.met === true)).toBe(true);
    expect(targets.find((t) => t.id === 'scale.pss')?.value).toBeCloseTo(0.3);
  });

  it('are missed by a slow service, a long tail, a level not reached and an error', () => {
    const r = result([1, 128], [16, 32], 2.5, 500);
    r.reached.service = 64;
    r.errors.push({ phase: 'scale', system: 'service', op: 'create', message: 'timeout' });
    const byId = new Map(scaleTargets(r).map((t) => [t.id, t]));
    expect(byId.get('scale.fit')?.met).toBe(false);
    expect(byId.get('scale.flows.16')?.met).toBe(false);
    expect(byId.get('scale.loops.32.tail')?.met).toBe(false);
    expect(byId.get('scale.errors')?.met).toBe(false);
    expect(byId.get('scale.pss')?.met).toBe(true);
  });

  it('are n/a at the smoke levels, which never reach 128 sessions or 16 clients', () => {
    const targets = scaleTargets(result([1, 2], [1, 2], 9, 110));
    for (const t of targets.filter((x) => x.id !== 'scale.errors')) expect(t.met, t.id).toBeNull();
  });
});

describe('scale chart', () => {
  it('draws six panels with a line for each system and level set', () => {
    const svg = scaleChart(result([1, 8, 32], [1, 4], 3, 300), 'test');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    // Per panel: PSS 2, total memory 3, page.text 4, flows 2, loops 2, flow latency 4 lines.
    expect(svg.match(/<polyline/g)).toHaveLength(17);
    expect(svg).not.toContain('NaN');
  });

  it('skips points that were not measured instead of drawing NaN', () => {
    const r = result([1, 8], [1, 4], 3, 300);
    delete r.memory[1]?.systems.floor;
    expect(scaleChart(r, 'test')).not.toContain('NaN');
  });

  it('rounds axes up to a step of 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceAxis(97)).toEqual({ top: 100, step: 20 });
    expect(niceAxis(1.06)).toEqual({ top: 1.25, step: 0.25 });
    expect(niceAxis(0)).toEqual({ top: 1, step: 0.2 });
  });

  it('computes p50 and p99 of its samples', () => {
    const l = scaleLatency(Array.from({ length: 101 }, (_, i) => i));
    expect(l).toEqual({ n: 101, p50: 50, p99: 99, max: 100 });
  });
});
