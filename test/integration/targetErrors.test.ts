// What a failed action on a selector says (issue 11), on the fixture app's /targets page: a selector
// that matched several elements lists them with a selector for each; one that matched nothing says
// so with the nearest candidates; an element that matched but was hidden, disabled or covered says
// which. Short timeouts: each failure waits its timeout out.
import { afterEach, describe, expect, it } from 'vitest';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
const ACTION_FAILED = -32000;
const TIMEOUT = -32001;

const opened: BoundSession[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function open(): Promise<BoundSession> {
  const s = bindSession(suite.service, await suite.open('/targets'));
  opened.push(s);
  return s;
}

type Listed = { element: string; locator: string; selector: string };
type Candidate = { role: string; name: string; element: string; selector: string };

describe('a selector that matched several elements', () => {
  it('lists each with a selector that then works on its own', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: '.toolbar button', timeout: 1000 }, ACTION_FAILED);
    expect(error.message).toContain('matched 3 elements');
    expect(error.message).toContain('Use one of these selectors, or a ref from page.snapshot.');
    const matches = (error.data?.matches ?? []) as Listed[];
    expect(matches).toHaveLength(3);
    expect(matches.map((m) => m.element)).toEqual([
      expect.stringContaining('Alpha'),
      expect.stringContaining('Beta'),
      expect.stringContaining('Gamma'),
    ]);
    for (const m of matches) {
      expect(m.locator).toMatch(/^getByRole\('button'/);
      expect(error.message).toContain(m.selector);
    }
    expect(error.data).toMatchObject({ method: 'page.click', selector: '.toolbar button', count: 3 });
    await s.call('page.click', { selector: matches[1]?.selector, timeout: 1000 });
    expect(await s.text('#out')).toBe('beta');
  });

  it('says the same for another action (page.hover)', async () => {
    const s = await open();
    const error = await s.fails('page.hover', { selector: '.toolbar button', timeout: 1000 }, ACTION_FAILED);
    expect((error.data?.matches as Listed[] | undefined)?.length).toBe(3);
  });
});

describe("page.drag's drop target", () => {
  it('names targetSelector when it is the one that matched several or none', async () => {
    const s = await open();
    const several = await s.fails(
      'page.drag',
      { selector: '#email', targetSelector: '.toolbar button', timeout: 1000 },
      ACTION_FAILED,
    );
    expect(several.message).toContain('the targetSelector ".toolbar button" matched 3 elements');
    expect(several.data).toMatchObject({ target: 'targetSelector', count: 3 });
    const none = await s.fails(
      'page.drag',
      { selector: '#email', targetSelector: '#sumbit', timeout: 500 },
      TIMEOUT,
    );
    expect(none.message).toContain('the targetSelector "#sumbit" matched no element');
    expect(((none.data?.candidates ?? []) as Candidate[]).map((c) => c.selector)).toContain('#submit');
  });
});

describe('a selector that matched nothing', () => {
  it('says so, with the real button among the nearest candidates (a misspelt id)', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: '#sumbit', timeout: 500 }, TIMEOUT);
    expect(error.message).toContain('matched no element');
    const candidates = (error.data?.candidates ?? []) as Candidate[];
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.length).toBeLessThanOrEqual(5);
    expect(candidates.map((c) => c.selector)).toContain('#submit');
    expect(error.message).toContain('#submit');
    await s.call('page.click', { selector: '#submit', timeout: 1000 });
    expect(await s.text('#out')).toBe('saved');
  });

  it('finds the button by its text when a text selector is cut short', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: 'text="Sav"', timeout: 500 }, TIMEOUT);
    expect(error.message).toContain('matched no element');
    const candidates = (error.data?.candidates ?? []) as Candidate[];
    expect(candidates.some((c) => c.name === 'Save')).toBe(true);
  });

  it('fills: a misspelt field id leads to the field', async () => {
    const s = await open();
    const error = await s.fails('page.fill', { selector: '#emial', value: 'a@b.c', timeout: 300 }, TIMEOUT);
    expect(error.message).toContain('matched no element');
    expect(((error.data?.candidates ?? []) as Candidate[]).map((c) => c.selector)).toContain('#email');
  });

  it('page.text and page.waitFor say it too', async () => {
    const s = await open();
    const read = await s.fails('page.text', { selector: '#sumbit', timeout: 300 }, TIMEOUT);
    expect(read.message).toContain('matched no element');
    const waited = await s.fails('page.waitFor', { selector: '#sumbit', timeout: 300 }, TIMEOUT);
    expect(waited.message).toContain('matched no element');
    // page.waitFor's own account leads, as before.
    expect(waited.message).toContain('0 element(s) match');
    expect(((waited.data?.candidates ?? []) as Candidate[]).map((c) => c.selector)).toContain('#submit');
  });

  it('says nothing resembles it when nothing does', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: '#zzqx', timeout: 300 }, TIMEOUT);
    expect(error.message).toContain('matched no element');
    expect(error.data?.candidates).toEqual([]);
  });
});

describe('an element that matched but could not be acted on', () => {
  it('a hidden button: not visible', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: '#secret', timeout: 500 }, TIMEOUT);
    expect(error.message).toContain('not visible');
    expect(error.message).not.toContain('matched no element');
    expect(error.data?.reason).toBe('element is not visible');
  });

  it('a disabled button: not enabled', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: '#locked', timeout: 500 }, TIMEOUT);
    expect(error.message).toMatch(/not enabled/);
    expect(error.message).toContain('disabled');
  });

  it('a covered button: the element on top', async () => {
    const s = await open();
    const error = await s.fails('page.click', { selector: '#under', timeout: 500 }, TIMEOUT);
    expect(error.message).toContain('intercepts pointer events');
    expect(((error.data?.callLog ?? []) as string[]).length).toBeLessThanOrEqual(4);
  });

  it('a ref to a disabled button says the same', async () => {
    const s = await open();
    const ref = await s.ref(/button "Locked"/);
    const error = await s.fails('page.click', { ref, timeout: 500 }, TIMEOUT);
    expect(error.message).toMatch(/not enabled/);
    expect(error.message).toContain(`the ref ${ref}`);
  });
});
