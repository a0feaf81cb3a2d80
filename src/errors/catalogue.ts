/**
 * The one error catalogue. Every error a caller can see has a stable code and name here; the
 * OpenRPC document publishes this table, and dispatch maps anything else onto it exactly once.
 */
export const ERRORS = {
  PARSE_ERROR: { code: -32700, message: 'Parse error: the body is not valid JSON' },
  INVALID_REQUEST: { code: -32600, message: 'Invalid request: not a JSON-RPC 2.0 request object' },
  METHOD_NOT_FOUND: { code: -32601, message: 'Method not found' },
  INVALID_PARAMS: { code: -32602, message: 'Invalid params' },
  INTERNAL_ERROR: { code: -32603, message: 'Internal error' },
  ACTION_FAILED: { code: -32000, message: 'The browser could not perform the action' },
  TIMEOUT: { code: -32001, message: 'The operation ran past its timeout' },
  UNAUTHORIZED: { code: -32002, message: 'Unauthorized' },
  LIMIT_REACHED: { code: -32003, message: 'A limit was reached' },
  UNKNOWN_TOOL: { code: -32004, message: 'The agent does not offer that tool' },
  RESOURCE_UNAVAILABLE: { code: -32005, message: 'The resource is unavailable' },
  SESSION_NOT_FOUND: { code: -32010, message: 'Session not found' },
  NAVIGATION_BLOCKED: { code: -32011, message: 'Navigation blocked by the allow-list' },
  AGENT_NOT_FOUND: { code: -32012, message: 'Agent not found' },
  STALE_REF: { code: -32013, message: 'The element ref is not on the page any more' },
  DIALOG_PENDING: { code: -32014, message: 'A dialog waits for dialog.handle' },
  PAGE_NAVIGATED: { code: -32015, message: 'The page navigated while the call ran' },
} as const;

export type ErrorName = keyof typeof ERRORS;

/** What each error means, for the OpenRPC document and docs/errors.md. */
export const ERROR_DESCRIPTIONS: Record<ErrorName, string> = {
  PARSE_ERROR: 'The request body is not valid JSON (the response id is null).',
  INVALID_REQUEST: 'The body is not a JSON-RPC 2.0 request object, or the batch is empty or too large.',
  METHOD_NOT_FOUND: 'No method of that name exists; call rpc.discover for the list.',
  INVALID_PARAMS: 'The params do not match the method schema; data.errors lists what failed.',
  INTERNAL_ERROR: 'An unexpected server error; the log has the details under the request id.',
  ACTION_FAILED:
    'The browser could not do it: the selector matched nothing, the element was not actionable, the navigation failed.',
  TIMEOUT: 'An operation or an agent evaluation ran past its timeout.',
  UNAUTHORIZED:
    'An agent secret key is wrong; or, before JSON-RPC, a request without a valid API key (HTTP 401, and 403 on /mcp).',
  LIMIT_REACHED:
    'MAX_SESSIONS, an agent maxConcurrency or a rate limit was reached; data.retryAfterMs says when to retry.',
  UNKNOWN_TOOL: 'The agent does not offer the requested tool.',
  RESOURCE_UNAVAILABLE:
    'The browser crashed or is restarting, or an agent disconnected; retry shortly. Or a tool the call needs is not on the service (replay.video without ffmpeg: data.missing names it).',
  SESSION_NOT_FOUND: 'Unknown, closed or expired session_id; call session.create for a new one.',
  NAVIGATION_BLOCKED: 'The URL (or a redirect, frame, popup or subresource of it) is outside the allow-list.',
  AGENT_NOT_FOUND: 'No connected, ready agent with that client id.',
  STALE_REF:
    'The ref is not in the last page.snapshot of this document (the page navigated, or the element is gone): take a new snapshot.',
  PAGE_NAVIGATED:
    'page.evaluate: the page navigated away while the expression ran, so its result was lost (it may have run, in part). The new document is loaded when this answers: evaluate again if that is safe, or pass retryOnNavigation: true to have a read-only expression run again once by itself.',
  DIALOG_PENDING:
    'A dialog left for dialog.handle (dialog policy mode manual) is open on the page, and the call cannot end until it is answered: call dialog.handle. data.dialog has its type, message and page_id.',
};

/** The catalogue name of a JSON-RPC code, when it has one (an agent may answer with any code). */
export function errorNameForCode(code: number): ErrorName | undefined {
  for (const [name, entry] of Object.entries(ERRORS)) if (entry.code === code) return name as ErrorName;
  return undefined;
}
