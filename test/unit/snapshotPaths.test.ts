// page.snapshot's depth view and find.*'s path from the root, on a small snapshot whose shape is known.
import { describe, expect, it } from 'vitest';
import { parseSnapshot } from '../../src/browser/page/snapshotLines.js';
import {
  MAX_CONTEXT_LINE_CHARS,
  MAX_PATH_CHARS,
  matchText,
  pathOf,
} from '../../src/browser/page/snapshotSearch.js';
import { depthView } from '../../src/browser/page/snapshotViews.js';

const SNAPSHOT = [
  '- banner [ref=e1]:',
  '  - link "Home" [ref=e2]',
  '- main [ref=e3]:',
  '  - heading "Shop" [level=1] [ref=e4]',
  '  - list "Products" [ref=e5]:',
  '    - listitem [ref=e6]:',
  '      - text: Apple',
  '      - button "Add" [ref=e7]',
  '    - listitem [ref=e8]:',
  '      - text: Pear',
  '      - button "Add" [ref=e9]',
  '    - listitem [ref=e10]:',
  '      - text: Plum',
  '  - button "Checkout" [ref=e11]',
  '- contentinfo [ref=e12]',
].join('\n');

describe('depthView', () => {
  it('keeps the top levels and says how many lines each cut subtree had', () => {
    expect(depthView(SNAPSHOT, 1)).toBe(
      [
        '- banner [ref=e1]:',
        '  - … 1 more line',
        '- main [ref=e3]:',
        '  - … 11 more lines',
        '- contentinfo [ref=e12]',
      ].join('\n'),
    );
    expect(depthView(SNAPSHOT, 2).split('\n').slice(2, 8)).toEqual([
      '- main [ref=e3]:',
      '  - heading "Shop" [level=1] [ref=e4]',
      '  - list "Products" [ref=e5]:',
      '    - … 8 more lines',
      '  - button "Checkout" [ref=e11]',
      '- contentinfo [ref=e12]',
    ]);
  });

  it('is the snapshot itself when the tree is no deeper than depth', () => {
    expect(depthView(SNAPSHOT, 4)).toBe(SNAPSHOT);
    expect(depthView(SNAPSHOT, 50)).toBe(SNAPSHOT);
  });
});

describe('pathOf', () => {
  const lines = parseSnapshot(SNAPSHOT);

  it('answers the lines from the root to the match, the lines beside the path counted', () => {
    const [match] = matchText(lines, { text: 'Pear' });
    if (match === undefined) throw new Error('no match for Pear');
    expect(pathOf(lines, match)).toBe(
      [
        '- … 2 earlier lines',
        '- main [ref=e3]:',
        '  - … 1 earlier line',
        '  - list "Products" [ref=e5]:',
        '    - … 3 earlier lines',
        '    - listitem [ref=e8]:',
        '      - text: Pear <- match',
        '      - … 1 later line',
        '    - … 2 later lines',
        '  - … 1 later line',
        '- … 1 later line',
      ].join('\n'),
    );
  });

  it('has no elision line where nothing is beside the path', () => {
    const [match] = matchText(lines, { text: 'Home' });
    if (match === undefined) throw new Error('no match for Home');
    expect(pathOf(lines, match)).toBe(
      ['- banner [ref=e1]:', '  - link "Home" [ref=e2] <- match', '- … 13 later lines'].join('\n'),
    );
  });

  it('leaves out the levels nearest the root first when the path is over MAX_PATH_CHARS', () => {
    const deep = Array.from(
      { length: 40 },
      (_, i) => `${'  '.repeat(i)}- group "${'g'.repeat(MAX_CONTEXT_LINE_CHARS)}${i}" [ref=e${i + 1}]:`,
    );
    deep.push(`${'  '.repeat(40)}- button "Deep" [ref=e99]`);
    const deepLines = parseSnapshot(deep.join('\n'));
    const [match] = matchText(deepLines, { text: 'Deep' });
    if (match === undefined) throw new Error('no match for Deep');
    const path = pathOf(deepLines, match);
    expect(path.length).toBeLessThanOrEqual(MAX_PATH_CHARS);
    expect(path).toMatch(/^- … \d+ enclosing levels above\n/);
    expect(path.endsWith('- button "Deep" [ref=e99] <- match')).toBe(true);
    // Ancestor lines are cut.
    expect(path.split('\n').every((l) => l.trim().length <= MAX_CONTEXT_LINE_CHARS + 4)).toBe(true);
  });
});
