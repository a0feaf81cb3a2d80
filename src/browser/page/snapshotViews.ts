// Views of a snapshot an agent asks for instead of the whole tree: only what can be acted on, with
// the landmarks and heading that locate it. What changed since an earlier one: snapshotDiff.ts.
import { elidedLine, parseSnapshot, type SnapshotLine } from './snapshotLines.js';

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
export const LANDMARK_ROLES: ReadonlySet<string> = new Set([
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

export function actionable(line: SnapshotLine): boolean {
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

/** The most levels page.snapshot's depth may name: deeper than any tree a page is worth reading so. */
export const MAX_SNAPSHOT_DEPTH = 50;

/**
 * The snapshot's top `depth` levels: each line nested deeper is left out, and under a line whose
 * lines below were cut one `- … N more lines` line says how many (page.snapshot with its ref, or a
 * larger depth, shows them).
 */
export function depthView(snapshot: string, depth: number): string {
  const raw = snapshot.split('\n');
  const out: string[] = [];
  let cut = 0;
  let cutIndent = 0;
  const flush = (): void => {
    if (cut > 0) out.push(elidedLine(cutIndent, cut));
    cut = 0;
  };
  for (const line of raw) {
    const indent = (line.length - line.trimStart().length) / 2;
    if (indent >= depth) {
      if (cut === 0) cutIndent = depth;
      cut += 1;
      continue;
    }
    flush();
    out.push(line);
  }
  flush();
  return out.join('\n');
}
