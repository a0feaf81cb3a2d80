// find.byRole and find.byText (issue 10): searches of a fresh snapshot of the whole page, frames
// (same-origin and cross-site) and shadow roots included, answering refs that actions accept.
import { describe, expect, it } from 'vitest';
import type { FindByRoleResult, FindByTextResult } from '../../client/src/methods.generated.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

type Params = Record<string, unknown>;

/** A session on the fixture's /find page: duplicates, a shadow root, a srcdoc and a cross-site frame. */
const open = () => suite.open('/find');

async function withSession(test: (s: string) => Promise<void>): Promise<void> {
  const s = await open();
  try {
    await test(s);
  } finally {
    await suite.service.call('session.close', { session_id: s });
  }
}

const byRole = (s: string, params: Params) =>
  suite.service.call<FindByRoleResult>('find.byRole', { session_id: s, ...params });
const byText = (s: string, params: Params) =>
  suite.service.call<FindByTextResult>('find.byText', { session_id: s, ...params });

/** The JSON-RPC error a call answers with (fails the test when it succeeds). */
async function refusal(method: string, params: Params) {
  const reply = await suite.service.rpc(method, params);
  expect(reply.result, `${method} ${JSON.stringify(params)} should fail`).toBeUndefined();
  return reply.error ?? { code: 0, message: '', data: undefined };
}

/** The line of a find.byText match's context that matched, without its mark. */
const matched = (m: { context: string } | undefined) =>
  m?.context
    .split('\n')
    .find((l) => l.endsWith(' <- match'))
    ?.replace(/^\s*- | <- match$/g, '') ?? '';

const FRAME_REF = /^f\d+e\d+$/;
const PAGE_REF = /^e\d+$/;

describe('find.byRole', () => {
  it('finds buttons in a shadow root, a same-origin frame and a cross-site frame, with refs', () =>
    withSession(async (s) => {
      const found = await byRole(s, { role: 'button' });
      expect(found.selector).toBe('role=button');
      expect(found.count).toBe(6);
      expect(found).not.toHaveProperty('truncated');
      const ref = (name: string) => found.matches.find((m) => m.name === name)?.ref;
      expect(ref('Shadow action')).toMatch(PAGE_REF);
      expect(ref('Same-origin action')).toMatch(FRAME_REF);
      expect(ref('Cross-site action')).toMatch(FRAME_REF);
      // Two frames, two frame prefixes.
      expect(ref('Same-origin action')?.split('e')[0]).not.toBe(ref('Cross-site action')?.split('e')[0]);
      expect(found.matches.find((m) => m.name === 'Shadow action')).toMatchObject({
        line: `button "Shadow action" [ref=${ref('Shadow action') ?? ''}]`,
      });
    }));

  it('page.click on the ref of a cross-site frame match acts in that frame', () =>
    withSession(async (s) => {
      const found = await byRole(s, { role: 'button', name: 'cross-site' });
      expect(found.count).toBe(1);
      const ref = found.matches[0]?.ref;
      expect(ref).toMatch(FRAME_REF);
      expect(await suite.service.call('page.click', { session_id: s, ref })).toMatchObject({ ok: true });
      await expect
        .poll(async () => (await byRole(s, { role: 'button', name: 'Cross-site clicked' })).count, {
          timeout: 5000,
        })
        .toBe(1);
      expect((await byRole(s, { role: 'button', name: 'Cross-site action' })).count).toBe(0);
    }));

  it('the refs belong to the snapshot the search took: the latest, so an older one goes stale', () =>
    withSession(async (s) => {
      const first = await byRole(s, { role: 'textbox', name: 'Note' });
      const snap = await suite.service.call<{ revision: number }>('page.snapshot', { session_id: s });
      expect(snap.revision).toBe(first.revision + 1);
      const again = await byRole(s, { role: 'textbox', name: 'Note' });
      expect(again.revision).toBe(snap.revision + 1);
      const ref = again.matches[0]?.ref;
      await suite.service.call('page.fill', { session_id: s, ref, value: 'buy bread' });
      const filled = await byText(s, { text: 'buy bread' });
      expect(filled.matches[0]?.ref).toBe(ref);
      // A navigation since the search: its refs no longer act.
      await suite.service.call('page.goto', {
        session_id: s,
        url: `${suite.fixture.url}/find`,
        waitUntil: 'load',
      });
      const stale = await refusal('page.click', { session_id: s, ref });
      expect(stale.code).toBe(-32013);
    }));

  it('a name is a case-insensitive substring; exact is whole and case-sensitive; alike duplicates are listed once', () =>
    withSession(async (s) => {
      const loose = await byRole(s, { role: 'button', name: 'DELETE' });
      expect(loose.count).toBe(3);
      expect(loose.matches.map((m) => m.name)).toEqual(['Delete', 'Delete all']);
      expect(loose.matches[0]?.alike).toHaveLength(1);
      expect(loose.matches[1]).not.toHaveProperty('alike');
      expect(loose.selector).toBe('role=button[name="DELETE"i]');
      const exact = await byRole(s, { role: 'button', name: 'Delete', exact: true });
      expect(exact.count).toBe(2);
      expect(exact.selector).toBe('role=button[name="Delete"s]');
      expect(exact.matches).toHaveLength(1);
      const [a, b] = [exact.matches[0]?.ref, exact.matches[0]?.alike?.[0]];
      expect(a).toMatch(PAGE_REF);
      expect(b).toMatch(PAGE_REF);
      expect(a).not.toBe(b);
      expect(await byRole(s, { role: 'button', name: 'delete', exact: true })).toMatchObject({
        count: 0,
        matches: [],
      });
      expect((await byRole(s, { role: 'button', name: 'Delete al', exact: true })).count).toBe(0);
    }));

  it('nothing matching is count 0, not an error', () =>
    withSession(async (s) => {
      expect(await byRole(s, { role: 'slider' })).toEqual({
        selector: 'role=slider',
        count: 0,
        revision: expect.any(Number) as unknown,
        matches: [],
      });
      expect(await byRole(s, { role: 'button', name: 'Nope' })).toMatchObject({ count: 0, matches: [] });
    }));

  it('limit lists the first matches in page order; truncated says there are more', () =>
    withSession(async (s) => {
      const rows = await byRole(s, { role: 'listitem' });
      expect(rows).toMatchObject({ count: 30, truncated: true });
      expect(rows.matches).toHaveLength(20);
      expect(rows.matches[0]?.line).toMatch(/^listitem \[ref=e\d+\]: Row 0$/);
      const few = await byRole(s, { role: 'listitem', limit: 5 });
      expect(few.matches.map((m) => m.line.split(': ')[1])).toEqual([
        'Row 0',
        'Row 1',
        'Row 2',
        'Row 3',
        'Row 4',
      ]);
      // truncated appears only when matches were left out.
      const all = await byRole(s, { role: 'listitem', limit: 200 });
      expect(all.count).toBe(30);
      expect(all).not.toHaveProperty('truncated');
      expect(await byRole(s, { role: 'listitem', limit: 30 })).not.toHaveProperty('truncated');
    }));

  it('lists an element without a ref (an option of a combobox) with ref null', () =>
    withSession(async (s) => {
      const options = await byRole(s, { role: 'option' });
      expect(options.count).toBe(2);
      expect(options.matches.map((m) => [m.ref, m.name])).toEqual([
        [null, 'Free'],
        [null, 'Team'],
      ]);
    }));

  it('refuses bad params and an unknown session', () =>
    withSession(async (s) => {
      for (const params of [
        { role: 'button', limit: 0 },
        { role: 'button', limit: 201 },
        { role: 'Button' },
        { role: '' },
        {},
        { role: 'button', frame: 'all' },
        { role: 'button', exact: 'yes' },
      ]) {
        expect((await refusal('find.byRole', { session_id: s, ...params })).code).toBe(-32602);
      }
      const unknown = await refusal('find.byRole', { session_id: 's_nope', role: 'button' });
      expect(unknown.code).toBe(-32010);
    }));
});

describe('find.byText', () => {
  it('finds a case-insensitive substring, with the ref of its element and the lines around it', () =>
    withSession(async (s) => {
      const found = await byText(s, { text: 'LAZY dog' });
      expect(found.count).toBe(1);
      const [match] = found.matches;
      expect(match?.ref).toMatch(PAGE_REF);
      expect(match).not.toHaveProperty('line');
      expect(match?.context.split('\n')).toEqual([
        expect.stringMatching(/^- main \[ref=e\d+\]:$/),
        expect.stringMatching(/^ {2}- heading "Find" \[level=1\] \[ref=e\d+\]$/),
        expect.stringMatching(
          /^ {2}- paragraph \[ref=e\d+\]: The quick brown fox jumps over the lazy dog\. .* <- match$/,
        ),
        expect.stringMatching(/^ {2}- button "Delete" \[ref=e\d+\]$/),
      ]);
      expect(found.revision).toBeGreaterThan(0);
    }));

  it("a text node's match carries the ref of the element it belongs to", () =>
    withSession(async (s) => {
      const note = await byRole(s, { role: 'textbox', name: 'Note' });
      const value = await byText(s, { text: 'remember the milk' });
      expect(value.matches).toHaveLength(1);
      expect(matched(value.matches[0])).toBe('text: remember the milk');
      // Refs are numbered per snapshot and this page does not change: the same element, the same ref.
      expect(value.matches[0]?.ref).toBe(note.matches[0]?.ref);
      const placeholder = await byText(s, { text: 'write a NOTE' });
      expect(placeholder.matches[0]?.ref).toBe(note.matches[0]?.ref);
      expect(matched(placeholder.matches[0])).toMatch(/^\/placeholder: /);
      expect(placeholder.matches[0]?.context).toContain('textbox "Note"');
    }));

  it('finds text inside frames and shadow roots', () =>
    withSession(async (s) => {
      const cross = await byText(s, { text: 'inside the cross-site frame' });
      expect(cross.matches[0]?.ref).toMatch(FRAME_REF);
      const same = await byText(s, { text: 'same-origin action' });
      expect(same.matches[0]?.ref).toMatch(FRAME_REF);
      const shadow = await byText(s, { text: 'shadow action' });
      expect(matched(shadow.matches[0])).toMatch(/^button "Shadow action"/);
    }));

  it('runs a regex, case-sensitive unless flags has i; count, limit and truncated as byRole', () =>
    withSession(async (s) => {
      const rows = await byText(s, { regex: '^Row \\d+$' });
      expect(rows).toMatchObject({ count: 30, truncated: true });
      expect(rows.matches).toHaveLength(20);
      expect((await byText(s, { regex: '^row 1\\d$' })).count).toBe(0);
      const teens = await byText(s, { regex: '^row 1\\d$', flags: 'i', limit: 3 });
      expect(teens).toMatchObject({ count: 10, truncated: true });
      expect(teens.matches.map((m) => matched(m).split(': ')[1])).toEqual(['Row 10', 'Row 11', 'Row 12']);
      const euros = await byText(s, { regex: '\\d+ euros' });
      expect(matched(euros.matches[0])).toMatch(/^paragraph /);
    }));

  it('nothing matching is count 0, not an error', () =>
    withSession(async (s) => {
      expect(await byText(s, { text: 'no such words here' })).toMatchObject({ count: 0, matches: [] });
      const none = await byText(s, { regex: 'z{3}' });
      expect(none).toMatchObject({ count: 0, matches: [] });
      expect(none).not.toHaveProperty('truncated');
    }));

  it('refuses text with regex, neither, flags without regex, a bad regex, and flags it cannot use', () =>
    withSession(async (s) => {
      const both = await refusal('find.byText', { session_id: s, text: 'Row', regex: 'Row' });
      expect(both.code).toBe(-32602);
      expect(both.message).toContain('exactly one of text and regex');
      const neither = await refusal('find.byText', { session_id: s });
      expect(neither.code).toBe(-32602);
      const flagsAlone = await refusal('find.byText', { session_id: s, text: 'Row', flags: 'i' });
      expect(flagsAlone.code).toBe(-32602);
      expect(flagsAlone.message).toContain('flags go with regex');
      const bad = await refusal('find.byText', { session_id: s, regex: 'Row (\\d' });
      expect(bad.code).toBe(-32602);
      expect(bad.message).toContain('not a valid regular expression');
      expect(bad.message).toContain('Unterminated group');
      expect(bad.data).toMatchObject({ errors: [expect.objectContaining({ path: '/regex' })] });
      const twice = await refusal('find.byText', { session_id: s, regex: 'Row', flags: 'ii' });
      expect(twice.code).toBe(-32602);
      for (const params of [
        { regex: 'Row', flags: 'g' },
        { regex: 'Row', flags: 'y' },
        { regex: 'x'.repeat(501) },
        { regex: '' },
        { text: '' },
        { text: 'Row', limit: 0 },
      ]) {
        expect((await refusal('find.byText', { session_id: s, ...params })).code).toBe(-32602);
      }
    }));

  it('stops a regex that backtracks catastrophically, and the session goes on working', () =>
    withSession(async (s) => {
      // Nested quantifiers over the paragraph's words, which the final period keeps from matching.
      const slow = await refusal('find.byText', { session_id: s, regex: '^(\\w+\\s?)+$' });
      expect(slow.code).toBe(-32602);
      expect(slow.message).toContain('simplify it');
      expect((await byText(s, { text: 'lazy dog' })).count).toBe(1);
    }));
});

describe('a frozen page', () => {
  it('answers TIMEOUT within the timeout, for both searches', async () => {
    const { service, fixture } = suite;
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    try {
      await service.call('page.goto', { session_id, url: `${fixture.url}/frozen`, waitUntil: 'load' });
      // The click starts an endless loop in the page: the click itself times out.
      expect((await refusal('page.click', { session_id, selector: '#freeze', timeout: 1000 })).code).toBe(
        -32001,
      );
      const role = await refusal('find.byRole', { session_id, role: 'button', timeout: 1000 });
      expect(role).toMatchObject({ code: -32001, data: { timeoutMs: 1000 } });
      const text = await refusal('find.byText', { session_id, text: 'Freeze', timeout: 1000 });
      expect(text).toMatchObject({ code: -32001, data: { timeoutMs: 1000 } });
    } finally {
      await service.call('session.close', { session_id });
    }
  });
});

describe('find.*: path from the root', () => {
  it('path: the lines from the root to each match, off-path lines elided with counts', () =>
    withSession(async (s) => {
      const text = await byText(s, { text: 'Shadow action', path: true });
      const path = text.matches[0]?.path ?? '';
      const rows = path.split('\n');
      expect(rows.at(-1) ?? '', path).not.toBe('');
      // The match is marked, and every line above it is at most as deep as the next (a path).
      const marked = rows.findIndex((l) => l.endsWith(' <- match'));
      expect(marked, path).toBeGreaterThan(-1);
      const depth = (l: string) => (l.length - l.trimStart().length) / 2;
      const onPath = rows.slice(0, marked + 1).filter((l) => !l.includes('- … '));
      onPath.forEach((l, i) => expect(depth(l), path).toBe(depth(onPath[0] ?? '') + i));
      expect(path).toMatch(/- … \d+ (earlier|later) lines?/);
      // The same search without path answers none.
      const plain = await byText(s, { text: 'Shadow action' });
      expect(plain.matches[0]).not.toHaveProperty('path');
      const role = await byRole(s, { role: 'button', name: 'Cross-site action', path: true });
      expect(role.matches[0]?.path).toMatch(/button "Cross-site action" \[ref=f\d+e\d+\] <- match$/m);
      expect((await refusal('find.byRole', { session_id: s, role: 'button', path: 'yes' })).code).toBe(
        -32602,
      );
    }));
});
