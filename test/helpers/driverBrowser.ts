// A Chromium of the tests' own, driving the web console (/ui) as a person's browser would: the same
// Chromium the service resolves, launched by playwright-core, outside the service's egress proxy.
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { resolveBrowser } from '../../src/browser/engine/browserResolve.js';
import { TEST_API_KEY } from './testService.js';

export async function launchDriverBrowser(): Promise<Browser> {
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved) throw new Error(`no Chromium; looked at ${resolved.tried.join(', ')}`);
  return chromium.launch({
    executablePath: resolved.executablePath,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/**
 * A page of `browser` on the web console of the service at `serviceUrl`, the test key entered and
 * the panels shown, as a person's browser opens it (a 1440×1000 window unless `options` says else).
 */
export async function openConsole(
  browser: Browser,
  serviceUrl: string,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, ...options });
  const page = await context.newPage();
  await page.goto(`${serviceUrl}/ui/`);
  await page.locator('#key-input').fill(TEST_API_KEY);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#console').waitFor({ state: 'visible' });
  return { context, page };
}
