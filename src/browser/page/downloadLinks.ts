// A click on a link with a download attribute starts a download the browser process makes itself:
// no request or response of the page precedes it, so the settle after the click has nothing to wait
// for, and Chromium announces the download only once the server answered (measured ~110 ms after the
// click for the first download of a fresh browser, a few ms later on). page.click asks, in parallel
// with the click, whether its element is such a link; an action that clicked one waits for its
// download (within the settle) as for an attachment response.
import type { Locator } from 'playwright-core';

/**
 * The most the check waits for its element: it runs beside the click, whose answer waits for it, so
 * an element that resolves late (or a click that navigated first) must not hold the answer up to the
 * click's own timeout. Past it the check says false, and the settle waits for what it sees.
 */
export const DOWNLOAD_LINK_CHECK_MS = 1_000;

/**
 * Whether the element is (inside) an `<a download>` or `<area download>` with an href; false when it
 * cannot say within DOWNLOAD_LINK_CHECK_MS (or `timeoutMs`, if less).
 */
export function isDownloadLink(target: Locator, timeoutMs: number): Promise<boolean> {
  const timeout = Math.min(timeoutMs, DOWNLOAD_LINK_CHECK_MS);
  return target
    .evaluate((el) => el.closest('a[download][href], area[download][href]') !== null, undefined, { timeout })
    .catch(() => {
      // No such element, several, or the page moved on: the click itself answers for that; the
      // settle then waits only for what the page's own events show.
      return false;
    });
}
