import vm from 'node:vm';
import { ServiceError } from './serviceError.js';

/** An operation of ours (not the caller's) ran past its deadline. */
export class DeadlineError extends ServiceError {
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
    detail: string,
  ) {
    super('TIMEOUT', `${operation} ran past its ${timeoutMs} ms deadline${detail}`, { timeoutMs });
  }
}

/** Races work against a deadline; the timer never outlives the race. */
export async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs synchronous work with a deadline that interrupts it mid-loop (V8 terminates the script when
 * the vm timeout fires), for work a caller shapes, such as a regular expression that could backtrack
 * for minutes: the event loop of every session is blocked while it runs.
 */
export function runWithDeadline<T>(work: () => T, timeoutMs: number, onTimeout: () => Error): T {
  const box: { result?: { value: T } } = {};
  const context = vm.createContext({
    run: () => {
      box.result = { value: work() };
    },
  });
  try {
    vm.runInContext('run()', context, { timeout: timeoutMs });
  } catch (error) {
    // Not `instanceof Error`: the timeout error may come from another realm (a test runner's vm).
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw onTimeout();
    throw error;
  }
  if (box.result === undefined) throw new Error('runWithDeadline: the work did not complete');
  return box.result.value;
}
