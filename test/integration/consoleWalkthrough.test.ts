// The console as a debugger for agents, walked through as a person would, in a real browser against
// the real service and the fixture shop: an agent searches the shop over POST /rpc while the person
// watches /ui/; each of the agent's calls shows as an action row; the page is read at full size and
// taken over (a click on a result, sent as the key's page.mouse); the person saves the session as a
// Playwright test, which passes against the shop; after the agent closes the session the person
// steps through it action by action, a picture each.
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlaywrightSpec } from '../helpers/playwrightSpec.js';
import { launchDriverBrowser, openConsole } from '../helpers/driverBrowser.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';
import { waitFor } from '../helpers/testService.js';

/** How long a row, a frame or a picture may take to show: the service pushes at once; a slow machine. */
const SHOW_TIMEOUT_MS = 20_000;
/** The session list is read every 3 s: a closed row shows at the next read. */
const LIST_TIMEOUT_MS = 10_000;
/** Inside the repository, so the spec resolves @playwright/test from its node_modules. */
const runs = join(process.cwd(), 'test', '.export-runs', 'walkthrough');

// The operator records every session for replay, so an agent's sessions can be stepped through.
const suite = useServiceSuite({ REPLAY: 'true', REPLAY_KEEP_MS: '120000' });
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agent: string;

beforeAll(async () => {
  browser = await launchDriverBrowser();
  ({ context, page } = await openConsole(browser, suite.service.url, { acceptDownloads: true }));
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  rmSync(runs, { recursive: true, force: true });
});

const actionRows = (): Locator => page.locator('#event-list li.event[data-kind="action"]');

/** One call of the agent; the person sees it as a new action row. */
async function agentCall<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  const before = await actionRows().count();
  const result = await suite.service.call<T>(method, { session_id: agent, ...params });
  await pw(actionRows()).toHaveCount(before + 1, { timeout: SHOW_TIMEOUT_MS });
  await pw(actionRows().last()).toContainText(method);
  return result;
}

describe('watching an agent in the console', () => {
  it('shows each call, reads the page at full size, takes over, exports a passing test and replays it after close', async () => {
    // The agent opens a session; the person selects it as it appears.
    agent = (await suite.service.call<{ session_id: string }>('session.create', {})).session_id;
    await page
      .locator(`li.session[data-session-id="${agent}"] button.pick`)
      .click({ timeout: LIST_TIMEOUT_MS });
    await pw(page.locator(`li.session.selected[data-session-id="${agent}"]`)).toBeVisible();

    // The agent searches the shop.
    await agentCall('page.goto', { url: `${suite.fixture.url}/tasks/shop?run=walkthrough` });
    const { snapshot } = await agentCall<{ snapshot: string }>('page.snapshot');
    await agentCall('page.fill', { ref: refOf(snapshot, /textbox "Search products"/), value: 'kettle' });
    await agentCall('page.click', { ref: refOf(snapshot, /button "Search"/) });
    const heading = await agentCall<{ text: string }>('page.text', { selector: 'h2' });
    expect(heading.text).toContain('3 results');

    // The person reads the page at its own size.
    const img = page.locator('#live-frame');
    await pw(img).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
    await page.locator('button[data-zoom="1"]').click();
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth), { timeout: SHOW_TIMEOUT_MS })
      .toBe(1280);
    await pw(page.locator('#live-url')).toHaveText(/\/tasks\/shop\?q=kettle/, { timeout: SHOW_TIMEOUT_MS });

    // … and takes over: a click on the first result, where the page shows it.
    await page.locator('button[data-zoom="fit"]').click();
    await pw(img).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
    await page.locator('#live-drive').click();
    await pw(page.locator('#live-driving')).toBeVisible();
    const { result: box } = await suite.service.call<{ result: { x: number; y: number } }>('page.evaluate', {
      session_id: agent,
      expression: `(() => { const r = document.querySelector('ul[aria-label="Results"] a').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    });
    // The stream pushes the evaluate's row after its answer: count once it is shown.
    await pw(actionRows().last()).toContainText('page.evaluate', { timeout: SHOW_TIMEOUT_MS });
    const rowsBefore = await actionRows().count();
    const rect = await img.boundingBox();
    if (rect === null) throw new Error('the frame is not shown');
    const pageWidth = Number(await img.getAttribute('data-page-width'));
    const pageHeight = Number(await img.getAttribute('data-page-height'));
    await page.mouse.click(
      rect.x + (box.x / pageWidth) * rect.width,
      rect.y + (box.y / pageHeight) * rect.height,
    );
    await pw(page.locator('#live-url')).toHaveText(/q=Steel/, { timeout: SHOW_TIMEOUT_MS });
    // The person's click is the key's own page.mouse call, in the timeline like the agent's.
    await pw(actionRows()).toHaveCount(rowsBefore + 1, { timeout: SHOW_TIMEOUT_MS });
    await pw(actionRows().last()).toContainText('page.mouse');
    await page.locator('#live-drive').click();

    // The agent reads what the person opened.
    const opened = await agentCall<{ text: string }>('page.text', { selector: 'h2' });
    expect(opened.text).toContain('1 results');

    // The person saves the session as a Playwright test: it passes against the shop.
    const [file] = await Promise.all([
      page.waitForEvent('download', { timeout: SHOW_TIMEOUT_MS }),
      page.locator('#export-test').click(),
    ]);
    const code = await readFile(await file.path(), 'utf8');
    expect(code).toContain("getByRole('textbox', { name: 'Search products', exact: true }).fill('kettle')");
    expect(code).toContain('page.mouse.click(');
    const run = await runPlaywrightSpec(join(runs, 'shop'), code);
    expect(run.out).toContain('1 passed');
    expect(run.code).toBe(0);

    // The agent closes the session; the person steps through it, a picture for each action that changed the page.
    const pictured = await actionRows()
      .filter({ has: page.locator('button.event-picture') })
      .count();
    expect(pictured).toBeGreaterThanOrEqual(4);
    await suite.service.call('session.close', { session_id: agent });
    await pw(page.locator(`li.session.closed[data-session-id="${agent}"]`)).toBeVisible({
      timeout: LIST_TIMEOUT_MS,
    });
    await actionRows().first().locator('button.event-picture').click();
    await pw(page.locator('#replay')).toBeVisible();
    const seen = new Set<string>();
    for (let i = 1; i <= pictured; i++) {
      await pw(page.locator('#replay-position')).toHaveText(`picture ${i} of ${pictured}`);
      await pw(page.locator('#replay-image')).toHaveAttribute('src', /^data:image\/jpeg;base64,/, {
        timeout: SHOW_TIMEOUT_MS,
      });
      seen.add((await page.locator('#replay-method').textContent()) ?? '');
      if (i < pictured) await page.keyboard.press('ArrowRight');
    }
    expect([...seen]).toEqual(expect.arrayContaining(['page.goto', 'page.fill', 'page.click', 'page.mouse']));
    await waitFor(() => page.locator('#replay-next').isDisabled(), SHOW_TIMEOUT_MS, 'the last picture');
    await page.keyboard.press('Escape');
  });
});
