// page.scroll's and page.click's `until`: an input repeated until a text or an element is visible,
// for feeds that load more as they scroll and for lists paged by a Next or a Load more button.
import { Type } from '@sinclair/typebox';
import type { Locator, Page } from 'playwright-core';
import { settleAround } from '../../browser/page/actionSettle.js';
import type { Session } from '../../browser/session/session.js';
import type { Config } from '../../config/config.js';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { actionSettleOptions } from '../defineActionMethod.js';
import { refuseParams } from '../params.js';

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

/** What `until` waits for on the page, its first match; exactly one of text and selector. */
export function untilTarget(
  page: Page,
  until: { text?: string; selector?: string },
  method: string,
): Locator {
  const { text, selector } = until;
  if ((text === undefined) === (selector === undefined))
    throw refuseParams(method, 'until takes exactly one of text and selector');
  return selector !== undefined ? page.locator(selector).first() : page.getByText(text ?? '').first();
}

/** page.click until: how long, at most, the element to click is looked for again after a click. */
export const CLICK_UNTIL_REATTACH_MS = 2_000;

export interface ClickUntil {
  /** The element clicked each time (a selector's only match, or a ref's element). */
  element: Locator;
  /** What must become visible. */
  target: Locator;
  /** One click, its actionability wait bounded by `timeout`. */
  click: (timeout: number) => Promise<void>;
  /** Clicks at most. */
  max: number;
  /** The bound of the clicks and the looks between them, in ms (each click's settle comes on top). */
  timeout: number;
  /** The ref the element was given by, if any: it holds in its own document only. */
  ref: string | undefined;
}

/**
 * Clicks until `target` is visible: none when it already is. Each click settles as an action does
 * (its navigation, its requests, its timers) before the next look, so a page that loads its next
 * rows is not clicked past. Answers the clicks made. ACTION_FAILED past `max` or the timeout, when
 * the element to click is gone or disabled, when a later click fails, or when the page closed;
 * DIALOG_PENDING when a click left a dialog for dialog.handle; STALE_REF when a ref's document was
 * left. The first click fails as a plain page.click does.
 */
export async function clickUntil(session: Session, config: Config, spec: ClickUntil): Promise<number> {
  const page = session.page;
  const deadline = Date.now() + spec.timeout;
  const sameDocument = spec.ref === undefined ? undefined : session.sameDocumentCheck();
  const failed = (clicks: number, why: string, data: Record<string, unknown> = {}) =>
    new ServiceError('ACTION_FAILED', `page.click until: ${why}`, { clicks, maxClicks: spec.max, ...data });
  const bounded = <T>(work: Promise<T>, clicks: number): Promise<T> =>
    withDeadline(work, Math.max(1, deadline - Date.now()), () =>
      failed(
        clicks,
        `the page did not answer within the timeout (${spec.timeout} ms) after ${clicks} clicks.`,
      ),
    );
  for (let clicks = 0; ; clicks++) {
    if (page.isClosed()) throw failed(clicks, `the page closed after ${clicks} clicks.`);
    if (session.held)
      throw new ServiceError(
        'DIALOG_PENDING',
        `page.click until: click ${clicks} left a dialog open: answer it with dialog.handle, then call again.`,
        { clicks },
      );
    if (await bounded(spec.target.isVisible(), clicks)) return clicks;
    if (clicks >= spec.max || Date.now() >= deadline)
      throw failed(
        clicks,
        `not visible after ${clicks} clicks${clicks >= spec.max ? ` (maxClicks ${spec.max})` : ` (timeout ${spec.timeout} ms)`}: the page may not have it.`,
        { timeoutMs: spec.timeout },
      );
    if (clicks > 0) {
      if (sameDocument !== undefined && !(await bounded(sameDocument(), clicks)))
        throw new ServiceError(
          'STALE_REF',
          `page.click until: click ${clicks} loaded a new document, where ref ${spec.ref ?? ''} does not hold: give the element as a selector (find.byRole answers one) to click it on every page.`,
          { ref: spec.ref, clicks },
        );
      const reattach = Math.max(1, Math.min(CLICK_UNTIL_REATTACH_MS, deadline - Date.now()));
      const attached = await spec.element.waitFor({ state: 'attached', timeout: reattach }).then(
        () => true,
        (error: unknown) => {
          if (error instanceof Error && error.name === 'TimeoutError') return false;
          throw error;
        },
      );
      if (!attached)
        throw failed(
          clicks,
          `the element to click is gone after ${clicks} clicks, and what until names is not visible.`,
        );
      if (await bounded(spec.element.isDisabled(), clicks))
        throw failed(
          clicks,
          `the element to click is disabled after ${clicks} clicks, and what until names is not visible.`,
        );
    }
    const left = Math.max(1, deadline - Date.now());
    await settleAround(page, () => spec.click(left), actionSettleOptions(session, config)).catch(
      (error: unknown) => {
        if (page.isClosed()) throw failed(clicks, `the page closed on click ${clicks + 1}.`);
        // The first click fails as a plain page.click does (no element, not actionable …).
        if (clicks === 0) throw error;
        throw failed(
          clicks,
          `click ${clicks + 1} failed: ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)}`,
        );
      },
    );
  }
}
