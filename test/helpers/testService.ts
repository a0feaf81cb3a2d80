import { Writable } from 'node:stream';
import type { HostLookup } from '../../src/browser/network/resolveUpstream.js';
import { loadConfig } from '../../src/config/config.js';
import type { ConfigKey } from '../../src/config/configKeys.js';
import { createLogger } from '../../src/observability/logger.js';
import { startService, type RunningService } from '../../src/service.js';

export const TEST_API_KEY = 'test-key-0123456789';

export interface RpcReply {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface TestService {
  url: string;
  running: RunningService;
  /** Every log line the service wrote, as text (for the secrets-never-logged checks). */
  logs: string[];
  /** Calls one method; returns the JSON-RPC result or throws an Error carrying the JSON-RPC error. */
  call<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T>;
  /** Calls one method and returns the whole JSON-RPC response object. */
  rpc(method: string, params?: unknown, id?: number | string | null): Promise<JsonRpcReply>;
  /** Raw POST to /rpc with the API key unless headers say otherwise. */
  post(body: string, headers?: Record<string, string>): Promise<RpcReply>;
  close(): Promise<void>;
}

export interface JsonRpcReply {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

/**
 * Starts the real service (real Chromium, port 0) with test defaults and the given overrides;
 * `egressLookup` answers the egress proxy's name lookups (made-up names, no real DNS).
 */
export async function startTestService(
  overrides: Partial<Record<ConfigKey, string>> = {},
  options: { egressLookup?: HostLookup } = {},
): Promise<TestService> {
  const config = loadConfig({
    PORT: '0',
    API_KEY: TEST_API_KEY,
    LOG_LEVEL: 'info',
    RATE_LIMIT_MAX: '100000',
    ...overrides,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const running = await startService(config, createLogger(config.logLevel, sink), options);
  let nextId = 1;
  const post = async (body: string, headers: Record<string, string> = {}): Promise<RpcReply> => {
    const res = await fetch(`${running.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, ...headers },
      body,
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
      headers: res.headers,
    };
  };
  const rpc = async (
    method: string,
    params?: unknown,
    id: number | string | null = nextId++,
  ): Promise<JsonRpcReply> => {
    const reply = await post(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return reply.body as JsonRpcReply;
  };
  return {
    url: running.url,
    running,
    logs,
    rpc,
    post,
    async call<T>(method: string, params?: unknown): Promise<T> {
      const reply = await rpc(method, params);
      if (reply.error) throw new RpcCallError(reply.error.code, reply.error.message, reply.error.data);
      return reply.result as T;
    },
    close: () => running.close(),
  };
}

/**
 * Polls until check() returns true, or fails after timeoutMs: wait on state, never sleep and hope.
 * `what` names the condition in the error; a function is read when the wait fails (a log so far).
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  const named = typeof what === 'string' ? what : what();
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${named}`);
}
