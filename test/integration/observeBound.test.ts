// An observation never costs more than the view it stands for: a page re-parented into a new
// container (a tray, a modal's portal) is a small diff, not every line "changed"; a diff longer
// than the interactive view is replaced by that view; with nothing to compare, the interactive view.
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

interface Observed {
  snapshot: string;
  revision: number;
  since?: number;
  changes?: { added: number; removed: number; changed: number };
  note?: string;
}

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

async function open() {
  const session_id = await suite.open('/tray');
  opened.push(session_id);
  const call = <T>(method: string, params: Record<string, unknown> = {}) =>
    suite.service.call<T>(method, { session_id, ...params });
  const interactive = async () =>
    (await call<{ snapshot: string }>('page.snapshot', { interactive: true, maxChars: 500_000 })).snapshot;
  return { call, interactive };
}

describe('observe is bounded by the interactive view', () => {
  it('a tray that re-parents the page: the new container and its button, nothing changed', async () => {
    const s = await open();
    await s.call('page.snapshot');
    const report = await s.call<{ observed: Observed }>('page.click', { selector: '#open', observe: true });
    const observed = report.observed;
    expect(observed.since).toBeDefined();
    expect(observed.changes).toEqual({ added: 2, removed: 0, changed: 0 });
    expect(observed.snapshot).toContain('+ dialog "Tray"');
    expect(observed.snapshot).toContain('+ button "Close tray"');
    expect(observed.snapshot).not.toContain('was:');
    expect(observed.snapshot.length).toBeLessThanOrEqual((await s.interactive()).length);
  });

  it('a diff longer than the interactive view answers the interactive view, with a note', async () => {
    const s = await open();
    await s.call('page.snapshot');
    const report = await s.call<{ observed: Observed }>('page.click', { selector: '#rename', observe: true });
    const observed = report.observed;
    expect(observed.note).toContain('longer than the interactive view');
    expect(observed.since).toBeUndefined();
    expect(observed.snapshot).toContain('button "Renamed node 40"');
    expect(observed.snapshot).toBe(await s.interactive());
  });

  it('with no earlier snapshot, the interactive view', async () => {
    const s = await open();
    const report = await s.call<{ observed: Observed }>('page.click', { selector: '#rename', observe: true });
    expect(report.observed.note).toContain('this is the interactive view');
    expect(report.observed.snapshot).toMatch(/^# /);
    expect(report.observed.snapshot).toBe(await s.interactive());
  });
});
