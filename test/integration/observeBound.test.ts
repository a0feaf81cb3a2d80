// An observation never costs more than the view it stands for: a page re-parented into a new
// container (a tray, a modal's portal) is a small diff, not every line "changed"; a diff longer
// than the interactive view is replaced by that view; with nothing to compare, the interactive view.
import { describe, expect, it } from 'vitest';
import { useBoundSessions, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

interface Observed {
  snapshot: string;
  revision: number;
  since?: number;
  changes?: { added: number; removed: number; changed: number };
  note?: string;
}

const open = useBoundSessions(suite);

/** The interactive view of the page now, whole. */
const interactive = async (s: BoundSession) =>
  (await s.call<{ snapshot: string }>('page.snapshot', { interactive: true, maxChars: 500_000 })).snapshot;

describe('observe is bounded by the interactive view', () => {
  it('a tray that re-parents the page: the new container and its button, nothing changed', async () => {
    const s = await open('/tray');
    await s.call('page.snapshot');
    const report = await s.call<{ observed: Observed }>('page.click', { selector: '#open', observe: true });
    const observed = report.observed;
    expect(observed.since).toBeDefined();
    expect(observed.changes).toEqual({ added: 2, removed: 0, changed: 0 });
    expect(observed.snapshot).toContain('+ dialog "Tray"');
    expect(observed.snapshot).toContain('+ button "Close tray"');
    expect(observed.snapshot).not.toContain('was:');
    expect(observed.snapshot.length).toBeLessThanOrEqual((await interactive(s)).length);
  });

  it('a diff longer than the interactive view answers the interactive view, with a note', async () => {
    const s = await open('/tray');
    await s.call('page.snapshot');
    const report = await s.call<{ observed: Observed }>('page.click', { selector: '#rename', observe: true });
    const observed = report.observed;
    expect(observed.note).toContain('longer than the interactive view');
    expect(observed.since).toBeUndefined();
    expect(observed.snapshot).toContain('button "Renamed node 40"');
    expect(observed.snapshot).toBe(await interactive(s));
  });

  it('with no earlier snapshot, the interactive view', async () => {
    const s = await open('/tray');
    const report = await s.call<{ observed: Observed }>('page.click', { selector: '#rename', observe: true });
    expect(report.observed.note).toContain('this is the interactive view');
    expect(report.observed.snapshot).toMatch(/^# /);
    expect(report.observed.snapshot).toBe(await interactive(s));
  });
});
