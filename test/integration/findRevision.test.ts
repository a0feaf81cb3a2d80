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
