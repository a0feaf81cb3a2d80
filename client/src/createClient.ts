import type { CallOptions } from './callOptions.js';
import { RpcClientError, RpcTransportError, type FailureInfo } from './errors.js';
import {
  bindMethods,
  type MethodName,
  type ParamsOf,
  type ResultOf,
  type RpcApi,
  type RpcMethods,
} from './methods.generated.js';
import { DEFAULT_RETRIES, isRetryableFailure, isSafeToRetry, retryDelayMs } from './retryPolicy.js';

export interface ClientOptions {
  /** The service's base URL (http://127.0.0.1:3337) or its /rpc endpoint. */
  url: string;
  /** Sent as the x-api-key header on every request. */
  apiKey: string;
  /** The fetch to use (default globalThis.fetch): for tests, proxies, or instrumentation. */
  fetch?: typeof globalThis.fetch;
  /**
   * How many times a read-only call is retried after a retryable failure (default 2, the seed's
   * policy, with 200 ms and 600 ms pauses; 0 turns retrying off). Other calls are never retried.
   */
  retries?: number;
  /** Extra headers on every request (x-request-id …). */
  headers?: Record<string, string>;
}

/** `client.call('page.text', params)`: params may be left out only when every one of them is optional. */
export type CallArgs<M extends MethodName> = RpcMethods[M]['paramsOptional'] extends true
  ? [params?: ParamsOf<M>, options?: CallOptions]
  : [params: ParamsOf<M>, options?: CallOptions];

export interface RpcClient extends RpcApi {
  /** The /rpc endpoint this client posts to. */
  readonly url: string;
  /** Calls one method by name; the same as the namespaced function (`client.page.text(...)`). */
  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<ResultOf<M>>;
}

interface JsonRpcEnvelope {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The /rpc endpoint of a base URL; a URL that already ends in /rpc is kept as it is. */
export function rpcEndpoint(url: string): string {
  const endpoint = new URL(url);
  if (!endpoint.pathname.endsWith('/rpc')) endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/rpc`;
  return endpoint.toString();
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

function asEnvelope(body: unknown): JsonRpcEnvelope | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const envelope = body as Record<string, unknown>;
  if (envelope.jsonrpc !== '2.0') return undefined;
  const { error } = envelope;
  if (error !== undefined) {
    if (typeof error !== 'object' || error === null) return undefined;
    const { code, message, data } = error as Record<string, unknown>;
    if (typeof code !== 'number' || typeof message !== 'string') return undefined;
    return { id: envelope.id, error: { code, message, data } };
  }
  return Object.hasOwn(envelope, 'result') ? { id: envelope.id, result: envelope.result } : undefined;
}

/** Waits ms, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A typed client of the service: one function per method (`client.page.goto({...})`, or
 * `client.call('page.goto', {...})`), with param and result types generated from the method table.
 * A JSON-RPC error becomes an RpcClientError, a transport failure an RpcTransportError; read-only
 * calls are retried on TIMEOUT, RESOURCE_UNAVAILABLE, network errors and HTTP 429/503.
 */
export function createClient(options: ClientOptions): RpcClient {
  const endpoint = rpcEndpoint(options.url);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  const headers = {
    ...options.headers,
    'content-type': 'application/json',
    accept: 'application/json',
    'x-api-key': options.apiKey,
  };
  let nextId = 1;

  async function attempt<T>(
    method: string,
    params: unknown,
    signal: AbortSignal | undefined,
    attempts: number,
  ): Promise<T> {
    const id = nextId++;
    const info = (httpStatus: number | undefined): FailureInfo => ({ method, attempts, httpStatus });
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} }),
        signal,
      });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw new RpcTransportError(
        `${method}: no answer from ${endpoint}: ${describe(error)}`,
        info(undefined),
        {
          cause: error,
        },
      );
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch (error) {
      body = undefined;
      if (response.ok) {
        throw new RpcTransportError(
          `${method}: the answer from ${endpoint} is not JSON (HTTP ${response.status})`,
          info(response.status),
          { cause: error },
        );
      }
    }
    const envelope = asEnvelope(body);
    if (envelope?.error !== undefined) throw new RpcClientError(envelope.error, info(response.status));
    if (!response.ok) {
      throw new RpcTransportError(
        `${method}: HTTP ${response.status} ${response.statusText} from ${endpoint}`.trimEnd(),
        info(response.status),
      );
    }
    if (envelope === undefined) {
      throw new RpcTransportError(
        `${method}: the answer is not a JSON-RPC 2.0 response`,
        info(response.status),
      );
    }
    if (envelope.id !== id) {
      throw new RpcTransportError(
        `${method}: the answer has id ${JSON.stringify(envelope.id)}, expected ${id}`,
        info(response.status),
      );
    }
    // Trusted, not re-validated: the handlers' return types are checked against the same schemas.
    return envelope.result as T;
  }

  async function invoke<M extends MethodName>(
    method: M,
    params: ParamsOf<M> | undefined,
    callOptions: CallOptions | undefined,
  ): Promise<ResultOf<M>> {
    const signal = callOptions?.signal;
    const maxRetries = isSafeToRetry(method) ? retries : 0;
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt<ResultOf<M>>(method, params, signal, attempts);
      } catch (error) {
        if (attempts > maxRetries || signal?.aborted === true || !isRetryableFailure(error)) throw error;
        await pause(retryDelayMs(attempts), signal);
      }
    }
  }

  return {
    ...bindMethods(invoke),
    url: endpoint,
    call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<ResultOf<M>> {
      const [params, callOptions] = args;
      return invoke(method, params, callOptions);
    },
  };
}
