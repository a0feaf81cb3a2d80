// page.snapshot: the page.* namespace continues here (page.ts holds navigation, reads and actions),
// since seeing the page as an agent does is a concern of its own and grows with refs and diffs.
import { Type, type Static } from '@sinclair/typebox';
import { encodeCursor, offsetOf, pageOf, type SnapshotEntry } from '../../browser/page/pageSnapshot.js';
import { diffSnapshots, MAX_DIFF_EDITS } from '../../browser/page/snapshotDiff.js';
import { depthView, interactiveView, MAX_SNAPSHOT_DEPTH } from '../../browser/page/snapshotViews.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import type { Session } from '../../browser/session/session.js';
import { ACTION_TIMEOUT_MS, Ref, Selector, timeoutParam } from '../params.js';

/** The most a caller may ask for in one answer; the default keeps an answer a few thousand tokens. */
const MAX_SNAPSHOT_PAGE_CHARS = 500_000;
const DEFAULT_SNAPSHOT_PAGE_CHARS = 20_000;

function refuse(message: string, path: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for page.snapshot: ${message}`, {
    errors: [{ path, message, keyword: 'dependencies', params: {} }],
  });
}

interface Answer {
  text: string;
  since: number | null;
  changes: { added: number; removed: number; changed: number } | null;
  note: string | null;
}

/** What a diff stands in for: the text answered instead when there is no usable diff, and its name. */
interface Whole {
  text: string;
  /** How a note names it: 'the whole snapshot', 'the interactive view'. */
  name: string;
}

/**
 * The answer a new snapshot gives: a diff since a kept one, or `whole` (the tree, the interactive
 * view) when there is none to compare with, or the diff would be longer than `whole` itself.
 */
function answerFor(
  entry: SnapshotEntry,
  before: SnapshotEntry | undefined,
  since: number | undefined,
  interactive: boolean,
  whole: Whole,
): Answer {
  if (since === undefined) return { text: whole.text, since: null, changes: null, note: null };
  const instead = (why: string): Answer => ({
    text: whole.text,
    since: null,
    changes: null,
    note: `${why}: this is ${whole.name}.`,
  });
  if (before === undefined)
    return instead(`revision ${since} is not kept (a session keeps its last few snapshots)`);
  if (before.document !== entry.document)
    return instead(`revision ${since} is of a page this session has navigated away from`);
  if (before.scope !== entry.scope)
    return instead(`revision ${since} covered ${before.scope}, this one ${entry.scope}`);
  const diff = diffSnapshots(before.text, entry.text, interactive);
  if (diff === undefined) return instead(`more than ${MAX_DIFF_EDITS} lines changed since revision ${since}`);
  // A diff is an answer instead of the view: one longer than the view is worth less than the view.
  if (diff.text.length > whole.text.length)
    return instead(`the changes since revision ${since} are longer than ${whole.name}`);
  const { added, removed, changed } = diff;
  return {
    text: diff.text === '' ? '(no changes)' : diff.text,
    since,
    changes: { added, removed, changed },
    note: null,
  };
}

/** An answer's since, changes and note, each only when it has one (an agent reads no nulls). */
function present(answer: Answer): { since?: number; changes?: Answer['changes'] & object; note?: string } {
  return {
    ...(answer.since === null ? {} : { since: answer.since }),
    ...(answer.changes === null ? {} : { changes: answer.changes }),
    ...(answer.note === null ? {} : { note: answer.note }),
  };
}

/** What an action with observe: true answers: the page's changes since the last snapshot. */
export const ObservedSchema = Type.Object(
  {
    snapshot: Type.String({
      description:
        'The diff since the last page.snapshot (as page.snapshot since: answers it), or the interactive view with a note when there is none to compare with or the diff would be longer.',
    }),
    revision: Type.Integer({
      description: 'The revision of the snapshot taken: its refs are the current ones.',
    }),
    since: Type.Optional(
      Type.Integer({ description: 'The revision it is a diff against; absent for a whole snapshot.' }),
    ),
    changes: Type.Optional(
      Type.Object({ added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer() }),
    ),
    note: Type.Optional(Type.String({ description: 'Why this is the interactive view rather than a diff.' })),
    cursor: Type.Optional(
      Type.String({
        description:
          'page.snapshot with this cursor reads on when the answer stopped at its size; absent at the end.',
      }),
    ),
  },
  { description: 'With observe: true, what the action changed on the page, as a snapshot diff.' },
);

/**
 * A new page snapshot compared with the session's last one (of the whole page): what an action
 * changed. Its refs become the current ones, as after any page.snapshot.
 */
export async function observeChanges(
  session: Session,
  timeout: number,
): Promise<Static<typeof ObservedSchema>> {
  const latest = session.snapshots.latest();
  const before = latest?.scope === 'page' ? latest : undefined;
  const entry = await session.takeSnapshot(undefined, undefined, timeout);
  // The interactive view is the most an observation answers: it has every ref an agent acts on.
  const view = { text: interactiveView(entry.text), name: 'the interactive view' };
  const answer =
    before === undefined
      ? {
          text: view.text,
          since: null,
          changes: null,
          note: 'there was no earlier snapshot of the whole page: this is the interactive view.',
        }
      : answerFor(entry, before, before.revision, false, view);
  entry.answer = answer.text;
  const page = pageOf(entry.answer, 0, DEFAULT_SNAPSHOT_PAGE_CHARS);
  return {
    snapshot: page.text,
    revision: entry.revision,
    ...present(answer),
    ...(page.next === null ? {} : { cursor: encodeCursor(entry.revision, page.next) }),
  };
}

export const pageSnapshot = defineSessionMethod({
  name: 'page.snapshot',
  summary:
    'See the page as an agent needs to: roles, names, states, input values, link targets and iframes, with element refs; only what can be acted on (interactive), or only what changed (since); in pages of maxChars',
  description:
    'Playwright\'s AI aria snapshot: one line per element ("- textbox \\"Name\\" [ref=e5]: Ada"), with [checked], [selected], [expanded], [disabled], input values after the colon, "/url:" for links, and iframes stitched in (their refs start with f). interactive: true keeps only what can be acted on, one line each ("- link \\"Docs\\" [ref=e7] -> /docs"), under "# main > form \\"Login\\" > h2 \\"Sign in\\"" lines naming the landmarks and heading above them. since: <revision> answers only what changed from that snapshot: "+ line" added, "- line" removed, "~ line" changed with "  was: old line", under "@ parent" lines; refs stay the same for an element whose role and name stay. Every answer has a revision; when it stops at maxChars, cursor continues the same answer (a cursor of an older snapshot is refused).',
  params: {
    selector: Type.Optional({
      ...Selector,
      description: 'Only the subtree of the first element this selector matches (default: the whole page).',
    }),
    ref: Type.Optional({ ...Ref, description: 'Only the subtree of the element this ref names.' }),
    interactive: Type.Boolean({
      default: false,
      description:
        'Only what can be acted on (buttons, links, fields with values and [required], options, clickable elements), under the path of landmarks and heading that locates it (default false).',
    }),
    boxes: Type.Boolean({
      default: false,
      description:
        'Also answer where each element is: [box=x,y,widthxheight] after its ref, in CSS pixels of the viewport as page.mouse and page.drag take them (at most 200 elements; default false). For canvas and SVG UIs.',
    }),
    depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SNAPSHOT_DEPTH,
        description:
          'Only the top levels of the tree: 1 is the top lines alone. Under a line whose lines below were left out, "- … N more lines" says how many (page.snapshot with its ref shows them). Not with interactive or since.',
      }),
    ),
    since: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'A revision of an earlier snapshot of the same page and scope: answer only what changed since (the session keeps its last 3). When it is not kept, the answer is the whole snapshot, with a note.',
      }),
    ),
    maxChars: Type.Integer({
      minimum: 100,
      maximum: MAX_SNAPSHOT_PAGE_CHARS,
      default: DEFAULT_SNAPSHOT_PAGE_CHARS,
      description: `Characters at most in this answer, cut at a line end (default ${DEFAULT_SNAPSHOT_PAGE_CHARS}).`,
    }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'The cursor of a previous answer: continue that answer instead of taking a new snapshot (give it alone, with maxChars).',
      }),
    ),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the snapshot'),
  },
  result: Type.Object({
    snapshot: Type.String({ description: 'The lines of this page of the answer.' }),
    revision: Type.Integer({
      description: 'Counts the snapshots of this session; refs and a cursor belong to one.',
    }),
    cursor: Type.Optional(
      Type.String({ description: 'Pass it back to read on; absent when this answer reached the end.' }),
    ),
    length: Type.Optional(
      Type.Integer({
        description: 'With cursor: characters of the whole answer (an answer that is whole leaves it out).',
      }),
    ),
    approxTokens: Type.Optional(
      Type.Integer({ description: 'With cursor: an estimate of the tokens in snapshot (characters / 4).' }),
    ),
    since: Type.Optional(
      Type.Integer({
        description: 'The revision this answer is a diff against; absent when it is a whole snapshot.',
      }),
    ),
    changes: Type.Optional(
      Type.Object(
        { added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer() },
        { description: 'With since: how many lines were added, removed and changed.' },
      ),
    ),
    note: Type.Optional(
      Type.String({
        description: 'Why a diff that was asked for is a whole snapshot instead; absent otherwise.',
      }),
    ),
    url: Type.String({ description: 'The page URL.' }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'INVALID_PARAMS', 'STALE_REF'],
  readOnly: true,
  async handler(params, { session }) {
    if (params.selector !== undefined && params.ref !== undefined)
      throw refuse('give selector or ref, not both', '/ref');
    if (params.depth !== undefined && (params.interactive || params.since !== undefined))
      throw refuse(
        `depth cuts the whole tree: give it without ${params.interactive ? 'interactive' : 'since'}`,
        '/depth',
      );
    let entry: SnapshotEntry | undefined;
    let answer: Answer | undefined;
    if (params.cursor === undefined) {
      const before = params.since === undefined ? undefined : session.snapshots.get(params.since);
      // Required fields are looked up first (it replaces each frame's last snapshot, which refs
      // resolve against); a ref subtree is resolved against the snapshot it came from, so not then.
      const required =
        params.interactive && params.ref === undefined
          ? await session.requiredRefs(params.timeout)
          : undefined;
      entry = await session.takeSnapshot(params.selector, params.ref, params.timeout);
      answer = answerFor(
        entry,
        before,
        params.since,
        params.interactive,
        params.depth !== undefined
          ? { text: depthView(entry.text, params.depth), name: `the snapshot to depth ${params.depth}` }
          : {
              text: params.interactive ? interactiveView(entry.text, required) : entry.text,
              name: params.interactive ? 'the whole interactive view' : 'the whole snapshot',
            },
      );
      if (params.boxes) answer = { ...answer, text: await session.withBoxes(answer.text, params.timeout) };
      entry.answer = answer.text;
    } else {
      const mixed =
        params.selector !== undefined
          ? 'selector'
          : params.ref !== undefined
            ? 'ref'
            : params.since !== undefined
              ? 'since'
              : params.interactive
                ? 'interactive'
                : params.depth !== undefined
                  ? 'depth'
                  : undefined;
      if (mixed !== undefined)
        throw refuse(`a cursor continues an answer as it was: give it alone, not with ${mixed}`, '/cursor');
      entry = session.snapshots.latest();
    }
    // A cursor pages the answer its revision gave (the snapshot, the interactive view or a diff).
    const offset =
      params.cursor === undefined
        ? 0
        : offsetOf(params.cursor, entry === undefined ? undefined : { ...entry, text: entry.answer });
    if (entry === undefined) throw new Error('page.snapshot has no snapshot to answer from');
    const page = pageOf(entry.answer, offset, params.maxChars);
    return {
      snapshot: page.text,
      revision: entry.revision,
      // The sizes are for an answer that goes on; a whole one is its snapshot's own length.
      ...(page.next === null
        ? {}
        : {
            cursor: encodeCursor(entry.revision, page.next),
            length: entry.answer.length,
            approxTokens: page.approxTokens,
          }),
      ...(answer === undefined ? {} : present(answer)),
      url: session.page.url(),
    };
  },
});

export const pageSnapshotMethods = [pageSnapshot];
