// sessionStorage.get / set / clear on the active page: what the page's scripts see, what the
// caller reads back, one tab's storage not another's, and every bad input refused.
import { describe, expect, it } from 'vitest';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

async function session(path: string): Promise<BoundSession> {
  return bindSession(suite.service, await suite.open(path));
}

describe('sessionStorage', () => {
  it('sets items the page reads, reads them back (all or by key) and clears by key or all', async () => {
    const s = await session('/static');
    try {
      const origin = new URL(suite.fixture.url).origin;
      expect(await s.call('sessionStorage.get')).toEqual({ origin, items: {}, count: 0 });
      expect(await s.call('sessionStorage.set', { items: { step: '2', draft: 'Hello' } })).toEqual({
        origin,
        set: 2,
      });
      // The page's own scripts see them.
      expect(await s.evaluate('sessionStorage.getItem("draft")')).toBe('Hello');
      await s.evaluate('sessionStorage.setItem("fromPage", "yes")');
      expect(await s.call('sessionStorage.get')).toEqual({
        origin,
        items: { step: '2', draft: 'Hello', fromPage: 'yes' },
        count: 3,
      });
      expect(await s.call('sessionStorage.get', { keys: ['step', 'missing'] })).toEqual({
        origin,
        items: { step: '2' },
        count: 1,
      });
      expect(await s.call('sessionStorage.clear', { keys: ['draft', 'missing'] })).toEqual({
        origin,
        cleared: 1,
      });
      // It lasts across a reload of the same tab, as sessionStorage does.
      await s.call('page.reload');
      expect((await s.call<{ count: number }>('sessionStorage.get')).count).toBe(2);
      expect(await s.call('sessionStorage.clear')).toEqual({ origin, cleared: 2 });
      expect(await s.evaluate('sessionStorage.length')).toBe(0);
    } finally {
      await s.close();
    }
  });

  it("another session's tab does not share it", async () => {
    const a = await session('/static');
    const b = await session('/static');
    try {
      await a.call('sessionStorage.set', { items: { only: 'a' } });
      expect((await b.call<{ count: number }>('sessionStorage.get')).count).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a page without storage, an answer over the cap, and bad params', async () => {
    const s = await session('/static');
    try {
      // Over MAX_SESSION_STORAGE_CHARS (1,000,000): LIMIT_REACHED, and the keys still readable.
      await s.evaluate(
        '(() => { for (let i = 0; i < 3; i++) sessionStorage.setItem("big" + i, "x".repeat(400000)); })()',
      );
      const over = await s.fails('sessionStorage.get', {}, -32003);
      expect(over.data).toMatchObject({ limit: 'MAX_SESSION_STORAGE_CHARS', size: 1_200_012 });
      expect((await s.call<{ count: number }>('sessionStorage.get', { keys: ['big0'] })).count).toBe(1);
      for (const bad of [
        { items: {} },
        { items: { a: 1 } },
        { items: 'a=1' },
        { keys: [] },
        { keys: ['a'], extra: true },
      ])
        await s.fails(Object.hasOwn(bad, 'items') ? 'sessionStorage.set' : 'sessionStorage.get', bad, -32602);
      await s.call('page.goto', { url: 'about:blank' });
      const blank = await s.fails('sessionStorage.get', {}, -32602);
      expect(blank.message).toContain('navigate to a page of the site first');
      await s.fails('sessionStorage.set', { items: { a: '1' } }, -32602);
    } finally {
      await s.close();
    }
  });
});
