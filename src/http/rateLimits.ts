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
    keyGenerator: (req) =>
      createHash('sha256')
        .update(presentedKey(req) ?? '')
        .digest('hex'),
    handler: limited('RATE_LIMIT_MAX per key', windowMs),
  });
}
