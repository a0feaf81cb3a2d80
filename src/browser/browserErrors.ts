/** Errors of the browser layer; dispatch maps each onto the RPC catalogue (rpc/mapError.ts). */

export class SessionLimitError extends Error {
  constructor(
    readonly maxSessions: number,
    readonly retryAfterMs: number,
  ) {
    super(
      `All ${maxSessions} sessions are in use (MAX_SESSIONS); close one with session.close or wait for an idle one to expire.`,
    );
    this.name = 'SessionLimitError';
  }
}

export type MissingReason = 'unknown' | 'closed' | 'expired' | 'browser-restarted';

export class SessionNotFoundError extends Error {
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
    };
    super(`Session ${sessionId} not found: ${why[reason]}. Call session.create for a new one.`);
    this.name = 'SessionNotFoundError';
  }
}

export class NavigationBlockedError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    /** The hop that was refused, when it is not `url` itself (a redirect, a meta refresh). */
    readonly blockedUrl?: string,
  ) {
    super(
      blockedUrl === undefined || blockedUrl === url
        ? `Navigation to ${url} blocked: ${reason}. Only URLs matching ALLOW_HOST_REGEX may be opened.`
        : `Navigation to ${url} was blocked: it led to ${blockedUrl}, which is outside the allow-list (${reason}).`,
    );
    this.name = 'NavigationBlockedError';
  }
}

export class DeadlineError extends Error {
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
    detail: string,
  ) {
    super(`${operation} ran past its ${timeoutMs} ms deadline${detail}`);
    this.name = 'DeadlineError';
  }
}

/** Races work against a deadline; the timer never outlives the race. */
export async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
