import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffSnapshots, MAX_DIFF_EDITS } from '../../src/browser/page/snapshotDiff.js';
import { interactiveView, MAX_TEXT_LINKS } from '../../src/browser/page/snapshotViews.js';

const sample = readFileSync(new URL('./fixtures/ariaSnapshotSample.yaml', import.meta.url), 'utf8');

describe('interactiveView', () => {
  const view = interactiveView(sample);

  it('keeps only actionable lines, each with a ref, under landmark and heading paths', () => {
    for (const line of view.split('\n')) expect(line).toMatch(/^# |\[ref=(f\d+)?e\d+\]/);
    expect(view).toContain('# banner > navigation "Top"\n- link "Home: \\"main\\"" [ref=e4] -> /a?x=1');
    expect(view).toContain('# main > region "Details" > form "Profile form" > h2 "Profile"');
    expect(view).not.toContain('Some text with');
    expect(view).not.toContain('cursor=pointer');
  });

  it("shows a select's chosen option, field values and states", () => {
    expect(view).toContain('- combobox "Plan" [ref=e13]: Team');
    expect(view).toContain('- textbox "Name" [ref=e11]: Ada');
    expect(view).toContain('- checkbox "Terms" [checked] [ref=e15]');
    expect(view).toContain('- button "Save" [disabled] [ref=e26]');
  });

  it('names the frame an element is in', () => {
    expect(view).toMatch(/# main > region "Details" > iframe[^\n]*\n- button "In" \[ref=f1e2\]/);
  });

  it('keeps the heading of a section out of a landmark it is not in', () => {
    const snapshot = [
      '- main [ref=e1]:',
      '  - region "A" [ref=e2]:',
      '    - heading "Section A" [level=2] [ref=e3]',
      '    - button "In A" [ref=e4]',
      '  - dialog "B" [ref=e5]:',
      '    - button "In B" [ref=e6]',
    ].join('\n');
    expect(interactiveView(snapshot)).toBe(
      '# main > region "A" > h2 "Section A"\n- button "In A" [ref=e4]\n# main > dialog "B"\n- button "In B" [ref=e6]',
    );
  });

  it('says so when nothing can be acted on', () => {
    expect(interactiveView('- paragraph [ref=e1]: just text')).toBe('# page\n(nothing to act on)');
  });
});

describe('interactiveView of a documentation page', () => {
  const prose = (n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `      - link [ref=e${100 + i}] [cursor=pointer]:\n        - /url: api.html#f${i}\n        - code [ref=e${300 + i}]: f${i}()`,
    ).join('\n');
  const page = (links: number) =>
    [
      '- main [ref=e1]:',
      '  - heading [level=2] [ref=e2]:',
      '    - code [ref=e3]: json.dumps',
      '    - text: reference',
      '    - link "¶" [ref=e4] [cursor=pointer]:',
      '      - /url: "#json.dumps"',
      '  - paragraph [ref=e5]:',
      '    - text: See',
      '    - generic [ref=e6]:',
      prose(links),
      '  - list [ref=e7]:',
      '    - listitem [ref=e8]:',
      '      - link "Next page" [ref=e9] [cursor=pointer]:',
      '        - /url: next.html',
    ].join('\n');

  it('names a link or a heading by the text below it, and leaves out permalink anchors', () => {
    const view = interactiveView(page(2));
    expect(view.split('\n')).toEqual([
      '# main > h2 "json.dumps reference"',
      '- link "f0()" [ref=e100] -> api.html#f0',
      '- link "f1()" [ref=e101] -> api.html#f1',
      '- link "Next page" [ref=e9] -> next.html',
    ]);
  });

  it('past MAX_TEXT_LINKS links in the running text of a section, one line says how many', () => {
    const view = interactiveView(page(MAX_TEXT_LINKS + 5));
    expect(view.split('\n')).toEqual([
      '# main > h2 "json.dumps reference"',
      `- (${MAX_TEXT_LINKS + 5} links in the text here: find.byText reaches them)`,
      '- link "Next page" [ref=e9] -> next.html',
    ]);
  });
});

describe('diffSnapshots', () => {
  it('pairs a removed and an added line with the same ref as one change', () => {
    const after = sample.replace('textbox "Name" [ref=e11]: Ada', 'textbox "Name" [ref=e11]: Grace');
    const diff = diffSnapshots(sample, after);
    expect(diff).toMatchObject({ added: 0, removed: 0, changed: 1 });
    expect(diff?.text).toBe(
      '@ form "Profile form" [ref=e9]:\n~ textbox "Name" [ref=e11]: Grace\n  was: textbox "Name" [ref=e11]: Ada',
    );
  });

  it('lists added and removed lines under their nearest named or landmark ancestor', () => {
    const after = sample
      .replace('      - paragraph [ref=e28]:', '      - alert [ref=e90]: Saved\n      - paragraph [ref=e28]:')
      .replace(/\n\s+- button "Save" \[disabled\] \[ref=e26\]/, '');
    const diff = diffSnapshots(sample, after);
    expect(diff).toMatchObject({ added: 1, removed: 1, changed: 0 });
    expect(diff?.text).toContain('@ region "Details" [ref=e7]:\n+ alert [ref=e90]: Saved');
    expect(diff?.text).toContain('@ form "Profile form" [ref=e9]:\n- button "Save" [disabled] [ref=e26]');
  });

  it('is empty for equal snapshots, and counts only actionable lines when asked', () => {
    expect(diffSnapshots(sample, sample)).toEqual({ text: '', added: 0, removed: 0, changed: 0 });
    const after = sample.replace('- text: Some text with bold and a', '- text: Other text');
    expect(diffSnapshots(sample, after)?.added).toBe(1);
    expect(diffSnapshots(sample, after, true)).toMatchObject({ text: '', added: 0, removed: 0 });
  });

  it('a subtree wrapped in a new container moved: only the container is added, nothing changed', () => {
    const tree = [
      '- main [ref=e1]:',
      '  - heading "Flows" [level=1] [ref=e2]',
      '  - list [ref=e3]:',
      '    - listitem [ref=e4]:',
      '      - button "Deploy" [ref=e5]',
      '    - listitem [ref=e6]:',
      '      - link "Help" [ref=e7]:',
      '        - /url: /help',
    ].join('\n');
    // A tray opened: the app re-parents its content one level deeper, inside a new dialog.
    const wrapped = [
      '- main [ref=e1]:',
      '  - dialog "Tray" [ref=e9]:',
      '    - heading "Flows" [level=1] [ref=e2]',
      '    - list [ref=e3]:',
      '      - listitem [ref=e4]:',
      '        - button "Deploy" [ref=e5]',
      '      - listitem [ref=e6]:',
      '        - link "Help" [ref=e7]:',
      '          - /url: /help',
    ].join('\n');
    expect(diffSnapshots(tree, wrapped)).toEqual({
      text: '@ main [ref=e1]:\n+ dialog "Tray" [ref=e9]:',
      added: 1,
      removed: 0,
      changed: 0,
    });
  });

  it('an element that moved elsewhere in the order with the same line is no change', () => {
    const before =
      '- list [ref=e1]:\n  - button "A" [ref=e2]\n  - button "B" [ref=e3]\n  - button "C" [ref=e4]';
    const after =
      '- list [ref=e1]:\n  - button "C" [ref=e4]\n  - button "A" [ref=e2]\n  - button "B" [ref=e3]';
    expect(diffSnapshots(before, after)).toEqual({ text: '', added: 0, removed: 0, changed: 0 });
  });

  it('gives up past MAX_DIFF_EDITS changed lines rather than hold the event loop', () => {
    const list = (prefix: string) =>
      Array.from(
        { length: MAX_DIFF_EDITS + 10 },
        (_, i) => `- listitem [ref=e${i + 1}]: ${prefix} ${i}`,
      ).join('\n');
    expect(diffSnapshots(list('old'), list('new'))).toBeUndefined();
    expect(diffSnapshots(list('same'), list('same'))).toMatchObject({ changed: 0, added: 0 });
  });
});

describe('a removed subtree', () => {
  const menu = [
    '- banner [ref=e1]:',
    '  - button "Menu" [ref=e2]',
    '  - list [ref=e3]:',
    '    - listitem [ref=e4]:',
    '      - link "Import" [ref=e5]:',
    '        - /url: "#import"',
    '    - listitem [ref=e6]:',
    '      - link "Export" [ref=e7]:',
    '        - /url: "#export"',
    '    - listitem [ref=e8]:',
    '      - link "Settings" [ref=e9]:',
    '        - /url: "#settings"',
    '- main [ref=e10]',
  ].join('\n');
  const closed = ['- banner [ref=e1]:', '  - button "Menu" [ref=e2]', '- main [ref=e10]'].join('\n');

  it('is one line: its root and what it held, by role', () => {
    const diff = diffSnapshots(menu, closed, true);
    expect(diff?.text).toBe('@ banner [ref=e1]:\n- list [ref=e3] (with 3 links inside)');
    expect(diff?.removed).toBe(3);
    const whole = diffSnapshots(menu, closed);
    expect(whole?.text).toBe('@ banner [ref=e1]:\n- list [ref=e3] (with 3 listitems, 3 links inside)');
  });

  it('of fewer than MIN_FOLDED_REMOVALS lines is listed line by line', () => {
    const one = menu.split('\n').slice(0, 6).join('\n') + '\n- main [ref=e10]';
    const diff = diffSnapshots(one, closed, true);
    expect(diff?.text).toBe('@ banner [ref=e1]:\n- link "Import" [ref=e5]:');
  });
});
