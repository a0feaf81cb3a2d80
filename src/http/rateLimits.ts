import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { errorResponse } from '../rpc/jsonRpc.js';
import { keyMatches, presentedKey, principalFor } from './auth.js';

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

  /** Time until the current window ends, when every name starts afresh. */
  retryAfterMs(): number {
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
}

const NO_KEY = 'Unauthorized: send the API key in the x-api-key header (or Authorization: Bearer)';
const WRONG_KEY = 'Unauthorized: the API key is not valid';
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
    if (key !== undefined) {
      if (!valid) this.wrongKeys.take(addressId);
      if (this.wrongKeys.spent(addressId)) return this.refusal(PER_IP, this.wrongKeys);
    }
    if (valid) return { keyId: keyDigest(key) };
    if (!addressOk) return this.refusal(PER_IP, this.perAddress);
    return { status: 401, message: key === undefined ? NO_KEY : WRONG_KEY };
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

/** Answers an HTTP request with a refusal from EdgeLimits, as a JSON-RPC error with id null. */
export function sendRefusal(res: Response, refusal: EdgeRefusal): void {
  if (refusal.status === 401) {
    res
      .status(401)
      .set('www-authenticate', 'Bearer')
      .json(errorResponse(null, 'UNAUTHORIZED', refusal.message));
    return;
  }
  const retryAfterMs = refusal.retryAfterMs ?? 0;
  res
    .status(429)
    .set('retry-after', String(Math.ceil(retryAfterMs / 1000)))
    .json(errorResponse(null, 'LIMIT_REACHED', refusal.message, { limit: refusal.limit, retryAfterMs }));
}

/**
 * The HTTP edge: the API key (constant time) and the rate limits, in one step, since which budget a
 * request spends depends on whether its key is valid. A request with a valid key costs one use of
 * that key; a batch costs the rest of its members once its body is read (countBatchMembers).
 */
export function requireKeyWithinLimits(limits: EdgeLimits, adminKey?: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = presentedKey(req);
    const admitted = limits.admit(EdgeLimits.addressId(req.ip), key);
    if (!('keyId' in admitted)) {
      sendRefusal(res, admitted);
      return;
    }
    if (!limits.takeForKey(admitted.keyId, 1)) {
      sendRefusal(res, limits.keyRefusal());
      return;
    }
    // Admitted, so the key is one of the configured ones: the call runs as its tenant.
    res.locals.principal = principalFor(key ?? '', adminKey);
    next();
  };
}

/**
 * After the body is read: a batch costs its key one use per member (the request itself paid for
 * the first at the edge). A batch that does not fit in what is left of the key's budget is refused
 * whole (HTTP 429, LIMIT_REACHED with `data.retryAfterMs`), and none of its calls runs, so a caller
 * never has to find out which members ran. A batch over BATCH_MAX is left to be refused as invalid.
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
      const refusal = limits.keyRefusal();
      const retryAfterMs = refusal.retryAfterMs ?? 0;
      res
        .status(429)
        .set('retry-after', String(Math.ceil(retryAfterMs / 1000)))
        .json(
          errorResponse(
            null,
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
