// The errors of a call that acts on or reads an element by selector or ref, made clear for an agent:
// a strict-mode violation lists the elements the selector matched, each with a selector
// for it; a selector that matched nothing when the call timed out says so with the nearest
// candidates; an element that matched but was not actionable says why. browser/page/targetErrors.ts
// does the work on the page; this turns it into the service's errors.
import { errors as playwrightErrors } from 'playwright-core';
import type { Session } from '../../browser/session/session.js';
import { matchCount, nearestCandidates } from '../../browser/page/targetCandidates.js';
import { MAX_LISTED_MATCHES, blockedReason, strictViolation } from '../../browser/page/targetErrors.js';
import { ServiceError } from '../../errors/serviceError.js';

/** The target params of a call: a selector or a ref (or neither). */
export interface TargetParams {
  selector?: unknown;
  ref?: unknown;
  /** page.drag's drop target. */
  targetSelector?: unknown;
  targetRef?: unknown;
  timeout?: unknown;
}

/** The selector params of a call, in order: `selector`, then page.drag's `targetSelector`. */
function selectorParams(params: TargetParams): { param: string; selector: string }[] {
  const named: { param: string; selector: string }[] = [];
  if (typeof params.selector === 'string') named.push({ param: 'selector', selector: params.selector });
  if (typeof params.targetSelector === 'string')
    named.push({ param: 'targetSelector', selector: params.targetSelector });
  return named;
}

/** The first selector param whose count now passes the test (each count bounded in time). */
async function firstWhere(
  page: Session['page'],
  named: { param: string; selector: string }[],
  test: (count: number) => boolean,
): Promise<{ param: string; selector: string } | undefined> {
  for (const entry of named) {
    const count = await matchCount(page, entry.selector);
    if (count !== undefined && test(count)) return entry;
  }
  return undefined;
}

const STRICT_VIOLATION = /strict mode violation: /;
const ADVICE_PICK = 'Use one of these selectors, or a ref from page.snapshot.';

function quoted(selector: string): string {
  return JSON.stringify(selector);
}

/**
 * What an error of a call on a target means, as a ServiceError; the error itself when there is
 * nothing to add. Only Playwright's errors (and page.waitFor's TIMEOUT) are looked at; the extra
 * work on the page is bounded by CANDIDATE_SEARCH_MS.
 */
export async function explainTargetError(
  session: Session,
  method: string,
  params: TargetParams,
  error: unknown,
): Promise<unknown> {
  const named = selectorParams(params);
  const ref = typeof params.ref === 'string' ? params.ref : undefined;
  const targetRef = typeof params.targetRef === 'string' ? params.targetRef : undefined;
  if (named.length === 0 && ref === undefined && targetRef === undefined) return error;
  if (!(error instanceof Error)) return error;
  const timeout = typeof params.timeout === 'number' ? params.timeout : undefined;
  // mapError adds the method, selector and timeout of the call.
  const data = (param: string | undefined, extra: Record<string, unknown>) => ({
    ...(ref === undefined ? {} : { ref }),
    ...(param === 'targetSelector'
      ? { target: 'targetSelector', targetSelector: params.targetSelector }
      : {}),
    ...extra,
  });
  const page = session.page;
  const isTimeout =
    error instanceof playwrightErrors.TimeoutError ||
    (error instanceof ServiceError && error.errorName === 'TIMEOUT' && method === 'page.waitFor');

  if (STRICT_VIOLATION.test(error.message)) {
    // With two selectors (page.drag), the one that matches several now is the one meant.
    const which = named.length === 1 ? named[0] : await firstWhere(page, named, (n) => n > 1);
    const strict = await strictViolation(page, which?.selector, error.message).catch(() => undefined);
    if (strict !== undefined) {
      const lines = strict.matches.map(
        (m, i) =>
          `${i + 1}) ${m.element} → selector: ${m.selector}${m.locator === '' ? '' : ` (${m.locator})`}`,
      );
      const more =
        strict.count > strict.matches.length ? `\n… and ${strict.count - strict.matches.length} more` : '';
      const what = which === undefined ? 'a selector' : `the ${which.param} ${quoted(which.selector)}`;
      return new ServiceError(
        'ACTION_FAILED',
        `${method} failed: ${what} matched ${strict.count} elements, and an action needs exactly one (at most ${MAX_LISTED_MATCHES} listed):\n${lines.join('\n')}${more}\n${ADVICE_PICK}`,
        data(which?.param, { count: strict.count, matches: strict.matches }),
        error,
      );
    }
  }
  if (!isTimeout) return error;

  // page.waitFor's own TIMEOUT already counted the matches: "(N element(s) match now)".
  const waitedMatched = error instanceof ServiceError && /\(([1-9]\d*) element/.test(error.message);
  const missing = waitedMatched ? undefined : await firstWhere(page, named, (n) => n === 0);
  if (missing !== undefined) {
    const candidates = await nearestCandidates(page, missing.selector).catch(() => []);
    const listed = candidates.map(
      (c, i) =>
        `${i + 1}) ${c.role}${c.name === '' ? '' : ` ${quoted(c.name)}`} ${c.element} → selector: ${c.selector}`,
    );
    const ran = timeout === undefined ? '' : ` in ${timeout} ms`;
    const what = `the ${missing.param} ${quoted(missing.selector)}`;
    // page.waitFor's own message (what did not become visible, how many match) leads.
    const head =
      error instanceof ServiceError
        ? `${error.message.replace(/\.$/, '')}: ${what} matched no element`
        : `${method} timed out: ${what} matched no element${ran}`;
    return new ServiceError(
      'TIMEOUT',
      candidates.length === 0
        ? `${head}, and no element of the page resembles it. Look at the page with page.snapshot or find.byText, or raise timeout if it is still loading.`
        : `${head}. Nearest candidates:\n${listed.join('\n')}\n${ADVICE_PICK} Or raise timeout if the element is still to come.`,
      data(missing.param, { count: 0, candidates }),
      error,
    );
  }

  const blocked = blockedReason(error.message);
  if (blocked !== undefined) {
    const one = named.length + (ref === undefined ? 0 : 1) + (targetRef === undefined ? 0 : 1) === 1;
    const what = !one
      ? 'an element of the call'
      : named[0] !== undefined
        ? `the selector ${quoted(named[0].selector)}`
        : `the ref ${ref ?? ''}`;
    const element = blocked.element === undefined ? 'an element' : blocked.element;
    return new ServiceError(
      'TIMEOUT',
      `${method} timed out: ${what} matched ${element}, but ${blocked.reason}. ${adviceFor(blocked.reason)}\nCall log (last lines):\n${blocked.log.map((l) => `- ${l}`).join('\n')}`,
      data(undefined, { reason: blocked.reason, element: blocked.element, callLog: blocked.log }),
      error,
    );
  }
  return error;
}

function adviceFor(reason: string): string {
  if (/not visible/.test(reason))
    return 'It is hidden: open what reveals it first (a menu, a tab, a details element), or act on a visible element.';
  if (/not enabled|disabled/.test(reason))
    return 'It is disabled: fill in what the page needs first, or wait for it to be enabled.';
  if (/intercepts pointer events/.test(reason))
    return 'Another element covers it (a dialog, a banner, an overlay): close or act on that element first.';
  if (/not editable/.test(reason)) return 'It is read-only or not a field: fill a field that takes text.';
  return 'Look at it with page.snapshot, or raise timeout.';
}

/** Runs a call on a target and answers its errors with explainTargetError. */
export async function withTargetErrors<T>(
  session: Session,
  method: string,
  params: TargetParams,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw await explainTargetError(session, method, params, error);
  }
}
