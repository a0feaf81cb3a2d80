// Searches the lines of a snapshot (find.byRole, find.byText): what matches, the ref to act on it
// and what an agent is shown of it. Working on the snapshot rather than on the DOM is what makes the
// search reach into frames (cross-origin ones included) and shadow roots, with refs actions accept.
import { runWithDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { elidedLine, type SnapshotLine } from './snapshotLines.js';

/** A match's `line`: a button name or a paragraph can be kilobytes, an answer lists up to 200 of them. */
export const MAX_MATCH_LINE_CHARS = 300;
/** Each line of a match's context, and the whole context: enough to tell two matches apart. */
export const MAX_CONTEXT_LINE_CHARS = 160;
export const MAX_CONTEXT_CHARS = 800;
/** How a context marks the line (or the row's cell) that matched. */
export const MATCH_MARK = ' <- match';
/** A regex runs on at most this much of each name or text: backtracking grows with the input. */
export const MAX_REGEX_INPUT_CHARS = 2_000;
/**
 * The most one regex search may run: it is synchronous on the event loop every session shares, so a
 * pattern that backtracks catastrophically is stopped here rather than stalling the service.
 */
export const REGEX_SEARCH_BUDGET_MS = 250;

/** A line that matched, and where in its text the match starts (for the excerpt around it). */
export interface LineMatch {
  index: number;
  at: number;
}

export type TextQuery = { text: string } | { regex: RegExp };

/** Lines with this role (`role` is compared whole) and, when given, a name containing `name`. */
export function matchRole(
  lines: readonly SnapshotLine[],
  role: string,
  name: string | undefined,
  exact: boolean,
): LineMatch[] {
  const needle = name?.toLowerCase();
  const matches: LineMatch[] = [];
  lines.forEach((line, index) => {
    if (line.role !== role) return;
    const lineName = line.name ?? '';
    if (name !== undefined && needle !== undefined) {
      if (exact ? lineName !== name : !lineName.toLowerCase().includes(needle)) return;
    }
    matches.push({ index, at: 0 });
  });
  return matches;
}

/**
 * Lines whose name or shown text (a text node, an input's value, a placeholder) contains the text
 * (case-insensitively) or matches the regex. Link targets (`/url:`) are not text a person sees.
 */
export function matchText(lines: readonly SnapshotLine[], query: TextQuery): LineMatch[] {
  if ('text' in query) {
    const needle = query.text.toLowerCase();
    return searchLines(lines, (field) => {
      const at = field.toLowerCase().indexOf(needle);
      return at === -1 ? undefined : field.slice(at, at + needle.length);
    });
  }
  const { regex } = query;
  const search = () => searchLines(lines, (field) => regex.exec(field.slice(0, MAX_REGEX_INPUT_CHARS))?.[0]);
  return runWithDeadline(
    search,
    REGEX_SEARCH_BUDGET_MS,
    () =>
      new ServiceError(
        'INVALID_PARAMS',
        `The regex /${regex.source}/ ran past ${REGEX_SEARCH_BUDGET_MS} ms on this page (catastrophic backtracking): simplify it, or search with text.`,
        { regex: regex.source, budgetMs: REGEX_SEARCH_BUDGET_MS },
      ),
  );
}

/** Property lines that are text a person sees; `/url:` is not. */
const SHOWN_PROPERTIES = new Set(['/placeholder']);

function searchLines(
  lines: readonly SnapshotLine[],
  find: (field: string) => string | undefined,
): LineMatch[] {
  const matches: LineMatch[] = [];
  lines.forEach((line, index) => {
    if (line.role.startsWith('/') && !SHOWN_PROPERTIES.has(line.role)) return;
    for (const field of [line.name, line.value]) {
      if (field === undefined) continue;
      const found = find(field);
      if (found === undefined) continue;
      const at = line.text.indexOf(found);
      matches.push({ index, at: at === -1 ? 0 : at });
      return;
    }
  });
  return matches;
}

/** A text node or a property (`/placeholder:`) is part of the element above it. */
function isPartOfParent(line: SnapshotLine): boolean {
  return line.role === 'text' || line.role.startsWith('/');
}

/**
 * The ref to act on a matched line: its own; for a text node or a property, the nearest enclosing
 * element's; null for an element the snapshot gives no ref (an option inside a combobox).
 */
export function refOf(lines: readonly SnapshotLine[], index: number): string | null {
  let line = lines[index];
  if (line?.ref !== undefined) return line.ref;
  if (line === undefined || !isPartOfParent(line)) return null;
  while (line !== undefined && line.ref === undefined) line = lines[line.parent];
  return line?.ref ?? null;
}

/** The text cut to max characters around `at`, with … where it was cut. */
export function excerpt(text: string, at: number, max: number): string {
  if (text.length <= max) return text;
  const start = Math.max(0, Math.min(at - Math.floor(max / 3), text.length - max));
  const end = start + max;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/** The matched line as an answer shows it: cut around the match when it is long. */
export function lineOf(lines: readonly SnapshotLine[], match: LineMatch): string {
  return excerpt(lines[match.index]?.text ?? '', match.at, MAX_MATCH_LINE_CHARS);
}

/**
 * A few lines around a match, as snapshot lines: its parent, the sibling before it, the line itself
 * (cut around the match as lineOf cuts it, and marked) and the sibling after it, the others cut to
 * MAX_CONTEXT_LINE_CHARS and the whole to MAX_CONTEXT_CHARS.
 */
export function contextOf(lines: readonly SnapshotLine[], match: LineMatch): string {
  const line = lines[match.index];
  if (line === undefined) return '';
  const row = rowOf(lines, match.index);
  if (row !== undefined) return excerpt(rowContext(lines, row, match), 0, MAX_CONTEXT_CHARS);
  const parent = lines[line.parent];
  const sibling = (step: 1 | -1): SnapshotLine | undefined => {
    for (let i = match.index + step; i >= 0 && i < lines.length; i += step) {
      const other = lines[i];
      if (other === undefined || other.depth < line.depth) return undefined;
      if (other.depth === line.depth) return other;
    }
    return undefined;
  };
  const base = parent?.depth ?? line.depth;
  const shown = (l: SnapshotLine | undefined) =>
    l === undefined ? [] : [`${'  '.repeat(l.depth - base)}- ${excerpt(l.text, 0, MAX_CONTEXT_LINE_CHARS)}`];
  const context = [
    ...shown(parent),
    ...shown(sibling(-1)),
    `${'  '.repeat(line.depth - base)}- ${lineOf(lines, match)}${MATCH_MARK}`,
    ...shown(sibling(1)),
  ].join('\n');
  return excerpt(context, 0, MAX_CONTEXT_CHARS);
}

/** How far up from a match a table row is looked for: a cell, its text, a link or a button in it. */
const ROW_DEPTH = 3;

/** The index of the row a match is, or is in (within ROW_DEPTH levels), or undefined. */
function rowOf(lines: readonly SnapshotLine[], index: number): number | undefined {
  let at = index;
  for (let level = 0; at !== -1 && level <= ROW_DEPTH; level++) {
    if (lines[at]?.role === 'row') return at;
    at = lines[at]?.parent ?? -1;
  }
  return undefined;
}

/**
 * A match in a table row: the row's line, then each cell with the text it holds (its name, or the
 * text of the lines below it), so one answer gives the row's values: the matching cell is marked.
 */
function rowContext(lines: readonly SnapshotLine[], row: number, match: LineMatch): string {
  const rowLine = lines[row];
  if (rowLine === undefined) return '';
  const out = [`- ${excerpt(rowLine.text, 0, MAX_CONTEXT_LINE_CHARS)}`];
  for (let i = row + 1; i < lines.length && (lines[i]?.depth ?? 0) > rowLine.depth; i++) {
    const cell = lines[i];
    if (cell === undefined || cell.parent !== row) continue;
    const below = countBelow(lines, i);
    const texts: string[] = [];
    for (let j = i + 1; j <= i + below; j++) {
      const line = lines[j];
      const said =
        line === undefined || line.role === '/url'
          ? undefined
          : [line.name, line.value].filter((t) => t !== undefined && t !== '').join(' ');
      if (said !== undefined && said !== '' && said !== cell.name && !texts.includes(said)) texts.push(said);
    }
    const marked = match.index >= i && match.index <= i + below ? MATCH_MARK : '';
    const value = texts.length > 0 ? `: ${texts.join(' ')}` : '';
    const head = cell.text.endsWith(':') ? cell.text.slice(0, -1) : cell.text;
    out.push(`  - ${excerpt(`${head}${value}`, 0, MAX_CONTEXT_LINE_CHARS)}${marked}`);
  }
  return out.join('\n');
}

/** How many lines are below a line (its subtree). */
function countBelow(lines: readonly SnapshotLine[], index: number): number {
  const depth = lines[index]?.depth ?? 0;
  let n = 0;
  for (let i = index + 1; i < lines.length && (lines[i]?.depth ?? 0) > depth; i++) n++;
  return n;
}

/** A shown match: its ref and the text an answer gives for it (its line, or its context). */
export interface ShownMatch {
  ref: string | null;
}

/** Snapshot refs inside shown text, masked when two matches are compared. */
const REF_IN_TEXT = /\[ref=[^\]]+\]/g;

/**
 * Matches whose shown text is the same but for their refs (a page's dozens of cross-references to
 * one term, a list of identical buttons) listed once: the first keeps its place and carries the
 * others' refs in `alike`, so an answer does not repeat the same lines for each.
 */
export function groupAlike<M extends ShownMatch>(
  matches: readonly M[],
  shown: (match: M) => string,
): (M & { alike?: string[] })[] {
  const firsts = new Map<string, M & { alike?: string[] }>();
  const out: (M & { alike?: string[] })[] = [];
  for (const match of matches) {
    const key = shown(match).replace(REF_IN_TEXT, '[ref]');
    const first = firsts.get(key);
    if (first !== undefined && match.ref !== null) {
      (first.alike ??= []).push(match.ref);
      continue;
    }
    const kept: M & { alike?: string[] } = { ...match };
    if (first === undefined) firsts.set(key, kept);
    out.push(kept);
  }
  return out;
}

/** The most characters of a match's path from the root: past it, the levels nearest the root go. */
export const MAX_PATH_CHARS = 1_500;

/**
 * A match as seen from the snapshot's root: each enclosing line from the top down, and at each
 * level the lines beside the path elided into `- … N earlier lines` and `- … N later lines` (their
 * whole subtrees counted), the match marked. Ancestors are cut to MAX_CONTEXT_LINE_CHARS; when the
 * whole is over MAX_PATH_CHARS the levels nearest the root are left out first, said in one line.
 */
export function pathOf(lines: readonly SnapshotLine[], match: LineMatch): string {
  const chain: number[] = [];
  for (let at = match.index; at !== -1; at = lines[at]?.parent ?? -1) chain.unshift(at);
  /** Lines of `parent`'s subtree before and after its child `child` (-1: the top level). */
  const beside = (parent: number, child: number): { before: number; after: number } => {
    const start = parent + 1;
    const end = parent === -1 ? lines.length : parent + 1 + countBelow(lines, parent);
    const childEnd = child + 1 + countBelow(lines, child);
    return { before: child - start, after: end - childEnd };
  };
  const levels = chain.map((index, level) => {
    const line = lines[index];
    const depth = line?.depth ?? level;
    const { before, after } = beside(level === 0 ? -1 : (chain[level - 1] ?? -1), index);
    const own =
      index === match.index
        ? `${'  '.repeat(depth)}- ${lineOf(lines, match)}${MATCH_MARK}`
        : `${'  '.repeat(depth)}- ${excerpt(line?.text ?? '', 0, MAX_CONTEXT_LINE_CHARS)}`;
    return {
      before: before > 0 ? elidedLine(depth, before, 'earlier') : undefined,
      own,
      after: after > 0 ? elidedLine(depth, after, 'later') : undefined,
    };
  });
  const render = (from: number): string => {
    const head = from > 0 ? [`- … ${from} enclosing level${from === 1 ? '' : 's'} above`] : [];
    const down = levels.slice(from).flatMap((l) => (l.before === undefined ? [l.own] : [l.before, l.own]));
    const up = levels
      .slice(from)
      .reverse()
      .flatMap((l) => (l.after === undefined ? [] : [l.after]));
    return [...head, ...down, ...up].join('\n');
  };
  for (let from = 0; from < levels.length; from++) {
    const text = render(from);
    if (text.length <= MAX_PATH_CHARS) return text;
  }
  return excerpt(render(levels.length - 1), 0, MAX_PATH_CHARS);
}
