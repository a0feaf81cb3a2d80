// find.* with revision searches the newest snapshot again instead of taking a new one: several
// searches of one page cost one snapshot. A revision that is no longer the newest, or of a document
// the page has left, gets a new snapshot, as a find without it does.
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

interface Found {
  revision: number;
  count: number;
  matches: { ref: string | null }[];
}

describe('find.* on a kept snapshot', () => {
  it('searches the revision it is given while that is the newest snapshot', async () => {
    const session_id = await suite.open('/router');
    opened.push(session_id);
    const call = <T>(method: string, params: Record<string, unknown> = {}) =>
      suite.service.call<T>(method, { session_id, ...params });
    const first = await call<Found>('find.byText', { text: 'Inbox' });
    const again = await call<Found>('find.byRole', {
      role: 'button',
      name: 'Stay here',
      revision: first.revision,
    });
    expect(again.revision).toBe(first.revision);
    expect(again.count).toBe(1);
    // Its refs act, as the newest snapshot's do.
    expect(await call('page.click', { ref: again.matches[0]?.ref })).toEqual({ ok: true });
    // A newer snapshot: the old revision is searched no more.
    const newer = await call<{ revision: number }>('page.snapshot', { interactive: true });
    const fresh = await call<Found>('find.byText', { text: 'Sent', revision: first.revision });
    expect(fresh.revision).toBeGreaterThan(newer.revision);
    // A new document: a new snapshot too.
    await call('page.goto', { url: `${suite.fixture.url}/router` });
    const moved = await call<Found>('find.byText', { text: 'Sent', revision: fresh.revision });
    expect(moved.revision).toBeGreaterThan(fresh.revision);
  });
});
