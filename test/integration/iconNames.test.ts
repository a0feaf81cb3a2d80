// Icon-font buttons are named by their tooltips: a toolbar whose buttons' accessible names are only
// private-use glyphs shows each under its title (marked [title]); find.* finds them by that name and
// their refs act on them. A button with no tooltip keeps its empty name.
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { refOf } from '../helpers/snapshotRefs.js';

const suite = useServiceSuite();

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

async function open() {
  const session_id = await suite.open('/toolbar');
  opened.push(session_id);
  const call = <T>(method: string, params: Record<string, unknown> = {}) =>
    suite.service.call<T>(method, { session_id, ...params });
  return {
    call,
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
  };
}

describe('names of icon-font buttons', () => {
  it('the snapshot names them by title or tooltip, marked [title]', async () => {
    const s = await open();
    const { snapshot } = await s.call<{ snapshot: string }>('page.snapshot', { interactive: true });
    expect(snapshot).toMatch(/button "Save" \[title\] \[ref=e\d+\]/);
    expect(snapshot).toMatch(/button "Undo" \[title\] \[ref=e\d+\]/);
    expect(snapshot).toMatch(/button "Bold" \[title\] \[ref=e\d+\]/);
    expect(snapshot).toMatch(/link "Help" \[title\] \[ref=e\d+\]/);
    // A name of its own is left as it is; no tooltip, no name.
    expect(snapshot).toMatch(/button "Plain" \[ref=e\d+\]/);
    expect(snapshot).toMatch(/button "" \[ref=e\d+\]/);
    await s.call('page.click', { ref: refOf(snapshot, /button "Undo"/) });
    expect(await s.text('#out')).toBe('undo');
  });

  it('find.byRole finds a glyph-named button by its tooltip', async () => {
    const s = await open();
    const found = await s.call<{ matches: { ref: string }[] }>('find.byRole', {
      role: 'button',
      name: 'Bold',
    });
    expect(found.matches).toHaveLength(1);
    await s.call('page.click', { ref: found.matches[0]?.ref });
    expect(await s.text('#out')).toBe('bold');
  });
});
