// page.snapshot: the page.* namespace continues here (page.ts holds navigation, reads and actions),
// since seeing the page as an agent does is a concern of its own and grows with refs and diffs.
import { Type } from '@sinclair/typebox';
import { encodeCursor, offsetOf, pageOf } from '../browser/pageSnapshot.js';
import { defineSessionMethod } from './defineSessionMethod.js';
import { ACTION_TIMEOUT_MS, Selector, timeoutParam } from './params.js';

/** The most a caller may ask for in one answer; the default keeps an answer a few thousand tokens. */
const MAX_SNAPSHOT_PAGE_CHARS = 500_000;
const DEFAULT_SNAPSHOT_PAGE_CHARS = 20_000;

export const pageSnapshot = defineSessionMethod({
  name: 'page.snapshot',
  summary:
    'See the page as an agent needs to: roles, names, states, input values, link targets and iframes, with element refs, in pages of maxChars',
  description:
    'Playwright\'s AI aria snapshot: one line per element ("- textbox \\"Name\\" [ref=e5]: Ada"), with [checked], [selected], [expanded], [disabled], input values after the colon, "/url:" for links, and iframes stitched in (their refs start with f). Every answer has a revision; when it stops at maxChars, cursor continues the same snapshot from where it stopped (a cursor of an older snapshot is refused).',
  params: {
    selector: Type.Optional({
      ...Selector,
      description: 'Only the subtree of the first element this selector matches (default: the whole page).',
    }),
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
        description: 'The cursor of a previous answer: continue that snapshot instead of taking a new one.',
      }),
    ),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the snapshot'),
  },
  result: Type.Object({
    snapshot: Type.String({ description: 'The snapshot lines of this page of the answer.' }),
    revision: Type.Integer({ description: 'Counts the snapshots of this session; a cursor belongs to one.' }),
    cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass it back to read on; null when this answer reached the end.',
    }),
    length: Type.Integer({ description: 'Characters of the whole snapshot.' }),
    approxTokens: Type.Integer({ description: 'An estimate of the tokens in snapshot (characters / 4).' }),
    url: Type.String({ description: 'The page URL.' }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session }) {
    const stored =
      params.cursor === undefined
        ? await session.takeSnapshot(params.selector, undefined, params.timeout)
        : session.snapshots.latest();
    // A cursor pages the answer its revision gave (the snapshot, a view or a diff).
    const offset =
      params.cursor === undefined
        ? 0
        : offsetOf(params.cursor, stored === undefined ? undefined : { ...stored, text: stored.answer });
    if (stored === undefined) throw new Error('page.snapshot has no snapshot to answer from');
    const page = pageOf(stored.answer, offset, params.maxChars);
    return {
      snapshot: page.text,
      revision: stored.revision,
      cursor: page.next === null ? null : encodeCursor(stored.revision, page.next),
      length: stored.answer.length,
      approxTokens: page.approxTokens,
      url: session.page.url(),
    };
  },
});

export const pageSnapshotMethods = [pageSnapshot];
