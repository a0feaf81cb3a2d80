import type { Page } from 'playwright-core';
import { withDeadline } from '../errors/deadline.js';
import { ServiceError } from '../errors/serviceError.js';

/** What an evaluation needs of a session (Session has both). */
export interface EvaluationTarget {
  readonly page: Page;
  /** Replaces a page that ran past its deadline: its main thread may never come back. */
  replacePage(): Promise<void>;
}

/**
 * Evaluates an expression in the page's main world, never in Node; a function expression is called
 * with arg. Past timeoutMs the page is replaced and the call fails with TIMEOUT (Playwright's
 * evaluate has no deadline of its own). A result must be JSON and at most maxResultChars long.
 */
export async function evaluateInPage(
  target: EvaluationTarget,
  expression: string,
  arg: unknown,
  timeoutMs: number,
  maxResultChars: number,
): Promise<unknown> {
  const source = `(async () => { const arg = ${JSON.stringify(arg ?? null)}; const __value = (${expression}\n); return typeof __value === 'function' ? await __value(arg) : await __value; })()`;
  let timedOut = false;
  let value: unknown;
  try {
    value = await withDeadline(target.page.evaluate(source), timeoutMs, () => {
      timedOut = true;
      return new ServiceError(
        'TIMEOUT',
        `page.evaluate ran past its ${timeoutMs} ms deadline; the page was replaced by a fresh about:blank page. Call page.goto again.`,
        { timeoutMs },
      );
    });
  } catch (error) {
    if (timedOut) await target.replacePage();
    throw error;
  }
  let json: string;
  try {
    json = JSON.stringify(value ?? null);
  } catch (error) {
    throw new ServiceError(
      'ACTION_FAILED',
      `page.evaluate result is not JSON-serialisable (${String(error)}); return plain data.`,
      { method: 'page.evaluate' },
      error,
    );
  }
  if (json.length > maxResultChars) {
    throw new ServiceError(
      'LIMIT_REACHED',
      `page.evaluate result is ${json.length} characters, over MAX_EVALUATE_RESULT_CHARS (${maxResultChars}); return less.`,
      { size: json.length, limit: maxResultChars },
    );
  }
  return value ?? null;
}
