/** Errors of the browser layer: each carries its catalogue entry (errors/catalogue.ts). */
import { ServiceError } from '../../errors/serviceError.js';

export class SessionLimitError extends ServiceError {
  constructor(
    readonly maxSessions: number,
    readonly retryAfterMs: number,
  ) {
    super(
      'LIMIT_REACHED',
      `All ${maxSessions} sessions are in use (MAX_SESSIONS); close one with session.close or wait for an idle one to expire.`,
      { limit: 'MAX_SESSIONS', maxSessions, retryAfterMs },
    );
  }
}

/** One owner (API key) holds its whole share of the sessions. */
export class SessionQuotaError extends ServiceError {
  constructor(
    readonly maxSessionsPerKey: number,
    readonly retryAfterMs: number,
  ) {
    super(
      'LIMIT_REACHED',
      `This API key holds all ${maxSessionsPerKey} of its sessions (MAX_SESSIONS_PER_KEY); close one with session.close or wait for an idle one to expire.`,
      { limit: 'MAX_SESSIONS_PER_KEY', maxSessionsPerKey, retryAfterMs },
    );
  }
}

/** When a caller refused for a full session queue is told to try again (data.retryAfterMs). */
export const SESSION_QUEUE_RETRY_AFTER_MS = 1000;

/** A session's lock already has MAX_QUEUED_CALLS_PER_SESSION calls waiting: this one is not queued. */
export class SessionQueueFullError extends ServiceError {
  constructor(
    readonly sessionId: string,
    readonly maxQueuedCalls: number,
  ) {
    super(
      'LIMIT_REACHED',
      `Session ${sessionId} already has ${maxQueuedCalls} calls waiting for its turn (MAX_QUEUED_CALLS_PER_SESSION): this call was not run. Calls on one session run one at a time; wait for some to answer, then retry.`,
      {
        reason: 'session-queue-full',
        limit: 'MAX_QUEUED_CALLS_PER_SESSION',
        maxQueuedCalls,
        retryAfterMs: SESSION_QUEUE_RETRY_AFTER_MS,
      },
    );
  }
}

export type MissingReason = 'unknown' | 'closed' | 'expired' | 'browser-restarted' | 'browser-server-lost';

export class SessionNotFoundError extends ServiceError {
  constructor(
    readonly sessionId: string,
    readonly reason: MissingReason,
    detail = '',
  ) {
    const why: Record<MissingReason, string> = {
      unknown: 'no session has that id',
      closed: 'the session was closed',
      expired: `the session expired after being idle${detail}`,
      'browser-restarted': 'the browser restarted and its sessions were lost',
      'browser-server-lost': 'its browser server (BROWSER_ENDPOINTS) went away and took the session with it',
    };
    super(
      'SESSION_NOT_FOUND',
      `Session ${sessionId} not found: ${why[reason]}. Call session.create for a new one.`,
      { session_id: sessionId, reason },
    );
  }
}

export class NavigationBlockedError extends ServiceError {
  constructor(
    readonly url: string,
    readonly reason: string,
    /** The hop that was refused, when it is not `url` itself (a redirect, a meta refresh). */
    readonly blockedUrl?: string,
  ) {
    super(
      'NAVIGATION_BLOCKED',
      blockedUrl === undefined || blockedUrl === url
        ? `Navigation to ${url} blocked: ${reason}. Only URLs matching ALLOW_HOST_REGEX may be opened.`
        : `Navigation to ${url} was blocked: it led to ${blockedUrl}, which is outside the allow-list (${reason}).`,
      { url, reason, ...(blockedUrl === undefined ? {} : { blockedUrl }) },
    );
  }
}

/** A remote browser server went away under a call: its sessions are lost, the others are not. */
export class BrowserServerLostError extends ServiceError {
  constructor(readonly sessionId: string) {
    super(
      'RESOURCE_UNAVAILABLE',
      `The browser server of session ${sessionId} went away while the call ran; the session is lost. Create a new session (it goes to a browser server that is up) and retry.`,
      { session_id: sessionId, reason: 'browser-server-lost', retryAfterMs: 1000 },
    );
  }
}

/** The shared browser is not running (it crashed or is restarting). */
export class BrowserUnavailableError extends ServiceError {
  constructor() {
    super('RESOURCE_UNAVAILABLE', 'The browser crashed or is restarting; retry in a moment.', {
      retryAfterMs: 1000,
    });
  }
}

/** A networkidle wait that never saw the page go quiet. */
export class SettleTimeoutError extends ServiceError {
  constructor(
    readonly timeoutMs: number,
    readonly pending: string[],
  ) {
    super(
      'TIMEOUT',
      `The page did not settle within ${timeoutMs} ms: ${pending.length} request(s) kept the network busy (${pending.slice(0, 5).join(', ')}${pending.length > 5 ? ', …' : ''}). Use waitUntil 'load', or raise timeout.`,
      { pending: pending.slice(0, 20) },
    );
  }
}
