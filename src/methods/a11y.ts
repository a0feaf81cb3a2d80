import { AxeBuilder } from '@axe-core/playwright';
import { Type } from '@sinclair/typebox';
import { withDeadline } from '../browser/browserErrors.js';
import { defineSessionMethod } from '../rpc/defineMethod.js';
import { rpcError } from '../rpc/errors.js';
import { ACTION_TIMEOUT_MS, timeoutParam } from './common.js';

/** axe on a large page takes seconds; past this the caller gets TIMEOUT rather than a hung session. */
const AXE_TIMEOUT_MS = 60_000;
/** Nodes listed per violation: enough to locate the problem without a megabyte answer. */
const MAX_NODES_PER_VIOLATION = 20;

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
    const count = await withDeadline(session.page.locator(selector).count(), params.timeout, () =>
      rpcError('TIMEOUT', `find.byRole did not answer within ${params.timeout} ms: the page may be frozen.`, {
        timeoutMs: params.timeout,
      }),
    );
    if (count === 0) {
      throw rpcError(
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

export const axeRun = defineSessionMethod({
  name: 'axe.run',
  summary: 'Run axe-core accessibility checks on the page (or part of it) and return the violations',
  params: {
    include: Type.Optional(
      Type.Union(
        [
          Type.String({ minLength: 1, maxLength: 1000 }),
          Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 20 }),
        ],
        {
          description: 'CSS selector(s) of the part to check; default the whole page.',
        },
      ),
    ),
    timeout: timeoutParam(AXE_TIMEOUT_MS, 'the checks'),
  },
  result: Type.Object({
    violations: Type.Array(
      Type.Object({
        id: Type.String(),
        impact: Type.Union([Type.String(), Type.Null()]),
        description: Type.String(),
        help: Type.String(),
        helpUrl: Type.String(),
        nodes: Type.Array(
          Type.Object({
            target: Type.Array(Type.Unknown()),
            html: Type.String(),
            failureSummary: Type.Optional(Type.String()),
          }),
        ),
        nodeCount: Type.Integer({ description: 'All nodes with this violation (nodes lists at most 20).' }),
      }),
    ),
    passes: Type.Integer({ description: 'How many rules passed.' }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED'],
  readOnly: true,
  async handler(params, { session }) {
    let builder = new AxeBuilder({ page: session.page });
    const include =
      params.include === undefined ? [] : Array.isArray(params.include) ? params.include : [params.include];
    for (const selector of include) builder = builder.include(selector);
    const results = await withDeadline(builder.analyze(), params.timeout, () =>
      rpcError(
        'TIMEOUT',
        `axe.run did not finish within ${params.timeout} ms; check a smaller part with include.`,
        { timeoutMs: params.timeout },
      ),
    );
    return {
      violations: results.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? null,
        description: v.description,
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes
          .slice(0, MAX_NODES_PER_VIOLATION)
          .map((n) => ({ target: [...n.target], html: n.html, failureSummary: n.failureSummary })),
        nodeCount: v.nodes.length,
      })),
      passes: results.passes.length,
    };
  },
});

export const a11yMethods = [findByRole, axeRun];
