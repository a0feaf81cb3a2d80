import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSnapshot } from '../../src/browser/page/snapshotLines.js';

// A real AI aria snapshot (Chromium, Playwright 1.65) of a page with landmarks, a form, a shadow
// root and an iframe; see test/unit/fixtures/ariaSnapshotSample.yaml.
const sample = readFileSync(new URL('./fixtures/ariaSnapshotSample.yaml', import.meta.url), 'utf8');

describe('parseSnapshot', () => {
  const lines = parseSnapshot(sample);
  const byRef = (ref: string) => lines.find((l) => l.ref === ref);

  it('reads role, name, attributes, ref and value of each line', () => {
    expect(byRef('e11')).toMatchObject({ role: 'textbox', name: 'Name', value: 'Ada', attrs: [] });
    expect(byRef('e15')).toMatchObject({ role: 'checkbox', name: 'Terms', attrs: ['checked'] });
    expect(byRef('e8')).toMatchObject({ role: 'heading', name: 'Profile', attrs: ['level=2'] });
    expect(byRef('e18')).toMatchObject({ role: 'slider', value: '50' });
  });

  it('unquotes a YAML-quoted key and a JSON-escaped name', () => {
    expect(byRef('e4')).toMatchObject({ role: 'link', name: 'Home: "main"', attrs: ['cursor=pointer'] });
    const link = lines.findIndex((l) => l.ref === 'e4');
    expect(lines[link + 1]).toMatchObject({ role: '/url', value: '/a?x=1' });
  });

  it('links each line to its parent, across frames', () => {
    const inFrame = byRef('f1e2');
    expect(inFrame?.role).toBe('button');
    const frameRoot = lines[inFrame?.parent ?? -1];
    expect(lines[frameRoot?.parent ?? -1]?.role).toBe('iframe');
    expect(byRef('e1')?.parent).toBe(-1);
  });

  it('skips what is not an element line and reads text nodes', () => {
    expect(parseSnapshot('not a line\n- text: hello')).toEqual([
      expect.objectContaining({ role: 'text', value: 'hello', depth: 0, parent: -1 }),
    ]);
  });
});
