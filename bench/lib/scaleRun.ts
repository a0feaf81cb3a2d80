// `npm run bench -- --only scale`: the scale curve of issue 15 alone, the floor and a service started
// with room for 128 idle sessions; writes bench/results/RESULTS-scale.md and the chart bench/scale.svg
// (a smoke run writes both next to its raw file, never over the committed chart).
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { launchArgs } from '../../src/browser/engine/browserResolve.js';
import { startFixtureServer } from '../../test/fixtures/fixtureServer.js';
import { FloorSystem } from '../systems/floor.js';
import { startRun } from './runStart.js';
import { ServiceSystem, type ServiceEntry } from '../systems/service.js';
import type { BenchSystem } from '../systems/types.js';
import { scaleChart } from './chart.js';
import { formatMarkdown } from './report.js';
import {
  SCALE_SERVICE_ENV,
  measureScale,
  scaleSection,
  scaleTargets,
  type ScaleContext,
  type ScaleCounts,
  type ScaleError,
  type ScaleResult,
} from './scale.js';
import { AbortedError, withTimeout } from './stats.js';

/** What the scale phase reads of the bench's options (bench/run.ts's BenchOptions has these fields). */
export interface ScaleRunOptions {
  smoke: boolean;
  outDir: string;
  resultsPath: string;
  opTimeoutMs: number;
  maxMinutes: number;
  quiet: boolean;
  flowsPerClient: number;
  memorySettle: { minMs: number; maxMs: number };
  serviceEntry: ServiceEntry;
  scale: { sessions: number[]; clients: number[]; textCalls: number };
}

export function scaleCounts(o: ScaleRunOptions): ScaleCounts {
  // One count per client for both workloads: --flows sets it.
  return {
    ...o.scale,
    flowsPerClient: o.flowsPerClient,
    loopsPerClient: o.flowsPerClient,
    memorySettle: o.memorySettle,
  };
}

/**
 * Where the chart goes: next to the report (bench/scale.svg beside bench/RESULTS.md), except that
 * `--only scale` puts it at bench/scale.svg too, and a smoke run next to its raw file.
 */
export function scaleChartPath(o: ScaleRunOptions, repoRoot: string, only: boolean): string {
  if (o.smoke || !only) return path.join(path.dirname(o.resultsPath), 'scale.svg');
  return path.join(repoRoot, 'bench', 'scale.svg');
}

/** Writes the chart of a result and records where (relative to the repository) in it. */
export async function writeScaleChart(r: ScaleResult, chartPath: string, repoRoot: string, when: string) {
  await mkdir(path.dirname(chartPath), { recursive: true });
  await writeFile(chartPath, scaleChart(r, when));
  r.chart = path.relative(repoRoot, chartPath);
}

function gitCommit(repoRoot: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch (error) {
    return `unknown (${(error as Error).message.split('\n')[0] ?? ''})`;
  }
}

/**
 * The scale phase's time budget: it stops starting levels 3 minutes before --max-minutes (counted
 * from `started`, the run's performance.now()), so what it measured is written; at least 1 minute.
 */
export function scaleBudgetMs(maxMinutes: number, started: number): number {
  return Math.max(60_000, maxMinutes * 60_000 - (performance.now() - started) - 180_000);
}

/** Errors of one system printed as they happen (every one is counted and reported). */
const MAX_LOGGED_ERRORS_PER_SYSTEM = 20;

/**
 * The scale phase's error recorder, in `--only scale` and in the whole run: every error is counted
 * and reported, and none stops the phase (its time budget bounds it), so what it measured is written.
 * A flow that overruns its bound at a high client level is a result of the curve, not a broken run.
 */
export function scaleErrorRecorder(
  errors: { phase: string; system: BenchSystem['name']; op: string; message: string }[],
  log: (line: string) => void,
  signal: AbortSignal,
): ScaleContext['recordError'] {
  return (phase, sys, op, error) => {
    if (signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    errors.push({ phase, system: sys.name, op, message });
    if (errors.filter((e) => e.system === sys.name).length <= MAX_LOGGED_ERRORS_PER_SYSTEM)
      log(`  ! ${sys.name} ${op}: ${message.split('\n')[0] ?? ''}`);
  };
}

export async function mainScale(
  options: ScaleRunOptions,
  repoRoot: string,
  hooks: { signal?: AbortSignal; onSystem?: (system: BenchSystem) => void } = {},
): Promise<{ result: ScaleResult; rawPath: string; resultsPath: string; chartPath: string }> {
  const run = startRun(options, hooks);
  const { started, loadStart, log, signal } = run;
  const fixture = await startFixtureServer();
  const systems: BenchSystem[] = [];
  const errors: ScaleError[] = [];
  try {
    const floor = new FloorSystem(
      run.executablePath,
      launchArgs(process.getuid?.() === 0),
      options.opTimeoutMs,
    );
    const service = new ServiceSystem({
      repoRoot,
      entry: options.serviceEntry,
      executablePath: run.executablePath,
      timeoutMs: options.opTimeoutMs,
      env: { ...SCALE_SERVICE_ENV },
    });
    for (const sys of [floor, service]) {
      systems.push(sys);
      hooks.onSystem?.(sys);
      await withTimeout(sys.start(), 120_000, `${sys.name} start`, signal);
      log(`${sys.name} ready (browser pid ${sys.browserRoots().join(', ')})`);
    }
    const result = await measureScale({
      systems,
      base: fixture.url,
      counts: { ...scaleCounts(options), budgetMs: scaleBudgetMs(options.maxMinutes, started) },
      log,
      guard: (work, label, ms = options.opTimeoutMs) => withTimeout(work, ms, label, signal),
      opTimeoutMs: options.opTimeoutMs,
      checkAbort: () => {
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new AbortedError();
      },
      recordError: scaleErrorRecorder(errors, log, signal),
    });
    const date = new Date().toISOString();
    const commit = gitCommit(repoRoot);
    const chartPath = scaleChartPath(options, repoRoot, true);
    await writeScaleChart(result, chartPath, repoRoot, `${date.slice(0, 16)}Z, commit ${commit}`);
    await mkdir(options.outDir, { recursive: true });
    const rawPath = path.join(options.outDir, `raw-scale-${date.replace(/[:.]/g, '-')}.json`);
    await writeFile(rawPath, `${JSON.stringify({ date, commit, scale: result }, null, 2)}\n`);
    const targets = scaleTargets(result);
    const markdown = [
      `# Benchmark: the scale curve only (\`--only scale\`)${options.smoke ? ' — smoke run: tiny counts, not a measurement' : ''}`,
      '',
      `${date}, commit ${commit}, ${os.availableParallelism()} CPUs, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB; ` +
        `load average ${loadStart.toFixed(2)} at the start, ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)} at the end; ` +
        `${Math.round((performance.now() - started) / 1000)} s; raw: ${path.relative(repoRoot, rawPath)}.`,
      '',
      ...scaleSection(result, path.relative(path.dirname(options.resultsPath), chartPath), targets),
    ].join('\n');
    await mkdir(path.dirname(options.resultsPath), { recursive: true });
    await writeFile(options.resultsPath, await formatMarkdown(markdown, options.resultsPath));
    log(`wrote ${path.relative(repoRoot, options.resultsPath)}, ${path.relative(repoRoot, chartPath)}`);
    for (const t of targets)
      log(`target ${t.id}: ${t.measured} → ${t.met === null ? 'n/a' : t.met ? 'met' : 'NOT met'}`);
    return { result, rawPath, resultsPath: options.resultsPath, chartPath };
  } finally {
    run.end();
    for (const sys of [...systems].reverse())
      await sys
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${sys.name} failed: ${String(error)}\n`));
    await fixture.close();
    log('stopped every process the run started');
  }
}
