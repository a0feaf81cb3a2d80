// The console's replay, in a real browser against the real service: an agent's session recorded
// for replay (session.create replay: true over POST /rpc) shows a picture control on its actions;
// the replay viewer shows each picture with its action and steps through them (buttons and ←/→);
// the session closed over /rpc stays in the list as closed, its timeline and pictures still open;
// past REPLAY_KEEP_MS the viewer says the picture is gone and the row goes. A session without
// replay has no picture control.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchDriverBrowser, openConsole } from '../helpers/driverBrowser.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** How long a row or a picture may take to show: the stream pushes at once, this bounds a slow machine. */
const SHOW_TIMEOUT_MS = 15_000;
/** Long enough to check the closed session's row, timeline and pictures; short enough to see it go. */
const KEEP_MS = 30_000;
/** The session list is read every 3 s (SESSIONS_REFRESH_MS): a closed row shows at the next read. */
const LIST_TIMEOUT_MS = 10_000;
/** Where the viewer's screenshot goes, to be looked at (docs/images/console-replay.png is a copy). */
const SHOT = join(tmpdir(), 'console-replay.png');

const suite = useServiceSuite({ REPLAY_KEEP_MS: String(KEEP_MS) });
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The agent's session recorded for replay, and one without replay. */
let recorded: string;
let plain: string;

beforeAll(async () => {
  browser = await launchDriverBrowser();
  recorded = await suite.recordForm();
  plain = await suite.open('/form');
  await suite.service.call('page.click', { session_id: plain, selector: '#greet' });
  ({ context, page } = await openConsole(browser, suite.service.url));
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
});

const sessionRow = (id: string): Locator => page.locator(`li.session[data-session-id="${id}"]`);

async function select(id: string): Promise<void> {
  await sessionRow(id).locator('button.pick').click();
  await pw(page.locator(`li.session.selected[data-session-id="${id}"]`)).toBeVisible();
}

const actionRow = (method: string): Locator =>
  page.locator('#event-list li.event[data-kind="action"]').filter({ hasText: method });
const viewer = (): Locator => page.locator('#replay');
const image = (): Locator => page.locator('#replay-image');

/** The JSON-RPC status of the closed session's stream, as the service answers it now. */
async function streamStatus(id: string): Promise<number> {
  const res = await fetch(`${suite.service.url}/sessions/${id}/events?since=0&kinds=action`, {
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
    signal: AbortSignal.timeout(SHOW_TIMEOUT_MS),
  });
  await res.body?.cancel();
  return res.status;
}

describe('the replay viewer', () => {
  it('opens the picture of an action and steps through the pictured actions with the buttons and ←/→', async () => {
    await select(recorded);
    for (const method of ['page.goto', 'page.fill', 'page.click'])
      await pw(actionRow(method).locator('button.event-picture')).toBeVisible({ timeout: SHOW_TIMEOUT_MS });

    const fillPicture = actionRow('page.fill').locator('button.event-picture');
    await fillPicture.click();
    await pw(viewer()).toBeVisible();
    await pw(page.locator('#replay-method')).toHaveText('page.fill');
    await pw(page.locator('#replay-target')).toHaveText('#name');
    await pw(page.locator('#replay-outcome')).toHaveText('✓');
    await pw(page.locator('#replay-position')).toHaveText('picture 2 of 3');
    await pw(image()).toHaveAttribute('src', /^data:image\/jpeg;base64,\/9j\//, { timeout: SHOW_TIMEOUT_MS });
    const fillSrc = (await image().getAttribute('src')) ?? '';

    await page.locator('#replay-next').click();
    await pw(page.locator('#replay-method')).toHaveText('page.click');
    await pw(page.locator('#replay-position')).toHaveText('picture 3 of 3');
    await pw(image()).toHaveAttribute('src', /^data:image\/jpeg;base64,/, { timeout: SHOW_TIMEOUT_MS });
    await pw(image()).not.toHaveAttribute('src', fillSrc, { timeout: SHOW_TIMEOUT_MS });
    await pw(page.locator('#replay-next')).toBeDisabled();
    // The last one: the focus left the disabled Next for Previous, and the keys still step.
    await pw(page.locator('#replay-prev')).toBeFocused();
    await page.locator('#replay').screenshot({ path: SHOT });

    await page.locator('#replay-prev').click();
    await pw(page.locator('#replay-method')).toHaveText('page.fill');
    await pw(image()).toHaveAttribute('src', fillSrc, { timeout: SHOW_TIMEOUT_MS });

    await page.keyboard.press('ArrowLeft');
    await pw(page.locator('#replay-method')).toHaveText('page.goto');
    await pw(page.locator('#replay-position')).toHaveText('picture 1 of 3');
    await pw(page.locator('#replay-prev')).toBeDisabled();
    await page.keyboard.press('ArrowRight');
    await pw(page.locator('#replay-method')).toHaveText('page.fill');
    await pw(image()).toHaveAttribute('src', fillSrc, { timeout: SHOW_TIMEOUT_MS });

    // Esc closes it, and the focus goes back to the control that opened it.
    await page.keyboard.press('Escape');
    await pw(viewer()).toBeHidden();
    await pw(fillPicture).toBeFocused();
  });

  it('shows no picture control for a session without replay', async () => {
    await select(plain);
    await pw(actionRow('page.click')).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
    await pw(actionRow('page.goto')).toBeVisible();
    await pw(page.locator('#event-list button.event-picture')).toHaveCount(0);
  });
});

describe('a session that closed', () => {
  it('stays in the list as closed, with its timeline and its pictures, and no live view', async () => {
    await select(recorded);
    await pw(actionRow('page.click')).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
    await suite.service.call('session.close', { session_id: recorded });

    const row = sessionRow(recorded);
    await pw(row).toHaveClass(/\bclosed\b/, { timeout: LIST_TIMEOUT_MS });
    await pw(row.locator('.closed-badge')).toHaveText('closed');
    await pw(row).toHaveClass(/\bselected\b/);
    await pw(page.locator('#event-list li.note')).toContainText('The stream ended (closed).');
    await pw(page.locator('#live-closed')).toBeVisible();
    await pw(page.locator('#live-closed')).toContainText('The session closed');
    await pw(page.locator('#live-screen')).toBeHidden();

    // Selected again, its timeline is read from the start (since=0), to its end.
    await select(plain);
    await pw(page.locator('#live-closed')).toBeHidden();
    await select(recorded);
    await pw(page.locator('#live-closed')).toBeVisible();
    for (const method of ['page.goto', 'page.fill', 'page.click'])
      await pw(actionRow(method)).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
    await pw(page.locator('#event-list li.note')).toContainText('The stream ended (closed).');
    await pw(page.locator('#events-status')).toHaveText('Ended');
    await page.locator('main').screenshot({ path: join(tmpdir(), 'console-replay-closed.png') });

    await actionRow('page.click').locator('button.event-picture').click();
    await pw(page.locator('#replay-method')).toHaveText('page.click');
    await pw(image()).toHaveAttribute('src', /^data:image\/jpeg;base64,\/9j\//, { timeout: SHOW_TIMEOUT_MS });
    await page.locator('#replay-prev').click();
    await pw(page.locator('#replay-method')).toHaveText('page.fill');
    await pw(image()).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
  });

  it('past REPLAY_KEEP_MS: the viewer says the picture is gone, and the row goes when selected', async () => {
    await pw.poll(() => streamStatus(recorded), { timeout: KEEP_MS * 3, intervals: [1000] }).toBe(404);
    // The viewer is still open on the closed session: the next step finds nothing.
    await page.keyboard.press('ArrowRight');
    await pw(page.locator('#replay-method')).toHaveText('page.click');
    await pw(page.locator('#replay-message')).toContainText("The session's pictures are gone", {
      timeout: SHOW_TIMEOUT_MS,
    });
    await pw(image()).toBeHidden();
    await page.locator('#replay-close').click();
    await pw(viewer()).toBeHidden();

    await select(plain);
    await sessionRow(recorded).locator('button.pick').click();
    await pw(sessionRow(recorded)).toHaveCount(0, { timeout: SHOW_TIMEOUT_MS });
    await pw(page.locator('#notice')).toContainText('no longer kept by the service');
  }, 120_000);
});
