// Dialogs closed outside the service: on a tab of a CDP_URL browser, the person at that browser (or
// another DevTools client) may answer a dialog the session left pending for dialog.handle. Playwright
// reports no such close, so a DevTools session of the page's own listens for Chromium's.
import type { Page } from 'playwright-core';

/**
 * Calls `closed(accepted)` each time a JavaScript dialog on `page` closes, whoever closed it (the
 * session's dialogs ignore the closes of dialogs it answered itself: those are no longer pending).
 * Resolves once listening; the DevTools session ends with the page.
 */
export async function watchDialogCloses(page: Page, closed: (accepted: boolean) => void): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Page.javascriptDialogClosed', (event: { result: boolean }) => closed(event.result));
  await cdp.send('Page.enable');
}
