import { RpcClientError, RpcTransportError } from './errors.js';
import { READ_ONLY_METHODS, RPC_ERROR_CODES } from './methods.generated.js';

/** The seed's policy (§13): up to 2 retries, after 200 ms and then 600 ms. */
export const DEFAULT_RETRIES = 2;
export const RETRY_DELAYS_MS: readonly number[] = [200, 600];

/** Errors that say "try again": the operation timed out, or the browser or an agent is coming back. */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([
  RPC_ERROR_CODES.TIMEOUT,
  RPC_ERROR_CODES.RESOURCE_UNAVAILABLE,
]);
/** Too many requests, or the service (or a proxy in front of it) is briefly unavailable. */
const RETRYABLE_HTTP: ReadonlySet<number> = new Set([429, 503]);

const READ_ONLY: ReadonlySet<string> = new Set(READ_ONLY_METHODS);

/**
 * Only read-only methods are retried: a click or a navigation that timed out may still have
 * happened, and doing it twice is not what the caller asked for.
 */
export function isSafeToRetry(method: string): boolean {
  return READ_ONLY.has(method);
}

/** True when a failed attempt may succeed if made again. */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof RpcClientError) {
    return (
      RETRYABLE_CODES.has(error.code) ||
      (error.httpStatus !== undefined && RETRYABLE_HTTP.has(error.httpStatus))
    );
  }
  if (error instanceof RpcTransportError) {
    // No HTTP status: a network error (refused, reset, DNS) before any answer came.
    return error.httpStatus === undefined || RETRYABLE_HTTP.has(error.httpStatus);
  }
  return false;
}

/** The pause before retry number `retry` (1-based): 200 ms, 600 ms, then 600 ms again. */
export function retryDelayMs(retry: number): number {
  const index = Math.min(Math.max(retry, 1), RETRY_DELAYS_MS.length) - 1;
  return RETRY_DELAYS_MS[index] ?? 0;
}
