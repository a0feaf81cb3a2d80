// The two shapes most page.* methods share, declared once: an action on the one element a selector
// or snapshot ref names that answers only ok (click, fill, hover, check …), and a move of the page
// to another document that waits for it to settle (reload, back, forward).
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { Locator } from 'playwright-core';
import type { Session } from '../../browser/session/session.js';
import type { ErrorName } from '../../errors/catalogue.js';
import { defineActionMethod } from '../defineActionMethod.js';
import {
  defineSessionMethod,
  type ServiceMethod,
  type SessionMethodContext,
} from '../defineSessionMethod.js';
import { NAVIGATION_TIMEOUT_MS, Ok, Target, WaitUntil, timeoutParam } from '../params.js';

/** What an action on an element can fail with: no element in time, the input failed, a stale ref, no target. */
export const ACTION_ERRORS = [
  'TIMEOUT',
  'ACTION_FAILED',
  'STALE_REF',
  'INVALID_PARAMS',
] as const satisfies readonly ErrorName[];

/** The validated params of an element action: Target's selector and ref, then its own. */
export type ElementActionParams<P extends TProperties> = Readonly<Static<TObject<typeof Target & P>>>;

export interface ElementActionSpec<P extends TProperties> {
  name: string;
  summary: string;
  description?: string;
  /** The action's own params, its timeout last; Target's selector and ref are put before them. */
  params: P;
  /** Refuses params before the element is looked up, so a bad param is said before a missing target. */
  check?: (params: ElementActionParams<P>, ctx: SessionMethodContext) => void;
  /** The Playwright input on the element; the method answers ok once it resolved. */
  act: (element: Locator, params: ElementActionParams<P>, ctx: SessionMethodContext) => Promise<unknown>;
}

/**
 * Target's selector and ref from an element action's validated params. TypeScript cannot see them in
 * the params type while the action's own params are still generic, so they are read and checked here.
 */
function targetOf(params: object): { selector: string | undefined; ref: string | undefined } {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    selector: 'selector' in params ? text(params.selector) : undefined,
    ref: 'ref' in params ? text(params.ref) : undefined,
  };
}

/** An action method on the element a selector or snapshot ref names, answering { ok: true }. */
export function defineElementAction<P extends TProperties>(spec: ElementActionSpec<P>): ServiceMethod {
  const { params, check, act, ...info } = spec;
  return defineActionMethod<typeof Target & P, typeof Ok>({
    ...info,
    params: { ...Target, ...params },
    result: Ok,
    errors: [...ACTION_ERRORS],
    readOnly: false,
    async handler(validated, ctx) {
      check?.(validated, ctx);
      const { selector, ref } = targetOf(validated);
      await act(await ctx.session.target(selector, ref), validated, ctx);
      return { ok: true };
    },
  });
}

export interface NavigationMethodSpec<R extends TSchema> {
  name: string;
  summary: string;
  description?: string;
  /** What the timeout bounds, as its description says it: 'the reload', 'the navigation'. */
  waitsFor: string;
  result: R;
  /** Moves the session's page and answers where it ended up. */
  go: (session: Session, waitUntil: Static<typeof WaitUntil>, timeout: number) => Promise<Static<R>>;
}

/**
 * A session method that moves the page to another document without a URL of its own (reload, back,
 * forward): it takes waitUntil and a navigation timeout, and fails like page.goto.
 */
export function defineNavigationMethod<R extends TSchema>(spec: NavigationMethodSpec<R>): ServiceMethod {
  const { waitsFor, go, ...info } = spec;
  return defineSessionMethod({
    ...info,
    params: { waitUntil: WaitUntil, timeout: timeoutParam(NAVIGATION_TIMEOUT_MS, waitsFor) },
    errors: ['NAVIGATION_BLOCKED', 'TIMEOUT', 'ACTION_FAILED'],
    readOnly: false,
    async handler(params, { session }) {
      return go(session, params.waitUntil, params.timeout);
    },
  });
}
