// page.waitFor: the page.* namespace continues here (page.ts holds navigation, reads and actions).
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import type { Condition } from '../../browser/page/pageWaits.js';
import { waitForCondition } from '../../browser/page/pageWaits.js';
import type { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod, type SessionMethodContext } from '../defineSessionMethod.js';
import { explainTargetError } from './targetFailure.js';
import { MAX_IDLE_FOR_MS, NAVIGATION_TIMEOUT_MS, refuseParams, Target, timeoutParam } from '../params.js';

const LOAD_STATES = ['load', 'domcontentloaded', 'networkidle'] as const;
const ELEMENT_STATES = ['attached', 'visible', 'hidden', 'detached'] as const;
type State = (typeof LOAD_STATES)[number] | (typeof ELEMENT_STATES)[number] | 'idleFor';

interface WaitParams {
  state?: State | undefined;
  selector?: string | undefined;
  ref?: string | undefined;
  text?: string | undefined;
  textGone?: string | undefined;
  url?: string | undefined;
}

const refuse = (message: string): ServiceError => refuseParams('page.waitFor', message);

/** The one condition the params name: a selector or ref (with an element state), text, textGone or url. */
async function conditionOf(
  params: WaitParams,
  session: SessionMethodContext['session'],
): Promise<Condition | undefined> {
  const given = [
    params.selector !== undefined || params.ref !== undefined ? 'selector/ref' : undefined,
    params.text !== undefined ? 'text' : undefined,
    params.textGone !== undefined ? 'textGone' : undefined,
    params.url !== undefined ? 'url' : undefined,
  ].filter((g) => g !== undefined);
  if (given.length > 1) throw refuse(`wait for one condition at a time, not ${given.join(' and ')}`);
  const elementState = ELEMENT_STATES.find((s) => s === params.state);
  if (given.length === 0) {
    if (elementState !== undefined) throw refuse(`state ${elementState} needs a selector or a ref`);
    return undefined;
  }
  if (params.state !== undefined && elementState === undefined)
    throw refuse(`state ${params.state} is a load state; it does not go with ${given[0] ?? ''}`);
  if (params.text !== undefined) return { kind: 'text', text: params.text };
  if (params.textGone !== undefined) return { kind: 'textGone', text: params.textGone };
  if (params.url !== undefined) return { kind: 'url', url: params.url };
  const locator = await session.target(params.selector, params.ref);
  const what = params.ref === undefined ? `the selector ${params.selector ?? ''}` : `the ref ${params.ref}`;
  return { kind: 'element', locator, state: elementState ?? 'visible', what };
}

export const pageWaitFor = defineSessionMethod({
  name: 'page.waitFor',
  summary:
    'Wait for a load state, an element (selector or ref) to be attached/visible/hidden/detached, a text to appear or go, or the URL; or pause (idleFor)',
  params: {
    state: Type.Optional(
      Type.Union(
        [
          ...LOAD_STATES.map((s) => Type.Literal(s)),
          Type.Literal('idleFor'),
          ...ELEMENT_STATES.map((s) => Type.Literal(s)),
        ],
        {
          description:
            'A load state (load, domcontentloaded, networkidle); idleFor to pause ms milliseconds; or, with selector or ref, the element state to wait for (attached, visible, hidden, detached; default visible).',
        },
      ),
    ),
    ...Target,
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Wait until this text is visible on the page.',
      }),
    ),
    textGone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Wait until this text is no longer visible.',
      }),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description:
          'Wait until the page URL matches: a glob (e.g. http://localhost:8080/done?id=*, where ** also spans slashes), or /a regular expression/flags.',
      }),
    ),
    ms: Type.Integer({
      minimum: 0,
      maximum: MAX_IDLE_FOR_MS,
      default: 1000,
      description: `With idleFor: how long to pause (default 1000, at most ${MAX_IDLE_FOR_MS}).`,
    }),
    timeout: timeoutParam(NAVIGATION_TIMEOUT_MS, 'the state'),
  },
  result: Type.Object({ state: Type.String({ description: 'The state or condition that was reached.' }) }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'STALE_REF', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session, signal }) {
    const condition = await conditionOf(params, session);
    if (condition !== undefined) {
      await waitForCondition(session.page, condition, params.timeout).catch(async (error: unknown) => {
        // An element that never came: say so with the nearest candidates.
        throw condition.kind === 'element' &&
          (condition.state === 'visible' || condition.state === 'attached')
          ? await explainTargetError(session, 'page.waitFor', params, error)
          : error;
      });
      return { state: condition.kind === 'element' ? condition.state : condition.kind };
    }
    const state = params.state;
    if (state === undefined) throw refuse('give a state, a selector or ref, text, textGone or url');
    if (state === 'idleFor') {
      // A pause whose caller has gone ends at once, freeing the session for the next call.
      await sleep(params.ms, undefined, { signal }).catch((error: unknown) => {
        if (!signal.aborted) throw error;
      });
    } else if (state === 'networkidle') await session.settle(params.timeout);
    else if (state === 'load' || state === 'domcontentloaded')
      await session.page.waitForLoadState(state, { timeout: params.timeout });
    return { state };
  },
});
