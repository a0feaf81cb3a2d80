// One page's budgets (events/eventBudget.ts) and what the service does when the page exceeds them:
// it records the entries the budget admits, tells the session's owner once a second how many it
// dropped, and slows a page that keeps flooding (Chromium's CPU throttling) so the flood costs the
// shared browser pipe and this process a bounded amount.
import type { Page } from 'playwright-core';
import { EventBudget, type PageBudgetOptions } from '../events/eventBudget.js';

/**
 * The families of a page's entries, each with its own budget. `dropReport` is the page's own count
 * of the console calls it dropped (pageGuards.ts): its own small budget, so a report arrives while
 * the console's budget is spent, and a page that fakes reports gets no more through.
 */
export type EntryFamily = 'console' | 'pageerror' | 'network' | 'navigation' | 'dropReport';

const FAMILY_NAMES: Record<EntryFamily, string> = {
  console: 'console entries',
  pageerror: 'page errors',
  network: 'network entries',
  navigation: 'navigations',
  dropReport: 'reports of console calls dropped in the page',
};

/** The page reports what it dropped once a second: this budget lets those through and little more. */
export const DROP_REPORT_RATE = 2;
export const DROP_REPORT_BURST = 5;

/** How long dropped entries are counted before the owner is told: one note a second at most. */
export const DROP_REPORT_MS = 1000;

/** Slows a page's CPU by `rate` through the DevTools protocol (Emulation.setCPUThrottlingRate). */
async function throttleCpu(page: Page, rate: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  } finally {
    // The throttling stays with the page's target; the protocol session is not needed for it, and
    // a page that closed meanwhile has no session left to detach.
    await cdp.detach().catch(() => undefined);
  }
}

export class PageFlood {
  private readonly budgets: Record<EntryFamily, EventBudget>;
  private reportTimer: NodeJS.Timeout | undefined;
  private throttled = false;

  constructor(
    private readonly page: Page,
    private readonly options: PageBudgetOptions,
    /** Records a line of the service's own in the session's log (the owner reads it with logs.pull). */
    private readonly note: (type: string, text: string) => void,
  ) {
    const budget = () => new EventBudget(options.rate, options.burst);
    this.budgets = {
      console: budget(),
      pageerror: budget(),
      network: budget(),
      navigation: budget(),
      dropReport: new EventBudget(DROP_REPORT_RATE, DROP_REPORT_BURST),
    };
  }

  /** True when an entry of this family may be recorded now; false when the budget drops it. */
  admit(family: EntryFamily): boolean {
    const budget = this.budgets[family];
    if (budget.take()) return true;
    this.reportTimer ??= setTimeout(() => this.report(), DROP_REPORT_MS).unref();
    if (
      !this.throttled &&
      this.options.throttleRate > 1 &&
      budget.floodingFor() >= this.options.throttleAfterMs
    )
      this.throttle(family);
    return false;
  }

  private report(): void {
    this.reportTimer = undefined;
    const parts = (Object.keys(this.budgets) as EntryFamily[]).flatMap((family) => {
      const dropped = this.budgets[family].takeDropped();
      return dropped === 0 ? [] : [`${dropped} ${FAMILY_NAMES[family]}`];
    });
    if (parts.length === 0) return;
    this.note(
      'warning',
      `dropped ${parts.join(', ')} of this page in the last second: it exceeded its budget of ${this.options.rate} a second of each kind, bursts of ${this.options.burst} (PAGE_EVENT_RATE, PAGE_EVENT_BURST)`,
    );
  }

  private throttle(family: EntryFamily): void {
    this.throttled = true;
    const rate = this.options.throttleRate;
    throttleCpu(this.page, rate).then(
      () =>
        this.note(
          'warning',
          `this page has exceeded its budget of ${FAMILY_NAMES[family]} for ${this.options.throttleAfterMs} ms (PAGE_THROTTLE_AFTER_MS): its CPU now runs ${rate} times slower until it closes (PAGE_THROTTLE_RATE)`,
        ),
      (error: unknown) =>
        this.note('warning', `could not slow down this flooding page: ${String(error).split('\n')[0] ?? ''}`),
    );
  }
}
