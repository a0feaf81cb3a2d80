// The settle waits for what an app does on timers after an action: a validation 100 ms after keyup,
// a debounced search and the request it makes, a menu shown after a delay. A page's own polling loop
// is not the action's and is never waited for (ACTION_SETTLE_MS is set to the test's own timeout,
// so waiting for it would fail the test).
import { describe, expect, it } from 'vitest';
import { TIMER_TRACKER_KEY } from '../../src/browser/engine/pageTimers.js';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite({ ACTION_SETTLE_MS: '60000' });

interface Report {
  ok: boolean;
  observed?: { snapshot: string };
}

const open = useBoundSessions(suite);

describe('an action settles on the timers it started', () => {
  it('a validation 100 ms after keyup is on the page when page.type answers', async () => {
    const s = await open('/debounce');
    await s.call('page.type', { selector: '#email', text: 'ada' });
    expect(await s.text('#email-error')).toBe('Enter a valid email');
    await s.call('page.type', { selector: '#email', text: '@example.test' });
    expect(await s.text('#email-error')).toBe('');
  });

  it('a debounced search and its request are done when page.fill answers', async () => {
    const s = await open('/debounce');
    await s.call('page.fill', { selector: '#search', value: 'apple' });
    expect(await s.text('#results')).toBe('apple result 42');
  });

  it('a menu shown 120 ms after the click is in the observed diff', async () => {
    const s = await open('/debounce');
    await s.call('page.snapshot');
    const report = await s.call<Report>('page.click', { selector: '#menu', observe: true });
    expect(report.observed?.snapshot).toContain('menuitem "Rename"');
  });

  it("the page's polling loop is not counted as an action's timers", async () => {
    const s = await open('/debounce');
    // The tracker, asked as the settle asks it, for the timers whose chain began after a moment
    // taken now; 120 ms later the loop (begun at load) has re-armed its timer twice, in its chain.
    const pending = await s.call<{ result: number }>('page.evaluate', {
      expression: `new Promise((resolve) => {
        const timers = window[${JSON.stringify(TIMER_TRACKER_KEY)}];
        const from = performance.now();
        timers.later(() => resolve(timers.pending(from)), 120);
      })`,
    });
    expect(pending.result).toBe(0);
    const polls = Number(await s.text('#polls'));
    expect(await s.call('page.click', { selector: 'h1' })).toEqual({ ok: true });
    expect(Number(await s.text('#polls'))).toBeGreaterThan(polls);
  });
});
