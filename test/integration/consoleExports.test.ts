// The console's exports, in a real browser against the real service: for an agent's session
// recorded for replay, the Events panel's Test, Trace and Video buttons save session.export's spec,
// replay.trace's zip and replay.video's WebM as files; after the session closed, Trace still saves
// and Test says why it cannot (the test export needs the open session). With no session selected
// the buttons are disabled. The replay viewer says so of a picture let go past MAX_REPLAY_BYTES.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFfmpeg } from '../../src/browser/artifacts/replayVideo.js';
import { launchDriverBrowser, openConsole } from '../helpers/driverBrowser.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** How long a row, a download or a notice may take: the calls answer at once, this bounds a slow machine. */
const SHOW_TIMEOUT_MS = 20_000;
/** The session list is read every 3 s: a closed row shows at the next read. */
const LIST_TIMEOUT_MS = 10_000;
const SHOT = join(tmpdir(), 'console-exports.png');

/** Room for a few pictures of a fixture page (tens of kB each): older ones are let go. */
const REPLAY_BYTES = 100_000;
/** Clicks enough to fill REPLAY_BYTES with pictures of a few kB at least. */
const MAX_FILL_CLICKS = 40;
const suite = useServiceSuite({ REPLAY_KEEP_MS: '120000', MAX_REPLAY_BYTES: String(REPLAY_BYTES) });
let browser: Browser;
let context: BrowserContext;
let page: Page;
let recorded: string;

beforeAll(async () => {
  browser = await launchDriverBrowser();
  recorded = await suite.recordForm();
  ({ context, page } = await openConsole(browser, suite.service.url, { acceptDownloads: true }));
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

/** The seq of a session's first action entry, read from its event stream. */
async function firstActionSeq(id: string): Promise<number> {
  const abort = new AbortController();
  const res = await fetch(`${suite.service.url}/sessions/${id}/events?since=0&kinds=action`, {
    headers: { 'x-api-key': TEST_API_KEY },
    signal: abort.signal,
  });
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error('no event stream');
  const decoder = new TextDecoder();
  let body = '';
  try {
    for (;;) {
      const line = body.split('\n').find((l) => l.startsWith('data: '));
      if (line !== undefined) return (JSON.parse(line.slice(6)) as { seq: number }).seq;
      const chunk = await reader.read();
      if (chunk.done) throw new Error('the stream ended without an action');
      body += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    abort.abort();
  }
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

  it('the replay viewer says a picture let go past MAX_REPLAY_BYTES is gone, and shows a kept one', async () => {
    const { session_id: s } = await suite.service.call<{ session_id: string }>('session.create', {
      replay: true,
    });
    await suite.service.call('page.goto', { session_id: s, url: `${suite.fixture.url}/idem/counter` });
    const seq = await firstActionSeq(s);
    const firstPicture = async (): Promise<number | undefined> =>
      (await suite.service.rpc('replay.picture', { session_id: s, seq })).error?.code;
    expect(await firstPicture()).toBeUndefined();
    // Clicks until the goto's picture has been let go.
    for (let i = 0; i < MAX_FILL_CLICKS && (await firstPicture()) === undefined; i++)
      await suite.service.call('page.click', { session_id: s, selector: '#inc' });
    expect(await firstPicture()).toBe(-32602);
    await select(s);
    const goto = page.locator('#event-list li.event[data-kind="action"]').filter({ hasText: 'page.goto' });
    await goto.locator('button.event-picture').click();
    await pw(page.locator('#replay-message')).toContainText('MAX_REPLAY_BYTES', { timeout: SHOW_TIMEOUT_MS });
    await pw(page.locator('#replay-image')).toBeHidden();
    // The newest is kept.
    await page.locator('#replay-close').click();
    const last = page
      .locator('#event-list li.event[data-kind="action"]')
      .filter({ hasText: 'page.click' })
      .last();
    await last.locator('button.event-picture').click();
    await pw(page.locator('#replay-image')).toHaveAttribute('src', /^data:image\/jpeg;base64,/, {
      timeout: SHOW_TIMEOUT_MS,
    });
    await page.locator('#replay-close').click();
  });

  it('disables the buttons once no session is selected', async () => {
    // The selected session closed with its row's ×: no session of the key is open, none is selected.
    await page.locator('li.session.selected button.close').click();
    await pw(page.locator('li.session.selected')).toHaveCount(0);
    for (const id of ['export-trace', 'export-video', 'export-test'])
      await pw(page.locator(`#${id}`)).toBeDisabled();
  });
});
