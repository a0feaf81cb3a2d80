// What a failed action on a selector or ref says: a strict-mode violation lists the
// elements the selector matched, each with a selector that names it alone; a selector that matched
// nothing says so, with the nearest candidates on the page; an element that matched but was not
// actionable says why (Playwright's call log: not visible, not enabled, another element on top).
// The search for the nearest candidates is in targetCandidates.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

/** A strict-mode error lists at most this many matches (Playwright itself lists 10). */
export const MAX_LISTED_MATCHES = 10;
/** An element's HTML in a listed match or a candidate is cut here. */
export const MAX_ELEMENT_CHARS = 160;
/** How long the lookups on the page of a failed call may run (the selectors of matches, the candidate search). */
export const CANDIDATE_SEARCH_MS = 500;
/** The call log lines kept in an error's data, and each line's length. */
export const MAX_CALL_LOG_LINES = 4;
const MAX_CALL_LOG_LINE_CHARS = 200;

/** A text cut at max characters, with an ellipsis. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One element a strict-mode violation listed. */
export interface StrictMatch {
  /** The element's short HTML, as Playwright printed it. */
  element: string;
  /** The locator Playwright suggests for it (`getByRole('button', { name: 'A' })`). */
  locator: string;
  /** A selector the service accepts that names this element. */
  selector: string;
}

export interface StrictViolation {
  /** How many elements the selector resolved to. */
  count: number;
  matches: StrictMatch[];
}

const STRICT = /strict mode violation: .* resolved to (\d+) elements:/;
const LISTED = /^\s*(\d+)\) (.*?)(?: aka (.*))?$/;
/** A JavaScript string literal as Playwright prints it in a locator. */
const QUOTED = String.raw`'((?:[^'\\]|\\.)*)'`;

function unquote(literal: string): string {
  return literal.replace(/\\(.)/g, '$1');
}

/**
 * A selector string for a locator Playwright suggested, for the forms it prints for one element;
 * undefined for a chained or unknown form (the caller falls back to `selector >> nth=i`).
 */
export function selectorOfLocator(locator: string): string | undefined {
  const exactFlag = (options: string | undefined) => (options?.includes('exact: true') ? 's' : 'i');
  let m = new RegExp(String.raw`^getByRole\('([a-z]+)'(?:, \{ name: ${QUOTED}(, exact: true)? \})?\)$`).exec(
    locator,
  );
  if (m?.[1] !== undefined) {
    if (m[2] === undefined) return `role=${m[1]}`;
    return `role=${m[1]}[name=${JSON.stringify(unquote(m[2]))}${m[3] === undefined ? '' : 's'}]`;
  }
  m = new RegExp(
    String.raw`^getBy(Text|Label|Placeholder|TestId|Title|AltText)\(${QUOTED}(, \{ exact: true \})?\)$`,
  ).exec(locator);
  if (m?.[1] !== undefined && m[2] !== undefined) {
    const value = JSON.stringify(unquote(m[2]));
    const flag = exactFlag(m[3]);
    switch (m[1]) {
      case 'Text':
        return `internal:text=${value}${flag}`;
      case 'Label':
        return `internal:label=${value}${flag}`;
      case 'Placeholder':
        return `internal:attr=[placeholder=${value}${flag}]`;
      case 'TestId':
        return `internal:testid=[data-testid=${value}s]`;
      case 'Title':
        return `internal:attr=[title=${value}${flag}]`;
      case 'AltText':
        return `internal:attr=[alt=${value}${flag}]`;
    }
  }
  m = new RegExp(String.raw`^locator\(${QUOTED}\)$`).exec(locator);
  if (m?.[1] !== undefined) return unquote(m[1]);
  return undefined;
}

/**
 * The matches a strict-mode violation lists, with a selector for each: Playwright's suggestion
 * turned into a selector when it names that one element, else `selector >> nth=i`. Undefined when
 * the message is not a strict-mode violation. Each suggested selector is checked on the page.
 */
export async function strictViolation(
  page: Page,
  selector: string | undefined,
  message: string,
): Promise<StrictViolation | undefined> {
  const head = STRICT.exec(message);
  if (head?.[1] === undefined) return undefined;
  const listed: { index: number; element: string; locator: string }[] = [];
  for (const line of message.split('\n').slice(1)) {
    if (/^\s*$/.test(line) || line.startsWith('Call log')) break;
    const m = LISTED.exec(line);
    if (m?.[1] === undefined || m[2] === undefined) continue;
    listed.push({ index: Number(m[1]) - 1, element: m[2], locator: m[3] ?? '' });
    if (listed.length >= MAX_LISTED_MATCHES) break;
  }
  const checks = listed.map(async ({ index, element, locator }): Promise<StrictMatch> => {
    const fallback = selector === undefined ? locator : `${selector} >> nth=${index}`;
    const suggested = selectorOfLocator(locator);
    const unique =
      suggested !== undefined &&
      (await Promise.race([
        page
          .locator(suggested)
          .count()
          .then((n) => n === 1)
          .catch(() => false),
        sleep(CANDIDATE_SEARCH_MS).then(() => false),
      ]));
    return {
      element: cut(element, MAX_ELEMENT_CHARS),
      locator: cut(locator, MAX_ELEMENT_CHARS),
      selector: unique ? suggested : fallback,
    };
  });
  return { count: Number(head[1]), matches: await Promise.all(checks) };
}

/** The lines of Playwright's call log, without the terminal colours. */
export function callLog(message: string): string[] {
  const at = message.indexOf('\nCall log:');
  if (at < 0) return [];
  return (
    message
      .slice(at + '\nCall log:'.length)
      // eslint-disable-next-line no-control-regex
      .replace(/\u001b\[\d+m/g, '')
      .split('\n')
      .map((line) => line.trim().replace(/^- /, ''))
      .filter((line) => line !== '')
  );
}

/** Lines of the call log that say why an element that matched was not acted on. */
const REASON =
  /element is not (visible|enabled|editable|stable|attached|checked|an? <)|intercepts pointer events|element is outside of the viewport|not an? <|is not a <select>|did not change its state|element is not in the DOM/i;

/** What Playwright last said stopped it (the newest reason line of its call log), with the element it resolved to. */
export function blockedReason(
  message: string,
): { reason: string; element: string | undefined; log: string[] } | undefined {
  const lines = callLog(message);
  const reasonLine = [...lines].reverse().find((line) => REASON.test(line));
  if (reasonLine === undefined) return undefined;
  const resolved = [...lines].reverse().find((line) => line.startsWith('locator resolved to '));
  // The log repeats one attempt after another: keep the distinct lines of the last ones, in order.
  const tail: string[] = [];
  for (const line of [...lines].reverse()) {
    if (/^(waiting \d+ms|retrying|\d+ × )/.test(line) || tail.includes(line)) continue;
    tail.unshift(cut(line, MAX_CALL_LOG_LINE_CHARS));
    if (tail.length >= MAX_CALL_LOG_LINES) break;
  }
  return {
    reason: cut(reasonLine.replace(/^\d+ × /, ''), MAX_CALL_LOG_LINE_CHARS),
    element:
      resolved === undefined
        ? undefined
        : cut(resolved.slice('locator resolved to '.length), MAX_ELEMENT_CHARS),
    log: tail,
  };
}
