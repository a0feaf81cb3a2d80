import type { Frame, Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { capUrl } from '../engine/pageGuards.js';

/** What an evaluation needs of a session (Session has both). */
export interface EvaluationTarget {
  readonly page: Page;
  /** Replaces a page that ran past its deadline: its main thread may never come back. */
  replacePage(): Promise<void>;
  /** Records a line of the service's own in the session's console log. */
  note?(type: string, text: string): void;
}

/** How Chromium and Playwright say the document an evaluation ran in went away (a navigation). */
const CONTEXT_DESTROYED =
  /Execution context was destroyed|Cannot find context with specified id|because of a navigation/;

/**
 * Waits (until the deadline) for the document a navigation brings: its commit when it has not
 * committed yet, then its DOMContentLoaded.
 */
async function newDocument(target: EvaluationTarget, committed: boolean, deadline: number): Promise<void> {
  const left = () => Math.max(1, deadline - Date.now());
  try {
    if (!committed)
      await target.page.waitForEvent('framenavigated', {
        predicate: (frame) => frame === target.page.mainFrame(),
        timeout: left(),
      });
    await target.page.waitForLoadState('domcontentloaded', { timeout: left() });
  } catch (error) {
    // No new document before the deadline: the error then says where the page is, which is true.
    target.note?.('info', `page.evaluate: no new document after a navigation: ${String(error)}`);
  }
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
  options: { retryOnNavigation: boolean } = { retryOnNavigation: false },
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
  const deadline = Date.now() + timeoutMs;
  const page = target.page;
  // The context goes away when a navigation starts, before the new document commits: whether it
  // committed yet decides what the wait for the new document waits for.
  const navigation = { committed: false };
  const onNavigated = (frame: Frame): void => {
    if (frame === page.mainFrame()) navigation.committed = true;
  };
  page.on('framenavigated', onNavigated);
  let answer: unknown;
  try {
    for (let attempt = 0; ; attempt++) {
      navigation.committed = false;
      let timedOut = false;
      const left = Math.max(1, deadline - Date.now());
      try {
        answer = await withDeadline(page.evaluate(source), left, () => {
          timedOut = true;
          return new ServiceError(
            'TIMEOUT',
            `page.evaluate ran past its ${timeoutMs} ms deadline; the page was replaced by a fresh about:blank page. Call page.goto again.`,
            { timeoutMs },
          );
        });
        break;
      } catch (error) {
        if (timedOut) await target.replacePage();
        if (!(error instanceof Error) || !CONTEXT_DESTROYED.test(error.message)) throw error;
        // The page navigated while the expression ran: wait for the new document, then run the
        // expression again once if the caller said it may run twice, or say what happened.
        await newDocument(target, navigation.committed, deadline);
        if (options.retryOnNavigation && attempt === 0 && Date.now() < deadline) continue;
        throw new ServiceError(
          'PAGE_NAVIGATED',
          `page.evaluate: the page navigated (now ${capUrl(page.url())}) while the expression ran, so its result was lost and it may have run in part. The new document is ready: evaluate again if that is safe${options.retryOnNavigation ? ' (it was already run again once)' : ', or pass retryOnNavigation: true for a read-only expression'}.`,
          { url: capUrl(page.url()), retried: options.retryOnNavigation && attempt > 0 },
          error,
        );
      }
    }
  } finally {
    page.off('framenavigated', onNavigated);
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
