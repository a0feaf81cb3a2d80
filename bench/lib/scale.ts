// The scale curve of issue 15: memory and latency as idle sessions grow (1 … 128), and throughput as
// concurrent clients grow (1 … 32), in two workloads (flows, and loops inside one session each), the
// floor and the service side by side. `measureScale` runs inside the full bench; `--only scale`
// (`mainScale` in bench/run.ts's CLI) runs it alone. The chart is drawn by ./chart.ts.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { BenchSession, BenchSystem, SystemName, Target } from '../systems/types.js';
import { readProc, treeMemory, type TreeMemory } from './proc.js';
import { percentile, sleep, timed } from './stats.js';

/** Idle-session levels of the memory and latency curve (cumulative: sessions are added, not reopened). */
export const SCALE_SESSIONS = [1, 8, 32, 64, 128];
/** Concurrent clients of the throughput curve. */
export const SCALE_CLIENTS = [1, 4, 8, 16, 32];
/** The smoke run's levels: it checks that the phase runs, not how it scales. */
export const SCALE_SMOKE_LEVELS = [1, 2];
/** page.text calls timed at each session level (at least one per open session, so each is touched). */
export const SCALE_TEXT_CALLS = 100;
/** Sessions opened at once while filling a level. */
const OPEN_WIDTH = 2;
/**
 * The service of the scale phase is started with room for its largest level (128 idle sessions,
 * the pool's two beside them) and with idle sessions kept for the whole phase (the default
 * SESSION_TTL_MS of 2 min could close the first sessions while the last level fills).
 */
export const SCALE_SERVICE_ENV: Readonly<Record<string, string>> = {
  MAX_SESSIONS: '160',
  SESSION_TTL_MS: '1800000',
};

/** Targets of issue 15 for the curve. */
export const SCALE_TARGET_SESSIONS = 128;
export const SCALE_TARGET_PSS_RATIO = 0.4;
export const SCALE_TARGET_CLIENTS = [16, 32];
export const SCALE_TARGET_THROUGHPUT_RATIO = 1.5;
export const SCALE_TARGET_TAIL_RATIO = 4;

type PerSystem<T> = Partial<Record<SystemName, T>>;

/** An error of the phase (the shape of results.ts's ScaleError, which imports this file). */
export interface ScaleError {
  phase: string;
  system: SystemName;
  op: string;
  message: string;
}

/** A target row (the shape of results.ts's ScaleTarget). */
export interface ScaleTarget {
  id: string;
  measure: string;
  target: string;
  measured: string;
  value: number | null;
  met: boolean | null;
}

export interface ScaleLatency {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface ScaleMemoryPoint {
  sessions: number;
  /** Chromium PSS (browser and every descendant) before the first session and at this level, KiB. */
  baselinePssKiB: number;
  totalPssKiB: number;
  /** (total − baseline) ÷ sessions. */
  perSessionPssMiB: number;
  processes: number;
  /**
   * RSS of the process that drives the browser: the service's node process; for the floor, the bench
   * process itself (which also holds the fixture server and the service's client), MiB.
   */
  driverBaselineRssMiB: number;
  driverRssMiB: number;
  /** `page.text` of `main` on the open sessions, round-robin, one call at a time. */
  text: ScaleLatency;
}

export interface ScaleThroughputPoint {
  clients: number;
  /** Flows (or loop iterations) completed. */
  done: number;
  /** RPC-level calls completed (a flow: 4; a loop iteration: 3). */
  calls: number;
  seconds: number;
  /** Flows/s for the flow workload, calls/s for the loop workload. */
  perSec: number;
  /** Duration of each flow (or loop iteration). */
  latency: ScaleLatency;
  errors: number;
}

export type ScaleWorkload = 'flows' | 'loops';

export interface ScaleResult {
  sessions: number[];
  clients: number[];
  textCalls: number;
  flowsPerClient: number;
  loopsPerClient: number;
  serviceEnv: Record<string, string>;
  memory: { sessions: number; systems: PerSystem<ScaleMemoryPoint> }[];
  /** The highest level each system reached with every session open. */
  reached: PerSystem<number>;
  flows: { clients: number; systems: PerSystem<ScaleThroughputPoint> }[];
  loops: { clients: number; systems: PerSystem<ScaleThroughputPoint> }[];
  errors: ScaleError[];
  /** Levels not started because the phase's time budget ran out (a slow, loaded machine). */
  skipped: string[];
  /** Where the chart was written, relative to the repository. */
  chart?: string;
}

export interface ScaleCounts {
  sessions: number[];
  clients: number[];
  textCalls: number;
  flowsPerClient: number;
  loopsPerClient: number;
  memorySettle: { minMs: number; maxMs: number };
  /**
   * Time the whole phase may take, or none: half goes to the memory curves (split between the
   * systems), the rest to throughput; a level that would start past its share is skipped and said so.
   */
  budgetMs?: number;
}

export interface ScaleContext {
  systems: BenchSystem[];
  /** The fixture server's base URL. */
  base: string;
  counts: ScaleCounts;
  log(line: string): void;
  /** Bounds one operation in time (opTimeoutMs unless `ms` says otherwise) and by the run's abort signal. */
  guard<T>(work: Promise<T>, label: string, ms?: number): Promise<T>;
  /** The bench's bound on one operation (--op-timeout; 30 s by default). */
  opTimeoutMs: number;
  /** Throws when the run is aborted. */
  checkAbort(): void;
  /** Records an error of the phase (scaleErrorRecorder: counted and reported, never stopping the phase). */
  recordError: (phase: string, sys: BenchSystem, op: string, error: unknown) => void;
}

const LOOP_CLICK: Target = { selector: '#dbl', role: 'button', name: 'Double-click me' };

/**
 * What one flow or loop iteration may take per concurrent client: N clients on 2 cores share the
 * machine, so one flow takes about N times as long as alone (the floor's flow alone is ~1.2 s here).
 */
export const THROUGHPUT_BOUND_PER_CLIENT_MS = 4_000;

/** The bound of one flow or loop iteration at a client level: never under the bench's own bound. */
export function throughputBoundMs(clients: number, opTimeoutMs: number): number {
  return Math.max(opTimeoutMs, clients * THROUGHPUT_BOUND_PER_CLIENT_MS);
}

export function scaleLatency(samples: readonly number[]): ScaleLatency {
  return {
    n: samples.length,
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    max: samples.length === 0 ? Number.NaN : Math.max(...samples),
  };
}

/** VmRSS of one process, MiB (NaN when it is gone). */
export function rssMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] === undefined ? Number.NaN : Number(m[1]) / 1024;
  } catch {
    return Number.NaN; // exited while we looked
  }
}

/** The process that launched the system's browser (the service's node process; the floor: this one). */
function driverPid(sys: BenchSystem): number {
  const root = sys.browserRoots()[0];
  const info = root === undefined ? undefined : readProc(root);
  if (!info) throw new Error(`${sys.name}: no browser process to find its driver by`);
  return info.ppid;
}

const rotate = <T>(list: readonly T[], by: number): T[] =>
  list.map((_, k) => list[(k + by) % list.length] as T);

async function settle(
  ctx: ScaleContext,
  sys: BenchSystem,
  { minMs, maxMs }: ScaleCounts['memorySettle'],
): Promise<TreeMemory> {
  await sleep(minMs);
  const until = performance.now() + maxMs;
  let last = treeMemory(sys.browserRoots());
  while (performance.now() < until) {
    ctx.checkAbort();
    await sleep(500);
    const now = treeMemory(sys.browserRoots());
    const moved = Math.abs(now.pssKiB - last.pssKiB) / Math.max(1, last.pssKiB);
    last = now;
    if (moved < 0.01) break;
  }
  return last;
}

/** One system's memory curve: sessions added level by level on /static, then all closed. */
async function memoryCurve(
  ctx: ScaleContext,
  sys: BenchSystem,
  url: string,
  until: number,
  record: (point: ScaleMemoryPoint) => void,
  skip: (note: string) => void,
): Promise<number> {
  const { counts } = ctx;
  const sessions: BenchSession[] = [];
  let reached = 0;
  try {
    const pid = driverPid(sys);
    const before = await settle(ctx, sys, counts.memorySettle);
    const rssBefore = rssMiB(pid);
    for (const n of counts.sessions) {
      ctx.checkAbort();
      if (performance.now() > until) {
        skip(`${sys.name}: memory at ${n} sessions and above (time budget spent)`);
        break;
      }
      while (sessions.length < n) {
        const width = Math.min(OPEN_WIDTH, n - sessions.length);
        await Promise.all(
          Array.from({ length: width }, async () => {
            const s = await ctx.guard(sys.createSession(), `${sys.name} create`);
            sessions.push(s);
            await ctx.guard(s.goto(url, 'load'), `${sys.name} goto`);
          }),
        );
      }
      const after = await settle(ctx, sys, counts.memorySettle);
      const samples: number[] = [];
      const calls = Math.max(counts.textCalls, n);
      for (let k = 0; k < calls; k++) {
        const s = sessions[k % sessions.length];
        if (!s) break;
        samples.push(
          await ctx.guard(
            timed(async () => {
              const read = await s.readText('main', 'Static content');
              if (!read.contains) throw new Error("page.text did not contain 'Static content'");
            }),
            `${sys.name} text`,
          ),
        );
      }
      const point: ScaleMemoryPoint = {
        sessions: n,
        baselinePssKiB: before.pssKiB,
        totalPssKiB: after.pssKiB,
        perSessionPssMiB: (after.pssKiB - before.pssKiB) / n / 1024,
        processes: after.processes,
        driverBaselineRssMiB: rssBefore,
        driverRssMiB: rssMiB(pid),
        text: scaleLatency(samples),
      };
      record(point);
      reached = n;
      ctx.log(
        `scale: ${sys.name} ${n} idle sessions: ${point.perSessionPssMiB.toFixed(1)} MiB PSS each ` +
          `(total ${(after.pssKiB / 1024).toFixed(0)} MiB, ${after.processes} processes), driver RSS ` +
          `${point.driverRssMiB.toFixed(0)} MiB, page.text p50 ${point.text.p50.toFixed(1)} ms p99 ${point.text.p99.toFixed(1)} ms`,
      );
    }
  } catch (error) {
    ctx.recordError('scale', sys, `memory past ${reached} sessions`, error);
  } finally {
    for (let k = 0; k < sessions.length; k += OPEN_WIDTH)
      await Promise.all(
        sessions.slice(k, k + OPEN_WIDTH).map((s) =>
          ctx.guard(s.close(), `${sys.name} close`).catch((e: unknown) => {
            ctx.recordError('scale', sys, 'close', e);
          }),
        ),
      );
  }
  return reached;
}

/** `clients` concurrent clients of one workload on one system. */
async function throughputPoint(
  ctx: ScaleContext,
  sys: BenchSystem,
  workload: ScaleWorkload,
  clients: number,
): Promise<ScaleThroughputPoint> {
  const { base, counts } = ctx;
  const bound = throughputBoundMs(clients, ctx.opTimeoutMs);
  const samples: number[] = [];
  let errors = 0;
  const fail = (op: string, error: unknown): void => {
    errors++;
    ctx.recordError('scale', sys, `${op} at ${clients} clients`, error);
  };
  const expect = async (s: BenchSession, selector: string, probe: string): Promise<void> => {
    const read = await s.readText(selector, probe);
    if (!read.contains) throw new Error(`page.text did not contain '${probe}'`);
  };
  // The loop workload's sessions are opened before the clock starts: it measures calls, not creates.
  const own: (BenchSession | undefined)[] =
    workload === 'loops'
      ? await Promise.all(
          Array.from({ length: clients }, () =>
            ctx.guard(sys.createSession(), `${sys.name} create`).catch((e: unknown) => {
              fail('loop session create', e);
              return undefined;
            }),
          ),
        )
      : [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      if (workload === 'flows') {
        for (let f = 0; f < counts.flowsPerClient; f++) {
          ctx.checkAbort();
          try {
            samples.push(
              await ctx.guard(
                timed(async () => {
                  const s = await sys.createSession({ open: false });
                  try {
                    await s.goto(`${base}/static`, 'load');
                    await expect(s, 'main', 'Static content');
                  } finally {
                    await s.close();
                  }
                }),
                `${sys.name} flow`,
                bound,
              ),
            );
          } catch (error) {
            fail('flow', error);
          }
        }
        return;
      }
      const s = own[c];
      if (!s) return;
      for (let f = 0; f < counts.loopsPerClient; f++) {
        ctx.checkAbort();
        try {
          samples.push(
            await ctx.guard(
              timed(async () => {
                await s.goto(`${base}/widgets`, 'load');
                await expect(s, 'main', 'Widgets');
                await s.click(LOOP_CLICK);
              }),
              `${sys.name} loop`,
              bound,
            ),
          );
        } catch (error) {
          fail('loop', error);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  for (const s of own)
    if (s)
      await ctx.guard(s.close(), `${sys.name} close`).catch((e: unknown) => fail('loop session close', e));
  const done = samples.length;
  const calls = done * (workload === 'flows' ? 4 : 3);
  return {
    clients,
    done,
    calls,
    seconds,
    perSec: (workload === 'flows' ? done : calls) / seconds,
    latency: scaleLatency(samples),
    errors,
  };
}

/** The whole scale phase, every system (floor and service), one after the other per level. */
export async function measureScale(ctx: ScaleContext): Promise<ScaleResult> {
  const { counts } = ctx;
  const errors: ScaleError[] = [];
  const record = ctx.recordError;
  const local: ScaleContext = {
    ...ctx,
    recordError: (phase, sys, op, error) => {
      errors.push({
        phase,
        system: sys.name,
        op,
        message: error instanceof Error ? error.message : String(error),
      });
      record(phase, sys, op, error);
    },
  };
  const result: ScaleResult = {
    sessions: counts.sessions,
    clients: counts.clients,
    textCalls: counts.textCalls,
    flowsPerClient: counts.flowsPerClient,
    loopsPerClient: counts.loopsPerClient,
    serviceEnv: { ...SCALE_SERVICE_ENV },
    memory: counts.sessions.map((sessions) => ({ sessions, systems: {} })),
    reached: {},
    flows: [],
    loops: [],
    errors,
    skipped: [],
  };
  const t0 = performance.now();
  const budget = counts.budgetMs ?? Number.POSITIVE_INFINITY;
  const skip = (note: string): void => {
    result.skipped.push(note);
    ctx.log(`scale: skipped ${note}`);
  };
  // Memory: one system at a time, so the 128 contexts of one do not squeeze the other.
  for (const [k, sys] of ctx.systems.entries()) {
    const until = t0 + (budget / 2) * ((k + 1) / ctx.systems.length);
    result.reached[sys.name] = await memoryCurve(
      local,
      sys,
      `${ctx.base}/static`,
      until,
      (point) => {
        const level = result.memory.find((m) => m.sessions === point.sessions);
        if (level) level.systems[sys.name] = point;
      },
      skip,
    );
  }
  // Throughput: at each level both workloads, the systems' order rotating level by level.
  for (const [li, clients] of counts.clients.entries()) {
    if (performance.now() > t0 + budget) {
      skip(`throughput at ${clients} clients and above (time budget spent)`);
      break;
    }
    for (const workload of ['flows', 'loops'] as const) {
      const level: ScaleResult['flows'][number] = { clients, systems: {} };
      for (const sys of rotate(ctx.systems, li)) {
        ctx.checkAbort();
        if (performance.now() > t0 + budget) {
          skip(`${sys.name}: ${workload} at ${clients} clients (time budget spent)`);
          continue;
        }
        const point = await throughputPoint(local, sys, workload, clients);
        level.systems[sys.name] = point;
        ctx.log(
          `scale: ${sys.name} ${workload} at ${clients} clients: ${point.perSec.toFixed(2)} ${workload === 'flows' ? 'flows' : 'calls'}/s ` +
            `(${point.done} in ${point.seconds.toFixed(1)} s), p50 ${point.latency.p50.toFixed(0)} ms p99 ${point.latency.p99.toFixed(0)} ms, ${point.errors} errors`,
        );
      }
      result[workload].push(level);
    }
  }
  return result;
}

const fmt = (x: number | undefined, digits = 2): string =>
  x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);

const notMeasured = (id: string, measure: string, target: string): ScaleTarget => ({
  id,
  measure,
  target,
  measured: 'not measured at this level in this run',
  value: null,
  met: null,
});

/** The curve's targets (issue 15); levels this run did not measure (the smoke run's) are n/a. */
export function scaleTargets(r: ScaleResult): ScaleTarget[] {
  const out: ScaleTarget[] = [];
  const top = r.memory.find((m) => m.sessions === SCALE_TARGET_SESSIONS);
  const fitMeasure = `${SCALE_TARGET_SESSIONS} idle sessions fit (the service)`;
  if (!r.sessions.includes(SCALE_TARGET_SESSIONS)) out.push(notMeasured('scale.fit', fitMeasure, 'all open'));
  else {
    const reached = r.reached.service ?? 0;
    out.push({
      id: 'scale.fit',
      measure: fitMeasure,
      target: 'all open',
      measured: `${reached} of ${SCALE_TARGET_SESSIONS} open`,
      value: reached,
      met: reached >= SCALE_TARGET_SESSIONS,
    });
  }
  const pssMeasure = `Chromium PSS per idle session at ${SCALE_TARGET_SESSIONS} sessions`;
  const svc = top?.systems.service?.perSessionPssMiB;
  const floor = top?.systems.floor?.perSessionPssMiB;
  if (svc === undefined || floor === undefined)
    out.push(notMeasured('scale.pss', pssMeasure, `≤ ${SCALE_TARGET_PSS_RATIO} × floor`));
  else
    out.push({
      id: 'scale.pss',
      measure: pssMeasure,
      target: `≤ ${SCALE_TARGET_PSS_RATIO} × floor`,
      measured: `${fmt(svc / floor)} × floor (${fmt(svc, 1)} vs ${fmt(floor, 1)} MiB)`,
      value: svc / floor,
      met: svc / floor <= SCALE_TARGET_PSS_RATIO,
    });
  for (const workload of ['flows', 'loops'] as const) {
    const unit = workload === 'flows' ? 'flows/s' : 'calls/s';
    const name =
      workload === 'flows'
        ? 'flows (create → goto → text → close)'
        : 'in-session loops (goto → text → click)';
    for (const clients of SCALE_TARGET_CLIENTS) {
      const level = r[workload].find((l) => l.clients === clients);
      const s = level?.systems.service;
      const f = level?.systems.floor;
      const tMeasure = `${name} at ${clients} clients, ${unit}`;
      const tTarget = `≥ ${SCALE_TARGET_THROUGHPUT_RATIO} × floor`;
      if (!s || !f) out.push(notMeasured(`scale.${workload}.${clients}`, tMeasure, tTarget));
      else
        out.push({
          id: `scale.${workload}.${clients}`,
          measure: tMeasure,
          target: tTarget,
          measured: `${fmt(s.perSec / f.perSec)} × floor (${fmt(s.perSec)} vs ${fmt(f.perSec)})`,
          value: s.perSec / f.perSec,
          met: s.perSec / f.perSec >= SCALE_TARGET_THROUGHPUT_RATIO,
        });
      const pMeasure = `${name} at ${clients} clients, the service's p99 ÷ p50`;
      const pTarget = `≤ ${SCALE_TARGET_TAIL_RATIO}`;
      if (!s) out.push(notMeasured(`scale.${workload}.${clients}.tail`, pMeasure, pTarget));
      else {
        const tail = s.latency.p99 / s.latency.p50;
        out.push({
          id: `scale.${workload}.${clients}.tail`,
          measure: pMeasure,
          target: pTarget,
          measured: `${fmt(tail)} (p50 ${fmt(s.latency.p50, 0)} ms, p99 ${fmt(s.latency.p99, 0)} ms; the floor ${f ? fmt(f.latency.p99 / f.latency.p50) : '–'})`,
          value: tail,
          met: tail <= SCALE_TARGET_TAIL_RATIO,
        });
      }
    }
  }
  const counted = r.errors.length;
  out.push({
    id: 'scale.errors',
    measure: 'errors in the scale phase (both systems)',
    target: 'none',
    measured: counted === 0 ? 'none' : `${counted}: ${r.errors.map((e) => `${e.system} ${e.op}`).join('; ')}`,
    value: counted,
    met: counted === 0,
  });
  return out;
}

const SYSTEMS: SystemName[] = ['floor', 'service'];

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

const lat = (l: ScaleLatency | undefined, digits = 1): string =>
  l ? `${fmt(l.p50, digits)} / ${fmt(l.p99, digits)}` : '–';

/** The report's section: the chart, the memory and latency table, the two throughput tables. */
export function scaleSection(
  r: ScaleResult,
  chartLink: string | undefined,
  targets?: ScaleTarget[],
): string[] {
  const out: string[] = ['## Scale curve (issue 15)', ''];
  if (chartLink)
    out.push(
      `![The scale curve: memory and latency against sessions, throughput against clients](${chartLink})`,
      '',
    );
  out.push(
    `Memory and latency: sessions added level by level (${r.sessions.join(', ')}) on /static, one system at a time ` +
      `(the floor first, then the service, each closing its sessions before the next starts). Chromium PSS of the browser ` +
      `and all its descendants, per session = (total − before the first session) ÷ sessions. "driver RSS" is the RSS ` +
      `of the process driving the browser: the service's node process; for the floor, the bench process itself (which also ` +
      `holds the fixture server). \`page.text\` of \`main\`: max(${r.textCalls}, sessions) calls, one at a time, ` +
      `round-robin over every open session. The service runs with ${Object.entries(r.serviceEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}.`,
    '',
  );
  const memRows = r.memory.map((level) => {
    const f = level.systems.floor;
    const s = level.systems.service;
    return [
      String(level.sessions),
      fmt(f?.perSessionPssMiB, 1),
      fmt(s?.perSessionPssMiB, 1),
      f && s ? fmt(s.perSessionPssMiB / f.perSessionPssMiB) : '–',
      ...SYSTEMS.map((n) => {
        const p = level.systems[n];
        return p ? `${fmt(p.baselinePssKiB / 1024, 0)} / ${fmt(p.totalPssKiB / 1024, 0)}` : '–';
      }),
      ...SYSTEMS.map((n) => {
        const p = level.systems[n];
        return p ? `${fmt(p.driverBaselineRssMiB, 0)} → ${fmt(p.driverRssMiB, 0)}` : '–';
      }),
      lat(f?.text),
      lat(s?.text),
    ];
  });
  out.push(
    table(
      [
        'sessions',
        'floor PSS per session MiB',
        'service PSS per session MiB',
        'service÷floor',
        'floor PSS before / total MiB',
        'service PSS before / total MiB',
        'floor driver RSS MiB',
        'service RSS MiB',
        'floor page.text p50 / p99 ms',
        'service page.text p50 / p99 ms',
      ],
      memRows,
    ),
  );
  out.push('');
  out.push(
    `Highest level with every session open: ${SYSTEMS.map((n) => `${n} ${r.reached[n] ?? 0}`).join(', ')}.`,
    '',
  );
  for (const workload of ['flows', 'loops'] as const) {
    const unit = workload === 'flows' ? 'flows/s' : 'calls/s';
    out.push(
      workload === 'flows'
        ? `Throughput, flows: each client loops create → goto /static → text → close ${r.flowsPerClient} times; flows/s over the level's wall time; p50 / p99 of one flow.`
        : `Throughput, in-session loops: each client has its own session (opened before the clock starts) and loops goto /widgets → text of \`main\` → click ${r.loopsPerClient} times; calls/s (3 per iteration) over the level's wall time; p50 / p99 of one iteration.`,
      '',
    );
    out.push(
      table(
        [
          'clients',
          `floor ${unit}`,
          `service ${unit}`,
          'service÷floor',
          'floor p50 / p99 ms',
          'service p50 / p99 ms',
          'service p99÷p50',
          'errors floor / service',
        ],
        r[workload].map((level) => {
          const f = level.systems.floor;
          const s = level.systems.service;
          return [
            String(level.clients),
            fmt(f?.perSec),
            fmt(s?.perSec),
            f && s ? fmt(s.perSec / f.perSec) : '–',
            lat(f?.latency, 0),
            lat(s?.latency, 0),
            s ? fmt(s.latency.p99 / s.latency.p50) : '–',
            `${f?.errors ?? '–'} / ${s?.errors ?? '–'}`,
          ];
        }),
      ),
    );
    out.push('');
  }
  if (targets) {
    out.push('Targets:', '');
    out.push(
      table(
        ['measure', 'target', 'measured', 'met'],
        targets.map((t) => [
          t.measure,
          t.target,
          t.measured.replace(/\|/g, '\\|'),
          t.met === null ? 'n/a' : t.met ? 'yes' : '**no**',
        ]),
      ),
    );
    out.push('');
  }
  if (r.skipped.length > 0) {
    out.push('Not measured (the time budget of `--max-minutes` ran out on this machine):', '');
    for (const note of r.skipped) out.push(`- ${note}`);
    out.push('');
  }
  if (r.errors.length > 0) {
    out.push('Errors:', '');
    for (const e of r.errors) out.push(`- ${e.system} ${e.op}: ${e.message.split('\n')[0] ?? ''}`);
    out.push('');
  }
  return out;
}
