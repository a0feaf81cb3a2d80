import { errors as playwrightErrors, type Locator, type Page } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';

/** How much of the page's text a timed-out text wait quotes: enough to see what was there instead. */
const SEEN_TEXT_CHARS = 200;

export type ElementState = 'attached' | 'visible' | 'hidden' | 'detached';

/** One condition page.waitFor waits for, besides the load states. */
export type Condition =
  | { kind: 'element'; locator: Locator; state: ElementState; what: string }
  | { kind: 'text'; text: string }
  | { kind: 'textGone'; text: string }
  | { kind: 'url'; url: string };

/** A url condition: `/…/flags` is a regular expression, anything else a glob as Playwright reads it. */
function urlMatcher(url: string): string | RegExp {
  const m = /^\/(.+)\/([a-z]*)$/.exec(url);
  if (m?.[1] === undefined) return url;
  try {
    return new RegExp(m[1], m[2]);
  } catch (error) {
    throw new ServiceError(
      'INVALID_PARAMS',
      `url ${url} is not a valid regular expression: ${String(error)}`,
      {
        url,
      },
    );
  }
}

/**
 * Waits for a condition; past timeoutMs, TIMEOUT says what was seen instead (the current URL, the
 * page's text, how many elements matched), so the caller can tell a slow page from a wrong guess.
 */
export async function waitForCondition(page: Page, condition: Condition, timeoutMs: number): Promise<void> {
  try {
    switch (condition.kind) {
      case 'element':
        await condition.locator.first().waitFor({ state: condition.state, timeout: timeoutMs });
        return;
      case 'text':
        await page.getByText(condition.text).first().waitFor({ state: 'visible', timeout: timeoutMs });
        return;
      case 'textGone':
        await page.getByText(condition.text).first().waitFor({ state: 'hidden', timeout: timeoutMs });
        return;
      case 'url':
        await page.waitForURL(urlMatcher(condition.url), { timeout: timeoutMs, waitUntil: 'commit' });
        return;
    }
  } catch (error) {
    if (!(error instanceof playwrightErrors.TimeoutError)) throw error;
    throw new ServiceError(
      'TIMEOUT',
      `page.waitFor ran past ${timeoutMs} ms: ${await seen(page, condition)}.`,
      {
        timeoutMs,
        url: page.url(),
      },
    );
  }
}

async function seen(page: Page, condition: Condition): Promise<string> {
  switch (condition.kind) {
    case 'url':
      return `the URL is ${page.url()}, not ${condition.url}`;
    case 'element': {
      const count = await condition.locator.count().catch(() => 0);
      return `${condition.what} did not become ${condition.state} (${count} element(s) match now)`;
    }
    case 'text':
    case 'textGone': {
      const text = await page
        .locator('body')
        .innerText({ timeout: 1000 })
        .catch(() => '');
      const flat = text.replace(/\s+/g, ' ').trim().slice(0, SEEN_TEXT_CHARS);
      const verb = condition.kind === 'text' ? 'never appeared' : 'is still there';
      return `the text ${JSON.stringify(condition.text)} ${verb}; the page reads: ${JSON.stringify(flat)}`;
    }
  }
}
