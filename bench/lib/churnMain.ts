// `npm run bench -- --only churn`: the floor and the service measure session creation under churn
// (churn.ts) and nothing else; the report is that section alone, with its raw JSON.
import os from 'node:os';
import path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { launchArgs } from '../../src/browser/engine/browserResolve.js';
import { startRun } from './runStart.js';
import { FloorSystem } from '../systems/floor.js';
import { ServiceSystem, type ServiceEntry } from '../systems/service.js';
import type { BenchSystem } from '../systems/types.js';
import { CHURN_TIMEOUT_MS, churnSection, measureChurn, type ChurnResult } from './churn.js';
import { formatMarkdown } from './report.js';
import { withTimeout } from './stats.js';

/** `--only churn`: writes the section alone (and its raw JSON) next to the other partial reports. */
export async function writeChurnReport(
  r: ChurnResult,
  meta: { outDir: string; resultsPath: string; repoRoot: string; commit: string },
): Promise<void> {
  const date = new Date().toISOString();
  await mkdir(meta.outDir, { recursive: true });
  const rawPath = path.join(meta.outDir, `raw-churn-${date.replace(/[:.]/g, '-')}.json`);
  await writeFile(rawPath, `${JSON.stringify({ date, commit: meta.commit, churn: r }, null, 2)}\n`);
  const markdown = [
    '# Benchmark: session creation under churn only (`--only churn`)',
    '',
    `${date}, commit ${meta.commit}, ${os.availableParallelism()} cores, load average ${(os.loadavg()[0] ?? Number.NaN).toFixed(2)}; raw: ${path.relative(meta.repoRoot, rawPath)}.`,
    '',
    ...churnSection(r),
  ].join('\n');
  await mkdir(path.dirname(meta.resultsPath), { recursive: true });
  await writeFile(meta.resultsPath, await formatMarkdown(markdown, meta.resultsPath));
}

/**
 * `--only churn`: the floor and the service (no peer, no fixture pages: creates open about:blank),
 * the churn patterns alone; the report goes to `resultsPath` (bench/results/RESULTS-churn.md).
 */
export async function mainChurn(
  options: {
    iterations: number;
    smoke: boolean;
    quiet: boolean;
    opTimeoutMs: number;
    outDir: string;
    resultsPath: string;
    serviceEntry: ServiceEntry;
  },
  hooks: { signal?: AbortSignal; onSystem?: (system: BenchSystem) => void },
  repo: { root: string; commit: string },
): Promise<ChurnResult> {
  const { log, executablePath } = startRun({ quiet: options.quiet }, hooks);
  const floor = new FloorSystem(executablePath, launchArgs(process.getuid?.() === 0), options.opTimeoutMs);
  const service = new ServiceSystem({
    repoRoot: repo.root,
    entry: options.serviceEntry,
    executablePath: executablePath,
    timeoutMs: options.opTimeoutMs,
  });
  const systems: BenchSystem[] = [floor, service];
  try {
    for (const sys of systems) {
      hooks.onSystem?.(sys);
      await withTimeout(sys.start(), 120_000, `${sys.name} start`, hooks.signal);
    }
    log('floor and service ready');
    const result = await withTimeout(
      measureChurn(floor, service, options, log),
      CHURN_TIMEOUT_MS,
      'churn phase',
      hooks.signal,
    );
    await writeChurnReport(result, {
      outDir: options.outDir,
      resultsPath: options.resultsPath,
      repoRoot: repo.root,
      commit: repo.commit,
    });
    log(`wrote ${path.relative(repo.root, options.resultsPath)}`);
    return result;
  } finally {
    for (const sys of [...systems].reverse())
      await sys
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${sys.name} failed: ${String(error)}\n`));
  }
}
