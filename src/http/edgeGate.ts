import type { NextFunction, Request, Response } from 'express';
import { presentedKey, principalFor } from './auth.js';
import { EdgeLimits, PER_KEY, keyDigest, type EdgeRefusal } from './rateLimits.js';
import { setRateLimitHeaders, wholeSeconds } from './rateLimitHeaders.js';
import { idsOfBody, peekRefusedIds, refusalBody } from './refusalIds.js';
import { markRefusal } from './refusalLog.js';

/** What the HTTP edge needs besides the limits. */
export interface EdgeOptions {
  adminKey?: string | undefined;
  /**
   * Paths whose clients answer a 401 by starting an OAuth sign-in (MCP clients: the spec's
   * authorization flow begins at a 401). A key problem there is a 403 without a challenge, so the
   * client shows the message instead of looking for an authorization server this service lacks.
   */
  forbiddenOnKeyProblem: readonly string[];
}

/** Whether a key problem on `path` is a 403: compared as Express routes it (any case, a trailing slash). */
function forbiddenOn(path: string, paths: readonly string[]): boolean {
  const routed = path.toLowerCase().replace(/\/+$/, '');
  return paths.some((p) => p.toLowerCase() === routed);
}

/**
 * The HTTP status of an edge refusal on `path`: 429 for a spent budget; for a key problem 400 when
 * the key is a placeholder (a client whose API_KEY was never set: a configuration mistake, answered
 * with no status an MCP client reads as "sign in", since no sign-in would fix it), 403 on the paths
 * of `forbiddenOnKeyProblem`, else 401.
 */
export function edgeStatus(
  refusal: EdgeRefusal,
  path: string,
  forbiddenOnKeyProblem: readonly string[],
): 400 | 401 | 403 | 429 {
  if (refusal.status === 429) return 429;
  if (refusal.reason === 'placeholder') return 400;
  return forbiddenOn(path, forbiddenOnKeyProblem) ? 403 : 401;
}

/**
 * Answers an HTTP request with a refusal from EdgeLimits, as JSON-RPC errors carrying the ids of
 * the refused request (read from its body within bounds: refusalIds.ts), with the RateLimit fields
 * of the budget that refused it. A key problem is 401 with a Bearer challenge, 403 or 400 with none
 * (edgeStatus); a limit is 429 with Retry-After equal to data.retryAfterMs rounded up to whole
 * seconds.
 */
export async function sendRefusal(
  req: Request,
  res: Response,
  refusal: EdgeRefusal,
  forbiddenOnKeyProblem: readonly string[],
): Promise<void> {
  markRefusal(res, refusal.reason);
  // What is left of a body it did not read (too large, too slow) Node discards once the answer is out.
  const peekStart = Date.now();
  const ids = await peekRefusedIds(req);
  // The window kept running while the body was read: the answer says what is left of it now.
  const waited = Date.now() - peekStart;
  setRateLimitHeaders(res, { ...refusal.budget, resetMs: Math.max(0, refusal.budget.resetMs - waited) });
  const status = edgeStatus(refusal, req.path, forbiddenOnKeyProblem);
  if (status !== 429) {
    res.status(status);
    if (status === 401) res.set('www-authenticate', 'Bearer');
    res.json(refusalBody(ids, 'UNAUTHORIZED', refusal.message));
    return;
  }
  const retryAfterMs = Math.max(0, (refusal.retryAfterMs ?? 0) - waited);
  res
    .status(429)
    .set('retry-after', String(wholeSeconds(retryAfterMs)))
    .json(refusalBody(ids, 'LIMIT_REACHED', refusal.message, { limit: refusal.limit, retryAfterMs }));
}

/**
 * The HTTP edge: the API key (constant time) and the rate limits, in one step, since which budget a
 * request spends depends on whether its key is valid. A request with a valid key costs one use of
 * that key; a batch costs the rest of its members once its body is read (countBatchMembers). Every
 * answer past this point carries the RateLimit fields of the budget the request spent; each
 * refusal is marked with its reason for the refusal watch (refusals.ts) to count and log.
 */
export function requireKeyWithinLimits(limits: EdgeLimits, options: EdgeOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = presentedKey(req);
    const admitted = limits.admit(EdgeLimits.addressId(req.ip), key);
    let refusal: EdgeRefusal;
    if ('keyId' in admitted) {
      if (limits.takeForKey(admitted.keyId, 1)) {
        setRateLimitHeaders(res, limits.keyBudget(admitted.keyId));
        // Admitted, so the key is one of the configured ones: the call runs as its tenant.
        res.locals.principal = principalFor(key ?? '', options.adminKey);
        next();
        return;
      }
      refusal = limits.keyRefusal(admitted.keyId);
    } else refusal = admitted;
    sendRefusal(req, res, refusal, options.forbiddenOnKeyProblem).catch(next);
  };
}

/**
 * After the body is read: a batch costs its key one use per member (the request itself paid for
 * the first at the edge). A batch that does not fit in what is left of the key's budget is refused
 * whole (HTTP 429, LIMIT_REACHED with `data.retryAfterMs`, one error per member id), and none of
 * its calls runs, so a caller never has to find out which members ran. A batch over BATCH_MAX is
 * left to be refused as invalid. Either way the RateLimit fields say what the key has left.
 */
export function countBatchMembers(limits: EdgeLimits, batchMax: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    const members = Array.isArray(body) ? body.length : 1;
    const key = presentedKey(req);
    if (members <= 1 || members > batchMax || key === undefined) {
      next();
      return;
    }
    const keyId = keyDigest(key);
    if (!limits.takeAllForKey(keyId, members - 1)) {
      const { budget } = limits.keyRefusal(keyId);
      markRefusal(res, 'batch_limit');
      setRateLimitHeaders(res, budget);
      res
        .status(429)
        .set('retry-after', String(wholeSeconds(budget.resetMs)))
        .json(
          refusalBody(
            idsOfBody(body),
            'LIMIT_REACHED',
            `Rate limit reached (${PER_KEY}): a batch of ${members} calls counts ${members} and does not fit in what is left of this window; send fewer calls or retry later.`,
            { limit: PER_KEY, calls: members, retryAfterMs: budget.resetMs },
          ),
        );
      return;
    }
    setRateLimitHeaders(res, limits.keyBudget(keyId));
    next();
  };
}
