// What every agent-task suite shares (`--only tasks` on the fixture shop, `--only realapps` on real
// web apps): the service and the peer started side by side, each task done by both in a fresh
// session with the order swapped every iteration, the per-task table of calls, characters, what an
// MCP agent is sent (menu × calls + answers), images, wall time and success with the suite's targets,
// and the report written next to its raw samples.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { launchArgs } from '../../src/browser/engine/browserResolve.js';
import { PeerAgent, ServiceAgent, newMeter, type Meter } from '../tasks/agents.js';
import { PeerSystem, peerPackage } from '../systems/peer.js';
import { ServiceSystem, type ServiceEntry } from '../systems/service.js';
import type { BenchSystem } from '../systems/types.js';
import { readAgentMenus, serviceMenuChars, toolsBeyondCore, type AgentMenus } from './agentMenus.js';
import { formatMarkdown } from './report.js';
import { startRun } from './runStart.js';
import { summarize, withTimeout } from './stats.js';

/** One task run (session set-up and close are outside it) is bounded by this. */
export const TASK_RUN_TIMEOUT_MS = 90_000;

export type Sys = 'service' | 'peer';

export interface TaskRunSample {
  calls: number;
  chars: number;
  /** Images the agent was sent (screenshots; none of the scripts asks for one, so 0 unless a tool adds one). */
  images: number;
  ms: number;
  /** Characters of the tool list an MCP agent is sent with each model request during this task. */
  menuChars?: number;
  /** The service's tools beyond core this task called (counted in menuChars, enabled in one more turn). */
  tools?: string[];
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

/**
 * A task scripted twice, as an agent calls each system's tools. `C` is what the suite hands each run:
 * the URLs of its app and how to read the app's own state.
 */
export interface SuiteTask<C> {
  id: string;
  title: string;
  service(agent: ServiceAgent, ctx: C): Promise<string>;
  peer(agent: PeerAgent, ctx: C): Promise<string>;
  /** null when the task succeeded; else why not (it may read the app's state over HTTP). */
  check(answer: string, ctx: C): string | null | Promise<string | null>;
}

export interface TaskSystems {
  service: ServiceSystem;
  peer: PeerSystem;
}

/** One task by one system in a fresh session; never throws (a failure is a sample with ok: false). */
async function runOne<C>(
  task: SuiteTask<C>,
  sys: Sys,
  systems: TaskSystems,
  ctx: C,
  trace: boolean,
  signal: AbortSignal | undefined,
  menus: AgentMenus,
): Promise<{ sample: TaskRunSample; meter: Meter }> {
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
  if (answer !== undefined && reason === undefined) {
    try {
      reason = (await task.check(answer, ctx)) ?? undefined;
    } catch (error) {
      reason = `the check failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const tools = sys === 'service' ? toolsBeyondCore(meter.methods) : [];
  return {
    sample: {
      calls: meter.calls,
      chars: meter.chars,
      images: meter.images,
      ms,
      menuChars: sys === 'service' ? serviceMenuChars(menus, tools) : menus.peer,
      ...(sys === 'service' ? { tools } : {}),
      ok: reason === undefined,
      ...(reason ? { reason } : {}),
      ...(answer !== undefined ? { answer } : {}),
    },
    meter,
  };
}

/**
 * Runs every task `iterations` times on both systems, the order of the systems swapped each time.
 * `contextFor` prepares each run before its clock starts (a run id, an app reset to its seed). The
 * two MCP menus are read first, from the running systems.
 */
export async function runSuite<C, T extends SuiteTask<C>>(
  tasks: readonly T[],
  systems: TaskSystems,
  contextFor: (task: T, sys: Sys) => Promise<C>,
  options: { iterations: number; trace: boolean },
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<{ tasks: TaskResult[]; menus: AgentMenus }> {
  const menus = await readAgentMenus(systems);
  log(
    `MCP menus: service ${menus.serviceDefault} chars by default (a tool beyond core adds ${Object.values(
      menus.serviceTools,
    )
      .sort((a, b) => a - b)
      .join('–')
      .replace(/–.*–/, '–')}), peer ${menus.peer} chars`,
  );
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
        const ctx = await contextFor(task, sys);
        const { sample, meter } = await runOne(task, sys, systems, ctx, options.trace, signal, menus);
        results[k]?.runs[sys].push(sample);
        log(
          `${task.id} ${sys}: ${sample.ok ? 'ok' : `FAILED (${sample.reason ?? ''})`}, ${sample.calls} calls, ${sample.chars} chars, ${sample.ms.toFixed(0)} ms`,
        );
        if (meter.trace) log(meter.trace.join('\n'));
      }
    }
  return { tasks: results, menus };
}

/** A suite's targets, service ÷ peer: one bound per task and one for the sum over the tasks. */
export interface TaskTargets {
  calls: { task: number; total: number };
  chars: { task: number; total: number };
  wallMs: { task: number; total: number };
  /** What an MCP agent is sent (menu × calls + answers), service ÷ peer, bound on the total only. */
  sent: number;
}

const median = (xs: number[]): number => summarize(xs).p50;
const ratio = (s: number, p: number): number => (p > 0 ? s / p : Number.NaN);
const fmtRatio = (r: number, target?: number): string =>
  !Number.isFinite(r)
    ? 'n/a'
    : target === undefined
      ? `${r.toFixed(2)}×`
      : `${r.toFixed(2)}× ${r <= target ? '✅' : '❌'}`;

type Side = { calls: number; chars: number; sent: number; images: number; ms: number; ok: string };
interface Row {
  id: string;
  s: Side;
  p: Side;
  /** The service's tools beyond core in any run of the task. */
  tools: string[];
}

function rowOf(t: TaskResult): Row {
  const side = (runs: TaskRunSample[]): Side => ({
    calls: median(runs.map((r) => r.calls)),
    chars: median(runs.map((r) => r.chars)),
    // Samples written before the menus were measured have no menuChars: NaN, shown as n/a.
    // A run that enabled tools beyond core took one more turn for tools_enable.
    sent: median(
      runs.map(
        (r) => (r.menuChars ?? Number.NaN) * (r.calls + ((r.tools ?? []).length > 0 ? 1 : 0)) + r.chars,
      ),
    ),
    // Samples written before images were counted have none.
    images: median(runs.map((r) => r.images ?? 0)),
    ms: median(runs.map((r) => r.ms)),
    ok: `${runs.filter((r) => r.ok).length}/${runs.length}`,
  });
  const tools = [...new Set(t.runs.service.flatMap((r) => r.tools ?? []))].sort();
  return { id: t.id, s: side(t.runs.service), p: side(t.runs.peer), tools };
}

/** "≤ 0.3× … per task and in total", or the two bounds when they differ. */
const boundText = (b: { task: number; total: number }): string =>
  b.task === b.total
    ? `≤ ${b.task}× the peer's, per task and in total`
    : `≤ ${b.task}× the peer's per task and ≤ ${b.total}× in total`;

/**
 * The table of a suite: a row per task (medians over its runs, service / peer), the total (the sum of
 * the medians), the two MCP menus, the targets and whether each is met, why any run failed, and the
 * tasks' titles.
 */
export function taskTable(
  tasks: TaskResult[],
  targets: TaskTargets,
  menus: AgentMenus | undefined,
  options: { images: boolean } = { images: false },
): string[] {
  const rows = tasks.map(rowOf);
  const total: Row = {
    id: '**total**',
    s: { calls: 0, chars: 0, sent: 0, images: 0, ms: 0, ok: '' },
    p: { calls: 0, chars: 0, sent: 0, images: 0, ms: 0, ok: '' },
    tools: [],
  };
  for (const r of rows)
    for (const k of ['calls', 'chars', 'sent', 'images', 'ms'] as const) {
      total.s[k] += r.s[k];
      total.p[k] += r.p[k];
    }
  const okCount = (sys: Sys) => tasks.reduce((n, t) => n + t.runs[sys].filter((r) => r.ok).length, 0);
  const n = tasks.reduce((m, t) => m + t.runs.service.length, 0);
  total.s.ok = `${okCount('service')}/${n}`;
  total.p.ok = `${okCount('peer')}/${n}`;
  const line = (r: Row, bound: 'task' | 'total') =>
    [
      r.id,
      `${r.s.calls} / ${r.p.calls}`,
      fmtRatio(ratio(r.s.calls, r.p.calls), targets.calls[bound]),
      `${r.s.chars} / ${r.p.chars}`,
      fmtRatio(ratio(r.s.chars, r.p.chars), targets.chars[bound]),
      `${r.s.sent}${r.tools.length > 0 ? ` (+${r.tools.join(', +')})` : ''} / ${r.p.sent}`,
      fmtRatio(ratio(r.s.sent, r.p.sent), bound === 'total' ? targets.sent : undefined),
      ...(options.images ? [`${r.s.images} / ${r.p.images}`] : []),
      `${r.s.ms.toFixed(0)} / ${r.p.ms.toFixed(0)}`,
      fmtRatio(ratio(r.s.ms, r.p.ms), targets.wallMs[bound]),
      `${r.s.ok} / ${r.p.ok}`,
    ].join(' | ');
  const failures = tasks.flatMap((t) =>
    (['service', 'peer'] as const).flatMap((sys) =>
      t.runs[sys].filter((r) => !r.ok).map((r) => `- ${t.id}, ${sys}: ${r.reason ?? 'failed'}`),
    ),
  );
  const met = (k: 'calls' | 'chars' | 'ms', b: { task: number; total: number }) =>
    rows.every((r) => ratio(r.s[k], r.p[k]) <= b.task) && ratio(total.s[k], total.p[k]) <= b.total;
  const bounds = (b: { task: number; total: number }) =>
    b.task === b.total ? `≤ ${b.task}` : `≤ ${b.task}; total ≤ ${b.total}`;
  const header = [
    'task',
    'calls',
    `ratio (${bounds(targets.calls)})`,
    'characters',
    `ratio (${bounds(targets.chars)})`,
    'sent to an MCP agent',
    `ratio (total ≤ ${targets.sent})`,
    ...(options.images ? ['images'] : []),
    'wall ms (p50)',
    `ratio (${bounds(targets.wallMs)})`,
    'succeeded',
  ];
  const toolText = (t: string) => `+${t} ${menus?.serviceTools[t] ?? '?'}`;
  const used = [...new Set(rows.flatMap((r) => r.tools))].sort();
  return [
    ...(menus
      ? [
          `MCP menus (for each tool, \`JSON.stringify({name, description, inputSchema})\`, summed; read by tools/list from the running systems): the service's default \`/mcp\` list ${menus.serviceDefault} characters, the peer's ${menus.peer} (${ratio(menus.serviceDefault, menus.peer).toFixed(2)}×). "Sent to an MCP agent" is, per run, menu × calls + answer characters (the menu goes with every model request; one call is one turn), median over the runs; a task that calls a method beyond the core group (page.act's steps included) enables that tool alone with \`tools_enable\` (one more turn) and counts it in its menu from the start, named in its cell${used.length > 0 ? ` (${used.map(toolText).join(', ')})` : ''}. The service's answers are those of \`/rpc\`.`,
          '',
        ]
      : []),
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${line(r, 'task')} |`),
    `| ${line(total, 'total')} |`,
    '',
    '| target | met |',
    '| --- | --- |',
    `| calls ${boundText(targets.calls)} | ${met('calls', targets.calls) ? 'yes' : 'no'} |`,
    `| characters ${boundText(targets.chars)} | ${met('chars', targets.chars) ? 'yes' : 'no'} |`,
    `| characters sent to an MCP agent ≤ ${targets.sent}× the peer's in total | ${ratio(total.s.sent, total.p.sent) <= targets.sent ? 'yes' : 'no'} |`,
    `| wall time ${boundText(targets.wallMs)} | ${met('ms', targets.wallMs) ? 'yes' : 'no'} |`,
    `| every task succeeds on both | ${okCount('service') === n && okCount('peer') === n ? 'yes' : 'no'} |`,
    '',
    ...(failures.length > 0 ? ['Failed runs:', '', ...failures, ''] : []),
    'Tasks:',
    '',
    ...tasks.map((t) => `- **${t.id}**: ${t.title}`),
  ];
}

/** What a suite's entry point is given by bench/run.ts. */
export interface SuiteOptions {
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
  /** Only these task ids (default: every task; the smoke: the suite's smoke tasks). */
  taskIds?: string[];
}

/** What a suite stops on SIGINT: anything with a synchronous last-resort kill by pid. */
export type Killable = Pick<BenchSystem, 'killNow'>;

export interface SuiteHooks {
  signal?: AbortSignal;
  onSystem?: (s: Killable) => void;
}

export interface SuiteRun {
  systems: TaskSystems;
  log: (line: string) => void;
  signal: AbortSignal | undefined;
}

/**
 * Starts the service (with `serviceEnv` on top of its bench settings) and the peer, runs `work`, and
 * stops both by pid whatever happens.
 */
export async function withTaskSystems<T>(
  options: SuiteOptions,
  hooks: SuiteHooks,
  serviceEnv: Record<string, string> | undefined,
  work: (run: SuiteRun) => Promise<T>,
): Promise<T> {
  const { log, executablePath } = startRun({ quiet: options.quiet }, hooks);
  const root = process.getuid?.() === 0;
  const service = new ServiceSystem({
    repoRoot: options.repoRoot,
    entry: options.serviceEntry,
    executablePath,
    timeoutMs: options.opTimeoutMs,
    ...(serviceEnv ? { env: serviceEnv } : {}),
  });
  const peer = new PeerSystem({
    executablePath,
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
    return await work({ systems: { service, peer }, log, signal: hooks.signal });
  } finally {
    for (const sys of [peer, service])
      await sys
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${sys.name} failed: ${String(error)}\n`));
  }
}

/** The raw samples of a suite's run, as written to `raw-<suite>-<date>.json`. */
export interface SuiteReport {
  date: string;
  commit: string;
  iterations: number;
  loadavg: number;
  peer: string;
  tasks: TaskResult[];
  /** The two MCP menus of the run (absent from raw files written before they were measured). */
  menus?: AgentMenus;
}

/** The raw JSON and the markdown report of a run; `sections(rawPath)` is the report below its header. */
export async function writeSuiteReport<R extends Omit<SuiteReport, 'date' | 'loadavg' | 'peer'>>(
  suite: { name: string; only: string },
  body: R,
  options: SuiteOptions,
  sections: string[],
  log: (line: string) => void,
): Promise<R & SuiteReport> {
  const pkg = peerPackage();
  const report = {
    ...body,
    date: new Date().toISOString(),
    loadavg: os.loadavg()[0] ?? Number.NaN,
    peer: `@playwright/mcp ${pkg.version} (playwright-core ${pkg.playwright})`,
  };
  await mkdir(options.outDir, { recursive: true });
  const rawPath = path.join(options.outDir, `raw-${suite.only}-${report.date.replace(/[:.]/g, '-')}.json`);
  await writeFile(rawPath, `${JSON.stringify(report, null, 2)}\n`);
  const markdown = [
    `# Benchmark: ${suite.name} only (\`--only ${suite.only}\`${options.smoke ? ', smoke' : ''})`,
    '',
    `${report.date}, commit ${report.commit}, ${report.iterations} iteration(s), load average ${report.loadavg.toFixed(2)}, ${os.availableParallelism()} cores; peer ${report.peer}; raw: ${path.relative(options.repoRoot, rawPath)}.`,
    '',
    ...sections,
  ].join('\n');
  await mkdir(path.dirname(options.resultsPath), { recursive: true });
  await writeFile(options.resultsPath, await formatMarkdown(markdown, options.resultsPath));
  log(`wrote ${path.relative(options.repoRoot, options.resultsPath)}`);
  return report;
}
