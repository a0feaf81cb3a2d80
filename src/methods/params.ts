import { Type } from '@sinclair/typebox';
import { ServiceError } from '../errors/serviceError.js';
import { REF_PATTERN } from '../browser/page/pageSnapshot.js';
import { DownloadInfoSchema } from '../browser/artifacts/downloadStore.js';

/** Playwright's own defaults for the seed's actions and navigations. */
export const ACTION_TIMEOUT_MS = 15_000;
export const NAVIGATION_TIMEOUT_MS = 45_000;
/** No single call may hold a session longer than this, whatever timeout it asks for. */
export const MAX_TIMEOUT_MS = 300_000;

/** The longest page.waitFor idleFor pause. */
export const MAX_IDLE_FOR_MS = 60_000;
/** page.text's ceiling on maxChars: a response stays a size an agent can take in. */
export const MAX_TEXT_CHARS = 2_000_000;
/** Screenshots wait for fonts and a stable frame; a huge full page may take a while. */
export const SCREENSHOT_TIMEOUT_MS = 30_000;
/** axe on a large page takes seconds; past this the caller gets TIMEOUT rather than a hung session. */
export const AXE_TIMEOUT_MS = 60_000;
/** Nodes listed per violation: enough to locate the problem without a megabyte answer. */
export const MAX_NODES_PER_VIOLATION = 20;

/** find.* answers list this many matches by default and at most MAX_FIND_MATCHES: count says how many there are. */
export const DEFAULT_FIND_MATCHES = 20;
export const MAX_FIND_MATCHES = 200;
/** find.byText's longest regex: a pattern is a search term, and a long one is more to go wrong. */
export const MAX_REGEX_CHARS = 500;

const SELECTOR_DESCRIPTION =
  'A Playwright selector: CSS, text=…, role=button[name="…"], [data-testid="…"], or one returned by find.byRole.';

export const Selector = Type.String({ minLength: 1, maxLength: 10_000, description: SELECTOR_DESCRIPTION });

export const timeoutParam = (defaultMs: number, what: string) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_TIMEOUT_MS,
    default: defaultMs,
    description: `Milliseconds to wait for ${what} (default ${defaultMs}).`,
  });

export const WaitUntil = Type.Union(
  [
    Type.Literal('load'),
    Type.Literal('domcontentloaded'),
    Type.Literal('networkidle'),
    Type.Literal('commit'),
  ],
  {
    default: 'networkidle',
    description:
      'When the navigation counts as done (default networkidle: load, then no request for SETTLE_QUIET_MS; responses whose body never finishes are ignored after SETTLE_BODY_GRACE_MS).',
  },
);

export const Ok = Type.Object({ ok: Type.Boolean({ description: 'True when the action completed.' }) });

export const NavigationResult = Type.Object({
  url: Type.String({ description: 'The page URL after the navigation (and any redirects).' }),
  title: Type.String({ description: 'The document title.' }),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the main document, null when there was no response.',
  }),
  blocked: Type.Optional(
    Type.Array(Type.Object({ url: Type.String(), reason: Type.String(), resourceType: Type.String() }), {
      description:
        'Requests of the page (frames, subresources, popups) that the allow-list refused during the call; absent when it refused none.',
    }),
  ),
  download: Type.Optional(
    Type.Object(DownloadInfoSchema.properties, {
      description:
        'page.goto only: present when the URL answered with an attachment; the page stayed where it was, and this is the download it became (see downloads.get).',
    }),
  ),
  loadPending: Type.Optional(
    Type.Object(
      {
        requests: Type.Array(Type.String(), { description: 'The requests still pending (at most 10).' }),
        note: Type.String(),
      },
      {
        description:
          'With waitUntil load or networkidle: present when the answer came without the load event. The document is usable (DOMContentLoaded); these requests kept load from firing (no answer after SETTLE_MAX_PENDING_MS, or the timeout passed).',
      },
    ),
  ),
});

/** A ref from page.snapshot: e12, or f1e3 for an element inside a frame. */
export const Ref = Type.String({
  pattern: REF_PATTERN,
  maxLength: 32,
  description:
    'An element ref from the last page.snapshot of the active page (e12, or f1e3 inside a frame; p2e12 on page p2); a stale ref, or one of another page, fails with STALE_REF, never acts elsewhere.',
});

/** What an action acts on: exactly one of selector and ref (the action says which is missing). */
export const Target = {
  selector: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: `${SELECTOR_DESCRIPTION} Give this or ref.`,
    }),
  ),
  ref: Type.Optional(Ref),
};

/** page.type sends one keystroke per character, each a browser round trip: longer text is for page.fill. */
export const MAX_TYPE_CHARS = 2_000;
/** A slow typist's pause between keys; a longer wait between keys is a page.waitFor between calls. */
export const MAX_TYPE_DELAY_MS = 1_000;
/** page.select's longest list of options: a multiple select with more is filled by several calls. */
export const MAX_SELECT_OPTIONS = 200;
/** page.scroll's largest wheel delta per axis: many screens, yet a number the wheel event carries exactly. */
export const MAX_SCROLL_DELTA_PX = 100_000;

export const MouseButton = Type.Union([Type.Literal('left'), Type.Literal('right'), Type.Literal('middle')], {
  default: 'left',
  description: 'Mouse button (default left).',
});

export const Modifiers = Type.Array(
  Type.Union([
    Type.Literal('Alt'),
    Type.Literal('Control'),
    Type.Literal('ControlOrMeta'),
    Type.Literal('Meta'),
    Type.Literal('Shift'),
  ]),
  { maxItems: 5, description: 'Keys held during the action.' },
);

/** page.back and page.forward: a navigation's result, and whether there was an entry to go to. */
export const HistoryResult = Type.Object({
  ...NavigationResult.properties,
  navigated: Type.Boolean({
    description:
      'False when there was no entry in that direction (the start or the end of the history): the page stayed as it was.',
  }),
});

/** Viewport bounds for page.setViewport (and session.create's viewport): a phone's width to 8K. */
export const MIN_VIEWPORT_PX = 100;
export const MAX_VIEWPORT_WIDTH_PX = 7680;
export const MAX_VIEWPORT_HEIGHT_PX = 4320;
/** page.keyboard insertText’s longest text: one input event, as long as a large paste; page.fill takes more. */
export const MAX_INSERT_TEXT_CHARS = 100_000;
/** Intermediate pointer moves of page.mouse and page.drag: each is a browser round trip. */
export const MAX_MOUSE_STEPS = 200;
/** page.drag's default moves between press and release: sortable lists start a drag past a few pixels. */
export const DEFAULT_DRAG_STEPS = 10;

/** A point of the viewport in CSS pixels; checked against the page's current viewport before use. */
export const ViewportX = Type.Number({
  minimum: 0,
  maximum: MAX_VIEWPORT_WIDTH_PX,
  description: 'CSS pixels from the left edge of the viewport (0 ≤ x < the viewport width).',
});
export const ViewportY = Type.Number({
  minimum: 0,
  maximum: MAX_VIEWPORT_HEIGHT_PX,
  description: 'CSS pixels from the top edge of the viewport (0 ≤ y < the viewport height).',
});

/**
 * INVALID_PARAMS for params the schema admits but the method does not take together (or not at
 * all), in the shape of Ajv's own oneOf error: "Invalid params for <method>: <message>".
 */
export function refuseParams(method: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for ${method}: ${message}`, {
    errors: [{ path: '/', message, keyword: 'oneOf', params: {} }],
  });
}
