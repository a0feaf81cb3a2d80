import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { Logger } from '../observability/logger.js';
import type { BrowserHost } from './browserHost.js';
import { DeadlineError, withDeadline } from '../errors/deadline.js';
import { PAGE_GUARD_SCRIPT } from './pageGuards.js';
import { installClipboard } from './sessionClipboard.js';

/** Context defaults: 1280×800, no service workers (routing cannot see through them). */
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

export interface OpenedContext {
  context: BrowserContext;
  page: Page;
}

/** What a session may set on its context at creation; every one left undefined is the default. */
export type ContextOverrides = Pick<
  BrowserContextOptions,
  | 'viewport'
  | 'userAgent'
  | 'storageState'
  | 'deviceScaleFactor'
  | 'isMobile'
  | 'hasTouch'
  | 'locale'
  | 'timezoneId'
  | 'geolocation'
  | 'colorScheme'
  | 'permissions'
>;

/** What every service context is made with from the configuration. */
export interface ContextLimits {
  /** MAX_CLIPBOARD_CHARS: what the context's clipboard holds at most. */
  clipboardChars: number;
}

/** Whether a context with these overrides is a default one apart from its viewport (a pooled one will do). */
export function pooledWillDo(overrides: ContextOverrides): boolean {
  return Object.entries(overrides).every(([key, value]) => key === 'viewport' || value === undefined);
}

/**
 * Creating a context and its page takes ~100-400 ms; past this the browser is taken as hung and the
 * create fails instead of holding a MAX_SESSIONS slot forever.
 */
export const OPEN_CONTEXT_TIMEOUT_MS = 30_000;

/** Closes a context that is no longer wanted; a failure is logged, not thrown (the browser may be gone). */
export async function closeQuietly(item: OpenedContext, logger: Logger): Promise<void> {
  await item.context
    .close()
    .catch((error: unknown) => logger.debug({ err: error }, 'closing an unused context failed'));
}

/** A new isolated context with its one page, on the shared browser, within OPEN_CONTEXT_TIMEOUT_MS. */
export async function openContext(
  host: BrowserHost,
  limits: ContextLimits,
  overrides: ContextOverrides = {},
): Promise<OpenedContext> {
  const opening = openContextUnbounded(host, limits, overrides);
  return withDeadline(opening, OPEN_CONTEXT_TIMEOUT_MS, () => {
    // Whatever arrives late is closed, so a slow browser does not leak the context.
    opening.then((late) => late.context.close()).catch(() => undefined);
    return new DeadlineError(
      'creating a browser context',
      OPEN_CONTEXT_TIMEOUT_MS,
      ': the browser may be overloaded or hung',
    );
  });
}

async function openContextUnbounded(
  host: BrowserHost,
  limits: ContextLimits,
  overrides: ContextOverrides,
): Promise<OpenedContext> {
  const context = await host.newContext({
    ...overrides,
    viewport: overrides.viewport ?? DEFAULT_VIEWPORT,
    serviceWorkers: 'block',
    // Downloads are kept per session within caps (downloadStore.ts); refused, Chromium would cancel
    // them and a navigation to an attachment would read as a failed request.
    acceptDownloads: true,
    ignoreHTTPSErrors: true,
  });
  try {
    await context.addInitScript(PAGE_GUARD_SCRIPT);
    await installClipboard(context, limits.clipboardChars);
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
    private readonly limits: ContextLimits,
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
    // While the browser relaunches there is nothing to fill; its `relaunched` event calls fill().
    if (!this.host.ready || this.ready.length >= this.size || this.room() <= 0) return;
    if (!this.idle()) {
      this.later();
      return;
    }
    this.filling = this.loop().finally(() => {
      this.filling = undefined;
    });
  }

  /** Looks again after REFILL_RECHECK_MS: never a synchronous retry, so a refill cannot spin. */
  private later(): void {
    if (this.recheck !== undefined || this.closed) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.fill();
    }, REFILL_RECHECK_MS);
    this.recheck.unref();
  }

  private async loop(): Promise<void> {
    while (!this.closed && this.host.ready && this.ready.length < this.size && this.room() > 0) {
      if (!this.idle()) {
        // A call started: come back when the service is idle again.
        this.later();
        return;
      }
      this.pending++;
      let item: OpenedContext;
      try {
        item = await openContext(this.host, this.limits);
      } catch (error) {
        this.logger.warn({ err: error }, 'pre-creating a context failed; the pool refills on the next take');
        return;
      } finally {
        this.pending--;
      }
      // A create may have taken the last slot while this context was being made (room() counts
      // it as pending until now): never hold more contexts than MAX_SESSIONS allows.
      if (this.closed || !this.host.ready || this.room() < 0) await closeQuietly(item, this.logger);
      else this.ready.push(item);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    await this.filling;
    const items = this.ready;
    this.ready = [];
    await Promise.all(items.map((i) => closeQuietly(i, this.logger)));
  }
}
