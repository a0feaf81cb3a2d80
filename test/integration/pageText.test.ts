// page.text (issue 10, reading as an agent does): a snapshot ref as the target, the iframes' text,
// the main content as Markdown, and answers in pages that a cursor continues.
import { describe, expect, it } from 'vitest';
import type { PageSnapshotResult, PageTextResult } from '../../client/src/methods.generated.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const open = (path: string) => suite.open(path);

const close = (session_id: string) => suite.service.call('session.close', { session_id });

function read(session_id: string, params: Record<string, unknown> = {}): Promise<PageTextResult> {
  return suite.service.call<PageTextResult>('page.text', { session_id, ...params });
}

/** The JSON-RPC error of a page.text call that must fail. */
async function refused(session_id: string, params: Record<string, unknown>) {
  const reply = await suite.service.rpc('page.text', { session_id, ...params });
  expect(reply.result).toBeUndefined();
  if (reply.error === undefined) throw new Error('page.text answered instead of failing');
  return reply.error;
}

describe('page.text format markdown', () => {
  it('keeps the article: headings, lists, the table and absolute links, without the noise around it', async () => {
    const s = await open('/article');
    const md = await read(s, { format: 'markdown' });
    expect(md.text).toMatch(/^# Reading Guide$/m);
    expect(md.text).toMatch(/^#+ Steps$/m);
    expect(md.text).toMatch(/^1\. +Open the page$/m);
    expect(md.text).toMatch(/^3\. +Follow a link$/m);
    expect(md.text).toMatch(/^- +Hammer$/m);
    expect(md.text).toMatch(/^\| Tool +\| Use +\|$/m);
    expect(md.text).toMatch(/^\| -+ \| -+ \|$/m);
    expect(md.text).toMatch(/^\| Wrench +\| Bolts +\|$/m);
    expect(md.text).toContain(`[projects page](${suite.fixture.url}/projects)`);
    for (const noise of [
      'Site banner noise',
      'Navigation noise',
      'Sidebar noise',
      'Footer noise',
      'article loaded',
    ])
      expect(md.text).not.toContain(noise);
    // An answer that holds the whole text is the text alone.
    expect(Object.keys(md)).toEqual(['text']);
    // The text format reads the whole body, noise included, as before.
    const text = await read(s);
    expect(text.text).toContain('Navigation noise');
    expect(text.text).not.toContain('| Tool');
    await close(s);
  });

  it('converts the element a selector names as it is, links made absolute', async () => {
    const s = await open('/article');
    const nav = await read(s, { format: 'markdown', selector: 'nav' });
    expect(nav.text).toBe(
      `[Home noise](${suite.fixture.url}/) [Navigation noise](${suite.fixture.url}/form)`,
    );
    const table = await read(s, { format: 'markdown', selector: 'table' });
    expect(table.text.split('\n')).toEqual(
      ['| Tool | Use |', '| --- | --- |', '| Hammer | Nails |', '| Wrench | Bolts |'].map(
        (row) =>
          expect.stringMatching(new RegExp(`^${row.replace(/[|]/g, '\\|').replace(/ /g, ' +')}$`)) as unknown,
      ),
    );
    const list = await read(s, { format: 'markdown', selector: 'ol' });
    expect(list.text).toBe('1.  Open the page\n2.  Read the Markdown\n3.  Follow a link');
    await close(s);
  });

  it('refuses an unknown format, and a selector that matches nothing times out', async () => {
    const s = await open('/article');
    expect((await refused(s, { format: 'html' })).code).toBe(-32602);
    const missing = await refused(s, { format: 'markdown', selector: '#nothing', timeout: 300 });
    expect(missing.code).toBe(-32001);
    expect(missing.data).toMatchObject({ selector: '#nothing' });
    await close(s);
  });
});

describe('page.text frames', () => {
  const header = (title: string, path: string, origin = suite.fixture.url) =>
    `--- frame "${title}" (${origin}${path}) ---`;

  it('appends every frame, same-origin, cross-origin and nested, under a header line', async () => {
    const s = await open('/frames');
    const localhost = `http://localhost:${suite.fixture.port}`;
    const { text } = await read(s, { frames: true });
    expect(text.startsWith('Frames host\n\nText of the host page')).toBe(true);
    const same = text.indexOf(`${header('Child Same', '/frame-child?name=***')}\nInside the Same frame`);
    const cross = text.indexOf(
      `${header('Child Cross', '/frame-child?name=***&nested=***', localhost)}\nInside the Cross frame`,
    );
    const nested = text.indexOf(
      `${header('Child Nested', '/frame-child?name=***', localhost)}\nInside the Nested frame`,
    );
    // The text read goes with each assertion: a failure on a loaded machine says what came back.
    expect(same, text).toBeGreaterThan(0);
    expect(cross, text).toBeGreaterThan(same);
    expect(nested, text).toBeGreaterThan(cross);
    const without = await read(s);
    expect(without.text).not.toContain('Inside the');
    expect(without.text).not.toContain('--- frame');
    const md = await read(s, { frames: true, format: 'markdown' });
    expect(md.text).toContain(
      `${header('Child Cross', '/frame-child?name=***&nested=***', localhost)}\nInside the Cross frame`,
    );
    await close(s);
  });

  it('a frame that cannot be read is a note line, and the rest is read', async () => {
    const s = await open('/frames?freeze=Cross');
    const { text } = await read(s, { frames: true, timeout: 1500 });
    expect(text).toContain('Text of the host page');
    expect(text).toContain('Inside the Same frame');
    // A frozen frame cannot even say its title.
    const frozen = `--- frame "" (http://localhost:${suite.fixture.port}/frame-child?name=***&nested=***&freeze=***) ---`;
    expect(text).toContain(
      `${frozen}\n[not read: the frame did not answer within 1500 ms (frozen, or navigating)]`,
    );
    expect(text).not.toContain('Inside the Cross frame');
    await close(s);
  });

  it('reads the whole page only: frames with a selector or a ref is refused', async () => {
    const s = await open('/frames');
    const withSelector = await refused(s, { frames: true, selector: 'main' });
    expect(withSelector.code).toBe(-32602);
    expect(withSelector.message).toContain('frames reads the whole page');
    expect((await refused(s, { frames: true, ref: 'e1' })).code).toBe(-32602);
    expect((await refused(s, { frames: 'yes' })).code).toBe(-32602);
    await close(s);
  });
});

describe('page.text ref', () => {
  it('reads the element a snapshot ref names, in the page and in a frame, as text or Markdown', async () => {
    const s = await open('/snapshot');
    const { snapshot } = await suite.service.call<PageSnapshotResult>('page.snapshot', {
      session_id: s,
      maxChars: 100_000,
    });
    const heading = refOf(snapshot, /heading "Account"/);
    expect((await read(s, { ref: heading })).text).toBe('Account');
    expect((await read(s, { ref: heading, format: 'markdown' })).text).toBe('# Account');
    const inFrame = refOf(snapshot, /button "Inside the frame"/);
    expect(inFrame).toMatch(/^f\d+e\d+$/);
    expect((await read(s, { ref: inFrame })).text).toBe('Inside the frame');
    await close(s);
  });

  it('a ref of a page navigated away from is STALE_REF; selector and ref together, or a bad ref, are refused', async () => {
    const s = await open('/snapshot');
    const { snapshot } = await suite.service.call<PageSnapshotResult>('page.snapshot', {
      session_id: s,
      maxChars: 100_000,
    });
    const heading = refOf(snapshot, /heading "Account"/);
    expect((await refused(s, { ref: 'e9999' })).code).toBe(-32013);
    expect((await refused(s, { selector: 'h1', ref: heading })).code).toBe(-32602);
    expect((await refused(s, { ref: 'h1' })).code).toBe(-32602);
    await suite.service.call('page.goto', {
      session_id: s,
      url: `${suite.fixture.url}/snapshot`,
      waitUntil: 'load',
    });
    const stale = await refused(s, { ref: heading });
    expect(stale.code).toBe(-32013);
    expect(stale.data).toMatchObject({ ref: heading, method: 'page.text' });
    expect(stale.message).toContain('take a new snapshot');
    await close(s);
  });
});

describe('page.text cursor', () => {
  it('pages through a long text at line ends; the pages put together are the whole text', async () => {
    const s = await open('/big');
    const whole = await read(s, { maxChars: 2_000_000 });
    expect(Object.keys(whole)).toEqual(['text']);
    const first = await read(s, { maxChars: 20_000 });
    expect(first).toMatchObject({ truncated: true, length: whole.text.length });
    expect(first.text.length).toBeLessThanOrEqual(20_000);
    expect(first.text.endsWith('\n')).toBe(true);
    expect(first.approxTokens).toBe(Math.ceil(first.text.length / 4));
    let text = first.text;
    let cursor = first.cursor;
    let pages = 1;
    for (; cursor !== undefined && pages < 100; pages++) {
      const next = await read(s, { maxChars: 20_000, cursor });
      // A page that goes on says so with its sizes; the last one is its text alone.
      if (next.cursor === undefined) expect(Object.keys(next)).toEqual(['text']);
      else expect(next).toMatchObject({ truncated: true, length: whole.text.length });
      text += next.text;
      cursor = next.cursor;
    }
    expect(cursor).toBeUndefined();
    expect(pages).toBeGreaterThan(5);
    expect(text).toBe(whole.text);
    await close(s);
  });

  it('continues the same text, not the page as it is now', async () => {
    const s = await open('/snapshot');
    const first = await read(s, { selector: '#long', maxChars: 100 });
    expect(first.text).toMatch(/^Item 0\n/);
    await suite.service.call('page.goto', {
      session_id: s,
      url: `${suite.fixture.url}/static`,
      waitUntil: 'load',
    });
    const next = await read(s, { maxChars: 100_000, cursor: first.cursor });
    expect(next.cursor).toBeUndefined();
    expect(`${first.text}${next.text}`.split('\n')).toHaveLength(300);
    expect(next.text.endsWith('Item 299')).toBe(true);
    await close(s);
  });

  it('refuses a cursor of an older read, of another format, a made-up one, and one before any read', async () => {
    const s = await open('/big');
    const none = await refused(s, { cursor: '1:10' });
    expect(none.code).toBe(-32602);
    expect(none.message).toContain('without a cursor');
    const first = await read(s, { maxChars: 1000 });
    const cursor = first.cursor;
    expect(cursor).toEqual(expect.any(String));
    const otherFormat = await refused(s, { maxChars: 1000, cursor, format: 'markdown' });
    expect(otherFormat.code).toBe(-32602);
    expect(otherFormat.message).toContain('format "text", not "markdown"');
    expect((await refused(s, { cursor, frames: true })).code).toBe(-32602);
    expect((await refused(s, { cursor, selector: 'h1' })).code).toBe(-32602);
    expect((await refused(s, { cursor: 'nonsense' })).code).toBe(-32602);
    expect((await refused(s, { cursor: '' })).code).toBe(-32602);
    expect((await read(s, { maxChars: 1000, cursor })).text.length).toBeGreaterThan(0);
    await read(s, { selector: 'h1' });
    const old = await refused(s, { maxChars: 1000, cursor });
    expect(old.code).toBe(-32602);
    expect(old.message).toContain('does not continue');
    expect(old.message).toContain('without a cursor');
    expect((await refused(s, { maxChars: 0 })).code).toBe(-32602);
    await close(s);
  });
});
