// URL globs for network.route, matched by the service in time linear in the URL. Playwright turns a
// glob into a JavaScript regular expression (`**` becomes `.*`), and a backtracking engine takes
// exponential time on a pattern with several wildcards and a long URL (tried: `.*.*.*.*=$` on a
// URL of 2,000 characters ran for minutes), on the thread every session shares. Here a glob is a
// list of literal characters and wildcards, run as an automaton over at most MAX_GLOB_URL_CHARS of
// the URL: at most (pattern length × URL length) steps, whatever the pattern.

/** Characters of the URL a glob looks at; a longer URL (a page can make megabytes of one) never matches. */
export const MAX_GLOB_URL_CHARS = 4096;
/** Alternatives a glob's braces may expand to, all groups together ({a,b}{c,d} is 4). */
export const MAX_GLOB_ALTERNATIVES = 16;
/**
 * Automaton states of one glob (the lengths of its alternatives together): the work per URL is at
 * most this times the URL's length.
 */
export const MAX_GLOB_STATES = 2000;

/** A wildcard: `*` is any run of characters but `/`, `**` any run at all. */
const SEGMENT = 0;
const ANY = 1;
type Element = string | typeof SEGMENT | typeof ANY;

export class GlobError extends Error {}

/** The glob's alternatives (its braces expanded), each a list of characters and wildcards. */
function parse(glob: string): Element[][] {
  let alternatives: Element[][] = [[]];
  const append = (items: Element[][]): void => {
    const next: Element[][] = [];
    for (const head of alternatives) for (const tail of items) next.push([...head, ...tail]);
    if (next.length > MAX_GLOB_ALTERNATIVES)
      throw new GlobError(`its braces give more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
    alternatives = next;
  };
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === '\\') {
      if (i + 1 >= glob.length) throw new GlobError('it ends with a lone backslash');
      append([[glob.charAt(++i)]]);
    } else if (c === '*') {
      if (glob.charAt(i + 1) === '*') {
        while (glob.charAt(i + 1) === '*') i++;
        append([[ANY]]);
      } else append([[SEGMENT]]);
    } else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) throw new GlobError('a { has no closing }');
      const inner = glob.slice(i + 1, end);
      if (/[{*\\]/.test(inner))
        throw new GlobError('the options in braces are plain text (no *, {} or \\ inside them)');
      append(inner.split(',').map((option) => [...option]));
      i = end;
    } else if (c === '}') throw new GlobError('a } has no opening {');
    else append([[c]]);
  }
  return alternatives;
}

/** Whether `url` matches one alternative: an automaton of its positions, run once over the URL. */
function matchOne(pattern: readonly Element[], url: string): boolean {
  const m = pattern.length;
  let states = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  // A wildcard may match nothing: the positions after wildcards are reached without a character.
  const close = (set: Uint8Array): void => {
    for (let j = 0; j < m; j++) if (set[j] === 1 && typeof pattern[j] === 'number') set[j + 1] = 1;
  };
  states[0] = 1;
  close(states);
  for (let i = 0; i < url.length; i++) {
    const c = url.charAt(i);
    next.fill(0);
    let alive = false;
    for (let j = 0; j < m; j++) {
      if (states[j] !== 1) continue;
      const p = pattern[j];
      if (p === ANY || (p === SEGMENT && c !== '/')) next[j] = 1;
      else if (p === c) next[j + 1] = 1;
      else continue;
      alive = true;
    }
    if (!alive) return false;
    close(next);
    [states, next] = [next, states];
  }
  return states[m] === 1;
}

/** A compiled glob: `test(url)` takes at most `states` × MAX_GLOB_URL_CHARS steps. */
export interface UrlGlob {
  test(url: string): boolean;
  states: number;
  /**
   * A run of plain characters every URL the glob matches contains ('' when there is none), for a
   * cheap first look: a URL without it cannot match.
   */
  literal: string;
}

/** Characters of a run of plain text the first look searches for at most. */
const MAX_LITERAL_CHARS = 200;

/** The longest run of plain characters (at most MAX_LITERAL_CHARS) that every alternative contains. */
function commonLiteral(alternatives: readonly Element[][]): string {
  const runsOf = (p: readonly Element[]) =>
    p
      .map((e) => (typeof e === 'string' ? e : '\u0000'))
      .join('')
      .split('\u0000')
      .filter((run) => run !== '');
  const [first, ...others] = alternatives.map(runsOf);
  const inAll = (text: string) => others.every((runs) => runs.some((run) => run.includes(text)));
  /** A common substring of this length, if there is one (if one of length k exists, so does k - 1). */
  const ofLength = (k: number): string | undefined => {
    for (const run of first ?? [])
      for (let i = 0; i + k <= run.length; i++) {
        const text = run.slice(i, i + k);
        if (inAll(text)) return text;
      }
    return undefined;
  };
  let best = '';
  let low = 1;
  let high = Math.min(MAX_LITERAL_CHARS, Math.max(0, ...(first ?? []).map((r) => r.length)));
  while (low <= high) {
    const k = Math.floor((low + high) / 2);
    const found = ofLength(k);
    if (found === undefined) high = k - 1;
    else {
      best = found;
      low = k + 1;
    }
  }
  return best;
}

/** Compiles a glob (`*`, `**`, `{a,b}`, `\` escapes; everything else literal); GlobError says what is wrong. */
export function compileGlob(glob: string): UrlGlob {
  const alternatives = parse(glob);
  const states = alternatives.reduce((sum, p) => sum + p.length + 1, 0);
  if (states > MAX_GLOB_STATES)
    throw new GlobError(
      `it is too large to match quickly: its alternatives add up to ${states} characters, at most ${MAX_GLOB_STATES}`,
    );
  return {
    test: (url) => url.length <= MAX_GLOB_URL_CHARS && alternatives.some((p) => matchOne(p, url)),
    states,
    literal: commonLiteral(alternatives),
  };
}
