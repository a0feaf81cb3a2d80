// A session's network conditions: offline (Playwright's context.setOffline) and throttling (CDP
// Network.emulateNetworkConditions). Chromium applies throttling per page target, so it is sent to
// every page of the session, and to each page the session attaches later (preparePage: popups,
// a fresh page after a crash), over the page's one CDP session (browserBarrier's).
import type { BrowserContext, Page } from 'playwright-core';
import { CLOSED } from '../../errors/mapError.js';
import { cdpSessionOf, prepareBarrier } from '../engine/browserBarrier.js';

export interface Throttle {
  latencyMs: number;
  downloadKbps: number;
  uploadKbps: number;
}

/**
 * Chrome DevTools' presets (its network panel; Puppeteer's PredefinedNetworkConditions): latency in
 * ms, throughput in kbit/s. slow-3g is DevTools' "Slow 3G" (400 ms × 5, 500 kbit/s × 0.8), fast-3g
 * its "Fast 3G" / "Slow 4G" (150 ms × 3.75, 1.6 Mbit/s × 0.9 down, 750 kbit/s × 0.9 up), 4g its
 * "Fast 4G" (60 ms × 2.75, 9 Mbit/s × 0.9 down, 1.5 Mbit/s × 0.9 up).
 */
export const THROTTLE_PRESETS = {
  'slow-3g': { latencyMs: 2000, downloadKbps: 400, uploadKbps: 400 },
  'fast-3g': { latencyMs: 562.5, downloadKbps: 1440, uploadKbps: 675 },
  '4g': { latencyMs: 165, downloadKbps: 8100, uploadKbps: 1350 },
} as const satisfies Record<string, Throttle>;

interface Conditions {
  offline: boolean;
  throttle: Throttle | undefined;
}

const conditions = new WeakMap<BrowserContext, Conditions>();

function conditionsOf(context: BrowserContext): Conditions {
  let found = conditions.get(context);
  if (found === undefined) {
    found = { offline: false, throttle: undefined };
    conditions.set(context, found);
  }
  return found;
}

/** Sends the context's conditions to one page; a page that closed meanwhile is skipped. */
async function applyTo(page: Page, state: Conditions): Promise<void> {
  const cdp = await cdpSessionOf(page);
  if (cdp === undefined) return;
  const t = state.throttle;
  try {
    await cdp.send('Network.emulateNetworkConditions', {
      // Playwright's setOffline sends the same command: each one carries the whole state.
      offline: state.offline,
      latency: t?.latencyMs ?? 0,
      downloadThroughput: t === undefined ? -1 : (t.downloadKbps * 1000) / 8,
      uploadThroughput: t === undefined ? -1 : (t.uploadKbps * 1000) / 8,
    });
  } catch (error) {
    // A page that closed while the command was on its way has no conditions left to set.
    if (!(error instanceof Error && CLOSED.test(error.message)) && !page.isClosed()) throw error;
  }
}

/** Throttles every page of the context, now and as they open; undefined lifts the throttling. */
export async function setThrottle(context: BrowserContext, throttle: Throttle | undefined): Promise<void> {
  const state = conditionsOf(context);
  state.throttle = throttle;
  await Promise.all(context.pages().map((p) => applyTo(p, state)));
}

/**
 * Takes the context off the network or back on. Playwright's setOffline lifts any throttling of the
 * pages as it sends its own conditions: the session's throttling is sent again after it.
 */
export async function setOffline(context: BrowserContext, offline: boolean): Promise<void> {
  const state = conditionsOf(context);
  state.offline = offline;
  await context.setOffline(offline);
  if (state.throttle !== undefined) await Promise.all(context.pages().map((p) => applyTo(p, state)));
}

/** The context's throttling, if any. */
export function throttleOf(context: BrowserContext): Throttle | undefined {
  return conditions.get(context)?.throttle;
}

/**
 * Called as a session attaches a page (its first page, a popup, a fresh page after a crash): opens
 * its CDP session (browserBarrier) and throttles it as the session's other pages are. No caller
 * waits for it: a refusal of the browser goes to the session's console log.
 */
export function preparePage(page: Page, note: (type: string, text: string) => void): void {
  prepareBarrier(page);
  const state = conditions.get(page.context());
  if (state?.throttle === undefined) return;
  applyTo(page, state).catch((error: unknown) =>
    note('error', `network.throttle could not throttle a new page: ${String(error).split('\n')[0] ?? ''}`),
  );
}
