// page.snapshot (issue 10, first step): the page as an agent reads it, with refs, states, values,
// link targets and iframes, in pages of maxChars that a cursor continues.
import { describe, expect, it } from 'vitest';
import type { PageSnapshotResult } from '../../client/src/methods.generated.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';
import { RpcCallError } from '../helpers/testService.js';

const suite = useServiceSuite();

type Snapshot = PageSnapshotResult;

const open = (path = '/snapshot') => suite.open(path);

const snapshot = (params: Record<string, unknown>) =>
  suite.service.call<Snapshot>('page.snapshot', { maxChars: 100_000, ...params });

describe('page.snapshot', () => {
  it('shows roles, names, states, input values, link targets and the iframe, with refs', async () => {
    const s = await open();
    const snap = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 100_000 });
    // A whole answer is its snapshot: no cursor, and no sizes to read beside it.
    expect(snap.cursor).toBeUndefined();
    expect(snap).not.toHaveProperty('length');
    expect(snap).not.toHaveProperty('approxTokens');
    expect(snap.snapshot).toMatch(/heading "Account" \[level=1\] \[ref=e\d+\]/);
    expect(snap.snapshot).toMatch(/textbox "Name" \[ref=e\d+\]: Ada/);
    expect(snap.snapshot).toMatch(/option "Team" \[selected\]/);
    expect(snap.snapshot).toMatch(/checkbox "Terms" \[checked\]/);
    expect(snap.snapshot).toMatch(/button "Save" \[disabled\]/);
    expect(snap.snapshot).toContain('/url: /projects');
    expect(snap.snapshot).toMatch(/button "Inside the frame" \[ref=f\d+e\d+\]/);
    await suite.service.call('session.close', { session_id: s });
  });

  it('answers in pages of maxChars that a cursor continues to the whole snapshot', async () => {
    const s = await open();
    const first = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 1000 });
    expect(first.snapshot.length).toBeLessThanOrEqual(1000);
    expect(first.snapshot.endsWith('\n')).toBe(true);
    expect(first.cursor).toEqual(expect.any(String));
    let text = first.snapshot;
    let cursor = first.cursor;
    for (let pages = 0; cursor !== undefined && pages < 100; pages++) {
      const next: Snapshot = await suite.service.call<Snapshot>('page.snapshot', {
        session_id: s,
        maxChars: 1000,
        cursor,
      });
      expect(next.revision).toBe(first.revision);
      text += next.snapshot;
      cursor = next.cursor;
    }
    expect(cursor).toBeUndefined();
    expect(text.length).toBe(first.length);
    expect(text).toContain('Item 299');
    const whole = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 500_000 });
    expect(whole.revision).toBe(first.revision + 1);
    expect(whole.snapshot).toBe(text);
    await suite.service.call('session.close', { session_id: s });
  });

  it('refuses a cursor of an older snapshot, and narrows to a selector', async () => {
    const s = await open();
    const first = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 500 });
    await suite.service.call<Snapshot>('page.snapshot', { session_id: s });
    const stale = await suite.service
      .call('page.snapshot', { session_id: s, cursor: first.cursor })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RpcCallError);
    expect((stale as RpcCallError).code).toBe(-32602);
    expect((stale as RpcCallError).message).toContain('take a new snapshot');
    const form = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, selector: 'form' });
    expect(form.snapshot).toContain('textbox "Name"');
    expect(form.snapshot).not.toContain('Item 0');
    await suite.service.call('session.close', { session_id: s });
  });
});

describe('refs as targets', () => {
  it('page.fill and page.click act on the elements refs name, in the page and in a frame', async () => {
    const s = await open();
    const { snapshot } = await suite.service.call<Snapshot>('page.snapshot', {
      session_id: s,
      maxChars: 100_000,
    });
    await suite.service.call('page.fill', {
      session_id: s,
      ref: refOf(snapshot, /textbox "Name"/),
      value: 'Grace',
    });
    await suite.service.call('page.click', { session_id: s, ref: refOf(snapshot, /button "Greet"/) });
    const { text } = await suite.service.call<{ text: string }>('page.text', {
      session_id: s,
      selector: '#out',
    });
    expect(text).toBe('hello Grace');
    const inFrame = refOf(snapshot, /button "Inside the frame"/);
    expect(inFrame).toMatch(/^f\d+e\d+$/);
    expect(await suite.service.call('page.click', { session_id: s, ref: inFrame })).toMatchObject({
      ok: true,
    });
    await suite.service.call('session.close', { session_id: s });
  });

  it('a ref of an older document, or one the snapshot never had, is STALE_REF and acts on nothing', async () => {
    const s = await open();
    const { snapshot } = await suite.service.call<Snapshot>('page.snapshot', {
      session_id: s,
      maxChars: 100_000,
    });
    const greet = refOf(snapshot, /button "Greet"/);
    const missing = await suite.service.rpc('page.click', { session_id: s, ref: 'e9999' });
    expect(missing.error?.code).toBe(-32013);
    expect(missing.error?.message).toContain('take a new snapshot');
    await suite.service.call('page.goto', {
      session_id: s,
      url: `${suite.fixture.url}/snapshot`,
      waitUntil: 'load',
    });
    const stale = await suite.service.rpc('page.click', { session_id: s, ref: greet });
    expect(stale.error?.code).toBe(-32013);
    expect(stale.error?.data).toMatchObject({ ref: greet, method: 'page.click' });
    const { text } = await suite.service.call<{ text: string }>('page.text', {
      session_id: s,
      selector: '#out',
    });
    expect(text).toBe('');
    await suite.service.call('session.close', { session_id: s });
  });

  it('takes exactly one of selector and ref', async () => {
    const s = await open();
    const both = await suite.service.rpc('page.click', { session_id: s, selector: 'button', ref: 'e1' });
    expect(both.error?.code).toBe(-32602);
    const neither = await suite.service.rpc('page.click', { session_id: s });
    expect(neither.error?.code).toBe(-32602);
    const badRef = await suite.service.rpc('page.click', { session_id: s, ref: 'button' });
    expect(badRef.error?.code).toBe(-32602);
    await suite.service.call('session.close', { session_id: s });
  });
});

describe('page.snapshot: interactive, since and subtrees', () => {
  it('interactive: only what can be acted on, under the landmarks and heading that locate it', async () => {
    const s = await open('/inputs');
    const full = await snapshot({ session_id: s });
    const view = await snapshot({ session_id: s, interactive: true });
    expect(view.revision).toBe(full.revision + 1);
    const lines = view.snapshot.split('\n');
    // Every line is a path header or an element with a ref.
    for (const line of lines) expect(line).toMatch(/^# |\[ref=f?\d*e\d+\]/);
    expect(view.snapshot).toContain('# banner > navigation "Site"');
    expect(view.snapshot).toMatch(/- link "Projects" \[ref=e\d+\] -> \/projects/);
    expect(view.snapshot).toMatch(
      /# main > form "Profile" > h2 "Profile"\n- textbox "Text" \[ref=e\d+\]: Ada/,
    );
    expect(view.snapshot).toMatch(/- combobox "Plan" \[ref=e\d+\]: Team/);
    // Playwright's snapshot has no required state; the interactive view marks required fields.
    expect(view.snapshot).toMatch(/- textbox "Email" \[required\] \[ref=e\d+\]\n/);
    expect(view.snapshot).not.toMatch(/textbox "Text"[^\n]*\[required\]/);
    expect(view.snapshot).toMatch(/- spinbutton "Age" \[ref=e\d+\]: "?36/);
    expect(view.snapshot).toMatch(/- radio "Mail" \[checked\] \[ref=e\d+\]/);
    expect(view.snapshot).toMatch(/- switch "Dark mode" \[ref=e\d+\]/);
    expect(view.snapshot).toMatch(/- button "Reset" \[disabled\] \[ref=e\d+\]/);
    // The shadow root's button and the page's own clickable div are there; the prose is not.
    expect(view.snapshot).toMatch(
      /# main > region "Danger zone" > h2 "Danger zone"\n- button "Delete account"/,
    );
    expect(view.snapshot).toMatch(/Open card/);
    expect(view.snapshot).toMatch(/# main > dialog "Cookies".*\n- button "Dismiss"/);
    expect(view.snapshot).not.toContain('Long help text');
    expect(view.snapshot).not.toContain('Footer text');
    expect(view.snapshot.length).toBeLessThan(full.snapshot.length / 2);
    // Its refs are targets like any other.
    const card = refOf(view.snapshot, /- generic/);
    expect(await suite.service.call('page.click', { session_id: s, ref: card })).toMatchObject({ ok: true });
    const after = await snapshot({ session_id: s, interactive: true });
    expect(after.snapshot).not.toMatch(/Open card/);
    await suite.service.call('session.close', { session_id: s });
  });

  it('since: only what changed, with refs, far smaller than the whole snapshot', async () => {
    const s = await open();
    const before = await snapshot({ session_id: s });
    const name = refOf(before.snapshot, /textbox "Name"/);
    await suite.service.call('page.fill', { session_id: s, ref: name, value: 'Grace' });
    const diff = await snapshot({ session_id: s, since: before.revision });
    expect(diff.since).toBe(before.revision);
    expect(diff.note).toBeUndefined();
    expect(diff.changes).toEqual({ added: 0, removed: 0, changed: 1 });
    // The field gained the focus ([active]) as well as its new value: one line changed.
    expect(diff.snapshot).toContain(
      `~ textbox "Name" [active] [ref=${name}]: Grace\n  was: textbox "Name" [ref=${name}]: Ada`,
    );
    expect(diff.snapshot).toMatch(/^@ /);
    expect(diff.snapshot.length).toBeLessThanOrEqual(before.snapshot.length / 10);
    // Nothing changed since the diff's own revision.
    const same = await snapshot({ session_id: s, since: diff.revision });
    expect(same.snapshot).toBe('(no changes)');
    expect(same.changes).toEqual({ added: 0, removed: 0, changed: 0 });
    // An element that appears is added; the greeting text is shown with its parent.
    await suite.service.call('page.click', { session_id: s, selector: 'text=Greet' });
    const greeted = await snapshot({ session_id: s, since: same.revision });
    expect(greeted.snapshot).toContain('hello Grace');
    expect(greeted.changes?.added).toBeGreaterThan(0);
    // With interactive, only changes to actionable lines count: the greeting text is not one.
    const quiet = await snapshot({ session_id: s, since: greeted.revision, interactive: true });
    expect(quiet.snapshot).toBe('(no changes)');
    await suite.service.call('session.close', { session_id: s });
  });

  it('since a revision that is not kept, of another page or scope: the whole snapshot, with a note', async () => {
    const s = await open();
    const first = await snapshot({ session_id: s });
    for (let i = 0; i < 3; i++) await snapshot({ session_id: s });
    const dropped = await snapshot({ session_id: s, since: first.revision });
    expect(dropped.since).toBeUndefined();
    expect(dropped.changes).toBeUndefined();
    expect(dropped.note).toContain(`revision ${first.revision} is not kept`);
    expect(dropped.snapshot).toContain('heading "Account"');
    const scoped = await snapshot({ session_id: s, selector: 'form', since: dropped.revision });
    expect(scoped.note).toContain('covered page');
    const kept = await snapshot({ session_id: s });
    await suite.service.call('page.goto', {
      session_id: s,
      url: `${suite.fixture.url}/snapshot`,
      waitUntil: 'load',
    });
    const moved = await snapshot({ session_id: s, since: kept.revision });
    expect(moved.note).toContain('navigated away');
    await suite.service.call('session.close', { session_id: s });
  });

  it('a ref narrows to a subtree; a cursor goes alone; selector and ref not both', async () => {
    const s = await open();
    const whole = await snapshot({ session_id: s });
    const form = refOf(whole.snapshot, /heading "Account"[^\n]*\n\s*- generic/);
    const part = await snapshot({ session_id: s, ref: form });
    expect(part.snapshot).toContain('textbox "Name"');
    expect(part.snapshot).not.toContain('Projects');
    const both = await suite.service.rpc('page.snapshot', { session_id: s, selector: 'form', ref: form });
    expect(both.error?.code).toBe(-32602);
    const first = await snapshot({ session_id: s, maxChars: 100 });
    const mixed = await suite.service.rpc('page.snapshot', {
      session_id: s,
      cursor: first.cursor,
      interactive: true,
    });
    expect(mixed.error?.code).toBe(-32602);
    expect(mixed.error?.message).toContain('give it alone');
    const stale = await suite.service.rpc('page.snapshot', { session_id: s, ref: 'e9999' });
    expect(stale.error?.code).toBe(-32013);
    await suite.service.call('session.close', { session_id: s });
  });

  it('depth: the top levels only, each cut subtree counted, its refs usable to read on', async () => {
    const s = await open();
    const whole = await snapshot({ session_id: s });
    const top = await snapshot({ session_id: s, depth: 1 });
    const lines = top.snapshot.split('\n');
    // No line nested deeper than one level below the top, and the counts add up to what was cut.
    expect(lines.every((l) => /^(- | {2}- … \d+ more lines?$)/.test(l))).toBe(true);
    const cut = lines.reduce((sum, l) => sum + Number(/… (\d+) more/.exec(l)?.[1] ?? 0), 0);
    const kept = lines.filter((l) => !l.includes('… ')).length;
    expect(kept + cut).toBe(whole.snapshot.split('\n').filter((l) => l.trim() !== '').length);
    expect(top.snapshot.length).toBeLessThan(whole.snapshot.length);
    // A ref on a kept line reads the part that was cut.
    const two = await snapshot({ session_id: s, depth: 2 });
    expect(two.snapshot).toMatch(/more lines?/);
    const ref = /\[ref=(e\d+)\]:\n\s+- … \d+ more/.exec(two.snapshot)?.[1];
    if (ref === undefined) throw new Error(`no cut line with a ref in:\n${two.snapshot}`);
    const part = await snapshot({ session_id: s, ref });
    expect(part.snapshot.split('\n').length).toBeGreaterThan(1);
    // Not with interactive or since, nor with a cursor; out of range refused.
    for (const bad of [
      { depth: 1, interactive: true },
      { depth: 1, since: two.revision },
      { depth: 0 },
      { depth: 51 },
      { depth: 'two' },
    ]) {
      const reply = await suite.service.rpc('page.snapshot', { session_id: s, ...bad });
      expect(reply.error?.code, JSON.stringify(bad)).toBe(-32602);
    }
    const first = await snapshot({ session_id: s, maxChars: 100 });
    const mixed = await suite.service.rpc('page.snapshot', { session_id: s, cursor: first.cursor, depth: 2 });
    expect(mixed.error?.message).toContain('give it alone');
    await suite.service.call('session.close', { session_id: s });
  });
});
