// Views of a snapshot an agent asks for instead of the whole tree: only what can be acted on, with
// the landmarks and heading that locate it; and what changed since an earlier snapshot.
import { diffArrays } from 'diff';
import { parseSnapshot, type SnapshotLine } from './snapshotLines.js';

/** Roles a person acts on: they get a line in the interactive view. */
const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'option',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
]);

/** Roles that say where an element is: they make up the path above a group of interactive lines. */
const LANDMARK_ROLES = new Set([
  'banner',
  'navigation',
  'main',
  'contentinfo',
  'complementary',
  'region',
  'form',
  'search',
  'dialog',
  'alertdialog',
  'iframe',
]);

/** Attributes that only add noise once the line is known to be actionable. */
const DROPPED_ATTRS = new Set(['cursor=pointer']);

/** Roles of running text: a link whose nearest block above is one of these is a link in the text. */
const TEXT_BLOCK_ROLES = new Set(['paragraph', 'definition', 'term', 'blockquote', 'caption']);
/** Roles inside running text, passed over on the way up to its block. */
const INLINE_ROLES = new Set([
  'generic',
  'code',
  'emphasis',
  'strong',
  'text',
  'mark',
  'subscript',
  'superscript',
]);
/**
 * Links in the running text of one section shown at most: past it (a documentation page cites
 * dozens of APIs per section) they are one line saying how many, and find.byText reaches them.
 */
export const MAX_TEXT_LINKS = 10;
/** The names of a heading's permalink anchor (Sphinx's ¶, MkDocs' and Docusaurus' #, §). */
const PERMALINK_NAMES = new Set(['¶', '#', '§', '🔗']);
/** Roles whose name is their content: one shown without a name is named by the text below it. */
const NAMED_BY_CONTENT = new Set(['link', 'button', 'menuitem', 'tab', 'treeitem']);
/** A name taken from an element's text lines is cut here. */
const MAX_CHILD_NAME_CHARS = 60;

/**
 * Only what can be acted on: buttons, links (with their targets), fields with their values (and
 * [required] for the refs in `required`), options,
 * and elements the page made clickable (cursor: pointer), grouped under a line naming the landmarks
 * (main, navigation, form, dialog, iframe …) and the nearest heading above them.
 */
export function interactiveView(snapshot: string, required: ReadonlySet<string> = new Set()): string {
  const lines = parseSnapshot(snapshot);
  const groups: { path: string; lines: { text: string; inText: boolean }[]; inText: number }[] = [];
  let heading: { line: SnapshotLine; landmarks: number[] } | undefined;
  lines.forEach((line, index) => {
    if (line.role === 'heading') {
      // A heading around code and text has no name of its own: the text below names it.
      const name = line.name ?? line.value ?? childText(lines, index);
      heading = { line: { ...line, name }, landmarks: landmarksOf(lines, index) };
    }
    if (!actionable(line) || permalink(lines, index)) return;
    // A heading names the section it is in: it locates a line only inside the same landmarks.
    const landmarks = landmarksOf(lines, index);
    const inScope = heading?.landmarks.every((l) => landmarks.includes(l)) === true;
    const path = pathOf(lines, landmarks, inScope ? heading?.line : undefined);
    let group = groups.at(-1);
    if (group?.path !== path) {
      group = { path, lines: [], inText: 0 };
      groups.push(group);
    }
    const inText = line.role === 'link' && inRunningText(lines, index);
    if (inText) group.inText++;
    group.lines.push({ text: compactLine(lines, index, required), inText });
  });
  const out: string[] = [];
  for (const group of groups) {
    out.push(`# ${group.path === '' ? 'page' : group.path}`);
    let summarised = false;
    for (const line of group.lines) {
      if (!line.inText || group.inText <= MAX_TEXT_LINKS) out.push(`- ${line.text}`);
      else if (!summarised) {
        summarised = true;
        out.push(`- (${group.inText} links in the text here: find.byText reaches them)`);
      }
    }
  }
  return out.length === 0 ? '# page\n(nothing to act on)' : out.join('\n');
}

/** A link in running text (a paragraph, a definition), not in a list, a table or navigation. */
function inRunningText(lines: SnapshotLine[], index: number): boolean {
  for (let at = lines[index]?.parent ?? -1; at !== -1; at = lines[at]?.parent ?? -1) {
    const role = lines[at]?.role ?? '';
    if (TEXT_BLOCK_ROLES.has(role)) return true;
    if (!INLINE_ROLES.has(role)) return false;
  }
  return false;
}

/** A heading's permalink anchor (¶, #): a link to where the reader already is. */
function permalink(lines: SnapshotLine[], index: number): boolean {
  const line = lines[index];
  if (line?.role !== 'link' || !PERMALINK_NAMES.has(line.name ?? '')) return false;
  return childrenOf(lines, index).some((c) => c.role === '/url' && (c.value ?? '').startsWith('#'));
}

function childrenOf(lines: SnapshotLine[], index: number): SnapshotLine[] {
  const line = lines[index];
  const children: SnapshotLine[] = [];
  if (line === undefined) return children;
  // Children follow their parent, deeper than it: the scan stops at the end of the subtree.
  for (let at = index + 1; at < lines.length && (lines[at]?.depth ?? 0) > line.depth; at++) {
    const child = lines[at];
    if (child?.parent === index) children.push(child);
  }
  return children;
}

/** The text an element's lines below it say (a link around a `code` element), for one with no name. */
function childText(lines: SnapshotLine[], index: number): string | undefined {
  const line = lines[index];
  if (line === undefined) return undefined;
  const parts: string[] = [];
  for (let at = index + 1; at < lines.length && (lines[at]?.depth ?? 0) > line.depth; at++) {
    const below = lines[at];
    if (below === undefined || below.role.startsWith('/')) continue;
    const said = below.name ?? below.value;
    if (said !== undefined && said !== '' && !PERMALINK_NAMES.has(said)) parts.push(said);
  }
  const text = parts.join(' ').trim();
  return text === '' ? undefined : text.slice(0, MAX_CHILD_NAME_CHARS);
}

function actionable(line: SnapshotLine): boolean {
  if (line.ref === undefined) return false;
  if (INTERACTIVE_ROLES.has(line.role)) return true;
  return line.attrs.includes('cursor=pointer');
}

/** The indexes of a line's landmark ancestors, outermost first. */
function landmarksOf(lines: SnapshotLine[], index: number): number[] {
  const found: number[] = [];
  for (let at = lines[index]?.parent ?? -1; at !== -1; at = lines[at]?.parent ?? -1) {
    const ancestor = lines[at];
    if (ancestor !== undefined && LANDMARK_ROLES.has(ancestor.role)) found.unshift(at);
  }
  return found;
}

/** The landmarks above a line, then the heading of its section. */
function pathOf(lines: SnapshotLine[], landmarks: number[], heading: SnapshotLine | undefined): string {
  const parts = landmarks.flatMap((at) => {
    const landmark = lines[at];
    return landmark === undefined ? [] : [label(landmark)];
  });
  if (heading !== undefined) {
    const level = heading.attrs.find((a) => a.startsWith('level='))?.slice(6) ?? '';
    parts.push(`h${level} ${JSON.stringify(heading.name ?? heading.value ?? '')}`);
  }
  return parts.join(' > ');
}

function label(line: SnapshotLine): string {
  return line.name === undefined ? line.role : `${line.role} ${JSON.stringify(line.name)}`;
}

/**
 * `role "name" [states] [ref=…]: value`, with a link's target folded in as `-> /url`; an element
 * with no name of its own is named by the text of the lines below it (a link around `code`).
 */
function compactLine(lines: SnapshotLine[], index: number, required: ReadonlySet<string>): string {
  const line = lines[index];
  if (line === undefined) return '';
  const attrs = line.attrs.filter((a) => !DROPPED_ATTRS.has(a)).map((a) => ` [${a}]`);
  if (line.ref !== undefined && required.has(line.ref)) attrs.push(' [required]');
  const named =
    line.name === undefined && NAMED_BY_CONTENT.has(line.role) ? childText(lines, index) : undefined;
  const head = named === undefined ? label(line) : `${line.role} ${JSON.stringify(named)}`;
  let text = `${head}${attrs.join('')} [ref=${line.ref ?? ''}]`;
  const children = childrenOf(lines, index);
  const url = children.find((c) => c.role === '/url');
  if (url?.value !== undefined) text += ` -> ${url.value}`;
  const selected = children.filter((c) => c.attrs.includes('selected'));
  if (line.role === 'combobox' && selected.length > 0)
    text += `: ${selected.map((o) => o.name ?? '').join(', ')}`;
  else if (line.value !== undefined) text += `: ${line.value}`;
  return text;
}

/**
 * Bounds on the line diff: past this many edits, or this long, a diff would be no smaller than the
 * snapshot and would hold the event loop (Myers' diff is O(lines x edits)); the whole snapshot is
 * the answer instead.
 */
export const MAX_DIFF_EDITS = 5_000;
export const MAX_DIFF_MS = 250;

export interface SnapshotDiff {
  /** `+ line` added, `- line` removed, `~ line` changed (with `  was: old line`), under `@ parent` lines. */
  text: string;
  added: number;
  removed: number;
  changed: number;
}

/**
 * What changed from one snapshot to the next, line by line. Lines are compared by their text, not
 * their depth: an app that wraps a subtree in a new container (a modal's portal, a tray) moves its
 * lines deeper, and a moved line is not a changed one. Refs are stable for an element whose role
 * and name stay the same, so a removed and an added line with the same ref are one change, and
 * nothing when their text is the same (the element only moved). Each group of changes is headed
 * by the line of its nearest named or landmark ancestor (`@ …`), so the agent knows where it is.
 * With onlyActionable, only lines the interactive view would show count. Undefined when the
 * snapshots differ past MAX_DIFF_EDITS or MAX_DIFF_MS.
 */
export function diffSnapshots(
  before: string,
  after: string,
  onlyActionable = false,
): SnapshotDiff | undefined {
  const oldLines = parseSnapshot(before);
  const newLines = parseSnapshot(after);
  const keyOf = (l: SnapshotLine) => l.text;
  const parts = diffArrays(oldLines.map(keyOf), newLines.map(keyOf), {
    maxEditLength: MAX_DIFF_EDITS,
    timeout: MAX_DIFF_MS,
  });
  if (parts === undefined) return undefined;
  const removedByRef = new Map<string, SnapshotLine>();
  const removed: number[] = [];
  const added: number[] = [];
  let oldAt = 0;
  let newAt = 0;
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (part.added) for (let i = 0; i < n; i++) added.push(newAt + i);
    else if (part.removed)
      for (let i = 0; i < n; i++) {
        const line = oldLines[oldAt + i];
        if (line === undefined) continue;
        if (line.ref !== undefined) removedByRef.set(line.ref, line);
        removed.push(oldAt + i);
      }
    if (!part.added) oldAt += n;
    if (!part.removed) newAt += n;
  }
  const entries: { anchor: string; line: string }[] = [];
  let changed = 0;
  let addedCount = 0;
  const paired = new Set<SnapshotLine>();
  for (const index of added) {
    const line = newLines[index];
    if (line === undefined || (onlyActionable && !actionable(line))) continue;
    const anchor = parentText(newLines, line);
    const was = line.ref === undefined ? undefined : removedByRef.get(line.ref);
    if (was !== undefined) {
      paired.add(was);
      // The same element with the same line, somewhere else in the tree: it moved, nothing changed.
      if (was.text === line.text) continue;
      changed++;
      entries.push({ anchor, line: `~ ${line.text}\n  was: ${was.text}` });
    } else {
      addedCount++;
      entries.push({ anchor, line: `+ ${line.text}` });
    }
  }
  let removedCount = 0;
  for (const group of removedSubtrees(oldLines, removed, paired)) {
    const shown = group.lines.filter((i) => {
      const line = oldLines[i];
      return line !== undefined && !(onlyActionable && !actionable(line));
    });
    removedCount += shown.length;
    const root = oldLines[group.root];
    if (root === undefined || shown.length === 0) continue;
    const anchor = parentText(oldLines, root);
    if (shown.length < MIN_FOLDED_REMOVALS) {
      for (const i of shown) entries.push({ anchor, line: `- ${oldLines[i]?.text ?? ''}` });
      continue;
    }
    const inside = shown
      .filter((i) => i !== group.root)
      .map((i) => oldLines[i]?.role ?? '')
      .filter((role) => !role.startsWith('/'));
    entries.push({ anchor, line: `- ${root.text.replace(/:$/, '')} (with ${roleCounts(inside)} inside)` });
  }
  const out: string[] = [];
  let lastAnchor: string | undefined;
  for (const entry of entries) {
    if (entry.anchor !== lastAnchor) out.push(`@ ${entry.anchor}`);
    lastAnchor = entry.anchor;
    out.push(entry.line);
  }
  return { text: out.join('\n'), added: addedCount, removed: removedCount, changed };
}

/**
 * A removed subtree with at least this many lines to show is one line (its root, and what it held by
 * role): a menu or a dialog that closed is one line, not each of its items with its parent.
 */
export const MIN_FOLDED_REMOVALS = 3;

/** Removed lines (indexes of the old snapshot) grouped under the highest removed ancestor of each. */
function removedSubtrees(
  lines: SnapshotLine[],
  removed: number[],
  paired: ReadonlySet<SnapshotLine>,
): { root: number; lines: number[] }[] {
  const gone = new Set(
    removed.filter((i) => {
      const l = lines[i];
      return l !== undefined && !paired.has(l);
    }),
  );
  const groups = new Map<number, number[]>();
  for (const index of gone) {
    let root = index;
    for (let up = lines[root]?.parent ?? -1; up !== -1 && gone.has(up); up = lines[up]?.parent ?? -1)
      root = up;
    const group = groups.get(root);
    if (group === undefined) groups.set(root, [index]);
    else group.push(index);
  }
  return [...groups].map(([root, members]) => ({ root, lines: members }));
}

/** `15 links, 2 buttons`: how many lines of each role, most first. */
function roleCounts(roles: string[]): string {
  const counts = new Map<string, number>();
  for (const role of roles) counts.set(role, (counts.get(role) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([role, n]) => `${n} ${role}${n === 1 ? '' : 's'}`)
    .join(', ');
}

/** The nearest ancestor that says where a line is: one with a name or a landmark role, else the parent. */
function parentText(lines: SnapshotLine[], line: SnapshotLine): string {
  const parent = lines[line.parent];
  for (let at = line.parent; at !== -1; at = lines[at]?.parent ?? -1) {
    const ancestor = lines[at];
    if (ancestor !== undefined && (ancestor.name !== undefined || LANDMARK_ROLES.has(ancestor.role)))
      return ancestor.text;
  }
  return parent?.text ?? '(top)';
}
