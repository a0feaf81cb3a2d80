import type { Response } from 'express';

/** What one rate-limit budget has left: its size, the uses left in this window, and the window. */
export interface Budget {
  /** RATE_LIMIT_MAX: uses per window. */
  limit: number;
  /** Uses left in the current window (0 once spent). */
  remaining: number;
  /** Time until the current window ends and the budget is whole again. */
  resetMs: number;
  /** RATE_LIMIT_WINDOW_MS. */
  windowMs: number;
}

/** Seconds as the draft's fields and Retry-After carry them: whole seconds, rounded up. */
export function wholeSeconds(ms: number): number {
  return Math.ceil(Math.max(0, ms) / 1000);
}

/**
 * The rate-limit fields of draft-ietf-httpapi-ratelimit-headers as its 6th revision names them (the
 * form express-rate-limit calls `draft-6` and most clients read): `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` (delta seconds to the window's end) and
 * `RateLimit-Policy` (`<limit>;w=<window seconds>`). Separate fields rather than the later drafts'
 * combined `RateLimit` so a client can read each with one header lookup.
 */
export function rateLimitFields(budget: Budget): Record<string, string> {
  return {
    'RateLimit-Policy': `${budget.limit};w=${wholeSeconds(budget.windowMs)}`,
    'RateLimit-Limit': String(budget.limit),
    'RateLimit-Remaining': String(budget.remaining),
    'RateLimit-Reset': String(wholeSeconds(budget.resetMs)),
  };
}

/** Puts the budget's fields on an answer not yet sent (replacing any set earlier in the request). */
export function setRateLimitHeaders(res: Response, budget: Budget): void {
  res.set(rateLimitFields(budget));
}
