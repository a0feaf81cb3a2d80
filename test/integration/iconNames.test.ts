// Icon-font buttons are named by their tooltips: a toolbar whose buttons' accessible names are only
// private-use glyphs shows each under its title (marked [title]); find.* finds them by that name and
// their refs act on them. A button with no tooltip keeps its empty name.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';
import { refOf } from '../helpers/snapshotRefs.js';

const suite = useServiceSuite();

const open = useBoundSessions(suite);

describe('names of icon-font buttons', () => {
  it('the snapshot names them by title or tooltip, marked [title]', async () => {
    const s = await open('/toolbar');
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
    const s = await open('/toolbar');
    const found = await s.call<{ matches: { ref: string }[] }>('find.byRole', {
      role: 'button',
      name: 'Bold',
    });
    expect(found.matches).toHaveLength(1);
    await s.call('page.click', { ref: found.matches[0]?.ref });
    expect(await s.text('#out')).toBe('bold');
  });
});
