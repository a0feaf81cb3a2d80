// find.* with revision searches the newest snapshot again instead of taking a new one: several
// searches of one page cost one snapshot. A revision that is no longer the newest, or of a document
// the page has left, gets a new snapshot, as a find without it does.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const open = useBoundSessions(suite);

interface Found {
  revision: number;
  count: number;
  matches: { ref: string | null }[];
}

describe('find.* on a kept snapshot', () => {
  it('searches the revision it is given while that is the newest snapshot', async () => {
    const s = await open('/router');
    const first = await s.call<Found>('find.byText', { text: 'Inbox' });
    const again = await s.call<Found>('find.byRole', {
      role: 'button',
      name: 'Stay here',
      revision: first.revision,
    });
    expect(again.revision).toBe(first.revision);
    expect(again.count).toBe(1);
    // Its refs act, as the newest snapshot's do.
    expect(await s.call('page.click', { ref: again.matches[0]?.ref })).toEqual({ ok: true });
    // A newer snapshot: the old revision is searched no more.
    const newer = await s.call<{ revision: number }>('page.snapshot', { interactive: true });
    const fresh = await s.call<Found>('find.byText', { text: 'Sent', revision: first.revision });
    expect(fresh.revision).toBeGreaterThan(newer.revision);
    // A new document: a new snapshot too.
    await s.call('page.goto', { url: `${suite.fixture.url}/router` });
    const moved = await s.call<Found>('find.byText', { text: 'Sent', revision: fresh.revision });
    expect(moved.revision).toBeGreaterThan(fresh.revision);
  });
});

describe('find.* steps of page.act', () => {
  interface Act {
    ok: boolean;
    steps: { result?: { revision?: number } }[];
  }
  const revisions = (act: Act) => act.steps.map((step) => step.result?.revision);

  it('search the snapshot the step before read when no action is between them', async () => {
    const s = await open('/router');
    const reads = await s.call<Act>('page.act', {
      steps: [
        { method: 'page.snapshot', params: { interactive: true } },
        { method: 'find.byText', params: { text: 'Inbox' } },
        { method: 'find.byRole', params: { role: 'button', name: 'Stay here' } },
      ],
    });
    expect(reads.ok).toBe(true);
    const [snapshot, text, role] = revisions(reads);
    expect(text).toBe(snapshot);
    expect(role).toBe(snapshot);
  });

  it('take a new snapshot after an action step, and when the step names its own revision', async () => {
    const s = await open('/router');
    const first = await s.call<Found>('find.byRole', { role: 'button', name: 'Stay here' });
    const acted = await s.call<Act>('page.act', {
      steps: [
        { method: 'find.byText', params: { text: 'Inbox' } },
        { method: 'page.click', params: { ref: first.matches[0]?.ref } },
        { method: 'find.byText', params: { text: 'Inbox' } },
        { method: 'find.byText', params: { text: 'Sent', revision: first.revision } },
      ],
    });
    expect(acted.ok).toBe(true);
    const [before, , after, named] = revisions(acted);
    expect(before).toBeGreaterThan(first.revision);
    expect(after).toBeGreaterThan(before ?? 0);
    // The revision it named is no longer the newest: a new snapshot, not the one the step before read.
    expect(named).toBeGreaterThan(after ?? 0);
  });
});
