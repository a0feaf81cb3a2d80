// What a failed action on a selector or ref says (issue 11): a strict-mode violation lists the
// elements the selector matched, each with a selector that names it alone; a selector that matched
// nothing says so, with the nearest candidates on the page; an element that matched but was not
// actionable says why (Playwright's call log: not visible, not enabled, another element on top).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

/** A strict-mode error lists at most this many matches (Playwright itself lists 10). */
export const MAX_LISTED_MATCHES = 10;
/** An element's HTML in a listed match or a candidate is cut here. */
export const MAX_ELEMENT_CHARS = 160;
/** How long the search for the nearest candidates (and the checks of their selectors) may run. */
export const CANDIDATE_SEARCH_MS = 500;
/** A selector that matched nothing is answered with at most this many candidates. */
export const MAX_CANDIDATES = 5;
/** The candidate search looks at most at this many elements of the page. */
const MAX_SCANNED_ELEMENTS = 3000;
/** The call log lines kept in an error's data, and each line's length. */
export const MAX_CALL_LOG_LINES = 4;
const MAX_CALL_LOG_LINE_CHARS = 200;

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

/** An element of the page that resembles a selector that matched nothing. */
export interface Candidate {
  /** Its role as the page shows it (button, link, textbox, …) or its tag. */
  role: string;
  /** Its accessible name, roughly: label, text, value, placeholder or title. */
  name: string;
  /** Its short HTML. */
  element: string;
  /** A selector the service accepts that names it. */
  selector: string;
}

/** Words of a selector that may name what the caller meant, without the syntax of the engines. */
export function selectorWords(selector: string): string[] {
  const syntax = new Set([
    'text',
    'role',
    'name',
    'css',
    'xpath',
    'internal',
    'has',
    'nth',
    'first',
    'last',
    'visible',
    'true',
    'false',
    'exact',
    'label',
    'attr',
    'testid',
    'data',
    'div',
    'span',
    'not',
    'is',
    'and',
    'or',
    'the',
  ]);
  const words = selector
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2 && !syntax.has(w) && !/^\d+$/.test(w));
  return [...new Set(words)].slice(0, 8);
}

interface Scanned {
  role: string;
  name: string;
  element: string;
  id: string;
  uniqueId: boolean;
  score: number;
}

/** Scores the page's interactive and named elements against the words; runs in the page. */
function scanPage(args: { words: string[]; max: number; limit: number; chars: number }): Scanned[] {
  const { words, max, limit, chars } = args;
  const lev = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0] ?? 0;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = row[j] ?? 0;
        row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return row[b.length] ?? 0;
  };
  const similar = (w: string, t: string): number => {
    if (w === t) return 1;
    if (w.length >= 3 && t.length >= 3 && (t.startsWith(w) || w.startsWith(t))) return 0.9;
    if (w.length >= 3 && t.includes(w)) return 0.8;
    if (Math.abs(w.length - t.length) > 3) return 0;
    const s = 1 - lev(w, t) / Math.max(w.length, t.length);
    return s >= 0.5 ? s : 0;
  };
  const roleOf = (el: Element): string => {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit.split(' ')[0] ?? explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'a' && el.hasAttribute('href')) return 'link';
    if (tag === 'select') return 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      const type = (el.getAttribute('type') ?? 'text').toLowerCase();
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'hidden') return 'hidden';
      return 'textbox';
    }
    return tag;
  };
  const nameOf = (el: Element): string => {
    const h = el as HTMLElement & { labels?: NodeListOf<HTMLLabelElement> | null; value?: string };
    const aria = el.getAttribute('aria-label');
    if (aria) return aria;
    const by = el.getAttribute('aria-labelledby');
    if (by)
      return by
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
    const label = h.labels?.[0]?.textContent;
    if (label) return label;
    const tag = el.tagName.toLowerCase();
    if (
      tag === 'input' &&
      ['submit', 'button', 'reset'].includes((el.getAttribute('type') ?? '').toLowerCase())
    )
      return h.value ?? '';
    const text = tag === 'input' || tag === 'select' || tag === 'textarea' ? '' : (h.innerText ?? '');
    return text || el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt') || '';
  };
  const shortHtml = (el: Element): string => {
    const open = el.outerHTML.slice(0, el.outerHTML.indexOf('>') + 1);
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    const tag = el.tagName.toLowerCase();
    const html = text && !/^(input|img|br|hr)$/.test(tag) ? `${open}${text}</${tag}>` : open;
    return html.length > chars ? `${html.slice(0, chars - 1)}…` : html;
  };
  const elements = document.querySelectorAll(
    'button, a[href], input, select, textarea, summary, label, [role], [id], [onclick], [tabindex], [aria-label], [placeholder]',
  );
  const found: Scanned[] = [];
  for (let i = 0; i < elements.length && i < limit; i++) {
    const el = elements[i];
    if (el === undefined) continue;
    const h = el as HTMLElement;
    if (typeof h.checkVisibility === 'function' && !h.checkVisibility()) continue;
    const role = roleOf(el);
    if (role === 'hidden') continue;
    const name = nameOf(el).replace(/\s+/g, ' ').trim().slice(0, 80);
    const tokens = [name, el.id, el.getAttribute('class') ?? '', el.getAttribute('name') ?? '', role]
      .join(' ')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((t) => t.length >= 2);
    let score = 0;
    for (const w of words) {
      let best = 0;
      for (const t of tokens) best = Math.max(best, similar(w, t));
      score += w === role ? 0.3 : best;
    }
    if (score <= 0.3) continue;
    const id = el.id;
    const uniqueId = id !== '' && document.querySelectorAll(`#${CSS.escape(id)}`).length === 1;
    found.push({ role, name, element: shortHtml(el), id, uniqueId, score });
  }
  found.sort((a, b) => b.score - a.score);
  return found.slice(0, max);
}

/**
 * The elements of the page nearest to a selector that matched nothing: buttons, links, fields with
 * their labels, elements with an id or a role, scored by how much their name, text, id and class
 * resemble the selector's words. Bounded by CANDIDATE_SEARCH_MS (none when the page is busy) and
 * MAX_CANDIDATES; each comes with a selector that names it alone (an id, or role and name).
 */
export async function nearestCandidates(page: Page, selector: string): Promise<Candidate[]> {
  const words = selectorWords(selector);
  if (words.length === 0) return [];
  const ends = Date.now() + CANDIDATE_SEARCH_MS;
  const within = <T>(work: Promise<T>, fallback: T): Promise<T> =>
    Promise.race([work.catch(() => fallback), sleep(Math.max(0, ends - Date.now())).then(() => fallback)]);
  const scanned = await within(
    page.evaluate(scanPage, {
      words,
      max: MAX_CANDIDATES * 2,
      limit: MAX_SCANNED_ELEMENTS,
      chars: MAX_ELEMENT_CHARS,
    }),
    [] as Scanned[],
  );
  const named = await Promise.all(
    scanned.map(async (s): Promise<Candidate | undefined> => {
      const options: string[] = [];
      if (s.uniqueId) options.push(/^[A-Za-z][\w-]*$/.test(s.id) ? `#${s.id}` : `id=${s.id}`);
      if (s.name !== '' && /^[a-z]+$/.test(s.role)) {
        options.push(`role=${s.role}[name=${JSON.stringify(s.name)}s]`);
        options.push(`internal:text=${JSON.stringify(s.name)}s`);
      }
      for (const option of options) {
        if (option.startsWith('#') || option.startsWith('id=')) return { ...pick(s), selector: option };
        if (await within(page.locator(option).count(), 0).then((n) => n === 1))
          return { ...pick(s), selector: option };
      }
      return undefined;
    }),
  );
  return named.filter((c): c is Candidate => c !== undefined).slice(0, MAX_CANDIDATES);
}

function pick(s: Scanned): Omit<Candidate, 'selector'> {
  return { role: s.role, name: s.name, element: s.element };
}

/** How many elements a selector matches now; undefined when the page did not answer in time. */
export async function matchCount(page: Page, selector: string): Promise<number | undefined> {
  return Promise.race([
    page
      .locator(selector)
      .count()
      .catch(() => undefined),
    sleep(CANDIDATE_SEARCH_MS).then(() => undefined),
  ]);
}
