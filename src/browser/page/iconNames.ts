// Names for the buttons of icon fonts. A toolbar of icon-font buttons names each by a private-use
// glyph (in its text or its ::before content), which the snapshot shows as an empty name: an agent
// sees eleven `button ""` and must take screenshots. The name a person reads is in the element's
// tooltip: its title (or a tooltip attribute, on it or on the icon inside it). Lines of actionable
// roles whose name is empty or only such glyphs get that name, marked [title] (the ref acts on it; a
// role selector with that name would not match); without one, an empty name instead of the glyphs.
import type { Locator, Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { unquoteYaml } from './snapshotLines.js';

/** The most lines of one snapshot that get a name this way: each costs one evaluate. */
export const MAX_ICON_NAMES = 60;
/** A name read from a tooltip is cut here. */
const MAX_ICON_NAME_CHARS = 100;
/** Roles a person acts on and tells apart by their name. */
const NAMED_ROLES = new Set([
  'button',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'checkbox',
  'radio',
  'switch',
  'treeitem',
  'option',
]);
/** A name of nothing but white space and private-use characters (icon fonts' glyphs). */
const GLYPHS_ONLY = /^[\s\u{E000}-\u{F8FF}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]*$/u;
/** `- role "name" … [ref=e5] …`: the role, the quoted name and the ref of a snapshot line. */
const LINE = /^(\s*- )([a-z]+) "((?:[^"\\]|\\.)*)"(.*?\[ref=((?:f\d+)?e\d+)\].*)$/;

/** The snapshot with the lines of glyph-named elements named by their tooltips, where they have one. */
export async function nameIcons(page: Page, snapshot: string, timeout: number): Promise<string> {
  const lines = snapshot.split('\n');
  const unnamed: { index: number; head: string; role: string; rest: string; ref: string }[] = [];
  lines.forEach((line, index) => {
    const m = LINE.exec(line);
    if (m === null || unnamed.length >= MAX_ICON_NAMES) return;
    const [, head = '', role = '', quoted = '', rest = '', ref = ''] = m;
    if (!NAMED_ROLES.has(role) || !GLYPHS_ONLY.test(unquoteYaml(`"${quoted}"`))) return;
    unnamed.push({ index, head, role, rest, ref });
  });
  if (unnamed.length === 0) return snapshot;
  const names = await Promise.all(unnamed.map((u) => tooltipOf(page.locator(`aria-ref=${u.ref}`), timeout)));
  unnamed.forEach((u, i) => {
    const name = names[i];
    // Without a tooltip the glyphs go: a private-use character means nothing to a reader.
    lines[u.index] =
      name === undefined
        ? `${u.head}${u.role} ""${u.rest}`
        : `${u.head}${u.role} ${JSON.stringify(name)} [title]${u.rest}`;
  });
  return lines.join('\n');
}

/** The element's tooltip (title or a tooltip attribute, its own or its icon's), or undefined. */
async function tooltipOf(element: Locator, timeout: number): Promise<string | undefined> {
  const found = await withDeadline(
    element.evaluate((el) => {
      const ATTRS = ['title', 'data-tooltip', 'data-title', 'data-original-title', 'aria-description'];
      const holders = [el, ...Array.from(el.querySelectorAll('[title], [data-tooltip], [data-title]'))];
      for (const holder of holders)
        for (const attr of ATTRS) {
          const value = holder.getAttribute(attr)?.trim();
          if (value) return value;
        }
      return null;
    }),
    timeout,
    () => new Error('tooltip read timeout'),
  ).catch(
    // The element went, or the page did not answer in time: the line keeps the name it had.
    () => null,
  );
  return found === null ? undefined : found.slice(0, MAX_ICON_NAME_CHARS);
}
