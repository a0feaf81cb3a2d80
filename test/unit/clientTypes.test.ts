// Compile-time checks of the generated client types: `npm run typecheck` fails when a type goes
// wrong (a @ts-expect-error that no longer errors is itself an error). The runtime part checks the
// generated tables against the method table and the error catalogue they come from.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createClient,
  errorNameOf,
  METHOD_ERRORS,
  METHOD_NAMES,
  READ_ONLY_METHODS,
  RPC_ERROR_CODES,
  type CallArgs,
  type MethodName,
  type PageClickParams,
  type PageGotoParams,
  type PageTextResult,
  type ParamsOf,
  type ResultOf,
  type RpcClient,
} from '../../client/src/index.js';
import { allMethods } from '../../src/methods/index.js';
import { ERRORS } from '../../src/errors/catalogue.js';

/** Never called: only type-checked. */
function typeChecks(client: RpcClient): void {
  const session_id = 's_x';
  // Params with a default may be left out; required ones may not.
  void client.page.goto({ session_id, url: 'http://localhost:8080' });
  // @ts-expect-error url is required
  void client.page.goto({ session_id });
  // @ts-expect-error waitUntil is a literal union
  void client.page.goto({ session_id, url: 'http://x', waitUntil: 'whenever' });
  // @ts-expect-error unknown params are refused, as additionalProperties: false does on the service
  void client.page.text({ session_id, selectr: 'main' });
  // @ts-expect-error no such method
  void client.call('page.nope', {});
  // @ts-expect-error page.text needs its params
  void client.call('page.text');
  void client.call('session.create');
  void client.session.list();
  void client.page.click({ session_id, selector: 'text=Go', button: 'right', modifiers: ['Shift'] });
  // @ts-expect-error modifiers are a literal union
  void client.page.click({ session_id, selector: 'text=Go', modifiers: ['Hyper'] });
}

describe('generated client types', () => {
  it('derives params and results from the method table', () => {
    expectTypeOf<ParamsOf<'page.goto'>>().toEqualTypeOf<PageGotoParams>();
    expectTypeOf<PageGotoParams['waitUntil']>().toEqualTypeOf<
      'load' | 'domcontentloaded' | 'networkidle' | 'commit' | undefined
    >();
    // An action takes a selector or a ref from page.snapshot (exactly one, checked by the service).
    expectTypeOf<PageClickParams['selector']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<PageClickParams['ref']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ResultOf<'page.text'>>().toEqualTypeOf<PageTextResult>();
    expectTypeOf<PageTextResult>().toEqualTypeOf<{
      text: string;
      truncated?: true;
      length?: number;
      cursor?: string;
      approxTokens?: number;
    }>();
    expectTypeOf<ResultOf<'page.goto'>['status']>().toEqualTypeOf<number | null>();
    expectTypeOf<CallArgs<'session.list'>>().toEqualTypeOf<
      [params?: ParamsOf<'session.list'>, options?: { signal?: AbortSignal }]
    >();
    expectTypeOf(createClient).returns.toEqualTypeOf<RpcClient>();
    expect(typeof typeChecks).toBe('function');
  });

  it('lists every method of the table, and the read-only ones', () => {
    expect([...METHOD_NAMES]).toEqual(allMethods.map((d) => d.name));
    expect([...READ_ONLY_METHODS]).toEqual(allMethods.filter((d) => d.readOnly).map((d) => d.name));
    for (const def of allMethods) {
      expect(METHOD_ERRORS[def.name as MethodName]).toEqual(def.errors);
    }
  });

  it('carries the error catalogue, code → name', () => {
    expect(RPC_ERROR_CODES).toEqual(
      Object.fromEntries(Object.entries(ERRORS).map(([name, entry]) => [name, entry.code])),
    );
    expect(errorNameOf(-32010)).toBe('SESSION_NOT_FOUND');
    expect(errorNameOf(-1)).toBeUndefined();
  });

  it('builds one function per method, grouped by namespace', () => {
    const client = createClient({ url: 'http://127.0.0.1:1', apiKey: 'k' });
    for (const name of METHOD_NAMES) {
      let node: unknown = client;
      for (const segment of name.split('.')) {
        node =
          typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[segment] : undefined;
      }
      expect(typeof node, name).toBe('function');
    }
  });
});
