import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { errorResponse } from '../rpc/jsonRpc.js';
import { presentedKey } from './auth.js';

function limited(scope: string, windowMs: number) {
  return (_req: Request, res: Response): void => {
    const retryAfterMs = windowMs;
    res.status(429).json(
      errorResponse(null, 'LIMIT_REACHED', `Rate limit reached (${scope}); retry later.`, {
        limit: scope,
        retryAfterMs,
      }),
    );
  };
}

/** Per client address: applied before authentication, so key guessing is throttled too. */
export function perIpLimit(max: number, windowMs: number): RateLimitRequestHandler {
  return rateLimit({
    windowMs,
    limit: max,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: limited('RATE_LIMIT_MAX per IP', windowMs),
  });
}

/** Per API key (hashed: the key itself is never a map key in memory longer than needed, nor logged). */
export function perKeyLimit(max: number, windowMs: number): RateLimitRequestHandler {
  return rateLimit({
    windowMs,
    limit: max,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => keyDigest(presentedKey(req) ?? ''),
    handler: limited('RATE_LIMIT_MAX per key', windowMs),
  });
}

/**
 * A fixed-window counter for transports express-rate-limit does not see (WebSocket messages):
 * RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS per key. Every key is forgotten when a window ends, so
 * the map holds only the keys of the current window.
 */
export class WindowCounter {
  private windowStart = Date.now();
  private readonly counts = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts one use of `key`; false once the key is past `max` in this window. */
  take(key: string): boolean {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      this.counts.clear();
      this.windowStart = now;
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n <= this.max;
  }
}

/** The per-key limiter's name for a key: its digest, so the key itself is never held as a map key. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
