import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Logger } from '../observability/logger.js';
import { keyMatches, presentedKey, principalFor } from './auth.js';
import { KeyRefusalLog, type KeyProblem } from './keyRefusalLog.js';
import { idsOfBody, peekRefusedIds, refusalBody } from './refusalIds.js';

/**
 * A fixed-window counter: `max` uses per `windowMs` per name. Every name is forgotten when a window
 * ends, so the map holds only the names of the current window.
 */
export class WindowCounter {
  private windowStart = Date.now();
  private readonly counts = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  private roll(): void {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      this.counts.clear();
      this.windowStart = now;
    }
  }

  /** Counts one use of `name`; false once the name is past `max` in this window. */
  take(name: string): boolean {
    return this.takeMany(name, 1);
  }

  /** Counts `n` uses of `name` (all of them, even past `max`); false once the name is past `max`. */
  takeMany(name: string, n: number): boolean {
    this.roll();
    const count = (this.counts.get(name) ?? 0) + n;
    this.counts.set(name, count);
    return count <= this.max;
  }

  /** Counts `n` uses only when all of them fit; false (and nothing counted) when they do not. */
  takeAllOrNone(name: string, n: number): boolean {
    this.roll();
    const count = (this.counts.get(name) ?? 0) + n;
    if (count > this.max) return false;
    this.counts.set(name, count);
    return true;
  }

  /** True once `name` is past `max` in this window (counts nothing). */
  spent(name: string): boolean {
    this.roll();
    return (this.counts.get(name) ?? 0) > this.max;
  }

  /**
   * Time until the current window ends, when every name starts afresh: the real time until a name
   * past `max` is admitted again (a fixed window admits nothing of it before).
   */
  retryAfterMs(): number {
    this.roll();
    return Math.max(0, this.windowStart + this.windowMs - Date.now());
  }
}

/** The per-key limiter's name for a key: its digest, so the key itself is never held as a map key. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Why a caller was refused at the edge: the HTTP status, the message and the limit's name. */
export interface EdgeRefusal {
  status: 401 | 429;
  message: string;
  limit?: string;
  retryAfterMs?: number;
  /** Set when the request's own key is the problem (not when a valid key meets a spent budget). */
  keyProblem?: KeyProblem;
}

// Neither message says "Unauthorized": mcp-remote starts an OAuth sign-in on any error whose text
// contains that word, and a key problem is not one OAuth can solve.
const NO_KEY = 'Missing API key: send it in the x-api-key header (or Authorization: Bearer)';
const WRONG_KEY =
  'Invalid API key: the key in x-api-key (or Authorization: Bearer) is not one of the keys this service accepts';
export const PER_IP = 'RATE_LIMIT_MAX per IP';
export const PER_KEY = 'RATE_LIMIT_MAX per key';

/**
 * RATE_LIMIT_MAX per window per address and per key, for one transport (HTTP and the WebSocket keep
 * their own). The address budget counts every request but refuses only those without a valid key,
 * so traffic that has no key (a web page's no-cors fetches) can never starve a caller that has one:
 * a valid key is limited by its own budget alone. Wrong keys also count against a budget of their
 * own per address; once it is spent, every request from that address that presents a key is
 * refused alike, right key or wrong, so the answer stops telling a guess apart (otherwise 429 for a
 * wrong key and 200 for the right one would answer every guess past the limit).
 */
export class EdgeLimits {
  private readonly perAddress: WindowCounter;
  private readonly wrongKeys: WindowCounter;
  private readonly perKey: WindowCounter;

  constructor(
    private readonly apiKeys: readonly string[],
    max: number,
    windowMs: number,
  ) {
    this.perAddress = new WindowCounter(max, windowMs);
    this.wrongKeys = new WindowCounter(max, windowMs);
    this.perKey = new WindowCounter(max, windowMs);
  }

  /** The name a client address is counted under (IPv6 grouped by /56, as express-rate-limit does). */
  static addressId(remoteAddress: string | undefined): string {
    return ipKeyGenerator(remoteAddress ?? 'unknown');
  }

  /**
   * Admits a request or a handshake from `addressId` presenting `key`: the valid key's digest, or a
   * refusal. Charges nothing to the key itself: see takeForKey.
   */
  admit(addressId: string, key: string | undefined): { keyId: string } | EdgeRefusal {
    const addressOk = this.perAddress.take(addressId);
    const valid = key !== undefined && keyMatches(key, this.apiKeys);
    const keyProblem: KeyProblem | undefined = key === undefined ? 'missing' : valid ? undefined : 'invalid';
    if (key !== undefined) {
      if (!valid) this.wrongKeys.take(addressId);
      if (this.wrongKeys.spent(addressId)) return { ...this.refusal(PER_IP, this.wrongKeys), keyProblem };
    }
    if (valid) return { keyId: keyDigest(key) };
    if (!addressOk) return { ...this.refusal(PER_IP, this.perAddress), keyProblem };
    return { status: 401, message: key === undefined ? NO_KEY : WRONG_KEY, keyProblem };
  }

  /** Counts `calls` uses of a valid key; false once the key is past its budget. */
  takeForKey(keyId: string, calls: number): boolean {
    return this.perKey.takeMany(keyId, calls);
  }

  /** Counts `calls` uses of a valid key only when all of them fit in what is left of its budget. */
  takeAllForKey(keyId: string, calls: number): boolean {
    return this.perKey.takeAllOrNone(keyId, calls);
  }

  /** The refusal of a key past its budget. */
  keyRefusal(): EdgeRefusal {
    return this.refusal(PER_KEY, this.perKey);
  }

  private refusal(limit: string, counter: WindowCounter): EdgeRefusal {
    return {
      status: 429,
      message: `Rate limit reached (${limit}); retry later.`,
      limit,
      retryAfterMs: counter.retryAfterMs(),
    };
  }
}

/** What the HTTP edge needs besides the limits. */
export interface EdgeOptions {
  adminKey?: string;
  logger: Logger;
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

/** The Retry-After header and data.retryAfterMs of one refusal: the same time, whole seconds up. */
function limitData(refusal: EdgeRefusal): { seconds: string; retryAfterMs: number } {
  const retryAfterMs = refusal.retryAfterMs ?? 0;
  return { seconds: String(Math.ceil(retryAfterMs / 1000)), retryAfterMs };
}

/**
 * Answers an HTTP request with a refusal from EdgeLimits, as JSON-RPC errors carrying the ids of
 * the refused request (read from its body within bounds: refusalIds.ts). A key problem is 401 with
 * a Bearer challenge, or 403 with none on the paths of `forbiddenOnKeyProblem`; a limit is 429 with
 * Retry-After equal to data.retryAfterMs rounded up to whole seconds.
 */
export async function sendRefusal(
  req: Request,
  res: Response,
  refusal: EdgeRefusal,
  forbiddenOnKeyProblem: readonly string[],
): Promise<void> {
  // What is left of a body it did not read (too large, too slow) Node discards once the answer is out.
  const peekStart = Date.now();
  const ids = await peekRefusedIds(req);
  // The window kept running while the body was read: the answer says what is left of it now.
  const waited = Date.now() - peekStart;
  if (refusal.status === 401) {
    if (forbiddenOn(req.path, forbiddenOnKeyProblem)) res.status(403);
    else res.status(401).set('www-authenticate', 'Bearer');
    res.json(refusalBody(ids, 'UNAUTHORIZED', refusal.message));
    return;
  }
  const { seconds, retryAfterMs } = limitData({
    ...refusal,
    retryAfterMs: Math.max(0, (refusal.retryAfterMs ?? 0) - waited),
  });
  res
    .status(429)
    .set('retry-after', seconds)
    .json(refusalBody(ids, 'LIMIT_REACHED', refusal.message, { limit: refusal.limit, retryAfterMs }));
}

/**
 * The HTTP edge: the API key (constant time) and the rate limits, in one step, since which budget a
 * request spends depends on whether its key is valid. A request with a valid key costs one use of
 * that key; a batch costs the rest of its members once its body is read (countBatchMembers). Each
 * request refused for its key is logged (KeyRefusalLog: never the key, itself rate-limited).
 */
export function requireKeyWithinLimits(limits: EdgeLimits, options: EdgeOptions) {
  const refusals = new KeyRefusalLog(options.logger);
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = presentedKey(req);
    const address = EdgeLimits.addressId(req.ip);
    const admitted = limits.admit(address, key);
    let refusal: EdgeRefusal | undefined;
    if (!('keyId' in admitted)) refusal = admitted;
    else if (!limits.takeForKey(admitted.keyId, 1)) refusal = limits.keyRefusal();
    if (refusal === undefined) {
      // Admitted, so the key is one of the configured ones: the call runs as its tenant.
      res.locals.principal = principalFor(key ?? '', options.adminKey);
      next();
      return;
    }
    if (refusal.keyProblem !== undefined) {
      const forbidden = refusal.status === 401 && forbiddenOn(req.path, options.forbiddenOnKeyProblem);
      refusals.note({
        reason: refusal.keyProblem,
        path: req.path,
        address,
        status: forbidden ? 403 : refusal.status,
      });
    }
    sendRefusal(req, res, refusal, options.forbiddenOnKeyProblem).catch(next);
  };
}

/**
 * After the body is read: a batch costs its key one use per member (the request itself paid for
 * the first at the edge). A batch that does not fit in what is left of the key's budget is refused
 * whole (HTTP 429, LIMIT_REACHED with `data.retryAfterMs`, one error per member id), and none of
 * its calls runs, so a caller never has to find out which members ran. A batch over BATCH_MAX is
 * left to be refused as invalid.
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
    if (!limits.takeAllForKey(keyDigest(key), members - 1)) {
      const { seconds, retryAfterMs } = limitData(limits.keyRefusal());
      res
        .status(429)
        .set('retry-after', seconds)
        .json(
          refusalBody(
            idsOfBody(body),
            'LIMIT_REACHED',
            `Rate limit reached (${PER_KEY}): a batch of ${members} calls counts ${members} and does not fit in what is left of this window; send fewer calls or retry later.`,
            { limit: PER_KEY, calls: members, retryAfterMs },
          ),
        );
      return;
    }
    next();
  };
}
