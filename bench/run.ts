// The benchmark: the floor (Playwright in-process), this service over HTTP /rpc, and @playwright/mcp,
// side by side in one run with iterations interleaved. Run with `npm run bench` (see bench/README.md).
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchArgs } from '../src/browser/engine/browserResolve.js';
import { startRun } from './lib/runStart.js';
import { startFixtureServer, type FixtureServer } from '../test/fixtures/fixtureServer.js';
import { ACT_CLICK, actFills, actionPage } from './lib/acting.js';
import { measureRoutesRow, routesSection, type RoutesRowResult } from './lib/routesRow.js';
import {
  SCALE_CLIENTS,
  SCALE_SERVICE_ENV,
  SCALE_SESSIONS,
  SCALE_SMOKE_LEVELS,
  SCALE_TEXT_CALLS,
  measureScale,
} from './lib/scale.js';
import {
  mainScale,
  scaleBudgetMs,
  scaleChartPath,
  scaleCounts,
  scaleErrorRecorder,
  writeScaleChart,
} from './lib/scaleRun.js';
import { mainTasks } from './lib/tasks.js';
import type { Killable } from './lib/taskSuite.js';
import { mainRealApps, REAL_APP_DEFAULT_ITERATIONS } from './lib/realApps.js';
import { CHURN_TIMEOUT_MS, measureChurn } from './lib/churn.js';
import { mainChurn } from './lib/churnMain.js';
import { mainFresh } from './lib/fresh.js';
import { mainNeighbours } from './lib/neighboursMain.js';
import { treeMemory } from './lib/proc.js';
import { formatMarkdown, renderMarkdown } from './lib/report.js';
import {
  inOnlyRun,
  ACTION_OPS,
  DIFF_PAGES,
  LATENCY_OPS,
  SNAPSHOT_PAGES,
  computeTargets,
  emptyLatencyEntry,
  withEveryOp,
  type ActionablePoint,
  type BenchError,
  type BenchResults,
  type LatencyEntry,
  type MemoryPoint,
  type OpId,
  type PerSystem,
  type SnapshotDiffPoint,
  type ThroughputPoint,
} from './lib/results.js';
import { AbortedError, sleep, summarize, timed, withTimeout } from './lib/stats.js';
import { FloorSystem } from './systems/floor.js';
import { PeerSystem, peerPackage, refFor } from './systems/peer.js';
import { ServiceSystem, type ServiceEntry } from './systems/service.js';
import {
  QUIESCE_PAUSE_MS,
  type ActionKind,
  type BenchSession,
  type BenchSystem,
  type SystemName,
  type Target,
  type TextRead,
} from './systems/types.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ANALYSIS_PATH = path.join(REPO_ROOT, 'bench', 'ANALYSIS.md');

export interface BenchOptions {
  iterations: number;
  warmup: number;
  smoke: boolean;
  skipPeer: boolean;
  /** Directory for raw-<timestamp>.json. */
  outDir: string;
  /** Where RESULTS.md goes (smoke runs write next to the raw JSON, never over bench/RESULTS.md). */
  resultsPath: string;
  memoryLevels: number[];
  concurrency: number[];
  flowsPerClient: number;
  /** Bound on any single operation. */
  opTimeoutMs: number;
  /** Bound on the whole run: past it the run aborts and stops everything it started. */
  maxMinutes: number;
  /** Memory settle: wait at least minMs, then until PSS stops moving (< 1 %), at most maxMs. */
  memorySettle: { minMs: number; maxMs: number };
  /** No progress lines. */
  quiet: boolean;
  /** Only re-render the report from this raw JSON file (no measuring). */
  render?: string;
  /**
   * Measure only this section: `acting`, the rows of issue 11 (floor and service); `latency`, every
   * latency row (floor and service) with issue 15's per-call targets; `routes`, the
   * routes row of issue 14 (the service alone); `scale`, the scale curve of issue 15; `churn`, session creation under churn
   * (issue 15); `tasks`, the agent tasks (issue 15); `realapps`, the agent tasks on real web apps
   * (service and peer); `neighbours`, a control key beside each hostile page or key (the service alone);
   * `fresh`, calls right after a create with no rest (floor and service).
   */
  only?: (typeof ONLY_PHASES)[number];
  /**
   * The scale curve (issue 15): idle-session levels, client levels, page.text calls per level (each
   * client runs `flowsPerClient` flows, and as many in-session loop iterations).
   */
  scale: { sessions: number[]; clients: number[]; textCalls: number };
  /**
   * How the service runs: `built` is what `npm start` runs (`node dist/src/main.js`, built by the
   * CLI before it measures); `source` runs src/main.ts through tsx (the in-suite smoke test).
   */
  serviceEntry: ServiceEntry;
}

/** The phases `--only` runs alone. */
const ONLY_PHASES = [
  'acting',
  'latency',
  'routes',
  'scale',
  'tasks',
  'realapps',
  'churn',
  'neighbours',
  'fresh',
] as const;

export function defaultOptions(smoke = false): BenchOptions {
  const outDir = path.join(REPO_ROOT, 'bench', 'results');
  return smoke
    ? {
        iterations: 2,
        warmup: 1,
        smoke: true,
        skipPeer: false,
        outDir,
        resultsPath: path.join(outDir, 'RESULTS-smoke.md'),
        memoryLevels: [1, 2],
        concurrency: [1, 2],
        flowsPerClient: 1,
        opTimeoutMs: 30_000,
        maxMinutes: 5,
        memorySettle: { minMs: 200, maxMs: 800 },
        quiet: false,
        serviceEntry: 'source',
        scale: { sessions: SCALE_SMOKE_LEVELS, clients: SCALE_SMOKE_LEVELS, textCalls: 3 },
      }
    : {
        iterations: 30,
        warmup: 3,
        smoke: false,
        skipPeer: false,
        outDir,
        resultsPath: path.join(REPO_ROOT, 'bench', 'RESULTS.md'),
        memoryLevels: [1, 8, 32],
        concurrency: [1, 4, 8],
        flowsPerClient: 6,
        opTimeoutMs: 30_000,
        maxMinutes: 30,
        memorySettle: { minMs: 1500, maxMs: 8000 },
        quiet: false,
        serviceEntry: 'source',
        scale: {
          sessions: SCALE_SESSIONS,
          clients: SCALE_CLIENTS,
          textCalls: SCALE_TEXT_CALLS,
        },
      };
}

const positiveInt = (name: string, raw: string | undefined, min = 1): number | undefined => {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return n;
};

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      iterations: { type: 'string' },
      warmup: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'skip-peer': { type: 'boolean', default: false },
      out: { type: 'string' },
      results: { type: 'string' },
      flows: { type: 'string' },
      'max-minutes': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      render: { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'usage: npm run bench -- [--iterations N] [--warmup N] [--smoke] [--skip-peer] [--out DIR] [--results FILE] [--flows N] [--max-minutes N] [--quiet] [--render RAW.json] [--only acting|latency|routes|scale|tasks|realapps|churn|neighbours|fresh]\n',
    );
    process.exit(0);
  }
  const o = defaultOptions(values.smoke);
  o.skipPeer = values['skip-peer'];
  o.quiet = values.quiet;
  o.iterations = positiveInt('iterations', values.iterations) ?? o.iterations;
  o.warmup = positiveInt('warmup', values.warmup, 0) ?? o.warmup;
  o.flowsPerClient = positiveInt('flows', values.flows) ?? o.flowsPerClient;
  o.maxMinutes = positiveInt('max-minutes', values['max-minutes']) ?? o.maxMinutes;
  if (values.out !== undefined) {
    o.outDir = path.resolve(values.out);
    if (o.smoke) o.resultsPath = path.join(o.outDir, 'RESULTS-smoke.md');
  }
  if (values.results !== undefined) o.resultsPath = path.resolve(values.results);
  if (values.render !== undefined) o.render = path.resolve(values.render);
  if (values.only !== undefined) {
    const only = ONLY_PHASES.find((phase) => phase === values.only);
    if (only === undefined) throw new Error(`--only takes ${ONLY_PHASES.join(', ')}, got "${values.only}"`);
    o.only = only;
    // The agent tasks (issue 15) and the real-app tasks compare the service with the peer: they need it.
    o.skipPeer = values.only !== 'tasks' && values.only !== 'realapps';
    // The real-app tasks take a few minutes an iteration: 3 unless --iterations says otherwise.
    if (only === 'realapps' && values.iterations === undefined) o.iterations = REAL_APP_DEFAULT_ITERATIONS;
    // A section alone is no full report: never over bench/RESULTS.md unless --results says so.
    if (!o.smoke && values.results === undefined)
      o.resultsPath = path.join(o.outDir, `RESULTS-${values.only}.md`);
  }
  return o;
}

/** Writes the markdown report of a results object (targets recomputed) to `resultsPath`. */
export async function writeReport(
  results: BenchResults,
  rawPath: string,
  resultsPath: string,
): Promise<void> {
  results.targets = computeTargets(results);
  // The hand-written analysis of the targets (what bounds them, what was tried) rides along with
  // every full report, so a new run does not drop it.
  const analysis = results.meta.smoke ? '' : await readFile(ANALYSIS_PATH, 'utf8').catch(() => '');
  const markdown = await formatMarkdown(
    renderMarkdown(results, path.relative(REPO_ROOT, rawPath)) + (analysis ? `\n\n${analysis}` : ''),
    resultsPath,
  );
  await mkdir(path.dirname(resultsPath), { recursive: true });
  await writeFile(resultsPath, markdown);
}

const NEW_PROJECT: Target = {
  selector: "role=button[name='New Project']",
  role: 'button',
  name: 'New Project',
};
const NAME_INPUT: Target = { selector: '#name', role: 'textbox', name: 'Name' };
const [SNAPSHOT_INPUTS, SNAPSHOT_LIST, SNAPSHOT_PROJECTS] = SNAPSHOT_PAGES;

/** One step of a latency iteration; `timed` steps return milliseconds. */
interface Step {
  id: OpId | 'setup';
  label: string;
  /** The service method whose /metrics time is the in-server time (default: every method). */
  serverMethod?: string;
  run(sys: BenchSystem, st: SysState, i: number): Promise<number | undefined>;
}

interface SysState {
  main: BenchSession | undefined;
  tmp: BenchSession | undefined;
}

const rotate = <T>(list: readonly T[], by: number): T[] =>
  list.map((_, k) => list[(k + by) % list.length] as T);

function mustContain(read: TextRead, what: string): void {
  if (!read.contains) throw new Error(`the text read did not contain '${what}'`);
}

export interface BenchHooks {
  /** Aborts the run (SIGINT): loops stop, and everything started is stopped. */
  signal?: AbortSignal;
  /** Called with each system once created, so a SIGINT handler can kill its processes by pid. */
  onSystem?: (system: BenchSystem) => void;
}

export interface BenchOutput {
  results: BenchResults;
  rawPath: string;
  resultsPath: string;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch (error) {
    return `unknown (${(error as Error).message.split('\n')[0] ?? ''})`;
  }
}

export async function main(options: BenchOptions, hooks: BenchHooks = {}): Promise<BenchOutput> {
  const run = startRun(options, hooks);
  const { started, loadStart, log, signal } = run;
  const guard = <T>(work: Promise<T>, label: string, ms = options.opTimeoutMs): Promise<T> =>
    withTimeout(work, ms, label, signal);
  const checkAbort = (): void => {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new AbortedError();
  };

  const root = process.getuid?.() === 0;
  const args = launchArgs(root);

  const systems: BenchSystem[] = [];
  let fixture: FixtureServer | undefined;
  const errors: BenchError[] = [];
  try {
    fixture = await startFixtureServer();
    const base = fixture.url;
    log(`fixture server on ${base}; chromium ${run.executablePath}`);

    const floor = new FloorSystem(run.executablePath, args, options.opTimeoutMs);
    systems.push(floor);
    hooks.onSystem?.(floor);
    const service = new ServiceSystem({
      repoRoot: REPO_ROOT,
      entry: options.serviceEntry,
      executablePath: run.executablePath,
      timeoutMs: options.opTimeoutMs,
      // Room for the scale phase's 128 idle sessions (MAX_SESSIONS binds no other phase).
      env: { ...SCALE_SERVICE_ENV },
    });
    systems.push(service);
    hooks.onSystem?.(service);
    let peer: PeerSystem | undefined;
    if (!options.skipPeer) {
      peer = new PeerSystem({
        executablePath: run.executablePath,
        args,
        runningAsRoot: root,
        timeoutMs: options.opTimeoutMs,
        repoRoot: REPO_ROOT,
      });
      systems.push(peer);
      hooks.onSystem?.(peer);
    }
    for (const sys of systems) {
      log(`starting ${sys.name} …`);
      await guard(sys.start(), `${sys.name} start`, 120_000);
      log(`${sys.name} ready (browser pid ${sys.browserRoots().join(', ')})`);
    }

    // ---- latency: every operation, interleaved across systems ----
    const latency = {} as Record<OpId, LatencyEntry>;
    for (const { id, label } of LATENCY_OPS)
      latency[id] = emptyLatencyEntry(
        label,
        systems.filter((s) => s.unsupported.has(id)).map((s) => s.name),
      );
    const state = new Map<SystemName, SysState>(
      systems.map((s) => [s.name, { main: undefined, tmp: undefined }]),
    );
    const mainOf = (st: SysState): BenchSession => {
      if (!st.main) throw new Error('no main session');
      return st.main;
    };
    const url = (p: string): string => `${base}${p}`;
    /** The end-to-end flow: create → goto /static (load) → text of main → close (closed even on failure). */
    const flow = async (sys: BenchSystem): Promise<void> => {
      const s = await sys.createSession({ open: false });
      try {
        await s.goto(url('/static'), 'load');
        mustContain(await s.readText('main', 'Static content'), 'Static content');
      } finally {
        await s.close();
      }
    };
    /** The whole snapshot of the current document, which must hold the page's probe text. */
    const snapshotStep = ({ op, path, probe }: (typeof SNAPSHOT_PAGES)[number]): Step => ({
      id: op,
      label: `snapshot ${path}`,
      run: async (_s, st) => timed(async () => mustContain(await mainOf(st).snapshot(probe), probe)),
    });
    // The per-call rows time single calls: neither system's work after a create or a close (the
    // service's pool refill, Chromium tearing the context down) may share the CPU with the next
    // timed call, its own or the other system's. So each system rests right after its own create,
    // close and flow, and before the iteration's first step. The flow row times a goto right after
    // a create; the churn and scale phases time creates and calls that do share the CPU.
    const rest = async (sys: BenchSystem): Promise<void> => {
      if ((await sys.quiesce?.()) === false)
        log(`latency: ${sys.name} was still busy after a create or close when the bench stopped waiting`);
      await sleep(QUIESCE_PAUSE_MS);
    };
    const mainSteps: Step[] = [
      {
        id: 'setup',
        label: 'quiesce',
        run: async (sys) => {
          await rest(sys);
          return undefined;
        },
      },
      {
        id: 'session.create',
        label: 'create',
        run: async (sys, st) => {
          const ms = await timed(async () => {
            st.tmp = await sys.createSession();
          });
          await rest(sys);
          return ms;
        },
      },
      {
        id: 'session.close',
        label: 'close',
        run: async (sys, st) => {
          const s = st.tmp;
          st.tmp = undefined;
          if (!s) return undefined;
          const ms = await timed(() => s.close());
          await rest(sys);
          return ms;
        },
      },
      {
        id: 'goto.static.load',
        label: 'goto',
        run: async (_s, st) => timed(() => mainOf(st).goto(url('/static'), 'load')),
      },
      {
        id: 'goto.projects.networkidle',
        label: 'networkidle',
        run: async (_s, st) => timed(() => mainOf(st).goto(url('/projects'), 'networkidle')),
      },
      {
        id: 'goto.projects.loadText',
        label: 'load+text',
        run: async (_s, st) => timed(() => mainOf(st).gotoAndWaitForText(url('/projects'), 'Apollo')),
      },
      {
        id: 'text.main.first',
        label: 'text',
        run: async (_s, st) =>
          timed(async () => mustContain(await mainOf(st).readText('main', 'Apollo'), 'Apollo')),
      },
      {
        id: 'text.main.repeat',
        label: 'text again',
        run: async (_s, st) =>
          timed(async () => mustContain(await mainOf(st).readText('main', 'Apollo'), 'Apollo')),
      },
      snapshotStep(SNAPSHOT_PROJECTS),
      {
        id: 'setup',
        label: 'prepare click',
        run: async (_s, st) => {
          await mainOf(st).prepare(NEW_PROJECT);
          return undefined;
        },
      },
      { id: 'click', label: 'click', run: async (_s, st) => timed(() => mainOf(st).click(NEW_PROJECT)) },
      {
        id: 'setup',
        label: 'goto /form',
        run: async (_s, st) => {
          await mainOf(st).goto(url('/form'), 'load');
          await mainOf(st).prepare(NAME_INPUT);
          return undefined;
        },
      },
      {
        id: 'fill',
        label: 'fill',
        run: async (_s, st, i) => timed(() => mainOf(st).fill(NAME_INPUT, `Zephyr ${i}`)),
      },
      { id: 'screenshot', label: 'screenshot', run: async (_s, st) => timed(() => mainOf(st).screenshot()) },
      {
        id: 'goto.big.load',
        label: 'goto /big',
        run: async (_s, st) => timed(() => mainOf(st).goto(url('/big'), 'load')),
      },
      {
        id: 'text.big',
        label: 'big text',
        run: async (_s, st) =>
          timed(async () =>
            mustContain(await mainOf(st).readText('main', 'Paragraph 1800'), 'Paragraph 1800'),
          ),
      },
      ...[SNAPSHOT_INPUTS, SNAPSHOT_LIST].flatMap((page): Step[] => [
        {
          id: 'setup',
          label: `goto ${page.path}`,
          run: async (_s, st) => {
            await mainOf(st).goto(url(page.path), 'load');
            return undefined;
          },
        },
        snapshotStep(page),
      ]),
    ];
    const flowStep: Step = {
      id: 'flow',
      label: 'flow',
      run: async (sys) => {
        const ms = await timed(() => flow(sys));
        await rest(sys);
        return ms;
      },
    };

    /** Acting (issue 11): a fresh load of each page, then its actions, one timed call each. */
    const need = <K extends 'act' | 'fillsThenClick' | 'actBatch'>(
      s: BenchSession,
      key: K,
    ): NonNullable<BenchSession[K]> => {
      const fn = s[key];
      if (fn === undefined) throw new Error(`this system has no ${key}`);
      return fn.bind(s) as NonNullable<BenchSession[K]>;
    };
    const gotoStep = (p: string): Step => ({
      id: 'setup',
      label: `goto ${p}`,
      run: async (_s, st) => {
        await mainOf(st).goto(url(p), 'load');
        return undefined;
      },
    });
    const actingSteps: Step[] = [];
    let actingPage: string | undefined;
    for (const { id, kind } of ACTION_OPS) {
      const p = actionPage(kind);
      if (p !== actingPage) actingSteps.push(gotoStep(p));
      actingPage = p;
      const k: ActionKind = kind;
      actingSteps.push({
        id,
        label: kind,
        run: async (_s, st, i) => timed(() => need(mainOf(st), 'act')(k, i)),
      });
    }
    actingSteps.push(
      gotoStep('/inputs'),
      {
        id: 'act.calls',
        label: '6 calls',
        run: async (_s, st, i) =>
          timed(() => need(mainOf(st), 'fillsThenClick')(actFills(i, 'c'), ACT_CLICK)),
      },
      // A fresh load for page.act too: the first action on a document costs Playwright more (its
      // injected script), and both rows should pay it, as an agent filling a form it just opened does.
      gotoStep('/inputs'),
      {
        id: 'act.batch',
        label: 'page.act',
        serverMethod: 'page.act',
        run: async (_s, st, i) => timed(() => need(mainOf(st), 'actBatch')(actFills(i, 'b'), ACT_CLICK)),
      },
    );
    const steps: Step[] = options.only === 'acting' ? actingSteps : [...mainSteps, ...actingSteps, flowStep];

    const recordError = (phase: string, sys: BenchSystem, op: string, error: unknown): void => {
      const message = error instanceof Error ? error.message : String(error);
      errors.push({ phase, system: sys.name, op, message });
      log(`  ! ${sys.name} ${op}: ${message.split('\n')[0] ?? ''}`);
      const count = errors.filter((e) => e.system === sys.name).length;
      if (count > 20) throw new Error(`${sys.name}: more than 20 errors; stopping (last: ${message})`);
    };
    const renewMain = async (sys: BenchSystem, st: SysState): Promise<void> => {
      const old = st.main;
      st.main = undefined;
      if (old)
        await guard(old.close(), `${sys.name} close`).catch((e: unknown) =>
          recordError('latency', sys, 'close (recovery)', e),
        );
      st.main = await guard(sys.createSession(), `${sys.name} create`);
    };

    for (const sys of systems) {
      const st = state.get(sys.name);
      if (st) st.main = await guard(sys.createSession(), `${sys.name} create`);
    }
    const total = options.warmup + options.iterations;
    log(
      `latency: ${options.iterations} iterations after ${options.warmup} warm-up, systems ${systems.map((s) => s.name).join(', ')}`,
    );
    for (let i = 0; i < total; i++) {
      const t0 = performance.now();
      const record = i >= options.warmup;
      const order = rotate(systems, i);
      for (const step of steps) {
        for (const sys of order) {
          checkAbort();
          if (step.id !== 'setup' && sys.unsupported.has(step.id)) continue;
          const st = state.get(sys.name);
          if (!st) continue;
          try {
            const serverClock = sys.serverClockMs?.bind(sys);
            const clock =
              record && step.id !== 'setup' && serverClock ? () => serverClock(step.serverMethod) : undefined;
            const before = clock ? await guard(clock(), `${sys.name} server clock`) : undefined;
            const ms = await guard(step.run(sys, st, i), `${sys.name} ${step.label}`);
            if (ms !== undefined && record && step.id !== 'setup') {
              const entry = latency[step.id];
              (entry.samples[sys.name] ??= []).push(ms);
              if (clock && before !== undefined)
                entry.serviceServerSide.push((await guard(clock(), `${sys.name} server clock`)) - before);
            }
          } catch (error) {
            if (error instanceof AbortedError || signal.aborted) throw error;
            recordError('latency', sys, step.id === 'setup' ? step.label : step.id, error);
            await renewMain(sys, st);
          }
        }
      }
      const flowMs = (s: SystemName): string => {
        const v = latency.flow.samples[s]?.at(-1);
        return v === undefined || !record ? '' : ` ${s} flow ${v.toFixed(0)} ms`;
      };
      log(
        `latency ${i + 1}/${total}${record ? '' : ' (warm-up)'} in ${((performance.now() - t0) / 1000).toFixed(1)} s;` +
          systems.map((s) => flowMs(s.name)).join(','),
      );
    }
    for (const { id } of LATENCY_OPS) {
      const entry = latency[id];
      for (const sys of systems) {
        const samples = entry.samples[sys.name];
        if (samples && samples.length > 0) entry.summary[sys.name] = summarize(samples);
      }
      if (entry.serviceServerSide.length > 0) entry.serviceServerSummary = summarize(entry.serviceServerSide);
    }

    // `--only acting` and `--only latency` measure the latency rows above and nothing after them.
    const wholeRun = options.only === undefined;

    // ---- the routes row (issue 14): the service alone, 10 routes against none ----
    const routes = wholeRun
      ? await guard(
          measureRoutesRow(service, base, options, log),
          'service routes row',
          ROUTES_ROW_TIMEOUT_MS,
        ).catch((error: unknown) => {
          if (signal.aborted) throw error;
          recordError('routes', service, 'routes row', error);
          return undefined;
        })
      : undefined;

    // ---- session creation under churn (issue 15): back to back and in bursts, no idle gap ----
    const churn = wholeRun
      ? await guard(measureChurn(floor, service, options, log), 'churn phase', CHURN_TIMEOUT_MS).catch(
          (error: unknown) => {
            if (signal.aborted) throw error;
            recordError('churn', service, 'churn', error);
            return undefined;
          },
        )
      : undefined;

    // ---- Playwright's own networkidle on the floor: does it fire at all on /projects? ----
    const probeMs = options.smoke ? 3000 : 5000;
    const floorNativeNetworkidle = !wholeRun
      ? null
      : {
          static: await guard(
            floor.nativeNetworkidle(url('/static'), probeMs),
            'floor networkidle probe',
            probeMs + 10_000,
          ),
          projects: await guard(
            floor.nativeNetworkidle(url('/projects'), probeMs),
            'floor networkidle probe',
            probeMs + 10_000,
          ),
          timeoutMs: probeMs,
        };
    if (floorNativeNetworkidle)
      log(
        `floor native networkidle: /static ${floorNativeNetworkidle.static.fired ? `${floorNativeNetworkidle.static.ms.toFixed(0)} ms` : 'never fired'}, ` +
          `/projects ${floorNativeNetworkidle.projects.fired ? `${floorNativeNetworkidle.projects.ms.toFixed(0)} ms` : `never fired within ${probeMs} ms`}`,
      );

    // ---- characters returned for "what does the page say" ----
    const chars: PerSystem<TextRead> = {};
    for (const sys of wholeRun ? systems : []) {
      const st = state.get(sys.name);
      if (!st) continue;
      try {
        const main = mainOf(st);
        await guard(main.gotoAndWaitForText(url('/projects'), 'Apollo'), `${sys.name} chars goto`);
        const read = await guard(main.readPage('Apollo'), `${sys.name} chars read`);
        mustContain(read, 'Apollo');
        chars[sys.name] = read;
        log(`chars: ${sys.name} ${read.responseChars} received (${read.textChars} of text)`);
      } catch (error) {
        if (signal.aborted) throw error;
        recordError('chars', sys, 'read page', error);
      }
    }

    // ---- characters returned for "what can I do on this page" ----
    const actionable: ActionablePoint[] = [];
    for (const page of wholeRun ? SNAPSHOT_PAGES : []) {
      const point: ActionablePoint = { path: page.path, systems: {} };
      for (const sys of systems) {
        const st = state.get(sys.name);
        if (!st) continue;
        try {
          const main = mainOf(st);
          await guard(main.gotoAndWaitForText(url(page.path), page.probe), `${sys.name} actionable goto`);
          const read = await guard(main.actionable(page.action), `${sys.name} actionable read`);
          mustContain(read, page.action);
          point.systems[sys.name] = read;
          log(
            `actionable ${page.path}: ${sys.name} ${read.textChars} chars (${read.responseChars} received)`,
          );
        } catch (error) {
          if (signal.aborted) throw error;
          recordError('actionable', sys, page.path, error);
        }
      }
      actionable.push(point);
    }

    // ---- the service's snapshot diff after one fill, against its whole snapshot ----
    const snapshotDiff: SnapshotDiffPoint[] = [];
    const diffSession = wholeRun ? await guard(service.createSession(), 'service create') : undefined;
    if (diffSession)
      try {
        for (const { path: p, field, value } of DIFF_PAGES) {
          try {
            await guard(diffSession.goto(url(p), 'load'), 'service diff goto');
            const full = await guard(diffSession.snapshotAnswer(), 'service whole snapshot');
            const ref = refFor(full.snapshot, field);
            if (ref === undefined)
              throw new Error(`no ref for ${field.role} "${field.name}" in the whole snapshot of ${p}`);
            await guard(diffSession.fillRef(ref, value), 'service fill');
            const diff = await guard(diffSession.snapshotAnswer({ since: full.revision }), 'service diff');
            if (diff.since !== full.revision || diff.changes === null)
              throw new Error(`since: ${full.revision} gave the whole snapshot (${diff.note ?? 'no note'})`);
            if (!diff.snapshot.includes(value)) throw new Error(`the diff does not show '${value}'`);
            snapshotDiff.push({
              path: p,
              field: `${field.role} "${field.name}" [ref=${ref}]`,
              revision: full.revision,
              fullChars: full.length,
              diffChars: diff.length,
              fullResponseChars: full.responseChars,
              diffResponseChars: diff.responseChars,
              changes: diff.changes,
              diff: diff.snapshot,
            });
            log(`snapshot diff ${p}: ${diff.length} chars against ${full.length} whole`);
          } catch (error) {
            if (signal.aborted) throw error;
            recordError('diff', service, p, error);
          }
        }
      } finally {
        await guard(diffSession.close(), 'service close').catch((e: unknown) =>
          recordError('diff', service, 'close', e),
        );
      }

    for (const sys of systems) {
      const st = state.get(sys.name);
      const s = st?.main;
      if (st) st.main = undefined;
      if (s)
        await guard(s.close(), `${sys.name} close`).catch((e: unknown) =>
          recordError('latency', sys, 'close', e),
        );
    }

    // ---- memory per idle session ----
    const settle = async (sys: BenchSystem): Promise<ReturnType<typeof treeMemory>> => {
      await sleep(options.memorySettle.minMs);
      const until = performance.now() + options.memorySettle.maxMs;
      let last = treeMemory(sys.browserRoots());
      while (performance.now() < until) {
        checkAbort();
        await sleep(500);
        const now = treeMemory(sys.browserRoots());
        const moved = Math.abs(now.pssKiB - last.pssKiB) / Math.max(1, last.pssKiB);
        last = now;
        if (moved < 0.01) break;
      }
      return last;
    };
    const inBatches = async <T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> => {
      for (let k = 0; k < items.length; k += width) await Promise.all(items.slice(k, k + width).map(fn));
    };
    const memory: BenchResults['memory'] = [];
    for (const n of wholeRun ? options.memoryLevels : []) {
      const level: { sessions: number; systems: PerSystem<MemoryPoint> } = { sessions: n, systems: {} };
      for (const sys of systems) {
        checkAbort();
        const sessions: BenchSession[] = [];
        try {
          const before = await settle(sys);
          await inBatches(
            Array.from({ length: n }, (_, k) => k),
            4,
            async () => {
              const s = await guard(sys.createSession(), `${sys.name} create`);
              sessions.push(s);
              await guard(s.goto(url('/static'), 'load'), `${sys.name} goto`);
            },
          );
          const after = await settle(sys);
          const point: MemoryPoint = {
            sessions: n,
            baselinePssKiB: before.pssKiB,
            totalPssKiB: after.pssKiB,
            baselinePrivateKiB: before.privateKiB,
            totalPrivateKiB: after.privateKiB,
            processes: after.processes,
            perSessionPssMiB: (after.pssKiB - before.pssKiB) / n / 1024,
            perSessionPrivateMiB: (after.privateKiB - before.privateKiB) / n / 1024,
            totalPerSessionPssMiB: after.pssKiB / n / 1024,
          };
          level.systems[sys.name] = point;
          log(
            `memory: ${sys.name} ${n} sessions: ${point.perSessionPssMiB.toFixed(1)} MiB PSS each ` +
              `(baseline ${(before.pssKiB / 1024).toFixed(0)} MiB, total ${(after.pssKiB / 1024).toFixed(0)} MiB, ${after.processes} processes)`,
          );
        } catch (error) {
          if (signal.aborted) throw error;
          recordError('memory', sys, `${n} sessions`, error);
        } finally {
          await inBatches(sessions, 4, async (s) => {
            await guard(s.close(), `${sys.name} close`).catch((e: unknown) =>
              recordError('memory', sys, 'close', e),
            );
          });
        }
      }
      memory.push(level);
    }

    // ---- throughput: concurrent clients each looping the flow ----
    const throughput: BenchResults['throughput'] = [];
    for (const [li, clients] of (wholeRun ? options.concurrency : []).entries()) {
      const level: BenchResults['throughput'][number] = {
        clients,
        flowsPerClient: options.flowsPerClient,
        systems: {},
      };
      for (const sys of rotate(systems, li)) {
        checkAbort();
        let flows = 0;
        let failed = 0;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: clients }, async () => {
            for (let f = 0; f < options.flowsPerClient; f++) {
              checkAbort();
              try {
                await guard(flow(sys), `${sys.name} flow`);
                flows++;
              } catch (error) {
                if (signal.aborted) throw error;
                failed++;
                recordError('throughput', sys, `flow at ${clients} clients`, error);
              }
            }
          }),
        );
        const seconds = (performance.now() - t0) / 1000;
        const point: ThroughputPoint = {
          clients,
          flows,
          seconds,
          flowsPerSec: flows / seconds,
          errors: failed,
        };
        level.systems[sys.name] = point;
        log(
          `throughput: ${sys.name} ${clients} clients: ${point.flowsPerSec.toFixed(2)} flows/s (${flows} flows in ${seconds.toFixed(1)} s)`,
        );
      }
      throughput.push(level);
    }

    // ---- the scale curve (issue 15): memory and latency against sessions, throughput against clients ----
    const scale = wholeRun
      ? await measureScale({
          systems: [floor, service],
          base,
          // Its own budget, as in --only scale: the report of every phase before it must still be written.
          counts: { ...scaleCounts(options), budgetMs: scaleBudgetMs(options.maxMinutes, started) },
          log,
          guard,
          opTimeoutMs: options.opTimeoutMs,
          checkAbort,
          // Not the run's recorder, which stops a run drowning in errors: a level the floor cannot
          // finish in time is a point of the curve, and the phases before it must still be written.
          recordError: scaleErrorRecorder(errors, log, signal),
        })
      : undefined;
    if (scale)
      await writeScaleChart(
        scale,
        scaleChartPath(options, REPO_ROOT, false),
        REPO_ROOT,
        `${new Date().toISOString().slice(0, 16)}Z, commit ${gitCommit()}`,
      );

    // ---- results ----
    const floorPkg = JSON.parse(
      readFileSync(createRequire(import.meta.url).resolve('playwright-core/package.json'), 'utf8'),
    ) as { version?: string };
    const peerInfo = peer ? peerPackage() : undefined;
    const browserCommands: PerSystem<string[]> = {};
    for (const sys of systems) browserCommands[sys.name] = sys.browserCommand();
    const cpus = os.cpus();
    const results: BenchResults = {
      meta: {
        date: new Date().toISOString(),
        durationSec: (performance.now() - started) / 1000,
        smoke: options.smoke,
        iterations: options.iterations,
        warmup: options.warmup,
        nproc: os.availableParallelism(),
        cpuModel: cpus[0]?.model ?? 'unknown',
        totalMemGiB: os.totalmem() / 1024 ** 3,
        node: process.version,
        os: `${os.type()} ${os.release()} ${os.arch()}`,
        chromium: floor.version(),
        chromiumPath: run.executablePath,
        serviceCommit: gitCommit(),
        serviceEntry: options.serviceEntry,
        floorPlaywright: floorPkg.version ?? 'unknown',
        peer: peerInfo
          ? { package: '@playwright/mcp', version: peerInfo.version, playwright: peerInfo.playwright }
          : null,
        systems: systems.map((s) => s.name),
        ...(options.only ? { only: options.only } : {}),
        memoryLevels: wholeRun ? options.memoryLevels : [],
        concurrency: wholeRun ? options.concurrency : [],
        flowsPerClient: options.flowsPerClient,
        browserCommands,
        loadavg: { start: loadStart, end: os.loadavg()[0] ?? Number.NaN },
      },
      latency,
      floorNativeNetworkidle,
      chars,
      actionable,
      snapshotDiff,
      memory,
      throughput,
      ...(routes ? { routes } : {}),
      ...(scale ? { scale } : {}),
      ...(churn ? { churn } : {}),
      targets: [],
      errors,
    };
    results.targets = computeTargets(results);

    await mkdir(options.outDir, { recursive: true });
    const stamp = results.meta.date.replace(/[:.]/g, '-');
    const rawPath = path.join(options.outDir, `raw-${stamp}.json`);
    await writeFile(rawPath, `${JSON.stringify(results, null, 2)}\n`);
    await writeReport(results, rawPath, options.resultsPath);
    log(`wrote ${path.relative(REPO_ROOT, options.resultsPath)} and ${path.relative(REPO_ROOT, rawPath)}`);
    for (const t of results.targets.filter((x) => wholeRun || inOnlyRun(options.only, x)))
      log(`target ${t.id}: ${t.measured} → ${t.met === null ? 'n/a' : t.met ? 'met' : 'NOT met'}`);
    return { results, rawPath, resultsPath: options.resultsPath };
  } finally {
    run.end();
    for (const sys of [...systems].reverse()) {
      await sys
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${sys.name} failed: ${String(error)}\n`));
    }
    await fixture?.close();
    log('stopped every process the run started');
  }
}

/** The whole routes row (10 routes against none, 2 × (warm-up + iterations) loads) is bounded by this. */
const ROUTES_ROW_TIMEOUT_MS = 10 * 60_000;

/** `--only routes`: the service alone measures the routes row of issue 14; its report is that section. */
export async function mainRoutes(options: BenchOptions, hooks: BenchHooks = {}): Promise<RoutesRowResult> {
  const { log, executablePath } = startRun({ quiet: options.quiet }, hooks);
  const fixture = await startFixtureServer();
  const service = new ServiceSystem({
    repoRoot: REPO_ROOT,
    entry: options.serviceEntry,
    executablePath,
    timeoutMs: options.opTimeoutMs,
  });
  hooks.onSystem?.(service);
  try {
    await withTimeout(service.start(), 120_000, 'service start', hooks.signal);
    log(`service ready; fixture server on ${fixture.url}`);
    const row = await withTimeout(
      measureRoutesRow(service, fixture.url, options, log),
      ROUTES_ROW_TIMEOUT_MS,
      'service routes row',
      hooks.signal,
    );
    const date = new Date().toISOString();
    await mkdir(options.outDir, { recursive: true });
    const rawPath = path.join(options.outDir, `raw-routes-${date.replace(/[:.]/g, '-')}.json`);
    await writeFile(rawPath, `${JSON.stringify({ date, commit: gitCommit(), routes: row }, null, 2)}\n`);
    const markdown = [
      '# Benchmark: the routes row only (`--only routes`)',
      '',
      `${date}, commit ${gitCommit()}, load average ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)}; raw: ${path.relative(REPO_ROOT, rawPath)}.`,
      '',
      ...routesSection(row),
    ].join('\n');
    await writeFile(options.resultsPath, await formatMarkdown(markdown, options.resultsPath));
    log(`wrote ${path.relative(REPO_ROOT, options.resultsPath)}`);
    return row;
  } finally {
    await service
      .stop()
      .catch((error: unknown) => process.stderr.write(`stopping the service failed: ${String(error)}\n`));
    await fixture.close();
  }
}

/** CLI entry: SIGINT/SIGTERM abort the run; a second signal, or 20 s without a clean stop, kills by pid. */
async function cli(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.render !== undefined) {
    const results = withEveryOp(JSON.parse(readFileSync(options.render, 'utf8')) as BenchResults);
    await writeReport(results, options.render, options.resultsPath);
    process.stdout.write(`wrote ${path.relative(REPO_ROOT, options.resultsPath)} from ${options.render}\n`);
    return;
  }
  // The service runs as `npm start` runs it: from the build of the working tree as it is now.
  options.serviceEntry = 'built';
  if (!options.quiet)
    process.stdout.write('building the service (tsc -b tsconfig.build.json, as npm start does) …\n');
  execFileSync(process.execPath, [TSC, '-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const controller = new AbortController();
  // What SIGINT kills by pid: the systems, and the real apps of `--only realapps`.
  const systems: Killable[] = [];
  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (interrupted) {
      for (const s of systems) s.killNow();
      process.exit(130);
    }
    interrupted = true;
    process.stderr.write(`\n${sig}: stopping the benchmark and every process it started …\n`);
    controller.abort(new AbortedError());
    setTimeout(() => {
      for (const s of systems) s.killNow();
      process.exit(130);
    }, 20_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const hooks = {
      signal: controller.signal,
      onSystem: (s: Killable) => {
        systems.push(s);
      },
    };
    if (options.only === 'routes') await mainRoutes(options, hooks);
    else if (options.only === 'scale') await mainScale(options, REPO_ROOT, hooks);
    else if (options.only === 'tasks' || options.only === 'realapps') {
      // The task suites: TASKS_ONLY=a,b picks tasks, TASKS_TRACE=1 prints every call and answer.
      const suite = {
        ...options,
        repoRoot: REPO_ROOT,
        commit: gitCommit(),
        trace: process.env.TASKS_TRACE === '1',
        ...(process.env.TASKS_ONLY ? { taskIds: process.env.TASKS_ONLY.split(',') } : {}),
      };
      await (options.only === 'tasks' ? mainTasks(suite, hooks) : mainRealApps(suite, hooks));
    } else if (options.only === 'churn')
      await mainChurn(options, hooks, { root: REPO_ROOT, commit: gitCommit() });
    else if (options.only === 'neighbours')
      await mainNeighbours(options, hooks, { root: REPO_ROOT, commit: gitCommit() });
    else if (options.only === 'fresh')
      await mainFresh(options, hooks, { root: REPO_ROOT, commit: gitCommit() });
    else await main(options, hooks);
  } catch (error) {
    if (interrupted) process.stderr.write('benchmark interrupted; no results written\n');
    else
      process.stderr.write(
        `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    process.exitCode = interrupted ? 130 : 1;
  }
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(path.resolve(invokedPath)).href) {
  // tsx turns source maps on, which makes every Error's stack (Playwright captures one per API call)
  // cost more; the floor is in-process Playwright as a plain node script runs it.
  process.setSourceMapsEnabled(false);
  await cli();
}
