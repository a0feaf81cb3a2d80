// `--only tasks` (issue 15): the agent task suite (bench/tasks/), each task done by this service and
// by @playwright/mcp as an agent would call their tools, interleaved; per task and system: calls,
// characters returned to the agent, wall time, and success as the fixture server saw it.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { launchArgs } from '../../src/browser/engine/browserResolve.js';
import { startRun } from './runStart.js';
import { startFixtureServer } from '../../test/fixtures/fixtureServer.js';
import { taskRun } from '../../test/fixtures/routes/tasks.js';
import { PeerAgent, ServiceAgent, newMeter, type Meter } from '../tasks/agents.js';
import { SMOKE_TASKS, TASKS, type AgentTask, type TaskContext } from '../tasks/shopTasks.js';
import { PeerSystem, peerPackage } from '../systems/peer.js';
import { ServiceSystem, type ServiceEntry } from '../systems/service.js';
import type { BenchSystem } from '../systems/types.js';
import { formatMarkdown } from './report.js';
import { summarize, withTimeout } from './stats.js';

/** Targets of issue 15, service ÷ peer, per task and in total. */
export const TASK_TARGETS = { chars: 0.3, calls: 0.8, wallMs: 0.5 } as const;
/** One task run (session set-up and close are outside it) is bounded by this. */
export const TASK_RUN_TIMEOUT_MS = 90_000;
/** A 1×1 PNG: the signup's avatar. */
const AVATAR_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

type Sys = 'service' | 'peer';

export interface TaskRunSample {
  calls: number;
  chars: number;
  ms: number;
  ok: boolean;
  /** Why it failed (the check's reason or the error). */
  reason?: string;
  answer?: string;
}

export interface TaskResult {
  id: string;
  title: string;
  runs: Record<Sys, TaskRunSample[]>;
}

export interface TasksReport {
  date: string;
  commit: string;
  iterations: number;
  loadavg: number;
  peer: string;
  tasks: TaskResult[];
}

export interface TasksOptions {
  iterations: number;
  smoke: boolean;
  quiet: boolean;
  outDir: string;
  resultsPath: string;
  opTimeoutMs: number;
  serviceEntry: ServiceEntry;
  repoRoot: string;
  commit: string;
  /** Print every call and answer (TASKS_TRACE=1). */
  trace?: boolean;
  /** Only these task ids (default: every task; the smoke: SMOKE_TASKS). */
  taskIds?: string[];
}

/** One task by one system in a fresh session; never throws (a failure is a sample with ok: false). */
async function runOne(
  task: AgentTask,
  sys: Sys,
  systems: { service: ServiceSystem; peer: PeerSystem },
  base: string,
  upload: TaskContext['upload'],
  trace: boolean,
  signal: AbortSignal | undefined,
): Promise<{ sample: TaskRunSample; meter: Meter }> {
  const run = `${task.id}-${sys}-${randomBytes(6).toString('hex')}`;
  const ctx: TaskContext = {
    url: (p) => `${base}${p}?run=${run}`,
    state: () => taskRun(run),
    upload,
  };
  const meter = newMeter(trace);
  let answer: string | undefined;
  let reason: string | undefined;
  let ms = Number.NaN;
  const attempt = async (work: () => Promise<string>, close: () => Promise<void>): Promise<void> => {
    try {
      const t0 = performance.now();
      try {
        answer = await withTimeout(work(), TASK_RUN_TIMEOUT_MS, `${sys} ${task.id}`, signal);
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
      ms = performance.now() - t0;
    } finally {
      await close().catch((e: unknown) => {
        reason ??= `close failed: ${String(e)}`;
      });
    }
  };
  if (sys === 'service') {
    const session = await systems.service.createSession();
    await attempt(
      () => task.service(new ServiceAgent(session, meter), ctx),
      () => session.close(),
    );
  } else {
    const session = await systems.peer.createSession({ open: false });
    await attempt(
      () => task.peer(new PeerAgent(session, meter), ctx),
      () => session.close(),
    );
  }
  if (answer !== undefined && reason === undefined) reason = task.check(answer, ctx) ?? undefined;
  return {
    sample: {
      calls: meter.calls,
      chars: meter.chars,
      ms,
      ok: reason === undefined,
      ...(reason ? { reason } : {}),
      ...(answer !== undefined ? { answer } : {}),
    },
    meter,
  };
}

/** Runs every task `iterations` times on both systems, the order of the systems swapped each time. */
export async function measureTasks(
  systems: { service: ServiceSystem; peer: PeerSystem },
  base: string,
  options: Pick<TasksOptions, 'iterations' | 'trace' | 'taskIds'> & { smoke: boolean },
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<TaskResult[]> {
  const wanted = options.taskIds ?? (options.smoke ? SMOKE_TASKS : undefined);
  const tasks = wanted ? TASKS.filter((t) => wanted.includes(t.id)) : TASKS;
  // The peer reads files only under its workspace root (its working directory).
  const dir = await mkdtemp(path.join(systems.peer.workspace(), 'tasks-'));
  try {
    const bytes = Buffer.from(AVATAR_BASE64, 'base64');
    const upload = {
      path: path.join(dir, 'avatar.png'),
      name: 'avatar.png',
      base64: AVATAR_BASE64,
      bytes: bytes.length,
    };
    await writeFile(upload.path, bytes);
    const results: TaskResult[] = tasks.map((t) => ({
      id: t.id,
      title: t.title,
      runs: { service: [], peer: [] },
    }));
    for (let i = 0; i < options.iterations; i++)
      for (const [k, task] of tasks.entries()) {
        const order: Sys[] = (i + k) % 2 === 0 ? ['service', 'peer'] : ['peer', 'service'];
        for (const sys of order) {
          if (signal?.aborted) throw new Error('aborted');
          const { sample, meter } = await runOne(
            task,
            sys,
            systems,
            base,
            upload,
            options.trace === true,
            signal,
          );
          results[k]?.runs[sys].push(sample);
          log(
            `${task.id} ${sys}: ${sample.ok ? 'ok' : `FAILED (${sample.reason ?? ''})`}, ${sample.calls} calls, ${sample.chars} chars, ${sample.ms.toFixed(0)} ms`,
          );
          if (meter.trace) log(meter.trace.join('\n'));
        }
      }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => summarize(xs).p50;
const ratio = (s: number, p: number): number => (p > 0 ? s / p : Number.NaN);
const fmtRatio = (r: number, target: number): string =>
  Number.isFinite(r) ? `${r.toFixed(2)}× ${r <= target ? '✅' : '❌'}` : 'n/a';

interface Row {
  id: string;
  s: { calls: number; chars: number; ms: number; ok: string };
  p: { calls: number; chars: number; ms: number; ok: string };
}

function rowOf(t: TaskResult): Row {
  const side = (runs: TaskRunSample[]) => {
    const okRuns = runs.filter((r) => r.ok);
    return {
      calls: median(runs.map((r) => r.calls)),
      chars: median(runs.map((r) => r.chars)),
      ms: median(runs.map((r) => r.ms)),
      ok: `${okRuns.length}/${runs.length}`,
    };
  };
  return { id: t.id, s: side(t.runs.service), p: side(t.runs.peer) };
}

/** The markdown section: a row per task, the total, the targets, and why any run failed. */
export function tasksSection(tasks: TaskResult[]): string[] {
  const rows = tasks.map(rowOf);
  const total: Row = {
    id: '**total**',
    s: { calls: 0, chars: 0, ms: 0, ok: '' },
    p: { calls: 0, chars: 0, ms: 0, ok: '' },
  };
  let sOk = 0;
  let pOk = 0;
  let n = 0;
  for (const r of rows)
    for (const k of ['calls', 'chars', 'ms'] as const) {
      total.s[k] += r.s[k];
      total.p[k] += r.p[k];
    }
  for (const t of tasks) {
    sOk += t.runs.service.filter((r) => r.ok).length;
    pOk += t.runs.peer.filter((r) => r.ok).length;
    n += t.runs.service.length;
  }
  total.s.ok = `${sOk}/${n}`;
  total.p.ok = `${pOk}/${n}`;
  const line = (r: Row) =>
    `| ${r.id} | ${r.s.calls} / ${r.p.calls} | ${fmtRatio(ratio(r.s.calls, r.p.calls), TASK_TARGETS.calls)} | ${r.s.chars} / ${r.p.chars} | ${fmtRatio(ratio(r.s.chars, r.p.chars), TASK_TARGETS.chars)} | ${r.s.ms.toFixed(0)} / ${r.p.ms.toFixed(0)} | ${fmtRatio(ratio(r.s.ms, r.p.ms), TASK_TARGETS.wallMs)} | ${r.s.ok} / ${r.p.ok} |`;
  const failures = tasks.flatMap((t) =>
    (['service', 'peer'] as const).flatMap((sys) =>
      t.runs[sys].filter((r) => !r.ok).map((r) => `- ${t.id}, ${sys}: ${r.reason ?? 'failed'}`),
    ),
  );
  const met = (k: 'calls' | 'chars' | 'ms', target: number) =>
    rows.every((r) => ratio(r.s[k], r.p[k]) <= target) && ratio(total.s[k], total.p[k]) <= target;
  const everyOk = sOk === n && pOk === n;
  return [
    '## Agent tasks (issue 15)',
    '',
    "Each task is done by this service (HTTP `/rpc`) and by `@playwright/mcp` (its MCP tools), in a fresh session each, the two interleaved; values are medians over the runs as **service / peer**, ratios service ÷ peer. Calls and characters count every answer the agent read (the JSON result of each call; the text content of each tool reply); session set-up and close are not counted on either side. Success is what the fixture server saw (its state for the run) or the answer compared with the fixture's own value.",
    '',
    '| task | calls | ratio (≤ 0.8) | characters | ratio (≤ 0.3) | wall ms (p50) | ratio (≤ 0.5) | succeeded |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(line),
    line(total),
    '',
    '| target | met |',
    '| --- | --- |',
    `| calls ≤ ${TASK_TARGETS.calls}× the peer's, per task and in total | ${met('calls', TASK_TARGETS.calls) ? 'yes' : 'no'} |`,
    `| characters ≤ ${TASK_TARGETS.chars}× the peer's, per task and in total | ${met('chars', TASK_TARGETS.chars) ? 'yes' : 'no'} |`,
    `| wall time ≤ ${TASK_TARGETS.wallMs}× the peer's, per task and in total | ${met('ms', TASK_TARGETS.wallMs) ? 'yes' : 'no'} |`,
    `| every task succeeds on both | ${everyOk ? 'yes' : 'no'} |`,
    '',
    ...(failures.length > 0 ? ['Failed runs:', '', ...failures, ''] : []),
    'Tasks:',
    '',
    ...tasks.map((t) => `- **${t.id}**: ${t.title}`),
  ];
}

/** `--only tasks`: starts the fixture app, the service and the peer, runs the suite, writes the report. */
export async function mainTasks(
  options: TasksOptions,
  hooks: { signal?: AbortSignal; onSystem?: (s: BenchSystem) => void } = {},
): Promise<TasksReport> {
  const { log, executablePath } = startRun({ quiet: options.quiet }, hooks);
  const root = process.getuid?.() === 0;
  const fixture = await startFixtureServer();
  const service = new ServiceSystem({
    repoRoot: options.repoRoot,
    entry: options.serviceEntry,
    executablePath: executablePath,
    timeoutMs: options.opTimeoutMs,
  });
  const peer = new PeerSystem({
    executablePath: executablePath,
    args: launchArgs(root),
    runningAsRoot: root,
    timeoutMs: options.opTimeoutMs,
    repoRoot: options.repoRoot,
  });
  hooks.onSystem?.(service);
  hooks.onSystem?.(peer);
  try {
    for (const sys of [service, peer]) {
      await withTimeout(sys.start(), 120_000, `${sys.name} start`, hooks.signal);
      log(`${sys.name} ready`);
    }
    const tasks = await measureTasks(
      { service, peer },
      fixture.url,
      {
        // The smoke: each of SMOKE_TASKS once on each system.
        iterations: options.smoke ? 1 : options.iterations,
        smoke: options.smoke,
        trace: options.trace,
        ...(options.taskIds ? { taskIds: options.taskIds } : {}),
      },
      log,
      hooks.signal,
    );
    const pkg = peerPackage();
    const report: TasksReport = {
      date: new Date().toISOString(),
      commit: options.commit,
      iterations: options.smoke ? 1 : options.iterations,
      loadavg: os.loadavg()[0] ?? Number.NaN,
      peer: `@playwright/mcp ${pkg.version} (playwright-core ${pkg.playwright})`,
      tasks,
    };
    await mkdir(options.outDir, { recursive: true });
    const rawPath = path.join(options.outDir, `raw-tasks-${report.date.replace(/[:.]/g, '-')}.json`);
    await writeFile(rawPath, `${JSON.stringify(report, null, 2)}\n`);
    const markdown = [
      `# Benchmark: the agent tasks only (\`--only tasks\`${options.smoke ? ', smoke' : ''})`,
      '',
      `${report.date}, commit ${report.commit}, ${report.iterations} iteration(s), load average ${report.loadavg.toFixed(2)}, ${os.availableParallelism()} cores; peer ${report.peer}; raw: ${path.relative(options.repoRoot, rawPath)}.`,
      '',
      ...tasksSection(tasks),
    ].join('\n');
    await mkdir(path.dirname(options.resultsPath), { recursive: true });
    await writeFile(options.resultsPath, await formatMarkdown(markdown, options.resultsPath));
    log(`wrote ${path.relative(options.repoRoot, options.resultsPath)}`);
    return report;
  } finally {
    for (const sys of [peer, service])
      await sys
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${sys.name} failed: ${String(error)}\n`));
    await fixture.close();
  }
}
