import { describe, expect, it } from 'vitest';
import { clampChars, normalizeText } from '../../src/methods/page/normalizeText.js';

/** True when the string has no unpaired surrogate. */
function wellFormed(s: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

describe('normalizeText', () => {
  it.each([
    ['a\r\nb\rc', 'a\nb\nc'],
    ['a\u00a0\u00a0b', 'a b'],
    ['a  \t  b', 'a b'],
    ['line one   \n   line two', 'line one\nline two'],
    ['a\n\n\n\n\nb', 'a\n\nb'],
    ['a\n \n \n b', 'a\n\nb'],
    ['  \n\n  padded  \n\n ', 'padded'],
    ['', ''],
    [' \t\r\n ', ''],
  ])('%j → %j', (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it('keeps a single empty line between paragraphs and the text itself untouched', () => {
    expect(normalizeText('Projects\n\nApollo · 3 tasks\nZephyr')).toBe(
      'Projects\n\nApollo · 3 tasks\nZephyr',
    );
  });

  it('is idempotent', () => {
    const once = normalizeText(' a \r\n\r\n\r\n b\u00a0\u00a0c \t');
    expect(normalizeText(once)).toBe(once);
  });
});

describe('clampChars', () => {
  it('leaves a string within the limit alone', () => {
    expect(clampChars('hello', 5)).toEqual({ text: 'hello', truncated: false });
    expect(clampChars('', 0)).toEqual({ text: '', truncated: false });
  });

  it('cuts a longer string to max UTF-16 units and says so', () => {
    expect(clampChars('hello world', 5)).toEqual({ text: 'hello', truncated: true });
  });

  it('never splits a surrogate pair: the cut moves before it', () => {
    const text = 'ab😀cd'; // 😀 is two UTF-16 units at indices 2 and 3
    const r = clampChars(text, 3);
    expect(r).toEqual({ text: 'ab', truncated: true });
    expect(wellFormed(r.text)).toBe(true);
  });

  it('keeps a surrogate pair that ends exactly at the limit', () => {
    expect(clampChars('ab😀cd', 4)).toEqual({ text: 'ab😀', truncated: true });
  });

  it('a string of only astral characters is cut on pair boundaries', () => {
    const text = '😀🎉🚀🌍';
    for (let max = 0; max < text.length; max++) {
      const r = clampChars(text, max);
      expect(r.truncated).toBe(true);
      expect(r.text.length).toBeLessThanOrEqual(max);
      expect(r.text.length % 2).toBe(0);
      expect(wellFormed(r.text)).toBe(true);
      expect(text.startsWith(r.text)).toBe(true);
    }
  });

  it('a limit of zero gives an empty, truncated result', () => {
    expect(clampChars('x', 0)).toEqual({ text: '', truncated: true });
  });
});
