// page.scroll's and page.click's `until`: an input repeated until a text or an element is visible,
// for feeds that load more as they scroll and for lists paged by a Next or a Load more button.
import { Type } from '@sinclair/typebox';
import type { Locator, Page } from 'playwright-core';
import { settleAround } from '../../browser/page/actionSettle.js';
import type { Session } from '../../browser/session/session.js';
import type { Config } from '../../config/config.js';
import { ServiceError } from '../../errors/serviceError.js';
import { actionSettleOptions } from '../defineActionMethod.js';

/** page.click until: clicks at most (default), and its ceiling. */
export const CLICK_UNTIL_DEFAULT = 10;
export const CLICK_UNTIL_MAX = 100;

/** The `until` param: what to repeat the input for, a text or a selector. */
export const UntilVisible = (input: string) =>
  Type.Optional(
    Type.Object(
      {
        text: Type.Optional(
          Type.String({ minLength: 1, maxLength: 1000, description: 'Until this text is visible.' }),
        ),
        selector: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 2000,
            description: 'Until an element this selector matches is visible.',
          }),
        ),
      },
      {
        additionalProperties: false,
        description: `${input} until one of these is visible: {text} or {selector}.`,
      },
    ),
  );

export function refuse(method: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for ${method}: ${message}`, {
    errors: [{ path: '/', message, keyword: 'oneOf', params: {} }],
  });
}

/** What `until` waits for on the page, its first match; exactly one of text and selector. */
export function untilTarget(
  page: Page,
  until: { text?: string; selector?: string },
  method: string,
): Locator {
  const { text, selector } = until;
  if ((text === undefined) === (selector === undefined))
    throw refuse(method, 'until takes exactly one of text and selector');
  return selector !== undefined ? page.locator(selector).first() : page.getByText(text ?? '').first();
}

export interface ClickUntil {
  /** The element clicked each time (a selector's first match, or a ref's element). */
  element: Locator;
  /** What must become visible. */
  target: Locator;
  /** One click, its actionability wait bounded by `timeout`. */
  click: (timeout: number) => Promise<void>;
  /** Clicks at most. */
  max: number;
  /** The whole loop's bound, in ms. */
  timeout: number;
  /** The ref the element was given by, if any: it holds in its own document only. */
  ref: string | undefined;
}

/**
 * Clicks until `target` is visible: none when it already is. Each click settles as an action does
 * (its navigation, its requests, its timers) before the next look, so a page that loads its next
 * rows is not clicked past. Answers the clicks made; ACTION_FAILED past `max` or the timeout, or
 * when the element to click is gone; STALE_REF when a ref's document was left.
 */
export async function clickUntil(session: Session, config: Config, spec: ClickUntil): Promise<number> {
  const deadline = Date.now() + spec.timeout;
  const sameDocument = spec.ref === undefined ? undefined : session.sameDocumentCheck();
  for (let clicks = 0; ; clicks++) {
    if (await spec.target.isVisible()) return clicks;
    const left = deadline - Date.now();
    if (clicks >= spec.max || left <= 0)
      throw new ServiceError(
        'ACTION_FAILED',
        `page.click until: not visible after ${clicks} clicks${clicks >= spec.max ? ` (maxClicks ${spec.max})` : ` (timeout ${spec.timeout} ms)`}: the page may not have it.`,
        { clicks, maxClicks: spec.max, timeoutMs: spec.timeout },
      );
    if (clicks > 0) {
      if (sameDocument !== undefined && !(await sameDocument()))
        throw new ServiceError(
          'STALE_REF',
          `page.click until: click ${clicks} loaded a new document, where ref ${spec.ref ?? ''} does not hold: give the element as a selector (find.byRole answers one) to click it on every page.`,
          { ref: spec.ref, clicks },
        );
      if ((await spec.element.count()) === 0)
        throw new ServiceError(
          'ACTION_FAILED',
          `page.click until: the element to click is gone after ${clicks} clicks, and what until names is not visible.`,
          { clicks, maxClicks: spec.max },
        );
    }
    await settleAround(session.page, () => spec.click(left), actionSettleOptions(session, config));
  }
}
