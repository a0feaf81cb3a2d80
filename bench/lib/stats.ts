// Small statistics and timing helpers.
import { performance } from 'node:perf_hooks';

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  mean: number;
  min: number;
  max: number;
}

/** Percentile with linear interpolation between closest ranks (q in 0..1). NaN for no samples. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (pos - lo);
}

export function summarize(samples: readonly number[]): Summary {
  const n = samples.length;
  return {
    n,
    p50: percentile(samples, 0.5),
    p90: percentile(samples, 0.9),
    mean: n === 0 ? Number.NaN : samples.reduce((s, x) => s + x, 0) / n,
    min: n === 0 ? Number.NaN : Math.min(...samples),
    max: n === 0 ? Number.NaN : Math.max(...samples),
  };
}

export class TimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label} did not finish within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

export class AbortedError extends Error {
  constructor() {
    super('benchmark aborted');
    this.name = 'AbortedError';
  }
}

/** Resolves with the promise, or rejects past `ms` or when `signal` aborts (the work itself is not cancelled). */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  label: string,
  signal?: AbortSignal,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(label, ms)), ms);
    if (signal) {
      if (signal.aborted) reject(new AbortedError());
      onAbort = () => reject(new AbortedError());
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // A rejected work promise after a timeout must not become an unhandled rejection.
    void work.catch(() => undefined);
  }
}

/** Milliseconds `fn` took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
