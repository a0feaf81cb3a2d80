import { Type } from '@sinclair/typebox';
import { parseSnapshot } from '../../browser/page/snapshotLines.js';
import {
  contextOf,
  groupAlike,
  lineOf,
  MATCH_MARK,
  matchRole,
  matchText,
  MAX_PATH_CHARS,
  MAX_REGEX_INPUT_CHARS,
  pathOf,
  refOf,
  REGEX_SEARCH_BUDGET_MS,
  type LineMatch,
  type TextQuery,
} from '../../browser/page/snapshotSearch.js';
import type { Box } from '../../browser/page/elementBoxes.js';
import type { Session } from '../../browser/session/session.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import {
  ACTION_TIMEOUT_MS,
  DEFAULT_FIND_MATCHES,
  MAX_FIND_MATCHES,
  MAX_REGEX_CHARS,
  timeoutParam,
} from '../params.js';

/** A Playwright role selector: `role=button[name="Log in"]`, exact with the `s` flag. */
export function roleSelector(role: string, name: string | undefined, exact: boolean): string {
  if (name === undefined) return `role=${role}`;
  return `role=${role}[name=${JSON.stringify(name)}${exact ? 's' : 'i'}]`;
}

const limitParam = Type.Integer({
  minimum: 1,
  maximum: MAX_FIND_MATCHES,
  default: DEFAULT_FIND_MATCHES,
  description: `Matches listed at most (default ${DEFAULT_FIND_MATCHES}, at most ${MAX_FIND_MATCHES}); count says how many there are.`,
});

const boxesParam = Type.Boolean({
  default: false,
  description:
    "Also answer each match's box: where it is on the screen, in CSS pixels of the viewport as page.mouse and page.drag take them (default false).",
});

const pathParam = Type.Boolean({
  default: false,
  description:
    'Also answer where each match sits in the page: the lines from the root down to it, the lines beside that path elided as "- … N earlier lines" / "- … N later lines" (default false).',
});

const MatchPath = Type.Optional(
  Type.String({
    description: `With path: the snapshot lines from the root to the match (marked${MATCH_MARK}), off-path lines elided with their counts; at most ${MAX_PATH_CHARS} characters, the levels nearest the root left out first.`,
  }),
);

const MatchBox = Type.Optional(
  Type.Object(
    { x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() },
    { description: 'With boxes: where the element is (absent when it is not rendered).' },
  ),
);

const revisionParam = Type.Optional(
  Type.Integer({
    minimum: 1,
    description:
      "Search this snapshot instead of taking a new one, when it is still the newest of the whole page and the page shows its document (the revision page.snapshot or an earlier find answered); otherwise a new snapshot is taken, as without it. The answer's revision says which was searched.",
  }),
);

/** The params every find.* takes after its own search terms (in this order in the docs and openrpc.json). */
const searchParams = {
  limit: limitParam,
  boxes: boxesParam,
  path: pathParam,
  revision: revisionParam,
  timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the snapshot'),
};

/** The snapshot a search reads: the kept one the caller names, when still usable, else a new one. */
async function searched(session: Session, revision: number | undefined, timeout: number) {
  const kept = revision === undefined ? undefined : await session.keptSnapshot(revision);
  return kept ?? (await session.takeSnapshot(undefined, undefined, timeout));
}

/** The matches with their boxes when asked for. */
async function boxed<M extends { ref: string | null }>(
  session: Session,
  matches: M[],
  boxes: boolean,
  timeout: number,
): Promise<(M & { box?: Box })[]> {
  if (!boxes) return matches;
  const found = await session.boxes(
    matches.flatMap((m) => (m.ref === null ? [] : [m.ref])),
    timeout,
  );
  return matches.map((m) => {
    const box = m.ref === null ? undefined : found.get(m.ref);
    return box === undefined ? m : { ...m, box };
  });
}

const MatchRef = Type.Union([Type.String(), Type.Null()], {
  description:
    'The ref page.click, page.fill and page.press accept (f1e3 inside a frame); null when the snapshot gives the element none (an option of a combobox).',
});

const MatchAlike = Type.Optional(
  Type.Array(Type.String(), {
    description:
      'The refs of further matches that read the same but for their ref (dozens of links to one term): listed once, here.',
  }),
);

/** What every find.* answer has besides its matches. */
const answerFields = {
  count: Type.Integer({ description: 'How many lines of the snapshot match (0 when none).' }),
  truncated: Type.Optional(
    Type.Literal(true, {
      description: 'Present (true) when count is more than the matches listed (limit); absent otherwise.',
    }),
  ),
  revision: Type.Integer({
    description: 'The revision of the snapshot the search read: its refs are the ones actions accept now.',
  }),
};

const SEARCH_DESCRIPTION =
  'Takes a new snapshot of the whole page (as page.snapshot does: iframes, cross-origin ones included, and open shadow roots are in it) and searches its lines; the snapshot becomes the latest, so the refs of the matches are the ones actions accept until the next snapshot. With revision, searches that snapshot again instead while it is still the newest: several searches of one page cost one snapshot.';

export const findByRole = defineSessionMethod({
  name: 'find.byRole',
  summary:
    'Find elements by ARIA role and accessible name, in frames and shadow roots too; returns their refs for page.click, page.fill and page.press',
  description: `${SEARCH_DESCRIPTION} Nothing found is count 0, not an error. selector is a Playwright role selector for the same role and name, which matches in the main frame only: act on a match by its ref.`,
  params: {
    role: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[a-z]+$',
      description: 'ARIA role: button, link, textbox, heading, checkbox …',
    }),
    name: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Accessible name; case-insensitive substring unless exact.',
      }),
    ),
    exact: Type.Boolean({
      default: false,
      description: 'Match the name exactly and case-sensitively (default false).',
    }),
    ...searchParams,
  },
  result: Type.Object({
    selector: Type.String({
      description:
        'A Playwright role selector for the matches in the main frame (not in frames); add >> nth=N to pick one. Prefer the refs.',
    }),
    ...answerFields,
    matches: Type.Array(
      Type.Object({
        ref: MatchRef,
        name: Type.Union([Type.String(), Type.Null()], {
          description: 'Its accessible name, null when it has none.',
        }),
        line: Type.String({
          description:
            'Its snapshot line, its states ([checked], [disabled] …) with it (cut when very long).',
        }),
        alike: MatchAlike,
        box: MatchBox,
        path: MatchPath,
      }),
      { description: 'The first matches, in page order (limit at most, alike ones counted).' },
    ),
  }),
  errors: ['ACTION_FAILED', 'TIMEOUT'],
  readOnly: true,
  async handler(params, { session }) {
    const snapshot = await searched(session, params.revision, params.timeout);
    const lines = parseSnapshot(snapshot.text);
    const found = matchRole(lines, params.role, params.name, params.exact);
    const listed = found.slice(0, params.limit).map((match) => ({
      ref: refOf(lines, match.index),
      name: lines[match.index]?.name ?? null,
      line: lineOf(lines, match),
      ...(params.path ? { path: pathOf(lines, match) } : {}),
    }));
    const matches = await boxed(
      session,
      groupAlike(listed, (m) => m.line),
      params.boxes,
      params.timeout,
    );
    return {
      selector: roleSelector(params.role, params.name, params.exact),
      count: found.length,
      ...(found.length > params.limit ? { truncated: true as const } : {}),
      revision: snapshot.revision,
      matches,
    };
  },
});

function refuse(path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for find.byText: ${message}`, {
    errors: [{ path, message, keyword: path === '/' ? 'oneOf' : 'format', params: {} }],
  });
}

/** The one search the params name: text, or a regex (with its flags) that compiles. */
function textQueryOf(params: { text?: string; regex?: string; flags?: string }): TextQuery {
  if ((params.text === undefined) === (params.regex === undefined))
    throw refuse('/', 'give exactly one of text and regex');
  if (params.regex === undefined) {
    if (params.flags !== undefined) throw refuse('/flags', 'flags go with regex, not with text');
    return { text: params.text ?? '' };
  }
  try {
    return { regex: new RegExp(params.regex, params.flags) };
  } catch (error) {
    if (error instanceof SyntaxError)
      throw refuse('/regex', `not a valid regular expression: ${error.message}`);
    throw error;
  }
}

export const findByText = defineSessionMethod({
  name: 'find.byText',
  summary:
    'Find the text a person sees (names, text, input values, placeholders), in frames and shadow roots too; returns the refs of the elements that hold it',
  description: `${SEARCH_DESCRIPTION} Give text (a case-insensitive substring) or regex (a JavaScript regular expression, case-sensitive unless flags has i), not both. A match on a text node, a value or a placeholder gives the ref of the element it belongs to. Nothing found is count 0, not an error.`,
  params: {
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Text to find: a case-insensitive substring of a name, a text node or a value.',
      }),
    ),
    regex: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_REGEX_CHARS,
        description: `A JavaScript regular expression, without slashes (flags go in flags), at most ${MAX_REGEX_CHARS} characters. It runs on the first ${MAX_REGEX_INPUT_CHARS} characters of each name or text; a search past ${REGEX_SEARCH_BUDGET_MS} ms (catastrophic backtracking) is refused.`,
      }),
    ),
    flags: Type.Optional(
      Type.String({
        pattern: '^[imsuv]{0,5}$',
        description: 'Flags of regex: i (ignore case), m, s, u, v; g and y do not apply to a search.',
      }),
    ),
    ...searchParams,
  },
  result: Type.Object({
    ...answerFields,
    matches: Type.Array(
      Type.Object({
        ref: MatchRef,
        context: Type.String({
          description: `Snapshot lines around the match: the enclosing line, the sibling before, the matching line (cut around the match when very long) marked${MATCH_MARK}, the sibling after; in a table row, the row and each cell's text, the matching cell marked.`,
        }),
        alike: MatchAlike,
        box: MatchBox,
        path: MatchPath,
      }),
      { description: 'The first matches, in page order (limit at most, alike ones counted).' },
    ),
  }),
  errors: ['ACTION_FAILED', 'TIMEOUT', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session }) {
    const query = textQueryOf(params);
    const snapshot = await searched(session, params.revision, params.timeout);
    const lines = parseSnapshot(snapshot.text);
    const found = matchText(lines, query);
    const shown = (match: LineMatch) => ({
      ref: refOf(lines, match.index),
      context: contextOf(lines, match),
      ...(params.path ? { path: pathOf(lines, match) } : {}),
    });
    const matches = await boxed(
      session,
      groupAlike(found.slice(0, params.limit).map(shown), (m) => m.context),
      params.boxes,
      params.timeout,
    );
    return {
      count: found.length,
      ...(found.length > params.limit ? { truncated: true as const } : {}),
      revision: snapshot.revision,
      matches,
    };
  },
});

export const findMethods = [findByRole, findByText];
