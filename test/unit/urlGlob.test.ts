// Route globs (browser/network/urlGlob.ts): Playwright's syntax, matched by an automaton whose work is
// bounded by pattern × URL length, where a backtracking regular expression is exponential.
import { describe, expect, it } from 'vitest';
import { compileGlob, GlobError, MAX_GLOB_URL_CHARS } from '../../src/browser/network/urlGlob.js';

const matches = (glob: string, url: string) => compileGlob(glob).test(url);

describe('compileGlob', () => {
  it('matches the whole URL: * within a segment, ** across, braces, escapes, the rest literal', () => {
    expect(matches('http://127.0.0.1:8080/api/**', 'http://127.0.0.1:8080/api/items/1?x=2')).toBe(true);
    expect(matches('http://127.0.0.1:8080/api/**', 'http://127.0.0.1:8080/apis')).toBe(false);
    expect(matches('**/api/*', 'http://h/api/items')).toBe(true);
    expect(matches('**/api/*', 'http://h/api/items/1')).toBe(false);
    expect(matches('**/*.{png,jpg}', 'http://h/a/b.jpg')).toBe(true);
    expect(matches('**/*.{png,jpg}', 'http://h/a/b.gif')).toBe(false);
    expect(matches('**/a?b', 'http://h/a?b')).toBe(true);
    expect(matches('**/a?b', 'http://h/axb')).toBe(false);
    expect(matches('**/\\*', 'http://h/*')).toBe(true);
    expect(matches('**/\\*', 'http://h/x')).toBe(false);
    expect(matches('**', '')).toBe(true);
    expect(matches('**/items', 'http://h/items/more')).toBe(false);
  });

  it('never matches a URL over MAX_GLOB_URL_CHARS', () => {
    const url = `http://h/${'a'.repeat(MAX_GLOB_URL_CHARS)}`;
    expect(matches('**', url)).toBe(false);
  });

  it('answers a pattern that makes a backtracking regex exponential (it would hang this test otherwise)', () => {
    const url = `http://h/?${'a'.repeat(MAX_GLOB_URL_CHARS - 20)}`;
    expect(matches('**a**a**a**a**a**a**=', url)).toBe(false);
    expect(matches('**a**a**a**a**a**a**', url)).toBe(true);
  });

  it('names a run of plain text every match contains, for a linear first look', () => {
    expect(compileGlob('**/routes/api/{items,other}').literal).toBe('/routes/api/');
    expect(compileGlob('http://h/*/x.js').literal).toBe('http://h/');
    expect(compileGlob('**/{ab,cd}').literal).toBe('/');
    expect(compileGlob('**').literal).toBe('');
  });

  it('refuses what it cannot parse, and brace groups past the caps', () => {
    for (const glob of ['**/{a,b', '**/a}', '**/{a*,b}', 'x\\', '{a,b}{c,d}{e,f}{g,h}{i,j}'])
      expect(() => compileGlob(glob), glob).toThrow(GlobError);
    expect(() => compileGlob(`${'x'.repeat(200)}{a,b}{c,d}{e,f}{g,h}`)).toThrow(/too large/);
  });
});
