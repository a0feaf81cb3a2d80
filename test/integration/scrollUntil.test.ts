// page.scroll until: a feed that loads ten more items whenever its end scrolls into view is turned
// until a text or an element is visible; what never appears fails after maxScrolls, saying so.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
const bound = useBoundSessions(suite);

describe('page.scroll until', () => {
  it('scrolls a loading feed until a text, then an element, is visible', async () => {
    const s = await bound('/feed');
    expect(await s.evaluate('document.querySelectorAll("li").length')).toBe(10);
    const byText = await s.call<{ ok: boolean; scrolls: number }>('page.scroll', {
      until: { text: 'Item 35' },
    });
    expect(byText.ok).toBe(true);
    expect(byText.scrolls).toBeGreaterThan(0);
    // It is in view now, and the feed loaded at least that far.
    expect(
      await s.evaluate(
        '(() => { const r = document.getElementById("item-35").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()',
      ),
    ).toBe(true);
    const bySelector = await s.call<{ scrolls: number }>('page.scroll', {
      until: { selector: '#item-60' },
      delta: { dy: 400 },
    });
    expect(bySelector.scrolls).toBeGreaterThan(0);
    // Already visible: no turn at all.
    expect(
      (await s.call<{ scrolls: number }>('page.scroll', { until: { selector: '#item-60' } })).scrolls,
    ).toBe(0);
  });

  it('fails after maxScrolls when it never appears, and refuses bad forms', async () => {
    const s = await bound('/feed');
    const never = await s.fails('page.scroll', { until: { text: 'Item 999' }, maxScrolls: 3 }, -32000);
    expect(never.data).toMatchObject({ scrolls: 3, maxScrolls: 3 });
    for (const bad of [
      { until: {} },
      { until: { text: 'a', selector: 'b' } },
      { until: { text: 'a' }, selector: 'main' },
      { until: { text: '' } },
      { until: { text: 'a' }, maxScrolls: 0 },
      { until: { text: 'a' }, maxScrolls: 201 },
    ])
      await s.fails('page.scroll', bad, -32602);
  });
});
