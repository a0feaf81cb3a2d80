import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { Logger } from '../observability/logger.js';
import type { BrowserHost } from './browserHost.js';

/** Context defaults: 1280×800, no service workers (routing cannot see through them), no downloads. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

export interface OpenedContext {
  context: BrowserContext;
  page: Page;
}

export type ContextOverrides = Pick<BrowserContextOptions, 'viewport' | 'userAgent' | 'storageState'>;

/** A new isolated context with its one page, on the shared browser. */
export async function openContext(
  host: BrowserHost,
  overrides: ContextOverrides = {},
): Promise<OpenedContext> {
  const context = await host.newContext({
    viewport: overrides.viewport ?? DEFAULT_VIEWPORT,
    userAgent: overrides.userAgent,
    storageState: overrides.storageState,
    serviceWorkers: 'block',
    acceptDownloads: false,
    ignoreHTTPSErrors: true,
  });
  try {
    return { context, page: await context.newPage() };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/**
 * How often a refill that is waiting for the service to go idle looks again. Creating a context
 * costs Chromium 100-400 ms of CPU: done while a call runs, on a 2-core machine it doubles that
 * call's time, so the pool refills only when no call has run for POOL_REFILL_IDLE_MS.
 */
const REFILL_RECHECK_MS = 50;

/**
 * A few ready contexts (default options, a blank page each), so session.create hands one out at
 * once instead of waiting ~100-400 ms for Chromium. Refilled in the background, one at a time, only
 * while `room()` says another context may exist (MAX_SESSIONS counts pooled contexts too) and
 * `idle()` says no call is running; under steady load the pool stays empty and creates are inline.
 */
export class ContextPool {
  private ready: OpenedContext[] = [];
  private pending = 0;
  private filling: Promise<void> | undefined;
  private closed = false;
  private recheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: BrowserHost,
    private readonly size: number,
    private readonly room: () => number,
    private readonly idle: () => boolean,
    private readonly logger: Logger,
  ) {
    host.on('lost', () => {
      // The contexts died with the browser.
      this.ready = [];
    });
    host.on('relaunched', () => this.fill());
  }

  /** Ready plus being made: what the pool holds against MAX_SESSIONS. */
  get held(): number {
    return this.ready.length + this.pending;
  }

  /** A ready context, or undefined when none is; starts a refill either way. */
  take(): OpenedContext | undefined {
    const item = this.ready.shift();
    this.fill();
    return item;
  }

  /** Closes one ready context to make room for a context with custom options. */
  async release(): Promise<boolean> {
    const item = this.ready.pop();
    if (item === undefined) return false;
    await item.context
      .close()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'closing a pooled context failed'));
    return true;
  }

  fill(): void {
    if (this.filling !== undefined || this.recheck !== undefined || this.size === 0 || this.closed) return;
    if (this.ready.length >= this.size || this.room() <= 0) return;
    if (!this.idle()) {
      this.recheck = setTimeout(() => {
        this.recheck = undefined;
        this.fill();
      }, REFILL_RECHECK_MS);
      this.recheck.unref();
      return;
    }
    this.filling = this.loop().finally(() => {
      this.filling = undefined;
      // Stopped because a call started: come back when the service is idle again.
      if (!this.closed && this.ready.length < this.size) this.fill();
    });
  }

  private async loop(): Promise<void> {
    while (
      !this.closed &&
      this.host.ready &&
      this.ready.length < this.size &&
      this.room() > 0 &&
      this.idle()
    ) {
      this.pending++;
      try {
        const item = await openContext(this.host);
        if (this.closed || !this.host.ready) await item.context.close().catch(() => undefined);
        else this.ready.push(item);
      } catch (error) {
        this.logger.warn({ err: error }, 'pre-creating a context failed; the pool refills on the next take');
        return;
      } finally {
        this.pending--;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    await this.filling;
    const items = this.ready;
    this.ready = [];
    await Promise.all(items.map((i) => i.context.close().catch(() => undefined)));
  }
}
