import { AxeBuilder } from '@axe-core/playwright';
import { Type } from '@sinclair/typebox';
import type { Page } from 'playwright-core';
import type { Session } from '../../browser/session/session.js';
import { withDeadline } from '../../errors/deadline.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { ServiceError } from '../../errors/serviceError.js';
import { AXE_TIMEOUT_MS, MAX_NODES_PER_VIOLATION, timeoutParam } from '../params.js';

/**
 * The active page as axe sees it, except that the helper page axe opens to merge its results
 * (context().newPage()) is opened as the service's own: not a page of the session, never listed,
 * logged or counted against MAX_POPUPS_PER_SESSION.
 */
function withServiceHelperPages(session: Session): Page {
  const page = session.page;
  const context = new Proxy(page.context(), {
    get: (target, prop, receiver) =>
      prop === 'newPage' ? () => session.pages.openOwn() : (Reflect.get(target, prop, receiver) as unknown),
  });
  return new Proxy(page, {
    get: (target, prop) =>
      prop === 'context' ? () => context : (Reflect.get(target, prop, target) as unknown),
  });
}

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
    let builder = new AxeBuilder({ page: withServiceHelperPages(session) });
    const include =
      params.include === undefined ? [] : Array.isArray(params.include) ? params.include : [params.include];
    for (const selector of include) builder = builder.include(selector);
    const results = await withDeadline(
      builder.analyze(),
      params.timeout,
      () =>
        new ServiceError(
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
export const axeMethods = [axeRun];
