import { errors as playwrightErrors } from 'playwright-core';
import { ErrorWithData, ServiceError } from './serviceError.js';

/** Playwright prefixes its errors with the API call that failed: `locator.click: …`. */
const PLAYWRIGHT_CALL =
  /^(page|locator|frame|frameLocator|elementHandle|browserContext|browser|keyboard|mouse|route|apiRequestContext|cdpSession|browserType)\.\w+:/;
export const CLOSED =
  /Target page, context or browser has been closed|Target closed|Browser has been closed|browser has disconnected|Page crashed|Page closed|Navigation failed because page crashed|Target crashed/i;

/** The call an error came from, and what decides the meaning of a closed target. */
export interface ErrorScope {
  method: string;
  params: Record<string, unknown>;
  /** Whether the shared browser is up right now: decides RESOURCE_UNAVAILABLE for a closed target. */
  browserReady: boolean;
  /** Whether the session the call ran on is still open. */
  sessionOpen: boolean | undefined;
}

/** The first line of a Playwright message, without its `=== logs ===` call log. */
function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(PLAYWRIGHT_CALL, '').trim().replace(/\.+$/, '');
}

/** What every error of a call carries in its data: the method, and the call's selector, url and timeout. */
function callData(scope: ErrorScope): Record<string, unknown> {
  const data: Record<string, unknown> = { method: scope.method };
  for (const key of ['selector', 'url', 'timeout'] as const) {
    if (scope.params[key] !== undefined) data[key === 'timeout' ? 'timeoutMs' : key] = scope.params[key];
  }
  return data;
}

/**
 * Maps anything a call threw to a ServiceError, once, in dispatch. A ServiceError keeps its entry
 * and gains the call's data; only foreign errors (Playwright's, the platform's) are classified.
 */
export function mapError(error: unknown, scope: ErrorScope): ServiceError {
  if (error instanceof ErrorWithData) {
    const mapped = mapError(error.error, scope);
    return new ServiceError(
      mapped.errorName,
      mapped.message,
      { ...mapped.data, ...error.extra },
      mapped.cause,
    );
  }
  if (error instanceof ServiceError) {
    if (error.data?.method !== undefined) return error;
    return new ServiceError(
      error.errorName,
      error.message,
      { ...callData(scope), ...error.data },
      error.cause ?? error,
    );
  }
  return classifyForeign(error, scope, callData(scope));
}

/** Playwright's errors by what they mean for the caller; anything else is INTERNAL_ERROR. */
function classifyForeign(error: unknown, scope: ErrorScope, data: Record<string, unknown>): ServiceError {
  if (error instanceof playwrightErrors.TimeoutError) {
    return new ServiceError(
      'TIMEOUT',
      `${scope.method} timed out: ${firstLine(error.message)}. Check the selector or state with page.text, or raise timeout.`,
      data,
      error,
    );
  }
  if (error instanceof Error) {
    if (CLOSED.test(error.message)) {
      if (!scope.browserReady) {
        return new ServiceError(
          'RESOURCE_UNAVAILABLE',
          'The browser crashed or is restarting; retry in a moment with a new session.',
          data,
          error,
        );
      }
      if (scope.sessionOpen === false) {
        return new ServiceError(
          'SESSION_NOT_FOUND',
          'The session was closed while the call ran; call session.create for a new one.',
          data,
          error,
        );
      }
      return new ServiceError(
        'ACTION_FAILED',
        `${scope.method} failed: the page closed or crashed (${firstLine(error.message)}).`,
        data,
        error,
      );
    }
    if (PLAYWRIGHT_CALL.test(error.message)) {
      return new ServiceError(
        'ACTION_FAILED',
        `${scope.method} failed: ${firstLine(error.message)}`,
        data,
        error,
      );
    }
  }
  return new ServiceError(
    'INTERNAL_ERROR',
    'Internal error; the service log has the details under this request id.',
    data,
    error,
  );
}
