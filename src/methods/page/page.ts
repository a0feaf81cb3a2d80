// methods/page/: page.*, find.*, axe.* and screenshot: seeing a page and acting on it.
import { Type } from '@sinclair/typebox';
import { isDownloadLink } from '../../browser/page/downloadLinks.js';
import { evaluateInPage } from '../../browser/page/pageEvaluate.js';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { checkButton, pressOrPaste } from './clipboardInput.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import {
  ACTION_TIMEOUT_MS,
  NAVIGATION_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  Modifiers,
  MouseButton,
  NavigationResult,
  Ok,
  Target,
  WaitUntil,
  timeoutParam,
} from '../params.js';
import { clampChars } from './normalizeText.js';
import { ACTION_ERRORS, defineElementAction, defineNavigationMethod } from './pageMethodShapes.js';
import {
  CLICK_UNTIL_DEFAULT,
  CLICK_UNTIL_MAX,
  clickUntil,
  untilTarget,
  UntilVisible,
} from './untilVisible.js';
import { defineActionMethod } from '../defineActionMethod.js';
import { pageText } from './pageText.js';
import { pageWaitFor } from './pageWaitFor.js';
import { exactlyOneText, SecretName, secretValue } from '../session/sessionSecrets.js';

export const pageGoto = defineSessionMethod({
  name: 'page.goto',
  summary: 'Navigate the session page to a URL and wait for it to settle',
  params: {
    url: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'Absolute http(s) URL inside the allow-list (ALLOW_HOST_REGEX).',
    }),
    waitUntil: WaitUntil,
    timeout: timeoutParam(NAVIGATION_TIMEOUT_MS, 'the navigation'),
  },
  result: NavigationResult,
  errors: ['NAVIGATION_BLOCKED', 'TIMEOUT', 'ACTION_FAILED'],
  readOnly: false,
  async handler(params, { session }) {
    return session.goto(params.url, params.waitUntil, params.timeout);
  },
});

export const pageReload = defineNavigationMethod({
  name: 'page.reload',
  summary: 'Reload the session page and wait for it to settle',
  waitsFor: 'the reload',
  result: NavigationResult,
  go: (session, waitUntil, timeout) => session.reload(waitUntil, timeout),
});

export const pageContent = defineSessionMethod({
  name: 'page.content',
  summary: 'Read the page HTML after JavaScript ran (capped at MAX_HTML_CHARS)',
  params: {},
  result: Type.Object({
    html: Type.String({ description: 'The serialised DOM.' }),
    truncated: Type.Boolean({ description: 'True when the HTML was cut at MAX_HTML_CHARS.' }),
  }),
  errors: ['ACTION_FAILED', 'TIMEOUT'],
  readOnly: true,
  async handler(_params, { session, services }) {
    const html = await withDeadline(
      session.page.content(),
      ACTION_TIMEOUT_MS,
      () =>
        new ServiceError(
          'TIMEOUT',
          `page.content did not answer within ${ACTION_TIMEOUT_MS} ms: the page may be frozen.`,
          { timeoutMs: ACTION_TIMEOUT_MS },
        ),
    );
    const clamped = clampChars(html, services.config.maxHtmlChars);
    return { html: clamped.text, truncated: clamped.truncated };
  },
});

export const pageEvaluate = defineSessionMethod({
  name: 'page.evaluate',
  summary:
    'Evaluate a JavaScript expression in the page (never in the service); a function expression is called with arg',
  description:
    'The expression runs in the page main world. If it evaluates to a function, that function is called with arg; promises are awaited. The result must be JSON-serialisable. Past the deadline the page is replaced by a fresh about:blank page and the call fails with TIMEOUT.',
  params: {
    expression: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'A JavaScript expression, e.g. document.title or (arg) => arg.x * 2.',
    }),
    arg: Type.Optional(
      Type.Unknown({ description: 'A JSON value passed to the expression when it is a function.' }),
    ),
    retryOnNavigation: Type.Boolean({
      default: false,
      description:
        'The expression only reads, so it may run twice: when the page navigates while it runs, run it again once in the new document instead of failing with PAGE_NAVIGATED (default false).',
    }),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_TIMEOUT_MS,
        description: 'Deadline in ms (default EVALUATE_TIMEOUT_MS, 10000).',
      }),
    ),
  },
  result: Type.Object({
    result: Type.Unknown({ description: 'The JSON value the expression produced (null for undefined).' }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'LIMIT_REACHED', 'PAGE_NAVIGATED'],
  readOnly: false,
  async handler(params, { session, services }) {
    const { config } = services;
    const timeoutMs = params.timeout ?? config.evaluateTimeoutMs;
    const result = await evaluateInPage(
      session,
      params.expression,
      params.arg,
      timeoutMs,
      config.maxEvaluateResultChars,
      { retryOnNavigation: params.retryOnNavigation },
    );
    return { result };
  },
});

export const pageClick = defineActionMethod({
  name: 'page.click',
  summary:
    'Click the element a selector or a snapshot ref names (waits until it is visible, stable and enabled); with until, click it again until a text or element appears',
  description: `until clicks the element (a Next, a Load more) until the text or selector is visible, for lists paged by a button or link: none when it already is; each click settles (its navigation, requests and timers) before the next look; at most maxClicks clicks within the timeout (each click's settle on top), else ACTION_FAILED with the clicks made; ACTION_FAILED at once when the element to click is gone or disabled, a later click fails or the page closed; DIALOG_PENDING when a click left a dialog for dialog.handle. A ref holds in its own document only: for a link that loads a new page, give the element as a selector (find.byRole answers one).`,
  params: {
    ...Target,
    button: MouseButton,
    modifiers: Type.Optional(Modifiers),
    until: UntilVisible('Click'),
    maxClicks: Type.Integer({
      minimum: 1,
      maximum: CLICK_UNTIL_MAX,
      default: CLICK_UNTIL_DEFAULT,
      description: `With until: clicks at most (default ${CLICK_UNTIL_DEFAULT}).`,
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element to be actionable (with until: all the clicks)'),
  },
  result: Type.Object({
    ...Ok.properties,
    clicks: Type.Optional(
      Type.Integer({ description: 'With until: the clicks it took (0: it was visible).' }),
    ),
  }),
  errors: [...ACTION_ERRORS],
  readOnly: false,
  // A click that closed its own page did its work; with until, what it clicked for was not seen.
  selfClosed: (params) => (params.until === undefined ? { ok: true } : undefined),
  async handler(params, { session, services }) {
    checkButton('page.click', session, params.button);
    const target =
      params.until === undefined ? undefined : untilTarget(session.page, params.until, 'page.click');
    const element = await session.target(params.selector, params.ref);
    const click = async (timeout: number) => {
      // Only a left click follows a link; a right or middle click on a download link saves nothing.
      const downloadLink =
        (params.button ?? 'left') === 'left' ? isDownloadLink(element, timeout) : Promise.resolve(false);
      await element.click({ button: params.button, modifiers: params.modifiers, timeout });
      if (await downloadLink) session.expectDownload();
    };
    if (target === undefined) {
      await click(params.timeout);
      return { ok: true };
    }
    const clicks = await clickUntil(session, services.config, {
      element,
      target,
      click,
      max: params.maxClicks,
      timeout: params.timeout,
      ref: params.ref,
    });
    return { ok: true, clicks };
  },
});

export const pageFill = defineElementAction({
  name: 'page.fill',
  summary: 'Fill an input, textarea or contenteditable element with a value',
  description:
    'Puts the whole value in at once and fires input and change, as Playwright fill does, but no key events: a field that reacts to keydown or keyup (an autocomplete, a filter, a validation on keyup) needs page.type, or a page.press (End) after the fill. The settle then waits for the short timers the key handlers start.',
  params: {
    value: Type.Optional(
      Type.String({
        maxLength: 1_000_000,
        description: 'The text to put in the field (replaces its content).',
      }),
    ),
    secret: Type.Optional(SecretName),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element'),
  },
  check: (params) => exactlyOneText('page.fill', 'value', params.value, params.secret),
  act: (element, params, { session }) =>
    element.fill(params.value ?? secretValue(session, params.secret ?? '', 'page.fill'), {
      timeout: params.timeout,
    }),
});

export const pagePress = defineElementAction({
  name: 'page.press',
  summary: 'Focus an element and press a key or chord (Enter, Tab, Control+A …)',
  params: {
    key: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A key name as Playwright keyboard.press takes it: Enter, ArrowDown, Shift+Tab, a.',
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element'),
  },
  act: (target, params, { session }) =>
    pressOrPaste(
      session,
      params.key,
      () => target.press(params.key, { timeout: params.timeout }),
      () => target.focus({ timeout: params.timeout }),
    ),
});

export const pageMethods = [
  pageGoto,
  pageWaitFor,
  pageReload,
  pageText,
  pageContent,
  pageEvaluate,
  pageClick,
  pageFill,
  pagePress,
];
