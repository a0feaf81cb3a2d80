import { createHash } from 'node:crypto';
import { ipKeyGenerator } from 'express-rate-limit';
import { isKeyPlaceholder, keyMatches } from './auth.js';
import type { Budget } from './rateLimitHeaders.js';
import type { KeyProblem, RefusalReason } from './refusalLog.js';

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

  /** What `name` has left of this window (counts nothing). */
  budget(name: string): Budget {
    this.roll();
    return {
      limit: this.max,
      remaining: Math.max(0, this.max - (this.counts.get(name) ?? 0)),
      resetMs: this.retryAfterMs(),
      windowMs: this.windowMs,
    };
  }
}

/** The budget of two that runs out first: a request both count is admitted only while both last. */
function tighter(a: Budget, b: Budget): Budget {
  return a.remaining <= b.remaining ? a : b;
}

/** The per-key limiter's name for a key: its digest, so the key itself is never held as a map key. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Why a caller was refused at the edge: 429 for a spent budget, 401 for a key problem (which the
 * transport may answer as 400 or 403: edgeStatus), the message, the limit's name, and the budget
 * that refused it (for the RateLimit fields).
 */
export interface EdgeRefusal {
  status: 401 | 429;
  reason: RefusalReason;
  message: string;
  budget: Budget;
  limit?: string;
  retryAfterMs?: number;
}

// Neither message says "Unauthorized": mcp-remote starts an OAuth sign-in on any error whose text
// contains that word, and a key problem is not one OAuth can solve.
const NO_KEY = 'Missing API key: send it in the x-api-key header (or Authorization: Bearer)';
const WRONG_KEY =
  'Invalid API key: the key in x-api-key (or Authorization: Bearer) is not one of the keys this service accepts';
const PLACEHOLDER_KEY =
  'No API key configured in the client: the x-api-key header holds a placeholder (${API_KEY} unexpanded, or the default of the shipped .mcp.json) because API_KEY is not set in the environment the client was started from. Set API_KEY in your environment to the service key (export API_KEY=...) and restart the client (in Claude Code, reconnect the server with /mcp).';
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
      if (this.wrongKeys.spent(addressId))
        return this.refusal(PER_IP, 'guess_limit', this.wrongKeys.budget(addressId));
    }
    if (valid) return { keyId: keyDigest(key) };
    if (!addressOk) return this.refusal(PER_IP, 'address_limit', this.perAddress.budget(addressId));
    const keyProblem: KeyProblem =
      key === undefined ? 'missing' : isKeyPlaceholder(key) ? 'placeholder' : 'invalid';
    const addressBudget = this.perAddress.budget(addressId);
    return {
      status: 401,
      reason: keyProblem,
      message: { missing: NO_KEY, invalid: WRONG_KEY, placeholder: PLACEHOLDER_KEY }[keyProblem],
      // A wrong key spends both the address's budget and its budget of wrong keys.
      budget: key === undefined ? addressBudget : tighter(addressBudget, this.wrongKeys.budget(addressId)),
    };
  }

  /** What a valid key has left of its budget. */
  keyBudget(keyId: string): Budget {
    return this.perKey.budget(keyId);
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
  keyRefusal(keyId: string): EdgeRefusal {
    return this.refusal(PER_KEY, 'key_limit', this.perKey.budget(keyId));
  }

  private refusal(limit: string, reason: RefusalReason, budget: Budget): EdgeRefusal {
    return {
      status: 429,
      reason,
      message: `Rate limit reached (${limit}); retry later.`,
      budget,
      limit,
      retryAfterMs: budget.resetMs,
    };
  }
}
