// page.text: the page.* namespace continues here (page.ts holds navigation, reads and actions), since
// reading as an agent does (a ref, frames, Markdown, pages a cursor continues) is a concern of its own.
import { Type } from '@sinclair/typebox';
import {
  MAX_READ_CHARS,
  readPage,
  storeRead,
  type ReadShape,
  type StoredRead,
} from '../../browser/page/pageRead.js';
import { encodeCursor, offsetOf, pageOf } from '../../browser/page/pageSnapshot.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { normalizeText } from './normalizeText.js';
import { ACTION_TIMEOUT_MS, MAX_TEXT_CHARS, Ref, refuseParams, Selector, timeoutParam } from '../params.js';
import { withTargetErrors } from './targetFailure.js';

const DEFAULT_TEXT_CHARS = 90_000;

export const pageText = defineSessionMethod({
  name: 'page.text',
  summary:
    'Read the visible text (innerText) or the main content as Markdown, of the page or of one element, in pages of maxChars',
  description:
    'Reads the whole page (body), or the element a selector (its first match) or a snapshot ref names. format "markdown" keeps headings, lists, tables (GFM) and absolute links: for the whole page, its main content (Readability), without navigation, header and footer. frames appends every iframe, each under a line `--- frame "title" (url) ---`. When the text is longer than maxChars, the answer ends at a line end and cursor continues the same text (a cursor of an older read is refused).',
  params: {
    selector: Type.Optional({
      ...Selector,
      description: `Read the first element this selector matches. ${Selector.description ?? ''} Give this or ref, or neither for the whole page.`,
    }),
    ref: Type.Optional({
      ...Ref,
      description:
        'Read the element a ref from the last page.snapshot names (e12, or f1e3 inside a frame); a stale ref fails with STALE_REF. Give this or selector, or neither for the whole page.',
    }),
    format: Type.Union([Type.Literal('text'), Type.Literal('markdown')], {
      default: 'text',
      description:
        'text (default): the visible text. markdown: headings, lists, tables and absolute links; the whole page is narrowed to its main content.',
    }),
    frames: Type.Boolean({
      default: false,
      description:
        'Append the text of every iframe (nested and cross-origin ones too), each under a header line; a frame that cannot be read is a note line. The whole page only (default false).',
    }),
    maxChars: Type.Integer({
      minimum: 1,
      maximum: MAX_TEXT_CHARS,
      default: DEFAULT_TEXT_CHARS,
      description: `Characters at most in this answer, cut at a line end (default ${DEFAULT_TEXT_CHARS}).`,
    }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'The cursor of a previous answer: continue that text instead of reading the page again (with the same format, frames and normalize).',
      }),
    ),
    normalize: Type.Boolean({
      default: true,
      description: 'Fold whitespace and blank lines of the text (default true; Markdown is left as it is).',
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element (and each frame)'),
  },
  result: Type.Object({
    text: Type.String({ description: 'The text (or Markdown) of this page of the answer.' }),
    truncated: Type.Optional(
      Type.Literal(true, {
        description: `Present (true) when the text goes on past this answer: cut at maxChars, or longer than the ${MAX_READ_CHARS} characters the service keeps. An answer that holds the whole text is text alone.`,
      }),
    ),
    length: Type.Optional(
      Type.Integer({ description: 'With truncated: the length of the whole text before any cut.' }),
    ),
    cursor: Type.Optional(
      Type.String({
        description:
          'Pass it back to read on; absent when this answer reached the end of what the service keeps.',
      }),
    ),
    approxTokens: Type.Optional(
      Type.Integer({ description: 'With truncated: an estimate of the tokens in text (characters / 4).' }),
    ),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'STALE_REF', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session, services }) {
    const shape: ReadShape = {
      format: params.format,
      frames: params.frames,
      normalize: params.normalize,
      selector: params.selector,
      ref: params.ref,
    };
    let stored: StoredRead;
    let offset = 0;
    if (params.cursor !== undefined) ({ stored, offset } = continued(params.cursor, session.lastRead, shape));
    else {
      if (params.selector !== undefined && params.ref !== undefined)
        throw refuse(
          'Give at most one of selector and ref: a Playwright selector, or a ref from page.snapshot.',
        );
      if (params.frames && (params.selector !== undefined || params.ref !== undefined))
        throw refuse('frames reads the whole page with its iframes: leave out selector and ref, or frames.');
      const target =
        params.selector === undefined && params.ref === undefined
          ? undefined
          : (await session.target(params.selector, params.ref)).first();
      const raw = await withTargetErrors(session, 'page.text', params, () =>
        readPage(
          session.page,
          target,
          {
            format: params.format,
            frames: params.frames,
            timeout: params.timeout,
            maxHtmlChars: services.config.maxHtmlChars,
          },
          params.ref === undefined ? params.selector : undefined,
        ),
      );
      const text = params.format === 'text' && params.normalize ? normalizeText(raw) : raw;
      stored = storeRead(session.lastRead, text, shape, session.document);
      session.lastRead = stored;
    }
    const page = pageOf(stored.text, offset, params.maxChars);
    // An answer that holds the whole text is the text alone: the sizes and the cursor are for a cut one.
    if (page.next === null && stored.length <= stored.text.length) return { text: page.text };
    return {
      text: page.text,
      truncated: true as const,
      length: stored.length,
      ...(page.next === null ? {} : { cursor: encodeCursor(stored.revision, page.next) }),
      approxTokens: page.approxTokens,
    };
  },
});

const refuse = (message: string): ServiceError => refuseParams('page.text', message);

const SHAPE_PARAMS = ['format', 'frames', 'normalize', 'selector', 'ref'] as const;

/** Where a cursor continues the session's last read; INVALID_PARAMS, saying to read again, otherwise. */
function continued(
  cursor: string,
  stored: StoredRead | undefined,
  shape: ReadShape,
): { stored: StoredRead; offset: number } {
  const readAgain = (why: string, cause?: unknown, instead = '') =>
    new ServiceError(
      'INVALID_PARAMS',
      `The cursor ${cursor.slice(0, 40)} ${why}: ${instead}call page.text without a cursor to read the page again.`,
      { cursor: cursor.slice(0, 40), revision: stored?.revision ?? null },
      cause,
    );
  let offset: number;
  try {
    offset = offsetOf(cursor, stored);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.errorName !== 'INVALID_PARAMS') throw error;
    const last = stored === undefined ? '' : ` (revision ${stored.revision})`;
    throw readAgain(`does not continue this session's last page.text${last}`, error);
  }
  if (stored === undefined) throw readAgain('continues no page.text of this session');
  // selector and ref may be left out of a call that continues; the params with defaults may not differ.
  const differs = SHAPE_PARAMS.find((key) => shape[key] !== undefined && shape[key] !== stored.shape[key]);
  if (differs !== undefined)
    throw readAgain(
      `belongs to a read with ${differs} ${JSON.stringify(stored.shape[differs]) ?? 'unset'}, not ${JSON.stringify(shape[differs])}`,
      undefined,
      "pass that read's format, frames and normalize with its cursor, or ",
    );
  return { stored, offset };
}
