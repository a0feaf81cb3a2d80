// The nearest candidates for a selector that matched nothing: a bounded scan of the page
// for elements whose role, name, id or text resemble the selector's words, each with a selector the
// service accepts. targetErrors.ts reads Playwright's errors; this searches the page.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { CANDIDATE_SEARCH_MS, MAX_ELEMENT_CHARS } from './targetErrors.js';

/** A selector that matched nothing is answered with at most this many candidates. */
const MAX_CANDIDATES = 5;
/** The candidate search looks at most at this many elements of the page. */
const MAX_SCANNED_ELEMENTS = 3000;

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
