// Session creation under churn (issue 15): `session.create` when sessions are created back to back
// and in parallel bursts with no idle gap between them, the service against the floor's
// newContext + newPage. Each pattern runs as one continuous block per system (interleaving the
// systems create by create would give the service idle time while the floor works, which is the gap
// this phase must not have); the first creates of each block are thrown away (the pool starts the
// block full after the other system's block), and the two systems' order alternates by round.
import { performance } from 'node:perf_hooks';
import type { ServiceSystem } from '../systems/service.js';
import type { BenchSystem } from '../systems/types.js';
import { summarize, type Summary } from './stats.js';

/** Target: the service's create p50 under churn ≤ this × the floor's, in every pattern. */
export const CHURN_TARGET = 0.1;
/** The patterns: 1 is back to back (create → close → create …), more are parallel bursts. */
export const CHURN_WIDTHS = [1, 4, 8] as const;
/** Rounds of each pattern per system (the order of the systems alternates by round). */
export const CHURN_ROUNDS = 2;
/** Creates thrown away at the start of each block, whatever the width (the pool starts it full). */
export const CHURN_WARMUP_CREATES = 8;

export interface ChurnPattern {
  /** Creates at once: 1 is back to back. */
  width: number;
  label: string;
  floor: Summary;
  service: Summary;
  /** service p50 ÷ floor p50. */
  ratio: number;
  met: boolean;
  /** The service's pool hits and misses over the measured creates (browser_pool_takes_total). */
  poolHits: number;
  poolMisses: number;
  /** Why the pattern has no figures (a create failed or timed out); the other patterns still run. */
  error?: string;
}

export interface ChurnResult {
  patterns: ChurnPattern[];
  target: number;
  createsPerBlock: number;
  warmupCreates: number;
  rounds: number;
}

type Churner = Pick<BenchSystem, 'name' | 'createSession'>;

const patternLabel = (width: number): string =>
  width === 1
    ? 'back to back (create → close, no gap)'
    : `bursts of ${width} in parallel (then close them all)`;

/**
 * One block: bursts of `width` creates at once, each burst closed at once before the next starts,
 * no pause; returns the milliseconds of every create after the first `warmup` (whole bursts), and
 * calls `warmedUp` once between the last warm-up burst and the first measured one.
 */
async function block(
  sys: Churner,
  width: number,
  creates: number,
  warmup: number,
  warmedUp?: () => Promise<void>,
): Promise<number[]> {
  const samples: number[] = [];
  let made = 0;
  while (made < warmup + creates) {
    if (made === warmup) await warmedUp?.();
    const settled = await Promise.allSettled(
      Array.from({ length: width }, async () => {
        const t0 = performance.now();
        const session = await sys.createSession({ open: false });
        return { ms: performance.now() - t0, session };
      }),
    );
    const burst = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed !== undefined) {
      // Close what the burst did open before giving up, so a failed pattern leaves no session behind.
      await Promise.allSettled(burst.map(({ session }) => session.close()));
      throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
    }
    for (const { ms } of burst) if (made++ >= warmup) samples.push(ms);
    await Promise.all(burst.map(({ session }) => session.close()));
  }
  return samples;
}

/** The service's pool takes so far, from /metrics. */
async function poolTakes(service: ServiceSystem): Promise<{ hit: number; miss: number }> {
  const text = await service.metricsText();
  const read = (outcome: string): number => {
    const m = new RegExp(`^browser_pool_takes_total\\{outcome="${outcome}"\\} ([0-9.eE+-]+)$`, 'm').exec(
      text,
    );
    return m ? Number(m[1]) : 0;
  };
  return { hit: read('hit'), miss: read('miss') };
}

export async function measureChurn(
  floor: Churner,
  service: ServiceSystem,
  counts: { iterations: number; smoke: boolean },
  log: (line: string) => void,
): Promise<ChurnResult> {
  const rounds = counts.smoke ? 1 : CHURN_ROUNDS;
  // --iterations measured creates per pattern and system in all, split over the rounds.
  const creates = Math.max(Math.ceil(counts.iterations / rounds), 2);
  const warmup = counts.smoke ? 2 : CHURN_WARMUP_CREATES;
  const patterns: ChurnPattern[] = [];
  for (const width of CHURN_WIDTHS) {
    const samples = { floor: [] as number[], service: [] as number[] };
    let hits = 0;
    let misses = 0;
    let error: string | undefined;
    try {
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? [service, floor] : [floor, service];
        for (const sys of order) {
          // Whole bursts: round the measured creates up to a multiple of the width.
          const measured = Math.ceil(creates / width) * width;
          const skip = Math.ceil(warmup / width) * width;
          if (sys === service) {
            // The warm-up creates' takes are not counted: the counter is read after them.
            let before = { hit: 0, miss: 0 };
            const ms = await block(service, width, measured, skip, async () => {
              before = await poolTakes(service);
            });
            const after = await poolTakes(service);
            samples.service.push(...ms);
            hits += after.hit - before.hit;
            misses += after.miss - before.miss;
          } else samples.floor.push(...(await block(sys, width, measured, skip)));
        }
      }
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
      log(`churn ${patternLabel(width)}: failed: ${error}`);
    }
    const f = summarize(samples.floor);
    const s = summarize(samples.service);
    const ratio = s.p50 / f.p50;
    patterns.push({
      width,
      label: patternLabel(width),
      floor: f,
      service: s,
      ratio,
      met: error === undefined && ratio <= CHURN_TARGET,
      poolHits: hits,
      poolMisses: misses,
      ...(error === undefined ? {} : { error }),
    });
    log(
      `churn ${patternLabel(width)}: create p50 service ${s.p50.toFixed(1)} ms, floor ${f.p50.toFixed(1)} ms (${ratio.toFixed(2)}×, target ≤ ${CHURN_TARGET}×); pool ${hits} hits, ${misses} misses`,
    );
  }
  return { patterns, target: CHURN_TARGET, createsPerBlock: creates, warmupCreates: warmup, rounds };
}

/** A row of the report's targets table (results.ts's TargetResult; not imported: results.ts imports this file). */
interface ChurnTarget {
  id: string;
  measure: string;
  target: string;
  measured: string;
  value: number | null;
  met: boolean | null;
}

/** The target rows: one per pattern. */
export function churnTargets(r: ChurnResult): ChurnTarget[] {
  return r.patterns.map((p) => ({
    id: `churn.${p.width}`,
    measure: `\`session.create\` under churn, ${p.label}`,
    target: `≤ ${r.target.toFixed(2)} × floor`,
    measured:
      p.error === undefined
        ? `${p.ratio.toFixed(2)} × floor (${p.service.p50.toFixed(1)} vs ${p.floor.p50.toFixed(1)} ms)`
        : `failed: ${p.error}`,
    value: p.error === undefined ? p.ratio : null,
    met: p.met,
  }));
}

/** The report's section. */
export function churnSection(r: ChurnResult): string[] {
  const ms = (x: number): string => x.toFixed(1);
  return [
    '## Session creation under churn (issue 15)',
    '',
    `\`session.create\` (the floor: \`newContext\` + \`newPage\`) with no idle gap between creates: back to back (create → close → create …) and in parallel bursts (a burst's creates at once, then its closes at once, then the next burst). Each pattern runs as one continuous block per system, ${r.rounds} round(s), the order of the systems alternating; the first ${r.warmupCreates} creates of each block are not counted (the pool starts a block full after the other system's block). Pool hits and misses are the service's \`browser_pool_takes_total\` over the measured creates. Target: service p50 ≤ ${r.target} × floor p50 in every pattern.`,
    '',
    '| pattern | n | floor p50 | floor p90 | service p50 | service p90 | service÷floor | pool hits / misses | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...r.patterns.map((p) =>
      p.error !== undefined
        ? `| ${p.label} | — | — | — | — | — | — | — | **no**: ${p.error} |`
        : `| ${p.label} | ${p.service.n} | ${ms(p.floor.p50)} | ${ms(p.floor.p90)} | ${ms(p.service.p50)} | ${ms(p.service.p90)} | ${p.ratio.toFixed(2)}× | ${p.poolHits} / ${p.poolMisses} | ${p.met ? 'yes' : '**no**'} |`,
    ),
    '',
  ];
}

/** Bound on the whole churn phase. */
export const CHURN_TIMEOUT_MS = 30 * 60_000;
