// Room browser/page/: how a page is read and acted on (snapshot, views, search, text, targets, settle, navigation, waits).
import type { Locator, Page } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';

/**
 * A snapshot longer than this is kept cut: the service holds the last one per session so a caller
 * can read it on with a cursor, and a page of any size must not hold megabytes per session.
 */
export const MAX_SNAPSHOT_CHARS = 2_000_000;
/** How many snapshots a session keeps for `since` diffs, and their total characters at most. */
export const KEPT_SNAPSHOTS = 3;
export const MAX_KEPT_SNAPSHOT_CHARS = MAX_SNAPSHOT_CHARS * 2;
/** Characters per token, roughly, for English text and YAML-ish snapshots: an estimate, said so. */
const CHARS_PER_TOKEN = 4;

/** A kept text of a session that a cursor continues (a snapshot, or a page.text answer). */
export interface StoredSnapshot {
  revision: number;
  text: string;
  /** The session's document count when it was taken: a navigation since makes its refs stale. */
  document: number;
}

/** One snapshot of the history: the raw snapshot, what it covered, and the answer a cursor pages. */
export interface SnapshotEntry extends StoredSnapshot {
  /** "page", or the selector or ref whose subtree it is: a diff compares like with like. */
  scope: string;
  /** The text the last answer from this revision pages through (the snapshot, a view or a diff). */
  answer: string;
}

/**
 * The last few snapshots of a session. The newest is the one refs belong to (Playwright resolves
 * aria-ref against the last snapshot taken in each frame); older ones stay for `since` diffs, within
 * KEPT_SNAPSHOTS and MAX_KEPT_SNAPSHOT_CHARS, oldest dropped first.
 */
export class SnapshotHistory {
  private entries: SnapshotEntry[] = [];
  private revision = 0;

  /** The newest snapshot: the one refs and cursors belong to. */
  latest(): SnapshotEntry | undefined {
    return this.entries.at(-1);
  }

  /** A kept snapshot by revision, or undefined when it was never taken or has been dropped. */
  get(revision: number): SnapshotEntry | undefined {
    return this.entries.find((entry) => entry.revision === revision);
  }

  record(text: string, document: number, scope: string): SnapshotEntry {
    const entry: SnapshotEntry = { revision: ++this.revision, text, document, scope, answer: text };
    this.entries.push(entry);
    let kept = this.entries.reduce((sum, e) => sum + e.text.length + e.answer.length, 0);
    while (
      this.entries.length > KEPT_SNAPSHOTS ||
      (this.entries.length > 1 && kept > MAX_KEPT_SNAPSHOT_CHARS)
    ) {
      const dropped = this.entries.shift();
      kept -= (dropped?.text.length ?? 0) + (dropped?.answer.length ?? 0);
    }
    return entry;
  }
}

/** A ref as page.snapshot writes it: e12, or f1e3 inside a frame; on a page other than p1, p2e12. */
export const REF_PATTERN = '^(p[0-9]+)?(f[0-9]+)?e[0-9]+$';

/** The element a ref names, when it is in this session's last snapshot and its document. */
export async function refLocator(
  page: Page,
  stored: StoredSnapshot | undefined,
  currentDocument: number,
  ref: string,
  /** The ref as Playwright knows it on this page (without the session's page prefix). */
  ariaRef = ref,
): Promise<Locator> {
  const stale = (why: string) =>
    new ServiceError(
      'STALE_REF',
      `The ref ${ref} ${why}: take a new snapshot with page.snapshot and use a ref from it.`,
      { ref, revision: stored?.revision ?? null },
    );
  if (stored === undefined) throw stale('comes from no snapshot of this session');
  if (stored.document !== currentDocument) throw stale('is from a page this session has navigated away from');
  if (!stored.text.includes(`[ref=${ref}]`))
    throw stale(`is not in the last snapshot (revision ${stored.revision})`);
  const locator = page.locator(`aria-ref=${ariaRef}`);
  // Playwright keeps the element the ref named; one that left the page matches nothing, never another.
  if ((await locator.count()) === 0) throw stale('names an element that is no longer on the page');
  return locator;
}

export interface SnapshotPage {
  /** The snapshot lines from `offset`, cut at a line end within maxChars (at least one line). */
  text: string;
  /** Where the next page starts, or null when this one reached the end. */
  next: number | null;
  approxTokens: number;
}

/**
 * The page (or the subtree of an element) as an agent reads it: Playwright's AI aria snapshot,
 * with roles, names, states (checked, selected, expanded, disabled), input values, link targets,
 * iframes stitched in, and `[ref=…]` handles.
 */
export async function ariaSnapshotOf(
  page: Page,
  subtree: Locator | undefined,
  timeout: number,
): Promise<string> {
  const text =
    subtree === undefined
      ? await page.ariaSnapshot({ mode: 'ai', timeout })
      : await subtree.first().ariaSnapshot({ mode: 'ai', timeout });
  return text.length > MAX_SNAPSHOT_CHARS
    ? `${text.slice(0, MAX_SNAPSHOT_CHARS)}\n- text: "[snapshot cut at ${MAX_SNAPSHOT_CHARS} characters]"`
    : text;
}

/** Fields a form requires: Playwright's snapshot has no [required] state, so it is found here. */
const REQUIRED_FIELDS = 'input[required], select[required], textarea[required], [aria-required="true"]';
/** The most required fields marked per snapshot: each costs a round trip to the page. */
export const MAX_REQUIRED_MARKS = 50;

/**
 * The refs of the fields the page marks required, in every frame. Each field's own one-element
 * snapshot gives its ref, which Playwright keeps on the element, so the page snapshot taken next
 * shows the same ref. Run it before that snapshot: it replaces each frame's last snapshot, which
 * is what refs resolve against.
 */
export async function requiredRefs(page: Page, timeout: number): Promise<Set<string>> {
  const refs = new Set<string>();
  const perFrame = await Promise.all(
    page.frames().map(async (frame) => {
      const fields = frame.locator(REQUIRED_FIELDS);
      // A frame that detaches meanwhile has no fields to mark; the snapshot will not show it either.
      const count = await fields.count().catch(() => 0);
      return Promise.all(
        Array.from({ length: Math.min(count, MAX_REQUIRED_MARKS) }, (_, i) =>
          fields
            .nth(i)
            .ariaSnapshot({ mode: 'ai', timeout })
            .catch(() => ''),
        ),
      );
    }),
  );
  for (const line of perFrame.flat()) {
    const ref = /\[ref=((?:f\d+)?e\d+)\]/.exec(line)?.[1];
    if (ref !== undefined && refs.size < MAX_REQUIRED_MARKS) refs.add(ref);
  }
  return refs;
}

/** One page of a snapshot from `offset`, ending on a line boundary within maxChars. */
export function pageOf(text: string, offset: number, maxChars: number): SnapshotPage {
  const rest = text.slice(offset);
  if (rest.length <= maxChars) return { text: rest, next: null, approxTokens: tokens(rest) };
  const cut = rest.lastIndexOf('\n', maxChars);
  // A single line longer than the budget is cut inside the line rather than never returned.
  const end = cut > 0 ? cut + 1 : maxChars;
  const text_ = rest.slice(0, end);
  return { text: text_, next: offset + end, approxTokens: tokens(text_) };
}

function tokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** A cursor names the snapshot and the offset it continues: `<revision>:<offset>`. */
export function encodeCursor(revision: number, offset: number): string {
  return `${revision}:${offset}`;
}

/** The offset a cursor continues in the stored snapshot, or an error that says to take a new one. */
export function offsetOf(cursor: string, stored: StoredSnapshot | undefined): number {
  const m = /^(\d+):(\d+)$/.exec(cursor);
  const revision = Number(m?.[1]);
  const offset = Number(m?.[2]);
  if (m === null || stored === undefined || revision !== stored.revision || offset > stored.text.length) {
    throw new ServiceError(
      'INVALID_PARAMS',
      `The cursor ${cursor.slice(0, 40)} does not continue this session's last snapshot${stored === undefined ? '' : ` (revision ${stored.revision})`}: take a new snapshot with page.snapshot.`,
      { cursor: cursor.slice(0, 40), revision: stored?.revision ?? null },
    );
  }
  return offset;
}
