// page.keyboard's key names: chords split as Playwright splits them, unknown names refused with the
// name meant. (test/integration/input.test.ts presses every accepted name in Chromium.)
import { describe, expect, it } from 'vitest';
import { KEY_NAMES, keyProblem, splitChord, suggestKey } from '../../src/methods/page/keyNames.js';

describe('key names', () => {
  it('splits chords on +, keeping a + that is a key', () => {
    expect(splitChord('Control+A')).toEqual(['Control', 'A']);
    expect(splitChord('Shift++')).toEqual(['Shift', '+']);
    expect(splitChord('+')).toEqual(['+']);
    expect(splitChord('Control+Shift+ArrowDown')).toEqual(['Control', 'Shift', 'ArrowDown']);
  });

  it('accepts characters, layout codes, names and modifiers', () => {
    for (const key of [
      'a',
      'A',
      '1',
      '/',
      ' ',
      'KeyA',
      'Digit1',
      'Enter',
      'ArrowDown',
      'F12',
      'ControlOrMeta',
    ])
      expect(KEY_NAMES.has(key), key).toBe(true);
    for (const chord of ['Control+A', 'Shift+Tab', 'ControlOrMeta+Shift+z', 'Shift++', 'Alt+F4'])
      expect(keyProblem(chord), chord).toBeUndefined();
  });

  it('refuses unknown names with the name meant, and empty keys', () => {
    expect(keyProblem('Ctrl+A')).toBe('unknown key "Ctrl" (key 1 of "Ctrl+A"): did you mean "Control"?');
    expect(keyProblem('escape')).toBe('unknown key "escape": did you mean "Escape"?');
    expect(keyProblem('Control+é')).toContain('unknown key "é"');
    expect(keyProblem('Control+')).toContain('empty key');
    expect(keyProblem('Foo')).toContain('ArrowDown');
    expect(suggestKey('cmd')).toBe('Meta');
    expect(suggestKey('DOWN')).toBe('ArrowDown');
    expect(suggestKey('xyz')).toBeUndefined();
  });
});
