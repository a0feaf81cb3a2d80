// replay.trace: an agent's session on the fixture app, closed, exported as a Playwright trace that
// Playwright's own viewer opens (npx playwright show-trace, served on loopback and driven in a real
// Chromium): every call listed with its target, typed text masked, the failed call's error, the
// picture after a call in its After view, the console line and the requests. Another key's or an
// unknown session is SESSION_NOT_FOUND; a session without replay gives a trace without pictures.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayTraceResult } from '../../client/src/methods.generated.js';
import { launchDriverBrowser } from '../helpers/driverBrowser.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';
import { unzip } from '../helpers/unzip.js';
import { exportCall } from '../helpers/exportCalls.js';

const OTHER_KEY = 'replay-trace-other-key-0123456789';
const suite = useServiceSuite({ API_KEY: `${TEST_API_KEY},${OTHER_KEY}`, REPLAY_KEEP_MS: '120000' });
const dir = join(tmpdir(), `replay-trace-${process.pid}`);
/** Where the viewer's screenshot goes, to be looked at. */
const SHOT = join(tmpdir(), 'replay-trace-viewer.png');
/** show-trace starts its server in about a second; this bounds a slow machine. */
const VIEWER_START_MS = 60_000;
/** How long the viewer may take to load the trace and show a row. */
const SHOW_TIMEOUT_MS = 20_000;

let browser: Browser;
let viewer: ChildProcess | undefined;
beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  browser = await launchDriverBrowser();
});
afterAll(async () => {
  viewer?.kill('SIGTERM');
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `npx playwright show-trace` on a zip, on a free loopback port; answers its URL. */
async function showTrace(zip: string): Promise<string> {
  const cli = join(process.cwd(), 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawn(process.execPath, [cli, 'show-trace', '--host', '127.0.0.1', '--port', '0', zip], {
    // Playwright opens no desktop browser for a coding agent: the test drives its own.
    env: { ...process.env, CLAUDECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  viewer = child;
  let out = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`show-trace did not start: ${out}`)), VIEWER_START_MS);
    const read = (d: Buffer) => {
      out += d.toString();
      const url = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`show-trace exited ${code}: ${out}`)));
  });
}

describe('replay.trace', () => {
  it('exports a closed session as a trace that npx playwright show-trace opens', async () => {
    const { session_id: s } = await suite.service.call<{ session_id: string }>('session.create', {
      replay: true,
    });
    const call = <T>(method: string, params: Record<string, unknown> = {}) =>
      suite.service.call<T>(method, { session_id: s, ...params });
    await call('page.goto', { url: `${suite.fixture.url}/snapshot` });
    const { snapshot } = await call<{ snapshot: string }>('page.snapshot');
    await call('page.fill', { ref: refOf(snapshot, /textbox "Name"/), value: 'Grace Hopper' });
    await call('page.click', { ref: refOf(snapshot, /button "Greet"/) });
    const failed = await suite.service.rpc('page.click', {
      session_id: s,
      selector: '#missing',
      timeout: 200,
    });
    expect(failed.error?.code).toBeDefined();
    await call('page.goto', { url: `${suite.fixture.url}/events/all` });
    await call('page.click', { selector: '#log' });
    await call('session.close');

    const trace = (await exportCall(suite.service, 'replay.trace', { session_id: s }))
      .result as unknown as ReplayTraceResult;
    expect(trace.filename).toBe(`session-${s}.trace.zip`);
    expect(trace.actions).toBe(7);
    expect(trace.pictures).toBeGreaterThanOrEqual(4);
    expect(trace.requests).toBeGreaterThanOrEqual(2);
    const zip = Buffer.from(trace.base64, 'base64');
    expect(zip.length).toBe(trace.bytes);
    expect(zip.subarray(0, 4).toString('hex')).toBe('504b0304');
    // The typed text is masked in the trace as in the timeline.
    expect(zip.includes('Grace Hopper')).toBe(false);
    const file = join(dir, trace.filename);
    writeFileSync(file, zip);

    const url = await showTrace(file);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(url);
      const rows = page.getByRole('treeitem');
      await pw(rows.first()).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
      await pw(rows).toHaveCount(7);
      await pw(rows.nth(2)).toContainText('page.fill textbox "Name"');
      await pw(rows.nth(3)).toContainText('page.click button "Greet"');
      await pw(rows.nth(4)).toContainText('page.click #missing');

      // The fill: its params masked, the picture after it in the After view.
      await rows.nth(2).click();
      await page.getByRole('tab', { name: 'Call' }).click();
      await pw(page.locator('.call-tab')).toContainText('<12 chars>');
      await page.getByRole('tab', { name: 'After' }).click();
      const shown = page.frameLocator('iframe.snapshot-visible').locator('img');
      await pw(shown).toBeVisible({ timeout: SHOW_TIMEOUT_MS });
      expect(await shown.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
      await page.screenshot({ path: SHOT });

      // The failed call carries its error.
      await rows.nth(4).click();
      await page.getByRole('tab', { name: /Errors/ }).click();
      await pw(page.locator('.error-message').first()).toBeVisible();

      // The console line and the requests.
      await rows.nth(6).click();
      await page.getByRole('tab', { name: /Console/ }).click();
      await pw(page.getByText(/events: once/)).toBeVisible();
      // The requests of the two gotos.
      await page.getByRole('tab', { name: /Network/ }).click();
      // The Network tab names a request by the last part of its path.
      await pw(page.getByText('all', { exact: true })).toBeVisible();
      await pw(page.getByText('snapshot', { exact: true })).toBeVisible();
    } finally {
      await context.close();
    }
  });

  it('answers only its key; a session without replay has a trace without pictures', async () => {
    const s = await suite.open('/snapshot');
    await suite.service.call('page.click', { session_id: s, selector: 'text=Greet' });
    const other = await suite.service.post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'replay.trace', params: { session_id: s } }),
      { 'x-api-key': OTHER_KEY },
    );
    expect((other.body as { error?: { code: number } }).error?.code).toBe(-32010);
    const unknown = await suite.service.rpc('replay.trace', { session_id: 's_unknown0000' });
    expect(unknown.error?.code).toBe(-32010);
    const bad = await suite.service.rpc('replay.trace', { session_id: s, extra: 1 });
    expect(bad.error?.code).toBe(-32602);

    const trace = (await exportCall(suite.service, 'replay.trace', { session_id: s }))
      .result as unknown as ReplayTraceResult;
    expect(trace.actions).toBe(2);
    expect(trace.pictures).toBe(0);
    expect(trace.dropped).toBe(0);
    // Asked again with nothing new, the same trace at once: no second build.
    const again = await suite.service.call<ReplayTraceResult>('replay.trace', { session_id: s });
    expect(again.base64).toBe(trace.base64);
    // After another call the session changed: a new build, which this key may start only after its interval.
    await suite.service.call('page.text', { session_id: s, selector: 'h1' });
    const soon = await suite.service.rpc('replay.trace', { session_id: s });
    expect(soon.error?.code).toBe(-32003);
    expect(soon.error?.data).toMatchObject({ retryAfterMs: expect.any(Number) as number });
    const after = (await exportCall(suite.service, 'replay.trace', { session_id: s }))
      .result as unknown as ReplayTraceResult;
    expect(after.actions).toBe(3);
  });

  it('writes a typed secret the page echoed as its name, after the session closed too', async () => {
    const secret = 'hunter2-trace-secret';
    const { session_id: s } = await suite.service.call<{ session_id: string }>('session.create', {
      secrets: { TOKEN: secret },
    });
    // The secret in a URL: the request, the navigation and the goto's own url all hold it.
    await suite.service.call('page.goto', {
      session_id: s,
      url: `${suite.fixture.url}/snapshot?token=${secret}`,
    });
    const read = async (): Promise<string> => {
      const reply = await exportCall(suite.service, 'replay.trace', { session_id: s });
      const trace = reply.result as unknown as ReplayTraceResult;
      const files = unzip(Buffer.from(trace.base64, 'base64'));
      return `${files.get('trace.trace')?.toString() ?? ''}${files.get('trace.network')?.toString() ?? ''}`;
    };
    const open = await read();
    expect(open).toContain('token=<secret:TOKEN>');
    expect(open).not.toContain(secret);
    await suite.service.call('session.close', { session_id: s });
    const closed = await read();
    expect(closed).toContain('token=<secret:TOKEN>');
    expect(closed).not.toContain(secret);
  });
});
