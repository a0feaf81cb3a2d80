// The console's events panel as an action timeline, in a real browser against the real service: an
// agent's calls over POST /rpc appear as action rows from the session's start (?since=0), filtered
// by kind, opened to their masked params; and the small things around it (session times, the
// favicon, a screenshot's answer as the picture).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchDriverBrowser, openConsole } from '../helpers/driverBrowser.js';
import { useServiceSuite } from '../helpers/suite.js';

/** How long a row may take to appear: the stream pushes at once, this only bounds a slow machine. */
const ROW_TIMEOUT_MS = 15_000;
const TYPED = 'Ada Lovelace typed';
/** Where the panel's screenshots go, to be looked at (not compared). */
const SHOTS = tmpdir();

const suite = useServiceSuite();
let browser: Browser;
let context: BrowserContext;
let page: Page;
let sessionId: string;
/** The JSON-RPC error code of the call that failed on purpose. */
let failedCode: number;

beforeAll(async () => {
  browser = await launchDriverBrowser();
  // An agent's calls, over POST /rpc, before anyone watches.
  sessionId = await suite.open('/form');
  const call = (method: string, params: Record<string, unknown>) =>
    suite.service.call(method, { session_id: sessionId, ...params });
  await call('page.fill', { selector: '#name', value: TYPED });
  await call('page.click', { selector: '#greet' });
  const failed = await suite.service.rpc('page.click', {
    session_id: sessionId,
    selector: '#no-such-button',
    timeout: 300,
  });
  if (failed.error === undefined) throw new Error('the click on a missing element succeeded');
  failedCode = failed.error.code;
  ({ context, page } = await openConsole(browser, suite.service.url));
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
});

async function selectAgentSession(): Promise<void> {
  await page.locator(`li.session[data-session-id="${sessionId}"] button.pick`).click();
  await pw(page.locator(`li.session.selected[data-session-id="${sessionId}"]`)).toBeVisible();
}

const actionRow = (method: string): Locator =>
  page.locator('#event-list li.event[data-kind="action"]').filter({ hasText: method });

describe('the events panel as an action timeline', () => {
  it("shows every call an agent made before the console opened, from the session's start", async () => {
    await selectAgentSession();
    for (const method of ['page.goto', 'page.fill', 'page.click'])
      await pw(actionRow(method).first()).toBeVisible({ timeout: ROW_TIMEOUT_MS });
    // The fill's row names its selector, its duration and its outcome.
    await pw(actionRow('page.fill')).toContainText('#name');
    await pw(actionRow('page.fill')).toContainText(/\d+ ms {2}✓/);
    // Typed text is never shown, not even in the row's data.
    expect(await page.locator('#event-list').textContent()).not.toContain(TYPED);
  });

  it('shows a failed call in red with its error code', async () => {
    const failed = page.locator('#event-list li.event.bad[data-kind="action"]').filter({
      hasText: '#no-such-button',
    });
    await pw(failed).toBeVisible({ timeout: ROW_TIMEOUT_MS });
    await pw(failed).toContainText(`✗ ${failedCode}`);
    await pw(failed.locator('.summary')).toHaveCSS('color', 'rgb(180, 35, 24)');
  });

  it('filters by kind: "actions" hides the network rows, rows shown and rows to come', async () => {
    const network = page.locator('#event-list li.event[data-group="network"]');
    await pw(network.first()).toBeVisible({ timeout: ROW_TIMEOUT_MS });
    await page.locator('#event-filter').selectOption('actions');
    await pw(network.first()).toBeHidden();
    await pw(actionRow('page.fill')).toBeVisible();
    // A call made now: its action row shows, its requests do not.
    await suite.service.call('page.goto', {
      session_id: sessionId,
      url: `${suite.fixture.url}/projects`,
      waitUntil: 'load',
    });
    await pw(actionRow('/projects')).toBeVisible({ timeout: ROW_TIMEOUT_MS });
    await pw(network.filter({ hasText: '/projects' }).first()).toBeAttached();
    await pw(network.filter({ hasText: '/projects' }).first()).toBeHidden();
    await page.locator('#event-filter').selectOption('errors');
    await pw(actionRow('page.fill')).toBeHidden();
    await pw(page.locator('#event-list li.event.bad[data-kind="action"]')).toBeVisible();
    await page.locator('#event-filter').selectOption('all');
    await pw(network.first()).toBeVisible();
  });

  it('opens a row on click or Enter to show its fields, params parsed and typed text masked', async () => {
    const fill = actionRow('page.fill');
    const head = fill.locator('button.event-head');
    await pw(head).toHaveAttribute('aria-expanded', 'false');
    await head.click();
    await pw(head).toHaveAttribute('aria-expanded', 'true');
    const detail = fill.locator('.event-detail');
    await pw(detail).toBeVisible();
    await pw(detail).toContainText('"params": {');
    await pw(detail).toContainText('"selector": "#name"');
    await pw(detail).toContainText(`"value": "<${TYPED.length} chars>"`);
    await pw(detail).not.toContainText(TYPED);
    await fill.screenshot({ path: join(SHOTS, 'console-timeline-row.png') });
    // The keyboard opens and closes a row as well.
    const click = actionRow('page.click').first().locator('button.event-head');
    await click.focus();
    await page.keyboard.press('Enter');
    await pw(click).toHaveAttribute('aria-expanded', 'true');
    await pw(actionRow('page.click').first().locator('.event-detail')).toContainText('"durationMs"');
    await page.keyboard.press('Enter');
    await pw(click).toHaveAttribute('aria-expanded', 'false');
    await page.locator('section.events').screenshot({ path: join(SHOTS, 'console-timeline.png') });
  });

  it('shows the same history after the page is opened again (since=0)', async () => {
    const before = await page.locator('#event-list li.event[data-kind="action"]').count();
    await page.reload();
    await page.locator('#console').waitFor({ state: 'visible' });
    await selectAgentSession();
    await pw(page.locator('#event-list li.event[data-kind="action"]')).toHaveCount(before, {
      timeout: ROW_TIMEOUT_MS,
    });
    await pw(actionRow('page.fill')).toBeVisible();
  });

  it('says the session is gone when its stream answers 404', async () => {
    // What the status line says, every change of it: the session list deselects an unknown id at
    // its next read, so the line's history is what is checked.
    await page.evaluate(() => {
      const seen: string[] = [];
      Object.assign(window, { statusSeen: seen });
      const el = document.getElementById('events-status');
      if (el === null) throw new Error('no #events-status');
      new MutationObserver(() => seen.push(el.textContent ?? '')).observe(el, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    // The console's own module (one instance per page): a string, so Vite does not rewrite the import.
    await page.evaluate(
      "import('/ui/state.js').then((m) => m.selectSession('s_00000000-0000-4000-8000-000000000000'))",
    );
    await pw
      .poll(() => page.evaluate(() => (window as unknown as { statusSeen: string[] }).statusSeen), {
        timeout: ROW_TIMEOUT_MS,
      })
      .toContain('The session is gone.');
    await selectAgentSession();
  });
});

describe('session rows', () => {
  it("show the session's age, idle time, time left and page count", async () => {
    const times = page.locator(`li.session[data-session-id="${sessionId}"] .times`);
    await pw(times).toHaveText(
      /^age \d+ (s|min) · idle \d+ (s|min) · closes in \d+ (s|min|h \d+ min) · 1 page$/,
    );
  });
});

describe('small things', () => {
  it('answers /favicon.ico without the key: no 401, no refusal logged', async () => {
    const res = await fetch(`${suite.service.url}/favicon.ico`);
    expect(res.status).toBe(204);
    expect(suite.service.logs.join('').includes('/favicon.ico')).toBe(false);
  });

  it("shows the screenshot method's answer as the picture", async () => {
    await selectAgentSession();
    await page.locator('#method-select').selectOption('screenshot');
    await pw(page.locator('#param-session_id')).toHaveValue(sessionId);
    await page.locator('#method-run').click();
    const img = page.locator('#method-image');
    await pw(img).toBeVisible({ timeout: ROW_TIMEOUT_MS });
    await pw(img).toHaveAttribute('src', /^data:image\/png;base64,iVBOR/);
    expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(100);
    await pw(page.locator('#method-result')).toContainText('base64 characters: the image above');
    await page.locator('section.methods').screenshot({ path: join(SHOTS, 'console-screenshot.png') });
    // Another method's answer hides the picture again.
    await page.locator('#method-select').selectOption('pages.list');
    await page.locator('#method-run').click();
    await pw(page.locator('#method-result')).toHaveAttribute('data-outcome', 'result');
    await pw(img).toBeHidden();
  });
});
