// What one page may put in its session's log per second. Every console line, page error, request
// and navigation of every session crosses the one browser pipe and this one process; a page that
// logs 100,000 lines a second would make every other tenant wait behind it. Past its budget a
// page's entries are dropped and counted, the owner is told how many, and a page that keeps
// flooding is slowed down at the source (session/pageFlood.ts).

import { DEFAULT_CONSOLE_BURST, DEFAULT_CONSOLE_RATE } from '../engine/pageGuards.js';

/** How much a page may record, and what happens to one that keeps exceeding it. */
export interface PageBudgetOptions {
  /** PAGE_EVENT_RATE: entries of one family (console, page errors, network, navigations) a second. */
  rate: number;
  /** PAGE_EVENT_BURST: entries of one family recorded at once before the rate applies. */
  burst: number;
  /** PAGE_THROTTLE_AFTER_MS: how long a page must keep exceeding its budget before it is slowed. */
  throttleAfterMs: number;
  /** PAGE_THROTTLE_RATE: how many times slower its CPU then runs (1: never slowed). */
  throttleRate: number;
}

export const DEFAULT_PAGE_BUDGET: PageBudgetOptions = {
  rate: DEFAULT_CONSOLE_RATE,
  burst: DEFAULT_CONSOLE_BURST,
  throttleAfterMs: 5000,
  throttleRate: 20,
};

/** A gap of this long without a drop ends a flood: the next drop starts a new one. */
export const FLOOD_GAP_MS = 1000;

/**
 * A token bucket over one family of a page's entries: `burst` at once, then `rate` a second. It
 * counts what it refuses, and how long the page has kept being refused (a flood).
 */
export class EventBudget {
  private tokens: number;
  private last: number;
  private droppedSinceReport = 0;
  private floodStart: number | undefined;
  private lastDrop = 0;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** True when one more entry may be recorded; false when it is dropped (and counted). */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.rate) / 1000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.droppedSinceReport++;
    if (this.floodStart === undefined || now - this.lastDrop > FLOOD_GAP_MS) this.floodStart = now;
    this.lastDrop = now;
    return false;
  }

  /** The entries dropped since the last call of this (0 when none). */
  takeDropped(): number {
    const dropped = this.droppedSinceReport;
    this.droppedSinceReport = 0;
    return dropped;
  }

  /** How long the page has kept exceeding this budget (0 when it is not exceeding it now). */
  floodingFor(): number {
    if (this.floodStart === undefined) return 0;
    const now = this.now();
    return now - this.lastDrop > FLOOD_GAP_MS ? 0 : this.lastDrop - this.floodStart;
  }
}
