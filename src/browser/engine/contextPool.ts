import { performance } from 'node:perf_hooks';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { Logger } from '../../observability/logger.js';
import type { BrowserSource } from './browserSource.js';
import { DeadlineError, withDeadline } from '../../errors/deadline.js';
import { pageGuardScript } from './pageGuards.js';
import { TIMER_TRACKER_SCRIPT } from './pageTimers.js';
import type { PoolPolicy } from './poolPolicy.js';
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
  /** PAGE_EVENT_RATE and PAGE_EVENT_BURST: console calls a document may make before they are dropped in it. */
  consoleRate?: number;
  consoleBurst?: number;
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

/** Closes a context through its source, which lets go of what it holds for it before the close ends. */
export function closeContext(host: BrowserSource, context: BrowserContext): Promise<void> {
  return host.closeContext === undefined ? context.close() : host.closeContext(context);
}

/** Closes a context that is no longer wanted; a failure is logged, not thrown (the browser may be gone). */
export async function closeQuietly(host: BrowserSource, item: OpenedContext, logger: Logger): Promise<void> {
  await closeContext(host, item.context).catch((error: unknown) =>
    logger.debug({ err: error }, 'closing an unused context failed'),
  );
}

/** A new isolated context with its one page, on the shared browser, within OPEN_CONTEXT_TIMEOUT_MS. */
export async function openContext(
  host: BrowserSource,
  limits: ContextLimits,
  overrides: ContextOverrides = {},
): Promise<OpenedContext> {
  const opening = openContextUnbounded(host, limits, overrides);
  return withDeadline(opening, OPEN_CONTEXT_TIMEOUT_MS, () => {
    // Whatever arrives late is closed, so a slow browser does not leak the context.
    // Its failure is not the caller's news: the deadline is (and a close that fails left nothing open).
    opening.then((late) => closeContext(host, late.context)).catch(() => undefined);
    return new DeadlineError(
      'creating a browser context',
      OPEN_CONTEXT_TIMEOUT_MS,
      ': the browser may be overloaded or hung',
    );
  });
}

async function openContextUnbounded(
  host: BrowserSource,
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
    await context.addInitScript(
      `${pageGuardScript({ rate: limits.consoleRate, burst: limits.consoleBurst })}\n${TIMER_TRACKER_SCRIPT}`,
    );
    await installClipboard(context, limits.clipboardChars);
    return { context, page: await context.newPage() };
  } catch (error) {
    // The creation's own error is the one to report; the source has let go of the context either way.
    await closeContext(host, context).catch(() => undefined);
    throw error;
  }
}

/**
 * How often a refill that is waiting (for the service to go idle, or for calls to end) looks again.
 * Creating a context costs Chromium 100-400 ms of CPU: done while a call runs, on a 2-core machine
 * it slows that call, so how many openings run at once is the policy's (poolPolicy.ts).
 */
const REFILL_RECHECK_MS = 50;

/** What the pool needs to know of the service's load when it decides. */
export interface PoolActivity {
  /** Session calls running now. */
  callsRunning: number;
  /** Milliseconds since a call, create or close last ran (0 while one runs). */
  idleMs: number;
  /** Milliseconds since a session call last ran, creates and closes aside (0 while one runs). */
  callIdleMs: number;
}

/**
 * Ready contexts (default options, a blank page each), so session.create hands one out at once
 * instead of waiting ~100-400 ms for Chromium. Refilled in the background as `policy` says (sized from
 * the recent creates, a bounded number of openings at once, yielding to running calls), only while
 * `room()` says another context may exist (MAX_SESSIONS counts pooled contexts too).
 */
export class ContextPool {
  private ready: OpenedContext[] = [];
  private pending = 0;
  private readonly openings = new Set<Promise<void>>();
  /** An opening failed: no new one until the next take or relaunch (a broken browser must not spin). */
  private stalled = false;
  private closed = false;
  private recheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: BrowserSource,
    private readonly limits: ContextLimits,
    private readonly policy: PoolPolicy,
    private readonly room: () => number,
    private readonly activity: () => PoolActivity,
    private readonly logger: Logger,
  ) {
    host.on('lost', () => {
      // The contexts died with the browser.
      this.ready = [];
    });
    host.on('browserLost', (browser) => {
      // One remote browser server went away: only its contexts died.
      this.ready = this.ready.filter((item) => item.context.browser() !== browser);
    });
    host.on('relaunched', () => {
      this.stalled = false;
      this.fill();
    });
  }

  /** Ready plus being made: what the pool holds against MAX_SESSIONS. */
  get held(): number {
    return this.ready.length + this.pending;
  }

  /** Ready contexts now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /**
   * A ready context, or undefined when none is; counts as demand and starts a refill either way.
   * After handing one out the pool looks again only REFILL_RECHECK_MS later: by then the session is
   * registered, and the refill waits for its first call (sessionRegistry's FIRST_CALL_GRACE_MS).
   */
  take(): OpenedContext | undefined {
    if (this.policy.limits.minSize === 0) return undefined;
    this.policy.recordCreate(Date.now());
    const item = this.ready.shift();
    this.stalled = false;
    if (item === undefined) this.fill();
    else this.later();
    return item;
  }

  /** Closes one ready context to make room for a context with custom options. */
  async release(): Promise<boolean> {
    const item = this.ready.pop();
    if (item === undefined) return false;
    await closeContext(this.host, item.context).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'closing a pooled context failed'),
    );
    return true;
  }

  fill(): void {
    if (this.closed || this.stalled || this.policy.limits.minSize === 0) return;
    // While the browser relaunches there is nothing to fill; its `relaunched` event calls fill().
    if (!this.host.ready) return;
    const { callsRunning, idleMs, callIdleMs } = this.activity();
    const decision = this.policy.decide({
      now: Date.now(),
      ready: this.ready.length,
      opening: this.pending,
      room: this.room(),
      callsRunning,
      idleMs,
      callIdleMs,
    });
    for (let k = 0; k < decision.shrink; k++) {
      const item = this.ready.pop();
      if (item !== undefined) void closeQuietly(this.host, item, this.logger);
    }
    for (let k = 0; k < decision.open; k++) this.openOne();
    if (decision.waiting) this.later();
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

  private openOne(): void {
    this.pending++;
    const started = performance.now();
    const opening = openContext(this.host, this.limits)
      .then(
        async (item) => {
          this.policy.recordOpen(performance.now() - started);
          this.pending--;
          // A create may have taken the last slot while this context was being made: room() no
          // longer counts this one, so it needs room for one more. Never hold more contexts than
          // MAX_SESSIONS allows.
          if (this.closed || !this.host.ready || this.room() < 1)
            await closeQuietly(this.host, item, this.logger);
          else this.ready.push(item);
        },
        (error: unknown) => {
          this.pending--;
          this.stalled = true;
          this.logger.warn(
            { err: error },
            'pre-creating a context failed; the pool refills on the next take',
          );
        },
      )
      .finally(() => {
        this.openings.delete(opening);
        this.fill();
      });
    this.openings.add(opening);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    await Promise.all([...this.openings]);
    const items = this.ready;
    this.ready = [];
    await Promise.all(items.map((i) => closeQuietly(this.host, i, this.logger)));
  }
}
