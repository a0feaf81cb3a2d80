// The plain actions of issue 11 (hover, dblclick, focus, check/uncheck, select, type, scroll,
// back/forward) on the fixture app's /widgets page: each by selector and by snapshot ref, checked by
// reading the page's state back, and each rule refused with the error it documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDecoyServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { useServiceSuite } from '../helpers/suite.js';
import { waitFor } from '../helpers/testService.js';
import { MAX_TYPE_CHARS, MAX_TYPE_DELAY_MS, MAX_SCROLL_DELTA_PX } from '../../src/methods/params.js';
import { rpcFailure } from '../helpers/boundSession.js';

const suite = useServiceSuite();

type Params = Record<string, unknown>;

/** The ref on the first snapshot line matching `line`. */
function refOf(snapshot: string, line: RegExp): string {
  const m = new RegExp(`${line.source}[^\\n]*\\[ref=((?:f\\d+)?e\\d+)\\]`).exec(snapshot);
  if (m?.[1] === undefined) throw new Error(`no ref for ${line.source} in:\n${snapshot}`);
  return m[1];
}

/** A new session on a fixture page, with the calls the tests make bound to it. */
async function open(path = '/widgets') {
  const { service, fixture } = suite;
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  const call = <T = Params>(method: string, params: Params = {}) =>
    service.call<T>(method, { session_id, ...params });
  await call('page.goto', { url: `${fixture.url}${path}`, waitUntil: 'load' });
  return {
    call,
    fails: (method: string, params: Params, code: number) => rpcFailure(call(method, params), code),
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
    evaluate: async <T = unknown>(expression: string) =>
      (await call<{ result: T }>('page.evaluate', { expression })).result,
    /** The ref of the first line of a new whole snapshot that matches `line`. */
    ref: async (line: RegExp) =>
      refOf((await call<{ snapshot: string }>('page.snapshot', { maxChars: 100_000 })).snapshot, line),
    close: () => service.call('session.close', { session_id }),
  };
}

describe('page.hover', () => {
  it('opens a CSS hover menu by selector and by ref, and its link can then be clicked', async () => {
    const s = await open();
    const menuShown = () =>
      s.evaluate<string>("getComputedStyle(document.querySelector('#menu .sub')).display");
    expect(await menuShown()).toBe('none');
    expect(await s.call('page.hover', { selector: '#menu' })).toMatchObject({ ok: true });
    expect(await menuShown()).toBe('block');
    expect(await s.text('#hover-out')).toBe('menu open');
    await s.call('page.hover', { selector: 'h1' });
    expect(await menuShown()).toBe('none');
    await s.call('page.hover', { ref: await s.ref(/button "Products"/) });
    expect(await menuShown()).toBe('block');
    await s.call('page.click', { ref: await s.ref(/link "Laptops"/) });
    expect(await s.evaluate('location.hash')).toBe('#laptops');
    await s.close();
  });
});

describe('page.dblclick', () => {
  it('double-clicks by selector and by ref', async () => {
    const s = await open();
    expect(await s.call('page.dblclick', { selector: '#dbl' })).toMatchObject({ ok: true });
    expect(await s.text('#out')).toBe('double-clicked');
    await s.evaluate("document.getElementById('out').textContent = ''");
    await s.call('page.click', { selector: '#dbl' });
    expect(await s.text('#out')).toBe('');
    await s.call('page.dblclick', { ref: await s.ref(/button "Double-click me"/) });
    expect(await s.text('#out')).toBe('double-clicked');
    await s.close();
  });
});

describe('page.focus', () => {
  it('focuses by selector and by ref', async () => {
    const s = await open();
    expect(await s.call('page.focus', { selector: '#note' })).toMatchObject({ ok: true });
    expect(await s.evaluate('document.activeElement.id')).toBe('note');
    await s.call('page.focus', { ref: await s.ref(/textbox "City"/) });
    expect(await s.evaluate('document.activeElement.id')).toBe('city');
    await s.close();
  });
});

describe('page.check and page.uncheck', () => {
  it('check and uncheck a checkbox by selector, and checking twice leaves it checked', async () => {
    const s = await open();
    const checked = () => s.evaluate<boolean>("document.getElementById('news').checked");
    expect(await s.call('page.check', { selector: '#news' })).toMatchObject({ ok: true });
    expect(await checked()).toBe(true);
    await s.call('page.check', { selector: '#news' });
    expect(await checked()).toBe(true);
    expect(await s.call('page.uncheck', { selector: '#news' })).toMatchObject({ ok: true });
    expect(await checked()).toBe(false);
    await s.close();
  });

  it('pick a radio button and toggle a role=switch by ref', async () => {
    const s = await open();
    await s.call('page.check', { ref: await s.ref(/radio "Phone"/) });
    expect(
      await s.evaluate("[...document.querySelectorAll('[name=contact]')].map((r) => r.checked)"),
    ).toEqual([false, true]);
    const dark = await s.ref(/switch "Dark mode"/);
    const state = () => s.evaluate<string>("document.getElementById('dark').getAttribute('aria-checked')");
    await s.call('page.check', { ref: dark });
    expect(await state()).toBe('true');
    await s.call('page.uncheck', { ref: dark });
    expect(await state()).toBe('false');
    await s.close();
  });

  it('refuse what cannot be (un)checked: a radio button cannot be unchecked, a button is no checkbox', async () => {
    const s = await open();
    const radio = await s.fails('page.uncheck', { selector: '#mail', timeout: 2000 }, -32000);
    expect(radio.message).toMatch(/radio/i);
    const button = await s.fails('page.check', { selector: '#dbl', timeout: 2000 }, -32000);
    expect(button.message).toContain('Not a checkbox or radio button');
    await s.close();
  });
});

describe('page.select', () => {
  it('chooses an option of a single select by value, by label and by index, and answers the selection', async () => {
    const s = await open();
    const value = () => s.evaluate<string>("document.getElementById('size').value");
    expect(await s.call('page.select', { selector: '#size', values: ['l'] })).toMatchObject({
      selected: ['l'],
    });
    expect(await value()).toBe('l');
    expect(await s.text('#select-out')).toBe('size: l');
    const size = await s.ref(/combobox "Size"/);
    expect(await s.call('page.select', { ref: size, labels: ['Small'] })).toMatchObject({ selected: ['s'] });
    expect(await value()).toBe('s');
    expect(await s.call('page.select', { ref: size, indexes: [1] })).toMatchObject({ selected: ['m'] });
    expect(await value()).toBe('m');
    await s.close();
  });

  it('chooses several options of a multiple select, replacing the selection', async () => {
    const s = await open();
    const selected = () =>
      s.evaluate<string[]>("[...document.getElementById('toppings').selectedOptions].map((o) => o.value)");
    const picked = await s.call('page.select', { selector: '#toppings', values: ['ham', 'basil'] });
    expect(picked).toMatchObject({ selected: ['ham', 'basil'] });
    expect(await selected()).toEqual(['ham', 'basil']);
    expect(await s.text('#select-out')).toBe('toppings: ham,basil');
    const toppings = await s.ref(/listbox "Toppings"/);
    expect(await s.call('page.select', { ref: toppings, labels: ['Olives'] })).toMatchObject({
      selected: ['olives'],
    });
    expect(await selected()).toEqual(['olives']);
    await s.close();
  });

  it('refuses two kinds of option, none, several on a single select, and waits out a missing option', async () => {
    const s = await open();
    const two = await s.fails('page.select', { selector: '#size', values: ['s'], labels: ['Small'] }, -32602);
    expect(two.message).toContain('one of values and labels');
    const none = await s.fails('page.select', { selector: '#size' }, -32602);
    expect(none.message).toContain('values, labels or indexes');
    await s.fails('page.select', { selector: '#size', values: [] }, -32602);
    const several = await s.fails('page.select', { selector: '#size', values: ['s', 'l'] }, -32602);
    expect(several.message).toContain('<select multiple>');
    expect(await s.evaluate("document.getElementById('size').value")).toBe('m');
    await s.fails('page.select', { selector: '#size', labels: ['Huge'], timeout: 500 }, -32001);
    const notSelect = await s.fails(
      'page.select',
      { selector: '#dbl', values: ['x'], timeout: 2000 },
      -32000,
    );
    expect(notSelect.message).toContain('not a <select>');
    await s.close();
  });
});

describe('page.type', () => {
  it('sends a key per character, so an autocomplete suggests (page.fill does not)', async () => {
    const s = await open();
    expect(await s.call('page.type', { selector: '#city', text: 'Par' })).toMatchObject({ ok: true });
    expect(await s.evaluate("document.getElementById('city').value")).toBe('Par');
    expect(await s.text('#keys')).toBe('3');
    expect(await s.text('#suggestions')).toBe('Paris\nParma');
    await s.call('page.fill', { selector: '#city', value: 'Pr' });
    expect(await s.text('#keys')).toBe('3');
    expect(await s.text('#suggestions')).toBe('Paris\nParma');
    await s.call('page.type', { ref: await s.ref(/textbox "City"/), text: 'a', delay: 20 });
    expect(await s.evaluate("document.getElementById('city').value")).toBe('Pra');
    expect(await s.text('#keys')).toBe('4');
    expect(await s.text('#suggestions')).toBe('Prague');
    await s.close();
  });

  it('refuses text over MAX_TYPE_CHARS, a delay over MAX_TYPE_DELAY_MS and empty text', async () => {
    const s = await open();
    await s.fails('page.type', { selector: '#note', text: 'x'.repeat(MAX_TYPE_CHARS + 1) }, -32602);
    await s.fails('page.type', { selector: '#note', text: 'x', delay: MAX_TYPE_DELAY_MS + 1 }, -32602);
    await s.fails('page.type', { selector: '#note', text: '' }, -32602);
    expect(await s.evaluate("document.getElementById('note').value")).toBe('');
    await s.close();
  });
});

describe('page.scroll', () => {
  const inView = (id = 'far') =>
    `(() => { const r = document.getElementById('${id}').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`;

  it('scrolls an element into view by selector, then turns the wheel by a delta', async () => {
    const s = await open();
    expect(await s.evaluate(inView())).toBe(false);
    expect(await s.call('page.scroll', { selector: '#far' })).toMatchObject({ ok: true });
    expect(await s.evaluate(inView())).toBe(true);
    const bottom = await s.evaluate<number>('scrollY');
    expect(bottom).toBeGreaterThan(1000);
    expect(await s.call('page.scroll', { delta: { dy: -1000 } })).toMatchObject({ ok: true });
    await waitFor(async () => (await s.evaluate<number>('scrollY')) === bottom - 1000, 5000, 'the wheel');
    await waitFor(
      async () => (await s.text('#scroll-pos')) === String(bottom - 1000),
      5000,
      'the scroll event',
    );
    await s.call('page.scroll', { delta: { dx: 0, dy: 300 } });
    await waitFor(async () => (await s.evaluate<number>('scrollY')) === bottom - 700, 5000, 'the wheel');
    await s.close();
  });

  it('scrolls an element into view by ref', async () => {
    const s = await open();
    expect(await s.evaluate(inView('to-b'))).toBe(false);
    await s.call('page.scroll', { ref: await s.ref(/link "Page B"/) });
    expect(await s.evaluate(inView('to-b'))).toBe(true);
    await s.close();
  });

  it('takes exactly one form: an element or a delta, within MAX_SCROLL_DELTA_PX', async () => {
    const s = await open();
    const both = await s.fails('page.scroll', { selector: '#far', delta: { dy: 100 } }, -32602);
    expect(both.message).toContain('not both');
    const neither = await s.fails('page.scroll', {}, -32602);
    expect(neither.message).toContain('delta');
    await s.fails('page.scroll', { delta: { dy: MAX_SCROLL_DELTA_PX + 1 } }, -32602);
    await s.fails('page.scroll', { delta: { dz: 1 } }, -32602);
    expect(await s.evaluate('scrollY')).toBe(0);
    await s.close();
  });
});

describe('page.back and page.forward', () => {
  it('walk the history, answering like page.reload; at either end navigated is false', async () => {
    const s = await open();
    await s.call('page.click', { selector: '#to-b' });
    await s.call('page.waitFor', { url: '**/widgets-b' });
    const back = await s.call('page.back');
    expect(back).toEqual({
      url: `${suite.fixture.url}/widgets`,
      title: 'Widgets',
      status: 200,
      navigated: true,
    });
    const forward = await s.call('page.forward', { waitUntil: 'load' });
    expect(forward).toMatchObject({
      url: `${suite.fixture.url}/widgets-b`,
      title: 'Widgets B',
      navigated: true,
    });
    const end = await s.call('page.forward');
    expect(end).toMatchObject({ url: `${suite.fixture.url}/widgets-b`, status: null, navigated: false });
    expect(await s.text('h1')).toBe('Page B');
    await s.close();
  });

  it('a new session has no history: page.back answers navigated false on about:blank', async () => {
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {});
    const back = await suite.service.call('page.back', { session_id });
    expect(back).toEqual({ url: 'about:blank', title: '', status: null, navigated: false });
    await suite.service.call('session.close', { session_id });
  });

  it('a same-document entry (a hash) counts as a navigation', async () => {
    const s = await open();
    await s.call('page.hover', { selector: '#menu' });
    await s.call('page.click', { selector: 'a[href="#laptops"]' });
    const back = await s.call('page.back');
    expect(back).toMatchObject({ url: `${suite.fixture.url}/widgets`, navigated: true });
    await s.close();
  });

  describe('an entry outside the allow-list', () => {
    let decoy: FixtureServer | undefined;
    beforeAll(async () => {
      decoy = await startDecoyServer();
    });
    afterAll(async () => {
      await decoy?.close();
    });

    it('is NAVIGATION_BLOCKED, like page.goto, and never reaches the host', async () => {
      if (decoy === undefined) throw new Error('the decoy did not start');
      const outside = `${decoy.url}/outside`;
      const s = await open(`/link?to=${encodeURIComponent(outside)}`);
      // A link the page itself follows: the proxy answers its refusal page, which becomes an entry.
      await s.call('page.click', { selector: '#go' });
      await s.call('page.waitFor', { url: outside });
      const back = await s.call<{ url: string; navigated: boolean }>('page.back');
      expect(back.url).toContain('/link?to=');
      expect(back.navigated).toBe(true);
      const err = await s.fails('page.forward', {}, -32011);
      expect(err.data).toMatchObject({ method: 'page.forward', url: outside });
      expect(err.message).toContain(outside);
      expect(await s.evaluate('location.href')).toBe('about:blank');
      // Leaving the refused entry for about:blank made it the entry behind: back is refused as well.
      const again = await s.fails('page.back', {}, -32011);
      expect(again.data).toMatchObject({ method: 'page.back', url: outside });
      expect(decoy.hits).toEqual([]);
      await s.close();
    });
  });
});

describe('targets and errors shared by the actions', () => {
  const ACTIONS: [string, Params][] = [
    ['page.hover', {}],
    ['page.dblclick', {}],
    ['page.focus', {}],
    ['page.check', {}],
    ['page.uncheck', {}],
    ['page.select', { values: ['s'] }],
    ['page.type', { text: 'x' }],
  ];

  it('each takes exactly one of selector and ref', async () => {
    const s = await open();
    const ref = await s.ref(/combobox "Size"/);
    for (const [method, params] of ACTIONS) {
      const both = await s.fails(method, { ...params, selector: '#size', ref }, -32602);
      expect(both.message, method).toContain('exactly one of selector and ref');
      await s.fails(method, params, -32602);
    }
    await s.close();
  });

  it('a stale ref, or one the snapshot never had, is STALE_REF and acts on nothing', async () => {
    const s = await open();
    const news = await s.ref(/checkbox "Newsletter"/);
    await s.fails('page.check', { ref: 'e9999' }, -32013);
    await s.call('page.goto', { url: `${suite.fixture.url}/widgets`, waitUntil: 'load' });
    for (const [method, params] of [...ACTIONS, ['page.scroll', {}] as [string, Params]]) {
      const stale = await s.fails(method, { ...params, ref: news }, -32013);
      expect(stale.data, method).toMatchObject({ ref: news, method });
    }
    expect(await s.evaluate("document.getElementById('news').checked")).toBe(false);
    await s.close();
  });

  it('a selector that matches nothing is TIMEOUT, as for page.click', async () => {
    const s = await open();
    for (const [method, params] of [...ACTIONS, ['page.scroll', {}] as [string, Params]]) {
      const err = await s.fails(method, { ...params, selector: '#nothing', timeout: 300 }, -32001);
      expect(err.data, method).toMatchObject({ method, selector: '#nothing', timeoutMs: 300 });
    }
    await s.close();
  });
});
