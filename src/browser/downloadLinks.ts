// A click on a link with a download attribute starts a download the browser process makes itself:
// no request or response of the page precedes it, so the settle after the click has nothing to wait
// for, and Chromium announces the download only once the server answered (measured ~110 ms after the
// click for the first download of a fresh browser, a few ms later on). page.click asks, in parallel
// with the click, whether its element is such a link; an action that clicked one waits for its
// download (within the settle) as for an attachment response.
import type { Locator } from 'playwright-core';

const clicked = new WeakMap<object, number>();

/** Whether the element is (inside) an `<a download>` or `<area download>`; false when it cannot say. */
export function isDownloadLink(target: Locator, timeoutMs: number): Promise<boolean> {
  return target
    .evaluate((el) => el.closest('a[download], area[download]') !== null, undefined, { timeout: timeoutMs })
    .catch(() => {
      // No such element, several, or the page moved on: the click itself answers for that; the
      // settle then waits only for what the page's own events show.
      return false;
    });
}

/** Counts a click on a download link by this session. */
export function noteDownloadLink(session: object): void {
  clicked.set(session, (clicked.get(session) ?? 0) + 1);
}

/** How many download links the session's clicks hit so far. */
export function downloadLinksClicked(session: object): number {
  return clicked.get(session) ?? 0;
}
