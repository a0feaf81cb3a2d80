// A round trip to the browser process, after an action and before its settle looks at what the
// action started. The browser emits a request's start and a navigation's start itself, so an event
// it emitted before it answered this command has reached Playwright before the answer does. A
// command the browser answers without the renderer (Page.getNavigationHistory) costs ~0.6 ms where
// a round trip to the page (document.title) cost 1.3–3 ms right after an action, while the page
// lays out.
import type { CDPSession, Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';

/** The most the round trip waits: a browser that does not answer by then is not waited for. */
export const BARRIER_TIMEOUT_MS = 500;

/** One CDP session per page, opened at its first use (or by prepareBarrier), closed with the page. */
const sessions = new WeakMap<Page, Promise<CDPSession | undefined>>();
/** Windows each page has started to open (Page.windowOpen: window.open, a target=_blank link, a form). */
const opens = new WeakMap<Page, number>();

async function open(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Page.windowOpen', () => opens.set(page, (opens.get(page) ?? 0) + 1));
  await cdp.send('Page.enable');
  return cdp;
}

/**
 * The page's CDP session (opened at its first use, one per page): network.throttle sends its
 * conditions there rather than opening a second one. Undefined for a page that closed meanwhile.
 */
export function cdpSessionOf(page: Page): Promise<CDPSession | undefined> {
  let cdp = sessions.get(page);
  if (cdp === undefined) {
    // A page that closed meanwhile, or a browser that refuses CDP: the round trip is skipped, and
    // the settle looks at the events that have arrived, as it would without it.
    cdp = open(page).catch(() => undefined);
    sessions.set(page, cdp);
  }
  return cdp;
}

/** How many windows the page has started to open since its CDP session opened. */
export function windowOpens(page: Page): number {
  return opens.get(page) ?? 0;
}

/** Opens the page's CDP session ahead of its first action (in the background). */
export function prepareBarrier(page: Page): void {
  void cdpSessionOf(page);
}

/**
 * The page's title as the browser process knows it (the current history entry's), answered without
 * the renderer: right after a load `document.title` waited for a busy renderer (in-process, p50 17
 * ms against 5 ms on an idle machine, 45 ms more per goto under load). The renderer sends each
 * title change to the browser as it happens, so both agree (checked on parsed, scripted, onload and
 * same-document changes). Undefined when the page has no CDP session (closed, or no CDP).
 */
export async function browserTitle(page: Page): Promise<string | undefined> {
  const cdp = await cdpSessionOf(page);
  if (cdp === undefined) return undefined;
  const history = await cdp.send('Page.getNavigationHistory');
  return history.entries[history.currentIndex]?.title;
}

/** One command answered by the browser process, bounded by BARRIER_TIMEOUT_MS; never throws. */
export async function browserBarrier(page: Page): Promise<void> {
  const cdp = await cdpSessionOf(page);
  if (cdp === undefined) return;
  await withDeadline(
    cdp.send('Page.getNavigationHistory'),
    BARRIER_TIMEOUT_MS,
    () => new Error('barrier timeout'),
  ).catch(() => {
    // Closed or busy past the bound: the settle goes on with what it has seen.
    sessions.delete(page);
  });
}
