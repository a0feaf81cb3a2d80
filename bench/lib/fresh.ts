// `npm run bench -- --only fresh`: calls in a session right after its create, as an outside agent
// makes them: create → goto → text → text again → fill → click → screenshot → close, no rest between
// any two of them. Whatever a system does in the background after a create (the service's warm-pool
// refill) runs under the next timed calls here, where the per-call rows of `--only latency` rest it
// away. Between iterations each system rests until its own background work is done, so neither
// system's calls run under the other's. The systems alternate which goes first each iteration; each
// step's p50 is set against the floor's.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launchArgs } from '../../src/browser/engine/browserResolve.js';
import { startFixtureServer } from '../../test/fixtures/fixtureServer.js';
import { FloorSystem } from '../systems/floor.js';
import { ServiceSystem, type ServiceEntry } from '../systems/service.js';
import { QUIESCE_PAUSE_MS, type BenchSession, type BenchSystem, type Target } from '../systems/types.js';
import { formatMarkdown } from './report.js';
import { startRun } from './runStart.js';
import { sleep, summarize, timed, withTimeout, type Summary } from './stats.js';

/** Target: each step right after a create ≤ this × the floor's same step (p50). */
export const FRESH_TARGET = 1.1;
/** Iterations not counted at the start (both systems' first contexts, JIT). */
export const FRESH_WARMUP = 3;
/** Bound on the whole phase. */
const FRESH_TIMEOUT_MS = 20 * 60_000;

const NAME_INPUT: Target = { selector: '#name', role: 'textbox', name: 'Name' };
const GREET: Target = { selector: '#greet', role: 'button', name: 'Greet' };

/** The steps of one iteration, in order; each returns its milliseconds. */
const STEPS = ['create', 'goto', 'text', 'text again', 'fill', 'click', 'screenshot', 'close'] as const;
type StepName = (typeof STEPS)[number];
/** The row of the judged steps' sum within each iteration. */
const TOGETHER = 'goto to screenshot, together' as const;
/** The steps the target applies to (a create and a close are the churn phase's). */
const JUDGED: readonly StepName[] = ['goto', 'text', 'text again', 'fill', 'click', 'screenshot'];

export interface FreshRow {
  step: StepName | typeof TOGETHER;
  floor: Summary;
  service: Summary;
  /** service p50 ÷ floor p50. */
  ratio: number;
  /** Undefined for the steps the target does not judge. */
  met?: boolean;
}

export interface FreshResult {
  iterations: number;
  warmup: number;
  target: number;
  rows: FreshRow[];
}

/** One iteration of one system: every step timed, the session closed even when a step fails. */
async function iteration(sys: BenchSystem, base: string): Promise<Record<StepName, number>> {
  const ms: Partial<Record<StepName, number>> = {};
  let s: BenchSession | undefined;
  ms.create = await timed(async () => {
    s = await sys.createSession({ open: false });
  });
  const session = s;
  if (session === undefined) throw new Error(`${sys.name}: createSession answered no session`);
  try {
    ms.goto = await timed(() => session.goto(`${base}/form`, 'load'));
    ms.text = await timed(() => session.readText('main', 'Greet'));
    ms['text again'] = await timed(() => session.readText('main', 'Greet'));
    await session.prepare(NAME_INPUT);
    ms.fill = await timed(() => session.fill(NAME_INPUT, 'Ada'));
    await session.prepare(GREET);
    ms.click = await timed(() => session.click(GREET));
    ms.screenshot = await timed(() => session.screenshot());
  } finally {
    ms.close = await timed(() => session.close());
  }
  return ms as Record<StepName, number>;
}

export async function measureFresh(
  floor: BenchSystem,
  service: BenchSystem,
  base: string,
  iterations: number,
  log: (msg: string) => void,
): Promise<FreshResult> {
  const samples = new Map<string, number[]>();
  const add = (sys: string, step: string, ms: number): void => {
    const key = `${sys}:${step}`;
    samples.set(key, [...(samples.get(key) ?? []), ms]);
  };
  for (let i = 0; i < FRESH_WARMUP + iterations; i++) {
    // Each system goes first every other iteration.
    for (const sys of i % 2 === 0 ? [floor, service] : [service, floor]) {
      const ms = await iteration(sys, base);
      if (i >= FRESH_WARMUP) {
        for (const step of STEPS) add(sys.name, step, ms[step]);
        add(
          sys.name,
          TOGETHER,
          JUDGED.reduce((sum, step) => sum + ms[step], 0),
        );
      }
      // Between iterations (never between a create and its calls) each system finishes what its
      // close left to do, so the other system's calls do not run under it.
      if ((await sys.quiesce?.()) === false) log(`fresh: ${sys.name} was still busy after its close`);
      await sleep(QUIESCE_PAUSE_MS);
    }
    if ((i + 1) % 10 === 0) log(`fresh: ${i + 1} of ${FRESH_WARMUP + iterations} iterations`);
  }
  const rows = [...STEPS, TOGETHER].map((step: StepName | typeof TOGETHER): FreshRow => {
    const f = summarize(samples.get(`floor:${step}`) ?? []);
    const s = summarize(samples.get(`service:${step}`) ?? []);
    const ratio = s.p50 / f.p50;
    return {
      step,
      floor: f,
      service: s,
      ratio,
      ...(step === TOGETHER || JUDGED.some((judged) => judged === step)
        ? { met: ratio <= FRESH_TARGET }
        : {}),
    };
  });
  return { iterations, warmup: FRESH_WARMUP, target: FRESH_TARGET, rows };
}

export function freshSection(r: FreshResult): string[] {
  const ms = (x: number): string => x.toFixed(1);
  return [
    '## Calls right after a create: `npm run bench -- --only fresh`',
    '',
    `Each iteration is create → goto /form (load) → text of \`main\` → the same text again → fill #name → click Greet → viewport screenshot → close, with no rest between any two steps (the floor: \`newContext\` + \`newPage\`, then Playwright's own calls). What a system does in the background after a create (the service's warm pool refilling) may run under the calls that follow, as it would for an agent. Between iterations each system rests until its own background work is done (the service: its pool full again) and 500 ms more, so neither system's calls share the CPU with the other's. ${r.iterations} iterations after ${r.warmup} not counted; the systems alternate which goes first. Target: each step's p50 ≤ ${r.target} × the floor's (create and close are shown, not judged: the churn phase judges creates); the last row is the sum of goto to screenshot within each iteration, where a one-time cost (the first call that needs Playwright's isolated world in a new document pays for making it) counts once whichever step pays it.`,
    '',
    '| step | floor p50 | floor p90 | service p50 | service p90 | service÷floor | met |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...r.rows.map(
      (row) =>
        `| ${row.step} | ${ms(row.floor.p50)} | ${ms(row.floor.p90)} | ${ms(row.service.p50)} | ${ms(row.service.p90)} | ${row.ratio.toFixed(2)}× | ${row.met === undefined ? '—' : row.met ? 'yes' : '**no**'} |`,
    ),
    '',
  ];
}

/** `--only fresh`: the floor and the service on the fixture app; the report is this section alone. */
export async function mainFresh(
  options: {
    iterations: number;
    quiet: boolean;
    opTimeoutMs: number;
    outDir: string;
    resultsPath: string;
    serviceEntry: ServiceEntry;
  },
  hooks: { signal?: AbortSignal; onSystem?: (system: BenchSystem) => void },
  repo: { root: string; commit: string },
): Promise<FreshResult> {
  const run = startRun({ quiet: options.quiet }, hooks);
  const fixture = await startFixtureServer();
  const floor = new FloorSystem(
    run.executablePath,
    launchArgs(process.getuid?.() === 0),
    options.opTimeoutMs,
  );
  const service = new ServiceSystem({
    repoRoot: repo.root,
    entry: options.serviceEntry,
    executablePath: run.executablePath,
    timeoutMs: options.opTimeoutMs,
  });
  const systems: BenchSystem[] = [floor, service];
  try {
    for (const sys of systems) {
      hooks.onSystem?.(sys);
      await withTimeout(sys.start(), 120_000, `${sys.name} start`, hooks.signal);
    }
    run.log(`floor and service ready; fixture server on ${fixture.url}`);
    const result = await withTimeout(
      measureFresh(floor, service, fixture.url, options.iterations, run.log),
      FRESH_TIMEOUT_MS,
      'fresh phase',
      hooks.signal,
    );
    const date = new Date().toISOString();
    await mkdir(options.outDir, { recursive: true });
    const rawPath = path.join(options.outDir, `raw-fresh-${date.replace(/[:.]/g, '-')}.json`);
    await writeFile(rawPath, `${JSON.stringify({ date, commit: repo.commit, fresh: result }, null, 2)}\n`);
    const markdown = [
      '# Benchmark: calls right after a create only (`--only fresh`)',
      '',
      `${date}, commit ${repo.commit}, ${os.availableParallelism()} cores, load average ${run.loadStart.toFixed(2)} at the start, ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)} at the end; raw: ${path.relative(repo.root, rawPath)}.`,
      '',
      ...freshSection(result),
    ].join('\n');
    await mkdir(path.dirname(options.resultsPath), { recursive: true });
    await writeFile(options.resultsPath, await formatMarkdown(markdown, options.resultsPath));
    run.log(`wrote ${path.relative(repo.root, options.resultsPath)}`);
    return result;
  } finally {
    for (const sys of [...systems].reverse())
      await sys
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${sys.name} failed: ${String(error)}\n`));
    await fixture.close();
    run.end();
  }
}
