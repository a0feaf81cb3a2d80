// The console's live view in a real browser against the real service and the fixture app: the
// page's URL above the frame, zoom to the page's own size, and take-over (clicks and keys on the
// frame become the key's page.mouse and page.keyboard calls, recorded as actions); what must not be
// sent (take-over off, a click beside the image, a closed session).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENCAST_FULL_MAX_WIDTH } from '../../src/browser/artifacts/screencast.js';
import { launchDriverBrowser } from '../helpers/driverBrowser.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

/** Where the screenshots of the view go, to be looked at (not compared). */
const SHOTS_DIR = path.join(process.env.LIVE_VIEW_SHOTS ?? 'test-results', 'live-view');
/** How long the frame, a URL or a page change may take to show: generous for a loaded machine. */
const SHOW_TIMEOUT_MS = 20_000;

const suite = useServiceSuite();
let browser: Browser;
let context: BrowserContext;
let page: Page;
let sessionId = '';

async function text(): Promise<string> {
  return (await suite.service.call<{ text: string }>('page.text', { session_id: sessionId })).text;
}

/** The action entries of the session, from its start (GET /sessions/{id}/events?since=0&kinds=action). */
async function actions(): Promise<{ method: string; params: string }[]> {
  const abort = new AbortController();
  const res = await fetch(`${suite.service.url}/sessions/${sessionId}/events?since=0&kinds=action`, {
    headers: { 'x-api-key': TEST_API_KEY },
    signal: abort.signal,
  });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let body = '';
  // The stream stays open: read what it replays until it pauses, then let go.
  for (;;) {
    const chunk = await Promise.race([
      reader?.read(),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)),
    ]);
    if (chunk === undefined || chunk.done) break;
    body += decoder.decode(chunk.value, { stream: true });
  }
  abort.abort();
  return body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as { kind: string; method: string; params: string })
    .filter((e) => e.kind === 'action');
}

async function mouseActions(): Promise<number> {
  return (await actions()).filter((a) => a.method === 'page.mouse').length;
}

/** The viewport box (CSS pixels) of an element of the session's page. */
async function boxOf(selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const { result } = await suite.service.call<{
    result: { x: number; y: number; width: number; height: number };
  }>('page.evaluate', {
    session_id: sessionId,
    expression: `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; })()`,
  });
  return result;
}

/** Clicks the frame where the session's page shows the element (its centre, mapped to the image). */
async function clickOnFrame(selector: string): Promise<void> {
  const box = await boxOf(selector);
  const img = page.locator('#live-frame');
  const pageWidth = Number(await img.getAttribute('data-page-width'));
  const pageHeight = Number(await img.getAttribute('data-page-height'));
  await img.scrollIntoViewIfNeeded();
  const rect = await img.boundingBox();
  if (rect === null) throw new Error('the frame is not shown');
  await page.mouse.click(
    rect.x + ((box.x + box.width / 2) / pageWidth) * rect.width,
    rect.y + ((box.y + box.height / 2) / pageHeight) * rect.height,
  );
}

async function sent(): Promise<number> {
  return Number((await page.locator('#live-screen').getAttribute('data-sent')) ?? '0');
}

async function shot(name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`) });
}

beforeAll(async () => {
  browser = await launchDriverBrowser();
  context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  sessionId = await suite.open('/idem/counter');
  await page.goto(`${suite.service.url}/ui/`);
  await page.locator('#key-input').fill(TEST_API_KEY);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator(`li.session[data-session-id="${sessionId}"] .pick`).click();
  await page.locator('#live-frame').waitFor({ state: 'visible', timeout: SHOW_TIMEOUT_MS });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
});

describe('the live view', () => {
  it("shows the selected session's URL and follows a page.goto", async () => {
    const url = page.locator('#live-url');
    await expect
      .poll(() => url.textContent(), { timeout: SHOW_TIMEOUT_MS })
      .toBe(`${suite.fixture.url}/idem/counter`);
    expect(await page.locator('#goto-url').inputValue()).toBe(`${suite.fixture.url}/idem/counter`);
    await suite.service.call('page.goto', { session_id: sessionId, url: `${suite.fixture.url}/keys` });
    await expect
      .poll(() => url.textContent(), { timeout: SHOW_TIMEOUT_MS })
      .toBe(`${suite.fixture.url}/keys`);
    await suite.service.call('page.goto', {
      session_id: sessionId,
      url: `${suite.fixture.url}/idem/counter`,
    });
    await expect
      .poll(() => url.textContent(), { timeout: SHOW_TIMEOUT_MS })
      .toBe(`${suite.fixture.url}/idem/counter`);
  });

  it("keeps the small box's frames small, and zoomed to 100 % shows the page at its own width", async () => {
    const img = page.locator('#live-frame');
    const natural = () => img.evaluate((el: HTMLImageElement) => el.naturalWidth);
    expect(await natural()).toBeLessThanOrEqual(1024);
    await page.locator('button[data-zoom="1"]').click();
    expect(await page.locator('button[data-zoom="1"]').getAttribute('aria-pressed')).toBe('true');
    const pageWidth = Number(await img.getAttribute('data-page-width'));
    expect(pageWidth).toBe(1280);
    await expect
      .poll(natural, { timeout: SHOW_TIMEOUT_MS })
      .toBe(Math.min(pageWidth, SCREENCAST_FULL_MAX_WIDTH));
    // Shown at the page's CSS pixels: the box scrolls instead of shrinking it.
    expect((await img.boundingBox())?.width).toBeCloseTo(pageWidth, 0);
    await shot('zoomed-100');
  });

  it('goes full screen and back, with full-size frames only while it is', async () => {
    await page.locator('button[data-zoom="fit"]').click();
    const section = page.locator('#live-section');
    await expect.poll(() => section.getAttribute('data-size'), { timeout: SHOW_TIMEOUT_MS }).toBe('fit');
    const toggle = page.locator('#live-fullscreen');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed'), { timeout: SHOW_TIMEOUT_MS }).toBe('true');
    await expect.poll(() => section.getAttribute('data-size'), { timeout: SHOW_TIMEOUT_MS }).toBe('full');
    await expect
      .poll(() => page.locator('#live-frame').evaluate((el: HTMLImageElement) => el.naturalWidth), {
        timeout: SHOW_TIMEOUT_MS,
      })
      .toBe(1280);
    await shot('full-screen');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed'), { timeout: SHOW_TIMEOUT_MS }).toBe('false');
    await expect.poll(() => section.getAttribute('data-size'), { timeout: SHOW_TIMEOUT_MS }).toBe('fit');
    await page.locator('button[data-zoom="1"]').click();
  });

  it('sends nothing while take-over is off, then a click on the frame clicks the page as page.mouse', async () => {
    expect(await page.locator('#live-drive').getAttribute('aria-pressed')).toBe('false');
    await clickOnFrame('#inc');
    expect(await sent()).toBe(0);
    await page.locator('#live-drive').click();
    expect(await page.locator('#live-drive').getAttribute('aria-pressed')).toBe('true');
    await expect(page.locator('#live-driving').textContent()).resolves.toContain('You are driving');
    expect(await page.locator('#live-driving').isVisible()).toBe(true);
    await clickOnFrame('#inc');
    await waitFor(async () => (await text()).includes('Count: 1'), SHOW_TIMEOUT_MS, 'the count at 1');
    await expect.poll(mouseActions, { timeout: SHOW_TIMEOUT_MS }).toBe(1);
    // The click while off sent nothing: one call, one count.
    expect(await sent()).toBe(1);
    expect(await text()).toContain('Count: 1');
    await shot('driving');
  });

  it('ignores a click beside the image, and sends a click on it', async () => {
    await page.locator('button[data-zoom="fit"]').click();
    // Back to fit, the stream goes back to small frames: the image shows again with the first one.
    await page.locator('#live-frame').waitFor({ state: 'visible', timeout: SHOW_TIMEOUT_MS });
    const screen = await page.locator('#live-screen').boundingBox();
    const img = await page.locator('#live-frame').boundingBox();
    if (screen === null || img === null) throw new Error('the view is not shown');
    // The box's padding around the image, beside its left edge.
    await page.mouse.click(screen.x + (img.x - screen.x) / 2, img.y + img.height / 2);
    await clickOnFrame('#inc');
    await waitFor(async () => (await text()).includes('Count: 2'), SHOW_TIMEOUT_MS, 'the count at 2');
    // The console counts a call once its answer is back, which can be after the page changed.
    await expect.poll(sent, { timeout: SHOW_TIMEOUT_MS }).toBe(2);
    await expect.poll(mouseActions, { timeout: SHOW_TIMEOUT_MS }).toBe(2);
  });

  it('types into a field through the frame as page.keyboard', async () => {
    await suite.service.call('page.goto', { session_id: sessionId, url: `${suite.fixture.url}/keys` });
    await expect
      .poll(() => page.locator('#live-url').textContent(), { timeout: SHOW_TIMEOUT_MS })
      .toBe(`${suite.fixture.url}/keys`);
    await expect
      .poll(() => page.locator('#live-frame').getAttribute('data-page-width'), { timeout: SHOW_TIMEOUT_MS })
      .toBe('1280');
    const before = await sent();
    await clickOnFrame('#second');
    await expect.poll(sent, { timeout: SHOW_TIMEOUT_MS }).toBe(before + 1);
    await page.locator('#live-screen').focus();
    await page.keyboard.type('hi');
    await page.keyboard.press('Enter');
    await waitFor(
      async () => {
        const { result } = await suite.service.call<{ result: string }>('page.evaluate', {
          session_id: sessionId,
          expression: `document.querySelector('#second').value`,
        });
        return result === 'hi';
      },
      SHOW_TIMEOUT_MS,
      'the field to hold what was typed',
    );
    await waitFor(async () => (await text()).includes('keydown Enter'), SHOW_TIMEOUT_MS, 'Enter pressed');
    const keyboard = (await actions()).filter((a) => a.method === 'page.keyboard');
    const recorded = keyboard.map((a) => a.params).join(' ');
    expect(recorded).toMatch(/type/);
    expect(recorded).toMatch(/Enter/);
    // Typed text is masked in the timeline, as for any caller's page.keyboard type.
    expect(recorded).not.toMatch(/"hi"/);
  });

  it('double clicks and scrolls the wheel through the frame as page.mouse', async () => {
    await suite.service.call('page.goto', { session_id: sessionId, url: `${suite.fixture.url}/pointer-pad` });
    await expect
      .poll(() => page.locator('#live-url').textContent(), { timeout: SHOW_TIMEOUT_MS })
      .toBe(`${suite.fixture.url}/pointer-pad`);
    const padLog = async (): Promise<string> => {
      const { result } = await suite.service.call<{ result: string }>('page.evaluate', {
        session_id: sessionId,
        expression: `document.getElementById('log').textContent`,
      });
      return result;
    };
    const img = page.locator('#live-frame');
    await img.scrollIntoViewIfNeeded();
    const rect = await img.boundingBox();
    if (rect === null) throw new Error('the frame is not shown');
    const centre = { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
    await page.mouse.dblclick(centre.x, centre.y);
    await waitFor(
      async () => (await padLog()).includes('dblclick'),
      SHOW_TIMEOUT_MS,
      'a dblclick on the pad',
    );
    await page.mouse.move(centre.x, centre.y);
    await page.mouse.wheel(0, 240);
    await waitFor(
      async () => /wheel \d+ \d+ 0 [1-9]/.test(await padLog()),
      SHOW_TIMEOUT_MS,
      'a wheel on the pad',
    );
    const mouse = (await actions()).filter((a) => a.method === 'page.mouse').map((a) => a.params);
    expect(mouse.some((p) => p.includes('"dblclick"'))).toBe(true);
    expect(mouse.some((p) => p.includes('"wheel"'))).toBe(true);
  });

  it('stops driving when the session closes, and sends nothing after', async () => {
    await suite.service.call('session.close', { session_id: sessionId });
    await expect
      .poll(() => page.locator('#live-drive').getAttribute('aria-pressed'), { timeout: SHOW_TIMEOUT_MS })
      .toBe('false');
    expect(await page.locator('#live-driving').isVisible()).toBe(false);
    await expect
      .poll(() => page.locator('#live-status').textContent(), { timeout: SHOW_TIMEOUT_MS })
      .toMatch(/ended|gone|Select a session/);
    const before = await sent();
    const img = page.locator('#live-frame');
    if (await img.isVisible()) await img.click();
    expect(await sent()).toBe(before);
  });
});
