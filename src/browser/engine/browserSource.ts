import type { EventEmitter } from 'node:events';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

export interface BrowserSourceEvents {
  /** Every context the source held is gone (the local browser died). */
  lost: [];
  /** Contexts may be made again after a loss (the pool refills). */
  relaunched: [];
  /** One browser of several went away (a remote browser server): only its contexts are gone. */
  browserLost: [browser: Browser];
}

/**
 * Where sessions' contexts are made: the local Chromium (BrowserHost) or the remote browser
 * servers of BROWSER_ENDPOINTS (BrowserTier). The registry, the pool, health and the methods see
 * only this.
 */
export type BrowserSource = EventEmitter<BrowserSourceEvents> & {
  /** Whether a new context can be made now. */
  readonly ready: boolean;
  readonly headless: boolean;
  /** Where Playwright writes while a context traces (see BrowserHost.tracesDir). */
  readonly tracesDir: string;
  newContext(options: BrowserContextOptions): Promise<BrowserContext>;
  /** Remote browsers: whether `browser` is gone, or goes within `graceMs` (a call failed on it). */
  awaitLoss?(browser: Browser, graceMs: number): Promise<boolean>;
  /**
   * Closes a context the service is done with: a session's end, a creation that failed part-way or
   * came too late, a pooled context let go. Remote browsers: its proxy login is revoked and its
   * endpoint stops counting it at once, whether or not the server ever confirms the close (a close
   * that times out abandons the context). Without it, context.close().
   */
  closeContext?(context: BrowserContext): Promise<void>;
  /** Names a context's owner (its session id) where the source logs per context (the proxy logins). */
  labelContext?(context: BrowserContext, label: string): void;
  start(): Promise<void>;
  close(): Promise<void>;
};
