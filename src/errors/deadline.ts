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
