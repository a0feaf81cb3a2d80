/**
 * How much one MCP tool answer may carry. A model pays for every character of an answer in its
 * context, so MCP callers get a default budget that /rpc callers do not (the JSON-RPC contract keeps
 * its own defaults): the methods that page text (page.text, page.snapshot) get a smaller page by
 * default, and every other answer is cut to the budget with a note of what was left out. Files (a
 * PDF, a trace, a download, a HAR) never reach the budget: they leave the JSON as embedded resources
 * first (binaryResults.ts), since a file cut short is worth nothing, and are paged, where they are,
 * by the methods' own offsets.
 */

/**
 * Characters of JSON at most in one MCP answer by default: about 5,000 tokens, a long section of an
 * article or a large form's snapshot, and a small part of a model's context.
 */
export const MCP_RESULT_BUDGET_CHARS = 20_000;
/** A string is never cut shorter than this: below it, dropping array items says more than cutting words. */
const MIN_STRING_CHARS = 200;

/** The param each paging method gets by default over MCP, when the caller gives none. */
const PAGED_DEFAULTS: Readonly<Record<string, { param: string; value: number }>> = {
  'page.text': { param: 'maxChars', value: MCP_RESULT_BUDGET_CHARS },
  'page.snapshot': { param: 'maxChars', value: MCP_RESULT_BUDGET_CHARS },
};

/** How to get what a cut left out, per method; the default suits any method that reads a part of the page. */
const MORE_HINTS: Readonly<Record<string, string>> = {
  'page.content':
    "Read a part instead: page_text or page_snapshot with a selector, or page_evaluate returning one element's outerHTML or a slice of document.documentElement.outerHTML.",
  'page.evaluate': 'Return less: a slice, a count, or only the fields you need.',
  'logs.pull': 'What was left out is already drained and will not come again: pull more often.',
  'network.pull': 'What was left out is already drained and will not come again: pull more often.',
  'session.storageState':
    'This state is incomplete: do not pass it to session_setStorageState. Read what you need with cookies_get instead.',
  'cookies.get': 'Ask for fewer cookies: filter by urls, domain or name.',
  'axe.run': 'Check one part of the page at a time with include.',
  'find.byRole': 'Ask for fewer matches with limit, or give a more specific name.',
  'find.byText': 'Ask for fewer matches with limit, or search for a more specific text.',
};
const DEFAULT_HINT = 'Ask for less: a narrower selector, or one part at a time.';

/** What a cut left out, as the answer reports it (`_omitted`). */
export interface Omitted {
  characters: number;
  items: number;
  note: string;
}

/** The JSON Schema of `_omitted`, added to every tool's output schema. */
export const OMITTED_SCHEMA = {
  type: 'object',
  description: `Present only when the answer was cut to the MCP budget of ${MCP_RESULT_BUDGET_CHARS} characters: what was left out and how to get more.`,
  required: ['characters', 'items', 'note'],
  properties: {
    characters: { type: 'integer', description: 'Characters cut from the ends of long strings.' },
    items: { type: 'integer', description: 'Array items (or object entries) left out.' },
    note: { type: 'string', description: 'What was cut and how to get more.' },
  },
} as const;

/** The arguments with the method's MCP page size filled in when the caller chose none. */
export function withBudgetDefaults(method: string, args: Record<string, unknown>): Record<string, unknown> {
  const paged = PAGED_DEFAULTS[method];
  if (paged === undefined || args[paged.param] !== undefined) return args;
  return { ...args, [paged.param]: paged.value };
}

interface Caps {
  /** Characters kept of each string. */
  chars: number;
  /** Items kept of each array. */
  items: number;
  /** Entries kept of each object but the answer itself (whose fields the output schema requires). */
  entries: number;
}

interface Cut {
  value: unknown;
  characters: number;
  items: number;
}

function cutString(text: string, max: number): { text: string; left: number } {
  if (text.length <= max) return { text, left: 0 };
  // Never end on the first half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  const left = text.length - end;
  return { text: `${text.slice(0, end)}… [${left} more characters]`, left };
}

/** A copy of value with strings, arrays and (below the top) objects cut to caps. */
function capValue(value: unknown, caps: Caps, top = true): Cut {
  if (typeof value === 'string') {
    const { text, left } = cutString(value, caps.chars);
    return { value: text, characters: left, items: 0 };
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, caps.items).map((item) => capValue(item, caps, false));
    return {
      value: kept.map((k) => k.value),
      characters: kept.reduce((n, k) => n + k.characters, 0),
      items: value.length - kept.length + kept.reduce((n, k) => n + k.items, 0),
    };
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const keep = top ? entries.length : caps.entries;
    const out: Record<string, unknown> = {};
    let characters = 0;
    let items = Math.max(0, entries.length - keep);
    for (const [key, inner] of entries.slice(0, keep)) {
      const cut = capValue(inner, caps, false);
      out[key] = cut.value;
      characters += cut.characters;
      items += cut.items;
    }
    return { value: out, characters, items };
  }
  return { value, characters: 0, items: 0 };
}

function size(value: unknown): number {
  return JSON.stringify(value).length;
}

function longestString(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'object' && value !== null)
    return Object.values(value).reduce((n: number, inner) => Math.max(n, longestString(inner)), 0);
  return 0;
}

function widest(value: unknown): number {
  if (Array.isArray(value))
    return value.reduce((n: number, inner) => Math.max(n, widest(inner)), value.length);
  if (typeof value === 'object' && value !== null) {
    const inner = Object.values(value);
    return inner.reduce((n: number, v) => Math.max(n, widest(v)), inner.length);
  }
  return 0;
}

/** The largest cap in [low, high] whose cut fits the budget, or undefined when even low does not. */
function largestFitting(low: number, high: number, fits: (cap: number) => boolean): number | undefined {
  if (!fits(low)) return undefined;
  let [lo, hi] = [low, high];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The gentlest caps that fit: strings cut alone, else arrays too, else (below the top) objects too. */
function capsFitting(chars: number, longest: number, wide: number, fits: (caps: Caps) => boolean): Caps {
  const byChars = largestFitting(chars, longest, (c) => fits({ chars: c, items: wide, entries: wide }));
  if (byChars !== undefined) return { chars: byChars, items: wide, entries: wide };
  const byItems = largestFitting(0, wide, (items) => fits({ chars, items, entries: wide }));
  if (byItems !== undefined) return { chars, items: byItems, entries: wide };
  return {
    chars,
    items: 0,
    entries: largestFitting(0, wide, (entries) => fits({ chars, items: 0, entries })) ?? 0,
  };
}

/**
 * The result as an MCP answer within the budget: unchanged when it fits (or when the method pages
 * by itself); otherwise long strings are cut first (each ends with "… [n more characters]"), then
 * arrays keep their first items, and only then objects below the top keep their first entries (a
 * last resort, for free-form values such as page_evaluate's: typed results fit before it). `omitted`
 * says what went and how to get more.
 */
export function fitToBudget(
  method: string,
  result: unknown,
  budget = MCP_RESULT_BUDGET_CHARS,
): { value: unknown; omitted: Omitted | undefined } {
  if (PAGED_DEFAULTS[method] !== undefined || size(result) <= budget)
    return { value: result, omitted: undefined };
  const fits = (caps: Caps): boolean => size(capValue(result, caps).value) <= budget;
  const longest = longestString(result);
  const wide = widest(result);
  const chars = Math.min(MIN_STRING_CHARS, longest);
  const caps = capsFitting(chars, longest, wide, fits);
  const cut = capValue(result, caps);
  const parts = [
    cut.characters > 0 ? `${cut.characters} characters cut from long strings` : undefined,
    cut.items > 0 ? `${cut.items} list items or entries left out` : undefined,
  ].filter((p) => p !== undefined);
  const note = `This answer was cut to about ${budget} characters: ${parts.join(', ')}. ${MORE_HINTS[method] ?? DEFAULT_HINT}`;
  return { value: cut.value, omitted: { characters: cut.characters, items: cut.items, note } };
}
