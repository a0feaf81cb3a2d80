import { Type } from '@sinclair/typebox';
import { withDeadline } from '../errors/deadline.js';
import { defineSessionMethod } from './defineSessionMethod.js';
import { ServiceError } from '../errors/serviceError.js';
import { ACTION_TIMEOUT_MS, timeoutParam } from './params.js';

/** A Playwright role selector: `role=button[name="Log in"]`, exact with the `s` flag. */
export function roleSelector(role: string, name: string | undefined, exact: boolean): string {
  if (name === undefined) return `role=${role}`;
  return `role=${role}[name=${JSON.stringify(name)}${exact ? 's' : 'i'}]`;
}

export const findByRole = defineSessionMethod({
  name: 'find.byRole',
  summary: 'Find elements by ARIA role and accessible name; returns a selector page.click accepts',
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
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the lookup'),
  },
  result: Type.Object({
    selector: Type.String({
      description: 'A selector for the matches; add >> nth=N to pick one when count > 1.',
    }),
    count: Type.Integer({ description: 'How many elements match now.' }),
  }),
  errors: ['ACTION_FAILED', 'TIMEOUT'],
  readOnly: true,
  async handler(params, { session }) {
    const selector = roleSelector(params.role, params.name, params.exact);
    const count = await withDeadline(
      session.page.locator(selector).count(),
      params.timeout,
      () =>
        new ServiceError(
          'TIMEOUT',
          `find.byRole did not answer within ${params.timeout} ms: the page may be frozen.`,
          {
            timeoutMs: params.timeout,
          },
        ),
    );
    if (count === 0) {
      throw new ServiceError(
        'ACTION_FAILED',
        `No element with role ${params.role}${params.name === undefined ? '' : ` and name "${params.name}"`} on the page; read page.text to see what is there.`,
        {
          selector,
        },
      );
    }
    return { selector, count };
  },
});

export const findMethods = [findByRole];
