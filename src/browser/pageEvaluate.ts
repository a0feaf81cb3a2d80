import type { Page } from 'playwright-core';
import { withDeadline } from '../errors/deadline.js';
import { ServiceError } from '../errors/serviceError.js';

/** What an evaluation needs of a session (Session has both). */
export interface EvaluationTarget {
  readonly page: Page;
  /** Replaces a page that ran past its deadline: its main thread may never come back. */
  replacePage(): Promise<void>;
}

/** What the page sends back: the result as JSON, or why there is none (its size never crosses). */
type PageAnswer = { json: string } | { tooBig: number } | { notJson: string };

function isPageAnswer(value: unknown): value is PageAnswer {
  return (
    typeof value === 'object' &&
    value !== null &&
    ('json' in value || 'tooBig' in value || 'notJson' in value)
  );
}

/**
 * Evaluates an expression in the page's main world, never in Node; a function expression is called
 * with arg. Past timeoutMs the page is replaced and the call fails with TIMEOUT (Playwright's
 * evaluate has no deadline of its own). The result is turned into JSON and measured in the page:
 * one over maxResultChars never crosses into the service, whatever its size.
 */
export async function evaluateInPage(
  target: EvaluationTarget,
  expression: string,
  arg: unknown,
  timeoutMs: number,
  maxResultChars: number,
): Promise<unknown> {
  const source = `(async () => {
  const arg = ${JSON.stringify(arg ?? null)};
  const __value = (${expression}
);
  const __result = typeof __value === 'function' ? await __value(arg) : await __value;
  let __json;
  try { __json = JSON.stringify(__result === undefined ? null : __result); } catch (e) { return { notJson: String(e).slice(0, 500) }; }
  if (__json === undefined) __json = 'null';
  if (typeof __json !== 'string') return { notJson: 'JSON.stringify did not return a string' };
  return __json.length > ${maxResultChars} ? { tooBig: __json.length } : { json: __json };
})()`;
  let timedOut = false;
  let answer: unknown;
  try {
    answer = await withDeadline(target.page.evaluate(source), timeoutMs, () => {
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
  if (!isPageAnswer(answer) || 'notJson' in answer) {
    const why = isPageAnswer(answer) && 'notJson' in answer ? answer.notJson : 'an unexpected answer';
    throw new ServiceError(
      'ACTION_FAILED',
      `page.evaluate result is not JSON-serialisable (${why}); return plain data.`,
      { method: 'page.evaluate' },
    );
  }
  if ('tooBig' in answer) {
    throw new ServiceError(
      'LIMIT_REACHED',
      `page.evaluate result is ${answer.tooBig} characters, over MAX_EVALUATE_RESULT_CHARS (${maxResultChars}); return less.`,
      { size: answer.tooBig, limit: maxResultChars },
    );
  }
  return JSON.parse(answer.json) as unknown;
}
