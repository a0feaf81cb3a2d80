// What every bench entry point starts with: its clock and log-line format, the run's deadline
// (--max-minutes) joined to the caller's abort signal (SIGINT), and the Chromium its systems launch.
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { resolveBrowser } from '../../src/browser/engine/browserResolve.js';

export interface RunStart {
  /** performance.now() when the run started. */
  started: number;
  /** The 1-minute load average when the run started. */
  loadStart: number;
  /** Prints `[  12.3s] msg` unless the run is quiet. */
  log: (msg: string) => void;
  /** Aborted by the caller's signal, or past --max-minutes when the run has a deadline. */
  signal: AbortSignal;
  /** The Chromium the run launches (CHROMIUM_PATH, else the one the service would find). */
  executablePath: string;
  /** Clears the deadline's timer: call it once the run is over. */
  end(): void;
}

/** Listeners the run's signal may have before Node warns: above the most operations in flight at once. */
const RUN_SIGNAL_LISTENERS = 256;

export function startRun(
  options: { quiet: boolean; maxMinutes?: number },
  hooks: { signal?: AbortSignal } = {},
): RunStart {
  const started = performance.now();
  const loadStart = os.loadavg()[0] ?? Number.NaN;
  const elapsedSec = (): number => (performance.now() - started) / 1000;
  const log = (msg: string): void => {
    if (!options.quiet) process.stdout.write(`[${elapsedSec().toFixed(1).padStart(6)}s] ${msg}\n`);
  };
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved) throw new Error(`no Chromium found; looked at ${resolved.tried.join(', ')}`);
  const signals: AbortSignal[] = hooks.signal ? [hooks.signal] : [];
  let timer: NodeJS.Timeout | undefined;
  const { maxMinutes } = options;
  if (maxMinutes !== undefined) {
    const deadline = new AbortController();
    timer = setTimeout(
      () => deadline.abort(new Error(`the run went past --max-minutes ${maxMinutes}`)),
      maxMinutes * 60_000,
    );
    signals.push(deadline.signal);
  }
  const signal = AbortSignal.any(signals);
  // Every operation in flight listens on it (withTimeout): 32 clients of the scale phase are 32.
  setMaxListeners(RUN_SIGNAL_LISTENERS, signal);
  return {
    started,
    loadStart,
    log,
    signal,
    executablePath: resolved.executablePath,
    end: () => clearTimeout(timer),
  };
}
