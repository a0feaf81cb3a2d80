import { describe, expect, it } from 'vitest';
import { TabOwners } from '../../src/cdp/tabOwners.js';

const A = { id: 'key:a', admin: false };
const B = { id: 'key:b', admin: false };
const ADMIN = { id: 'key:admin', admin: true };

describe('TabOwners', () => {
  it("a tab nobody owns is every caller's; an owned one only its owner's and the admin's", () => {
    const owners = new TabOwners();
    expect([A, B, ADMIN].map((c) => owners.reachable('T1', c))).toEqual([true, true, true]);
    owners.assign('T1', A.id);
    expect([A, B, ADMIN].map((c) => owners.reachable('T1', c))).toEqual([true, false, true]);
  });

  it('the first claim takes a free tab; its owner and the admin hold it, another caller is refused', () => {
    const owners = new TabOwners();
    expect(owners.claim('T1', B)).toBe('claimed');
    expect(owners.claim('T1', A)).toBe('refused');
    expect(owners.claim('T1', B)).toBe('held');
    expect(owners.claim('T1', ADMIN)).toBe('held');
    // The admin holding it did not make it the admin's: B still reaches it, A still does not.
    expect(owners.reachable('T1', B)).toBe(true);
    expect(owners.reachable('T1', A)).toBe(false);
    owners.forget('T1');
    expect(owners.claim('T1', A)).toBe('claimed');
  });

  it('retain forgets the tabs the browser no longer lists, and keeps those owned after the list was asked for', () => {
    const owners = new TabOwners();
    owners.assign('T1', A.id);
    owners.assign('T2', B.id);
    const mark = owners.mark();
    // Opened while the list was on its way: not in it, yet it exists.
    owners.assign('T3', A.id);
    owners.retain(new Set(['T2']), mark);
    expect(owners.size).toBe(2);
    expect(owners.reachable('T1', B)).toBe(true);
    expect(owners.reachable('T2', A)).toBe(false);
    expect(owners.reachable('T3', B)).toBe(false);
    owners.retain(new Set(), owners.mark());
    expect(owners.size).toBe(0);
  });
});
