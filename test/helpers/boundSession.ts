// A session of the service with the calls a suite makes bound to it: page.* by name, failures
// checked for their JSON-RPC code, readouts of fixture pages, refs of a fresh snapshot.
import { afterEach, expect } from 'vitest';
import { refOf } from './snapshotRefs.js';
import type { ServiceSuite } from './suite.js';
import { RpcCallError, type TestService } from './testService.js';

export type Params = Record<string, unknown>;

/** The RpcCallError a call fails with, checked to carry `code`; fails the test when the call succeeds. */
export async function rpcFailure(call: Promise<unknown>, code: number): Promise<RpcCallError> {
  const outcome = await call.then(
    (result: unknown) => new Error(`expected an RPC error, got ${JSON.stringify(result)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof RpcCallError)) throw outcome;
  expect(outcome.code, outcome.message).toBe(code);
  return outcome;
}

export interface BoundSession {
  readonly id: string;
  call<T = Params>(method: string, params?: Params): Promise<T>;
  fails(method: string, params: Params, code: number): Promise<RpcCallError>;
  /** The text of the first element a selector matches. */
  text(selector: string): Promise<string>;
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** The ref on the first line of a new whole snapshot that matches `line`. */
  ref(line: RegExp): Promise<string>;
  close(): Promise<unknown>;
}

export function bindSession(service: TestService, id: string): BoundSession {
  const call = <T = Params>(method: string, params: Params = {}) =>
    service.call<T>(method, { session_id: id, ...params });
  return {
    id,
    call,
    fails: (method, params, code) => rpcFailure(call(method, params), code),
    text: async (selector) => (await call<{ text: string }>('page.text', { selector })).text,
    evaluate: async <T = unknown>(expression: string) =>
      (await call<{ result: T }>('page.evaluate', { expression })).result,
    ref: async (line) =>
      refOf((await call<{ snapshot: string }>('page.snapshot', { maxChars: 100_000 })).snapshot, line),
    close: () => service.call('session.close', { session_id: id }),
  };
}

/**
 * Sessions on pages of a suite's fixture app, bound (bindSession): `open('/path')` opens one, and
 * every session a test opened is closed after it.
 */
export function useBoundSessions(suite: ServiceSuite): (path: string) => Promise<BoundSession> {
  const opened: BoundSession[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  return async (path) => {
    const session = bindSession(suite.service, await suite.open(path));
    opened.push(session);
    return session;
  };
}
