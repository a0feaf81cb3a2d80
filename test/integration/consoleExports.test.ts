// The console's exports, in a real browser against the real service: for an agent's session
// recorded for replay, the Events panel's Test, Trace and Video buttons save session.export's spec,
// replay.trace's zip and replay.video's WebM as files; after the session closed, Trace still saves
// and Test says why it cannot (the test export needs the open session). With no session selected
// the buttons are disabled.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFfmpeg } from '../../src/browser/artifacts/replayVideo.js';
import { launchDriverBrowser } from '../helpers/driverBrowser.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** How long a row, a download or a notice may take: the calls answer at once, this bounds a slow machine. */
const SHOW_TIMEOUT_MS = 20_000;
/** The session list is read every 3 s: a closed row shows at the next read. */
const LIST_TIMEOUT_MS = 10_000;
const SHOT = join(tmpdir(), 'console-exports.png');

const suite = useServiceSuite({ REPLAY_KEEP_MS: '120000' });
let browser: Browser;
let context: BrowserContext;
let page: Page;
let recorded: string;

beforeAll(async () => {
  browser = await launchDriverBrowser();
  const created = await suite.service.call<{ session_id: string }>('session.create', { replay: true });
  recorded = created.session_id;
  const call = (method: string, params: Record<string, unknown>) =>
    suite.service.call(method, { session_id: recorded, ...params });
  await call('page.goto', { url: `${suite.fixture.url}/form`, waitUntil: 'load' });
  await call('page.fill', { selector: '#name', value: 'Ada' });
  await call('page.click', { selector: '#greet' });
  context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
  page = await context.newPage();
  await page.goto(`${suite.service.url}/ui/`);
  await page.locator('#key-input').fill(TEST_API_KEY);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#console').waitFor({ state: 'visible' });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
});

/** Clicks an export button and answers the file the browser saved. */
async function download(buttonId: string): Promise<{ name: string; data: Buffer }> {
  const [file] = await Promise.all([
    page.waitForEvent('download', { timeout: SHOW_TIMEOUT_MS }),
    page.locator(`#${buttonId}`).click(),
  ]);
  const path = await file.path();
  return { name: file.suggestedFilename(), data: readFileSync(path) };
}

async function select(id: string): Promise<void> {
  await page.locator(`li.session[data-session-id="${id}"] button.pick`).click();
  await pw(page.locator(`li.session.selected[data-session-id="${id}"]`)).toBeVisible();
}

describe('the console exports', () => {
  it('saves the open session as a Playwright test, a trace and a video', async () => {
    await select(recorded);
    await pw(page.locator('#event-list li.event[data-kind="action"]').first()).toBeVisible({
      timeout: SHOW_TIMEOUT_MS,
    });
    const spec = await download('export-test');
    expect(spec.name).toBe('agent-session.spec.ts');
    expect(spec.data.toString()).toContain(`await page.goto('${suite.fixture.url}/form');`);
    expect(spec.data.toString()).toContain(".fill('Ada');");
    await pw(page.locator('#notice')).toContainText('Saved agent-session.spec.ts');

    const trace = await download('export-trace');
    expect(trace.name).toBe(`session-${recorded}.trace.zip`);
    expect(trace.data.subarray(0, 4).toString('hex')).toBe('504b0304');
    await page.locator('section.events').screenshot({ path: SHOT });

    if (findFfmpeg(undefined) !== undefined) {
      const video = await download('export-video');
      expect(video.name).toBe(`session-${recorded}.webm`);
      expect(video.data.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    }
  });

  it('after the session closed, saves its trace and says why the test cannot be exported', async () => {
    await suite.service.call('session.close', { session_id: recorded });
    await pw(page.locator(`li.session.closed[data-session-id="${recorded}"]`)).toBeVisible({
      timeout: LIST_TIMEOUT_MS,
    });
    await select(recorded);
    const trace = await download('export-trace');
    expect(trace.data.subarray(0, 4).toString('hex')).toBe('504b0304');
    await page.locator('#export-test').click();
    await pw(page.locator('#notice')).toContainText('session.export:', { timeout: SHOW_TIMEOUT_MS });
    await pw(page.locator('#notice')).toHaveAttribute('data-kind', 'error');
    await pw(page.locator('#export-test')).toBeEnabled();
  });

  it('disables the buttons once no session is selected', async () => {
    // The × forgets a closed row; with it the selection goes.
    await page.locator(`li.session[data-session-id="${recorded}"] button.forget`).click();
    for (const id of ['export-trace', 'export-video', 'export-test'])
      await pw(page.locator(`#${id}`)).toBeDisabled();
  });
});
