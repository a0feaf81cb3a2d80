// What one page may put in its session's log: past PAGE_EVENT_RATE (after PAGE_EVENT_BURST) its
// console calls are dropped in the page and its page errors in the service, counted, and the owner
// is warned; a page that keeps flooding past PAGE_THROTTLE_AFTER_MS is slowed down; Chromium's own
// limit on history and location changes stays on. Another session keeps working beside a flood.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';
import { POPUP_BURST, POPUP_RATE } from '../../src/browser/engine/pageGuards.js';

const RATE = 50;
const BURST = 100;
const suite = useServiceSuite({
  PAGE_EVENT_RATE: String(RATE),
  PAGE_EVENT_BURST: String(BURST),
  PAGE_THROTTLE_AFTER_MS: '1000',
  PAGE_THROTTLE_RATE: '4',
  CONSOLE_BUFFER_SIZE: '5000',
});
const open = useBoundSessions(suite);

interface Logs {
  console: { type: string; text: string }[];
  pageErrors: { message: string }[];
}

/** Waits until the session's log has what `done` looks for, reading it whole each time (since 0). */
async function logsUntil(
  s: { call<T>(method: string, params?: Record<string, unknown>): Promise<T> },
  done: (logs: Logs) => boolean,
): Promise<Logs> {
  for (let tries = 0; ; tries++) {
    const logs = await s.call<Logs>('logs.pull', { since: 0 });
    if (done(logs) || tries >= 50) return logs;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a page past its event budget', () => {
  it('has its console calls dropped in the page and counted; another session still reads its page', async () => {
    const hostile = await open('/router');
    const other = await open('/router');
    // 1.5 s of console.log in a loop, started after the evaluate answers.
    await hostile.call('page.evaluate', {
      expression: `(() => { setTimeout(() => { const end = performance.now() + 1500; let i = 0; while (performance.now() < end) console.log('flood ' + i++); }, 0); return 1; })()`,
    });
    const text = await other.call<{ text: string }>('page.text', {});
    expect(text.text).toContain('Mail');
    const logs = await logsUntil(hostile, (l) =>
      l.console.some((c) => c.text.includes('dropped in the page')),
    );
    const flood = logs.console.filter((c) => c.text.startsWith('flood '));
    // The burst, then the rate for the loop's 1.5 s (and the moments around it).
    expect(flood.length).toBeGreaterThanOrEqual(BURST);
    expect(flood.length).toBeLessThanOrEqual(BURST + RATE * 3);
    const warning = logs.console.find((c) => c.text.includes('dropped in the page'));
    expect(warning?.text).toMatch(/\d+ console calls of this page dropped in the page: over 50 a second/);
  });

  it('has its uncaught errors past the budget marked handled in the page, counted and reported', async () => {
    const hostile = await open('/router');
    // 1.5 s of uncaught errors, 20 every 10 ms.
    await hostile.call('page.evaluate', {
      expression: `(() => { const t = setInterval(() => { for (let i = 0; i < 20; i++) setTimeout(() => { throw new Error('boom'); }, 0); }, 10); setTimeout(() => clearInterval(t), 1500); return 1; })()`,
    });
    const logs = await logsUntil(hostile, (l) => l.console.some((c) => c.text.includes('uncaught errors')));
    const errors = logs.pageErrors.filter((e) => e.message.includes('boom'));
    expect(errors.length).toBeGreaterThanOrEqual(BURST);
    expect(errors.length).toBeLessThanOrEqual(BURST + RATE * 3);
    expect(logs.console.find((c) => c.text.includes('uncaught errors'))?.text).toMatch(
      /\d+ uncaught errors of this page dropped in the page/,
    );
  });

  it('has its network entries past the budget dropped by the service, the owner warned, and is slowed when it keeps on', async () => {
    const hostile = await open('/router');
    // 2.5 s of requests, 10 every 10 ms: requests are not the page's to drop, so the service's budget holds them.
    await hostile.call('page.evaluate', {
      expression: `(() => { let n = 0; const t = setInterval(() => { for (let i = 0; i < 10; i++) fetch('/router?flood=' + n++).catch(() => 0); }, 10); setTimeout(() => clearInterval(t), 2500); return 1; })()`,
    });
    const logs = await logsUntil(hostile, (l) => l.console.some((c) => c.text.includes('times slower')));
    expect(logs.console.some((c) => /dropped \d+ network entries of this page/.test(c.text))).toBe(true);
    expect(logs.console.find((c) => c.text.includes('times slower'))?.text).toContain(
      'its CPU now runs 4 times slower',
    );
    const network = await hostile.call<{ requests: unknown[] }>('network.pull', {
      since: 0,
      onlyErrors: false,
    });
    expect(network.requests.length).toBeLessThanOrEqual(BURST + RATE * 4);
  });

  it('has window.open answer null past the popup budget', async () => {
    const hostile = await open('/router');
    const opened = await hostile.call<{ result: { n: number; ms: number } }>('page.evaluate', {
      expression: `(() => { const t0 = performance.now(); let n = 0; for (let i = 0; i < 40; i++) if (window.open('/router?popup=' + i, '_blank') !== null) n++; return { n, ms: performance.now() - t0 }; })()`,
    });
    // The burst, and what the rate gave back while the loop ran; never all 40.
    expect(opened.result.n).toBeGreaterThanOrEqual(POPUP_BURST);
    expect(opened.result.n).toBeLessThanOrEqual(
      POPUP_BURST + Math.ceil((opened.result.ms / 1000) * POPUP_RATE),
    );
    expect(opened.result.n).toBeLessThan(40);
  });

  it('within the budget loses nothing and warns of nothing', async () => {
    const calm = await open('/router');
    await calm.call('page.evaluate', {
      expression: `(() => { for (let i = 0; i < 60; i++) console.log('calm ' + i); return 1; })()`,
    });
    const logs = await logsUntil(
      calm,
      (l) => l.console.filter((c) => c.text.startsWith('calm ')).length >= 60,
    );
    expect(logs.console.filter((c) => c.text.startsWith('calm '))).toHaveLength(60);
    expect(logs.console.some((c) => c.text.includes('dropped'))).toBe(false);
  });

  it("keeps Chromium's limit on a page's history and location changes", async () => {
    const hostile = await open('/router');
    const last = await hostile.call<{ result: { tried: number; hash: string } }>('page.evaluate', {
      expression: `(() => { let i = 0; for (; i < 300; i++) { history.pushState({}, '', '#p' + i); location.hash = 'h' + i; } return { tried: i, hash: location.hash }; })()`,
    });
    // 600 changes: past 200 in 10 s the browser ignores them, so the page is not where the last put it.
    expect(last.result.tried).toBe(300);
    expect(last.result.hash).not.toBe('#h299');
  });
});
