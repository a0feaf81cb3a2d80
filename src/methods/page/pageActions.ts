// The page.* actions beyond the seed's click, fill and press (page.ts): hover, double
// click, focus, check, select, type, scroll and history. Each is one real Playwright input call on
// the element a selector or snapshot ref names, never an event synthesised in the page.
import { setTimeout as sleep } from 'node:timers/promises';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Locator, Page } from 'playwright-core';
import { doubleClick } from '../../browser/page/doubleClick.js';
import { ServiceError } from '../../errors/serviceError.js';
import { checkButton, checkTyping } from './clipboardInput.js';
import { exactlyOneText, SecretName, secretValue } from '../session/sessionSecrets.js';
import type { Session } from '../../browser/session/session.js';
import { defineActionMethod } from '../defineActionMethod.js';
import {
  ACTION_TIMEOUT_MS,
  HistoryResult,
  MAX_SCROLL_DELTA_PX,
  MAX_SELECT_OPTIONS,
  MAX_TYPE_CHARS,
  MAX_TYPE_DELAY_MS,
  Modifiers,
  MouseButton,
  Ok,
  refuseParams,
  Target,
  timeoutParam,
} from '../params.js';
import { ACTION_ERRORS, defineElementAction, defineNavigationMethod } from './pageMethodShapes.js';
import { untilTarget, UntilVisible } from './untilVisible.js';

export const pageHover = defineElementAction({
  name: 'page.hover',
  summary: 'Move the mouse over an element (waits until it is visible and stable): opens hover menus',
  params: {
    modifiers: Type.Optional(Modifiers),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element to be actionable'),
  },
  act: (element, params) => element.hover({ modifiers: params.modifiers, timeout: params.timeout }),
});

export const pageDblclick = defineElementAction({
  name: 'page.dblclick',
  summary: 'Double-click an element (waits until it is visible, stable and enabled)',
  params: {
    button: MouseButton,
    modifiers: Type.Optional(Modifiers),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element to be actionable'),
  },
  check: (params, { session }) => checkButton('page.dblclick', session, params.button),
  act: (element, params, { session }) =>
    doubleClick(session.page, element, {
      button: params.button,
      modifiers: params.modifiers,
      timeout: params.timeout,
    }),
});

export const pageFocus = defineElementAction({
  name: 'page.focus',
  summary: 'Give an element the keyboard focus',
  params: { timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element') },
  act: (element, params) => element.focus({ timeout: params.timeout }),
});

const CHECK_DESCRIPTION =
  'A checkbox, a radio button, or an element with role checkbox, radio or switch. Clicks it unless it is already in that state, then fails with ACTION_FAILED if the click did not change it.';

/** page.check and page.uncheck: one input that leaves the element in the state asked for. */
const checkAction = (name: string, summary: string, checked: boolean) =>
  defineElementAction({
    name,
    summary,
    description: CHECK_DESCRIPTION,
    params: { timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element to be actionable') },
    act: (element, params) => element.setChecked(checked, { timeout: params.timeout }),
  });

export const pageCheck = checkAction(
  'page.check',
  'Check a checkbox, radio button or switch (nothing happens when it is already checked)',
  true,
);

export const pageUncheck = checkAction(
  'page.uncheck',
  'Uncheck a checkbox or switch (nothing happens when it is already unchecked)',
  false,
);

const optionList = <T extends TSchema>(item: T, what: string) =>
  Type.Optional(
    Type.Array(item, {
      minItems: 1,
      maxItems: MAX_SELECT_OPTIONS,
      description: `Options by ${what}. Several only for a <select multiple>. Give one of values, labels and indexes.`,
    }),
  );

export const pageSelect = defineActionMethod({
  name: 'page.select',
  summary: 'Choose the options of a <select> by value, label or index (several for a multiple select)',
  description:
    'Replaces the selection with the options named, fires input and change as a person would, and answers with the values selected afterwards. An option that is not there is waited for until the timeout.',
  params: {
    ...Target,
    values: optionList(Type.String({ maxLength: 10_000 }), 'their value attribute'),
    labels: optionList(Type.String({ maxLength: 10_000 }), 'their visible label'),
    indexes: optionList(Type.Integer({ minimum: 0, maximum: 100_000 }), 'their position (0 is the first)'),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element and its options'),
  },
  result: Type.Object({
    selected: Type.Array(Type.String(), {
      description: 'The values of the options selected after the action.',
    }),
  }),
  errors: [...ACTION_ERRORS],
  readOnly: false,
  async handler(params, { session }) {
    const kinds = (['values', 'labels', 'indexes'] as const).filter((k) => params[k] !== undefined);
    if (kinds.length !== 1)
      throw refuseParams(
        'page.select',
        kinds.length === 0
          ? 'give the options to choose by values, labels or indexes'
          : `give the options by one of ${kinds.join(' and ')}, not both`,
      );
    const options =
      params.values?.map((value) => ({ value })) ??
      params.labels?.map((label) => ({ label })) ??
      (params.indexes ?? []).map((index) => ({ index }));
    const element = await session.target(params.selector, params.ref);
    if (options.length > 1) {
      // Playwright would quietly choose only the first option of a single select.
      const multiple = await element.evaluate(
        (el) => !(el instanceof HTMLSelectElement) || el.multiple,
        undefined,
        {
          timeout: params.timeout,
        },
      );
      if (!multiple)
        throw refuseParams(
          'page.select',
          `the <select> takes one option, not ${options.length}; only a <select multiple> takes several`,
        );
    }
    return { selected: await element.selectOption(options, { timeout: params.timeout }) };
  },
});

export const pageType = defineElementAction({
  name: 'page.type',
  summary:
    'Type text into an element key by key (keydown, keypress, input, keyup for each character): for autocomplete and masked inputs',
  description: `Focuses the element and presses one key per character after what it already holds (page.fill replaces the value in one step, without key events). At most ${MAX_TYPE_CHARS} characters.`,
  params: {
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TYPE_CHARS,
        description: `The text to type (at most ${MAX_TYPE_CHARS} characters).`,
      }),
    ),
    secret: Type.Optional(SecretName),
    delay: Type.Integer({
      minimum: 0,
      maximum: MAX_TYPE_DELAY_MS,
      default: 0,
      description: `Milliseconds between keys (default 0, at most ${MAX_TYPE_DELAY_MS}), for pages that debounce.`,
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element'),
  },
  check: (params, { session }) => {
    exactlyOneText('page.type', 'text', params.text, params.secret);
    checkTyping('page.type', session, typed(session, params));
  },
  act: (element, params, { session }) =>
    element.pressSequentially(typed(session, params), { delay: params.delay, timeout: params.timeout }),
});

/** What page.type types: its text, or the value of the secret it names. */
function typed(session: Session, params: { text?: string | undefined; secret?: string | undefined }): string {
  return params.text ?? secretValue(session, params.secret ?? '', 'page.type');
}

const DeltaPx = Type.Integer({
  minimum: -MAX_SCROLL_DELTA_PX,
  maximum: MAX_SCROLL_DELTA_PX,
  default: 0,
});

/** page.scroll until: wheel turns at most (default), and its ceiling. */
const SCROLL_UNTIL_DEFAULT = 20;
const SCROLL_UNTIL_MAX = 200;
/** page.scroll until: one wheel turn, when no delta says otherwise. */
const SCROLL_UNTIL_STEP_PX = 600;
/** page.scroll until: the pause after each turn, for what the page loads as it scrolls. */
const SCROLL_UNTIL_PAUSE_MS = 200;

export const pageScroll = defineActionMethod({
  name: 'page.scroll',
  summary:
    'Scroll an element into view (selector or ref), turn the mouse wheel by a delta, or scroll until a text or element appears',
  description:
    'Exactly one form: selector or ref scrolls that element into view (in whatever container scrolls it); delta turns the mouse wheel where the mouse is (the top left corner, or the element of the last page.hover) and does not wait for smooth scrolling to end; until turns the wheel (by delta, default 600 px down) until the text or selector is visible, then scrolls it into view, for feeds that load more as they scroll: at most maxScrolls turns within the timeout, else ACTION_FAILED with the turns made.',
  params: {
    ...Target,
    delta: Type.Optional(
      Type.Object(
        {
          dx: { ...DeltaPx, description: 'Pixels to the right (negative: to the left; default 0).' },
          dy: { ...DeltaPx, description: 'Pixels down (negative: up; default 0).' },
        },
        {
          additionalProperties: false,
          description: 'Turn the wheel by this much instead of naming an element.',
        },
      ),
    ),
    until: UntilVisible('Scroll'),
    maxScrolls: Type.Integer({
      minimum: 1,
      maximum: SCROLL_UNTIL_MAX,
      default: SCROLL_UNTIL_DEFAULT,
      description: `With until: wheel turns at most (default ${SCROLL_UNTIL_DEFAULT}).`,
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element'),
  },
  result: Type.Object({
    ...Ok.properties,
    scrolls: Type.Optional(Type.Integer({ description: 'With until: the wheel turns it took.' })),
  }),
  errors: [...ACTION_ERRORS],
  readOnly: false,
  async handler(params, { session }) {
    const element = params.selector !== undefined || params.ref !== undefined;
    if (params.until !== undefined) {
      if (element)
        throw refuseParams('page.scroll', 'until scrolls by itself: give it without selector or ref');
      const target = untilTarget(session.page, params.until, 'page.scroll');
      const step = params.delta ?? { dx: 0, dy: SCROLL_UNTIL_STEP_PX };
      const scrolls = await scrollUntil(session.page, target, step, params.maxScrolls, params.timeout);
      return { ok: true, scrolls };
    }
    if (element === (params.delta !== undefined))
      throw refuseParams(
        'page.scroll',
        element
          ? 'give selector or ref to scroll an element into view, or delta to turn the wheel, not both'
          : 'give selector or ref to scroll an element into view, or delta to turn the wheel',
      );
    if (params.delta !== undefined) await session.page.mouse.wheel(params.delta.dx, params.delta.dy);
    else
      await (
        await session.target(params.selector, params.ref)
      ).scrollIntoViewIfNeeded({ timeout: params.timeout });
    return { ok: true };
  },
});

/**
 * Turns the wheel by `step` until `target` is visible (then scrolls it into view), at most `max`
 * turns within `timeout`; answers the turns it took, or fails with ACTION_FAILED saying how far it got.
 */
async function scrollUntil(
  page: Page,
  target: Locator,
  step: { dx: number; dy: number },
  max: number,
  timeout: number,
): Promise<number> {
  const deadline = Date.now() + timeout;
  for (let turns = 0; ; turns++) {
    if (await target.isVisible()) {
      await target.scrollIntoViewIfNeeded({ timeout: Math.max(1, deadline - Date.now()) });
      return turns;
    }
    if (turns >= max || Date.now() >= deadline)
      throw new ServiceError(
        'ACTION_FAILED',
        `page.scroll until: not visible after ${turns} wheel turns${turns >= max ? ` (maxScrolls ${max})` : ` (timeout ${timeout} ms)`}: the page may not have it, or it scrolls in another container (page.hover one first).`,
        { scrolls: turns, maxScrolls: max, timeoutMs: timeout },
      );
    await page.mouse.wheel(step.dx, step.dy);
    await sleep(SCROLL_UNTIL_PAUSE_MS);
  }
}

const HISTORY_DESCRIPTION =
  'Answers like page.reload. At the start (or end) of the history nothing happens and navigated is false. An entry outside the allow-list (a page the proxy refused earlier) is NAVIGATION_BLOCKED, and the page is left on about:blank.';

/** page.back and page.forward: one step through the page's history, either way. */
const historyMove = (direction: 'back' | 'forward') =>
  defineNavigationMethod({
    name: `page.${direction}`,
    summary: `Go ${direction} one entry in the page's history and wait for it to settle`,
    description: HISTORY_DESCRIPTION,
    waitsFor: 'the navigation',
    result: HistoryResult,
    go: (session, waitUntil, timeout) =>
      direction === 'back' ? session.back(waitUntil, timeout) : session.forward(waitUntil, timeout),
  });

export const pageBack = historyMove('back');

export const pageForward = historyMove('forward');

export const pageActionMethods = [
  pageHover,
  pageDblclick,
  pageFocus,
  pageCheck,
  pageUncheck,
  pageSelect,
  pageType,
  pageScroll,
  pageBack,
  pageForward,
];
