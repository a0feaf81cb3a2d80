// What changed from one snapshot of a page to the next: the lines added, removed and changed, each
// group under the line that locates it, a removed subtree folded to one line; bounded so a diff
// never holds the event loop.
import { diffArrays } from 'diff';
import { parseSnapshot, type SnapshotLine } from './snapshotLines.js';
import { actionable, LANDMARK_ROLES } from './snapshotViews.js';

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
