// page.click until: a Load more button (each click fetches five entries for 300 ms) and a Next link
// (each click loads the next page of orders) are clicked until a text or an element is visible,
// each click settled before the next look, so no page is clicked past; what never appears fails
// after maxClicks or once the element to click is gone; a ref fails when its document is left; the
// exported test clicks the same way and passes.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TASK_ORDERS_PER_PAGE } from '../fixtures/routes/tasks.js';
import { useBoundSessions } from '../helpers/boundSession.js';
import { runPlaywrightSpec } from '../helpers/playwrightSpec.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
const bound = useBoundSessions(suite);
const runs = join(process.cwd(), 'test', '.export-runs', 'click-until');
afterAll(() => rmSync(runs, { recursive: true, force: true }));

const entries = 'document.querySelectorAll("#entries li").length';
/** The first order on page 3 of /tasks/orders. */
const ORDER_ON_PAGE_3 = `#${1000 + 2 * TASK_ORDERS_PER_PAGE}`;
const NEXT = 'nav[aria-label="Pages"] a:text-is("Next")';

describe('page.click until', () => {
  it('clicks Load more until an entry is visible, each click waited out; none when it already is', async () => {
    const s = await bound('/load-more');
    expect(await s.evaluate(entries)).toBe(5);
    const first = await s.call<{ ok: boolean; clicks: number }>('page.click', {
      selector: '#more',
      until: { text: 'Entry 17' },
    });
    // 5 → 10 → 15 → 20: three clicks, no click while a fetch was still on its way.
    expect(first).toMatchObject({ ok: true, clicks: 3 });
    expect(await s.evaluate(entries)).toBe(20);
    const again = await s.call<{ clicks: number }>('page.click', {
      selector: '#more',
      until: { selector: '#entries li:nth-child(20)' },
    });
    expect(again.clicks).toBe(0);
    expect(await s.evaluate(entries)).toBe(20);
  });

  it('fails when the button is gone or after maxClicks, saying how many clicks it made', async () => {
    const s = await bound('/load-more');
    const capped = await s.fails(
      'page.click',
      { selector: '#more', until: { text: 'Entry 30' }, maxClicks: 2 },
      -32000,
    );
    expect(capped.data).toMatchObject({ clicks: 2, maxClicks: 2 });
    expect(capped.message).toContain('maxClicks 2');
    // 15 now; 20, 25, 30, and then the button is gone.
    const gone = await s.fails('page.click', { selector: '#more', until: { text: 'Entry 99' } }, -32000);
    expect(gone.data).toMatchObject({ clicks: 3 });
    expect(gone.message).toContain('gone');
    expect(await s.evaluate(entries)).toBe(30);
    // A button left disabled at the end fails at once too, not after the timeout.
    const ended = await bound('/load-more?end=disabled');
    const disabled = await ended.fails(
      'page.click',
      { selector: '#more', until: { text: 'Entry 99' }, timeout: 60_000 },
      -32000,
    );
    expect(disabled.data).toMatchObject({ clicks: 5 });
    expect(disabled.message).toContain('disabled');
  });

  it('pages through orders by a Next link given as a selector; a ref fails once its document is left', async () => {
    const s = await bound('/tasks/orders?run=click-until');
    const paged = await s.call<{ clicks: number; navigated?: boolean; url?: string }>('page.click', {
      selector: NEXT,
      until: { text: ORDER_ON_PAGE_3 },
    });
    expect(paged.clicks).toBe(2);
    expect(paged.navigated).toBe(true);
    expect(paged.url).toMatch(/page=3$/);
    const next = await s.ref(/link "Next"/);
    const stale = await s.fails('page.click', { ref: next, until: { text: '#1999' } }, -32013);
    expect(stale.data).toMatchObject({ ref: next, clicks: 1 });
    expect(stale.message).toContain('selector');
  });

  it('refuses an until that names nothing or both, and maxClicks out of range', async () => {
    const s = await bound('/load-more');
    for (const bad of [
      { selector: '#more', until: {} },
      { selector: '#more', until: { text: 'a', selector: 'b' } },
      { selector: '#more', until: { text: '' } },
      { selector: '#more', until: { text: 'a' }, maxClicks: 0 },
      { selector: '#more', until: { text: 'a' }, maxClicks: 101 },
      { until: { text: 'a' } },
    ])
      await s.fails('page.click', bad, -32602);
    expect(await s.evaluate(entries)).toBe(5);
  });

  it('as a page.act step, and exported as a test that clicks the same way and passes', async () => {
    const s = await bound('/tasks/orders?run=click-until');
    const acted = await s.call<{ steps: { result?: { clicks?: number } }[] }>('page.act', {
      steps: [{ method: 'page.click', params: { selector: NEXT, until: { text: ORDER_ON_PAGE_3 } } }],
    });
    expect(acted.steps[0]?.result?.clicks).toBe(2);
    const { code } = await s.call<{ code: string }>('session.export');
    expect(code).toContain(`page.getByText('${ORDER_ON_PAGE_3}').first()`);
    expect(code).toContain('.toPass(');
    // The URL the act's clicks left the page on is the one asserted.
    expect(code).toMatch(/toHaveURL\('[^']*page=3'\)/);
    const run = await runPlaywrightSpec(join(runs, 'orders'), code);
    expect(run.out).toContain('1 passed');
    expect(run.code).toBe(0);
    // A goto step that landed where it asked answers no url: the export asserts the one it asked for.
    const second = `${suite.fixture.url}/tasks/orders?page=2`;
    await s.call('page.act', { steps: [{ method: 'page.goto', params: { url: second } }] });
    const after = await s.call<{ code: string }>('session.export');
    expect(after.code).toContain(`await expect(page).toHaveURL('${second}');`);
  });
});
