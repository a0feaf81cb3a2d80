import type { Page, Request } from 'playwright-core';
import { SettleTimeoutError } from '../engine/browserErrors.js';
import { capUrl } from '../engine/pageGuards.js';

export interface SettleOptions {
  /** How long the network must be quiet to count as settled. */
  quietMs: number;
  /**
   * A request whose response headers arrived this long ago counts as done even without a
   * `requestfinished` event: Chromium never finishes a no-store response whose body the page never
   * reads, and Playwright's networkidle then never fires.
   */
  bodyGraceMs: number;
  /** A request with no response after this long (long-poll, hung server) no longer holds the settle. */
  maxPendingMs: number;
  timeoutMs: number;
}

/** How often the settle looks at the in-flight set: small next to quietMs, cheap to do. */
const SETTLE_POLL_MS = 5;

interface InFlight {
  url: string;
  startedAt: number;
  responseAt: number | undefined;
}

/** Tracks the requests of one page, so a navigation can wait for the network to go quiet. */
export class NetworkTracker {
  private readonly inflight = new Map<Request, InFlight>();
  private lastActivity = Date.now();

  constructor(page: Page) {
    page.on('request', (r) => {
      this.inflight.set(r, { url: capUrl(r.url()), startedAt: Date.now(), responseAt: undefined });
      this.lastActivity = Date.now();
    });
    page.on('response', (r) => {
      const entry = this.inflight.get(r.request());
      if (entry) entry.responseAt = Date.now();
      this.lastActivity = Date.now();
    });
    const done = (r: Request) => {
      if (this.inflight.delete(r)) this.lastActivity = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
  }

  /** The URLs of the requests still in flight, oldest first, at most `max`. */
  pendingUrls(max: number): string[] {
    return [...this.inflight.values()].slice(0, max).map((e) => e.url);
  }

  /** Requests that still hold the settle at `now`. */
  private busy(now: number, options: SettleOptions): InFlight[] {
    const out: InFlight[] = [];
    for (const entry of this.inflight.values()) {
      if (entry.responseAt !== undefined && now - entry.responseAt >= options.bodyGraceMs) continue;
      if (entry.responseAt === undefined && now - entry.startedAt >= options.maxPendingMs) continue;
      out.push(entry);
    }
    return out;
  }

  /** Resolves once no request has held the network for quietMs; rejects past timeoutMs. */
  waitForQuiet(options: SettleOptions): Promise<void> {
    const deadline = Date.now() + options.timeoutMs;
    return new Promise((resolve, reject) => {
      let quietSince: number | undefined;
      const tick = () => {
        const now = Date.now();
        const busy = this.busy(now, options);
        // Quiet starts at the last network event, or now when only ignored requests remain in flight.
        if (busy.length > 0) quietSince = undefined;
        else if (quietSince === undefined) quietSince = this.inflight.size === 0 ? this.lastActivity : now;
        else quietSince = Math.max(quietSince, this.lastActivity);
        if (quietSince !== undefined && now - quietSince >= options.quietMs) {
          resolve();
          return;
        }
        if (now >= deadline) {
          reject(
            new SettleTimeoutError(
              options.timeoutMs,
              busy.map((b) => b.url),
            ),
          );
          return;
        }
        setTimeout(tick, SETTLE_POLL_MS);
      };
      tick();
    });
  }
}
