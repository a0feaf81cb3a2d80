import { errors as playwrightErrors } from 'playwright-core';
import {
  AgentBusyError,
  AgentCallError,
  AgentNotFoundError,
  AgentUnavailableError,
  EvaluationTimeoutError,
  UnknownToolError,
} from '../hub/hubErrors.js';
import { CdpUnavailableError, TabCloseError, TabNotFoundError } from '../cdp/cdpErrors.js';
import { BrowserUnavailableError } from '../browser/browserHost.js';
import { SettleTimeoutError } from '../browser/networkTracker.js';
import {
  DeadlineError,
  NavigationBlockedError,
  SessionLimitError,
  SessionNotFoundError,
} from '../browser/browserErrors.js';
import { CallerGoneError, RpcError, errorNameForCode, rpcError } from './errors.js';

/** Playwright prefixes its errors with the API call that failed: `locator.click: …`. */
const PLAYWRIGHT_CALL =
  /^(page|locator|frame|frameLocator|elementHandle|browserContext|browser|keyboard|mouse|route|apiRequestContext|cdpSession|browserType)\.\w+:/;
const CLOSED =
  /Target page, context or browser has been closed|Target closed|Browser has been closed|browser has disconnected|Page crashed|Page closed|Navigation failed because page crashed|Target crashed/i;

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

/** Maps anything a handler threw to a typed error, once, in dispatch. */
export function mapError(error: unknown, scope: ErrorScope): RpcError {
  if (error instanceof RpcError) {
    // Errors a handler built itself name the method too, as every mapped one does.
    if (error.data?.method !== undefined) return error;
    return rpcError(error.errorName, error.message, { method: scope.method, ...error.data }, error.cause);
  }
  const data: Record<string, unknown> = { method: scope.method };
  for (const key of ['selector', 'url', 'timeout'] as const) {
    if (scope.params[key] !== undefined) data[key === 'timeout' ? 'timeoutMs' : key] = scope.params[key];
  }
  const agentError = mapAgentError(error, data);
  if (agentError !== undefined) return agentError;
  if (error instanceof CallerGoneError)
    return rpcError('RESOURCE_UNAVAILABLE', error.message, { ...data, reason: 'caller-gone' }, error);
  if (error instanceof SessionNotFoundError)
    return rpcError(
      'SESSION_NOT_FOUND',
      error.message,
      { ...data, session_id: error.sessionId, reason: error.reason },
      error,
    );
  if (error instanceof SessionLimitError) {
    return rpcError(
      'LIMIT_REACHED',
      error.message,
      { ...data, limit: 'MAX_SESSIONS', maxSessions: error.maxSessions, retryAfterMs: error.retryAfterMs },
      error,
    );
  }
  if (error instanceof BrowserUnavailableError) {
    return rpcError(
      'RESOURCE_UNAVAILABLE',
      'The browser crashed or is restarting; retry in a moment.',
      { ...data, retryAfterMs: 1000 },
      error,
    );
  }
  if (error instanceof NavigationBlockedError)
    return rpcError(
      'NAVIGATION_BLOCKED',
      error.message,
      {
        ...data,
        url: error.url,
        reason: error.reason,
        ...(error.blockedUrl === undefined ? {} : { blockedUrl: error.blockedUrl }),
      },
      error,
    );
  if (error instanceof SettleTimeoutError)
    return rpcError('TIMEOUT', error.message, { ...data, pending: error.pending.slice(0, 20) }, error);
  if (error instanceof DeadlineError)
    return rpcError('TIMEOUT', error.message, { ...data, timeoutMs: error.timeoutMs }, error);
  if (error instanceof playwrightErrors.TimeoutError) {
    return rpcError(
      'TIMEOUT',
      `${scope.method} timed out: ${firstLine(error.message)}. Check the selector or state with page.text, or raise timeout.`,
      data,
      error,
    );
  }
  if (error instanceof Error) {
    if (CLOSED.test(error.message)) {
      if (!scope.browserReady) {
        return rpcError(
          'RESOURCE_UNAVAILABLE',
          'The browser crashed or is restarting; retry in a moment with a new session.',
          data,
          error,
        );
      }
      if (scope.sessionOpen === false) {
        return rpcError(
          'SESSION_NOT_FOUND',
          'The session was closed while the call ran; call session.create for a new one.',
          data,
          error,
        );
      }
      return rpcError(
        'ACTION_FAILED',
        `${scope.method} failed: the page closed or crashed (${firstLine(error.message)}).`,
        data,
        error,
      );
    }
    if (PLAYWRIGHT_CALL.test(error.message)) {
      return rpcError('ACTION_FAILED', `${scope.method} failed: ${firstLine(error.message)}`, data, error);
    }
  }
  return rpcError(
    'INTERNAL_ERROR',
    'Internal error; the service log has the details under this request id.',
    data,
    error,
  );
}

/** The agent hub's errors (agents.*, tabs.*); the codes match errorCodeOf in hub/hubErrors.ts. */
function mapAgentError(error: unknown, data: Record<string, unknown>): RpcError | undefined {
  if (error instanceof AgentCallError) {
    // The agent's error reaches the caller as it sent it: its code, message and data.
    const name = errorNameForCode(error.code);
    const agentData =
      typeof error.data === 'object' && error.data !== null && !Array.isArray(error.data)
        ? (error.data as Record<string, unknown>)
        : error.data === undefined
          ? {}
          : { agentData: error.data };
    return rpcError(
      name ?? 'ACTION_FAILED',
      error.message,
      {
        ...agentData,
        clientId: error.clientId,
        evaluationId: error.evaluationId,
        ...(name === undefined ? { agentCode: error.code } : {}),
      },
      error,
    );
  }
  if (error instanceof AgentNotFoundError)
    return rpcError(
      'AGENT_NOT_FOUND',
      error.message,
      { ...data, clientId: error.clientId, connected: error.connected },
      error,
    );
  if (error instanceof UnknownToolError)
    return rpcError(
      'UNKNOWN_TOOL',
      error.message,
      { ...data, tool: error.tool, clientId: error.clientId, tools: error.tools },
      error,
    );
  if (error instanceof AgentBusyError)
    return rpcError(
      'LIMIT_REACHED',
      error.message,
      { ...data, limit: 'maxConcurrency', clientId: error.clientId, retryAfterMs: error.retryAfterMs },
      error,
    );
  if (error instanceof EvaluationTimeoutError)
    return rpcError(
      'TIMEOUT',
      error.message,
      { ...data, clientId: error.clientId, evaluationId: error.evaluationId, timeoutMs: error.timeoutMs },
      error,
    );
  if (error instanceof AgentUnavailableError)
    return rpcError(
      'RESOURCE_UNAVAILABLE',
      error.message,
      {
        ...data,
        clientId: error.clientId,
        evaluationId: error.evaluationId,
        retryAfterMs: error.retryAfterMs,
      },
      error,
    );
  if (error instanceof CdpUnavailableError)
    return rpcError('RESOURCE_UNAVAILABLE', error.message, { ...data, cdpUrl: error.cdpUrl ?? null }, error);
  if (error instanceof TabNotFoundError || error instanceof TabCloseError)
    return rpcError('ACTION_FAILED', error.message, { ...data, tabId: error.tabId }, error);
  return undefined;
}
