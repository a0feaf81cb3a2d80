import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runWithDeadline } from '../../src/errors/deadline.js';
import { ServiceError } from '../../src/errors/serviceError.js';
import { parseSnapshot } from '../../src/browser/page/snapshotLines.js';
import {
  contextOf,
  groupAlike,
  excerpt,
  lineOf,
  matchRole,
  matchText,
  MAX_CONTEXT_CHARS,
  MAX_MATCH_LINE_CHARS,
  MAX_REGEX_INPUT_CHARS,
  refOf,
} from '../../src/browser/page/snapshotSearch.js';

// The real AI snapshot snapshotLines.test.ts reads: landmarks, a form, a shadow root and an iframe.
const sample = readFileSync(new URL('./fixtures/ariaSnapshotSample.yaml', import.meta.url), 'utf8');
const lines = parseSnapshot(sample);
const refs = (found: { index: number }[]) => found.map((m) => refOf(lines, m.index));

describe('matchRole', () => {
  it('matches the role whole, in frames too, with any name when none is given', () => {
    expect(refs(matchRole(lines, 'button', undefined, false))).toEqual(['e25', 'e26', 'e31', 'f1e2']);
    expect(matchRole(lines, 'butto', undefined, false)).toEqual([]);
  });

  it('matches a name as a case-insensitive substring, or exactly and case-sensitively', () => {
    expect(refs(matchRole(lines, 'button', 'SHADOW', false))).toEqual(['e31']);
    expect(refs(matchRole(lines, 'button', 'Shadow btn', true))).toEqual(['e31']);
    expect(matchRole(lines, 'button', 'shadow btn', true)).toEqual([]);
    expect(matchRole(lines, 'button', 'Shadow', true)).toEqual([]);
    expect(matchRole(lines, 'textbox', 'Nam', false).length).toBe(1);
  });

  it('lists an element the snapshot gives no ref with ref null', () => {
    const options = matchRole(lines, 'option', undefined, false);
    expect(refs(options)).toEqual([null, null, 'e21', 'e22']);
  });
});

describe('matchText', () => {
  it('finds names, text nodes and values case-insensitively, not link targets', () => {
    expect(refs(matchText(lines, { text: 'shadow BTN' }))).toEqual(['e31']);
    expect(refs(matchText(lines, { text: 'multi line' }))).toEqual(['e17']);
    expect(matchText(lines, { text: '/a?x=1' })).toEqual([]);
  });

  it('gives a text node the ref of the element it belongs to', () => {
    const [bold] = matchText(lines, { text: 'with bold' });
    expect(bold).toBeDefined();
    expect(lines[bold?.index ?? -1]?.role).toBe('text');
    expect(refOf(lines, bold?.index ?? -1)).toBe('e28');
  });

  it('runs a regex with its flags, on at most MAX_REGEX_INPUT_CHARS of each text', () => {
    expect(refs(matchText(lines, { regex: /^Sa/ }))).toEqual(['e26']);
    expect(matchText(lines, { regex: /^sa/ })).toEqual([]);
    expect(refs(matchText(lines, { regex: /^sa/i }))).toEqual(['e26']);
    const long = parseSnapshot(`- paragraph [ref=e1]: ${'x'.repeat(MAX_REGEX_INPUT_CHARS)}needle`);
    expect(matchText(long, { regex: /needle/ })).toEqual([]);
    expect(matchText(long, { text: 'needle' })).toHaveLength(1);
  });

  it('stops a catastrophic regex with INVALID_PARAMS instead of hanging', () => {
    const evil = parseSnapshot(`- paragraph: ${'a'.repeat(40)}b`);
    let error: unknown;
    try {
      matchText(evil, { regex: /^(a+)+$/ });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ errorName: 'INVALID_PARAMS' });
    expect((error as Error).message).toContain('simplify it');
  });
});

describe('what a match shows', () => {
  it('context: the enclosing line, the siblings before and after, and the line itself', () => {
    const [link] = matchText(lines, { text: 'link' }).filter((m) => lines[m.index]?.ref === 'e29');
    expect(link).toBeDefined();
    const context = contextOf(lines, link ?? { index: 0, at: 0 });
    expect(context.split('\n')).toEqual([
      '- paragraph [ref=e28]:',
      '  - text: Some text with bold and a',
      '  - link "link" [ref=e29] [cursor=pointer]: <- match',
      '  - text: .',
    ]);
  });

  it('a match in a table row: the row and each cell with the text it holds, the match marked', () => {
    const table = parseSnapshot(
      [
        '- table [ref=e1]:',
        '  - rowgroup [ref=e2]:',
        '    - row "Copper Kettle €24 In stock" [ref=e3]:',
        '      - cell "Copper Kettle" [ref=e4]:',
        '        - link "Copper Kettle" [ref=e5]:',
        '          - /url: /p/1',
        '      - cell [ref=e6]:',
        '        - text: €24',
        '      - cell [ref=e7]:',
        '        - textbox "Quantity" [ref=e8]: "2"',
      ].join('\n'),
    );
    const [row, , link] = matchText(table, { text: 'Kettle' });
    expect(table[row?.index ?? 0]?.role).toBe('row');
    expect(contextOf(table, row ?? { index: 0, at: 0 })).not.toContain('<- match');
    expect(table[link?.index ?? 0]?.role).toBe('link');
    expect(contextOf(table, link ?? { index: 0, at: 0 }).split('\n')).toEqual([
      '- row "Copper Kettle €24 In stock" [ref=e3]:',
      '  - cell "Copper Kettle" [ref=e4] <- match',
      '  - cell [ref=e6]: €24',
      '  - cell [ref=e7]: Quantity 2',
    ]);
  });

  it('cuts a long line around the match, and the context to MAX_CONTEXT_CHARS', () => {
    const long = parseSnapshot(
      `- main:\n  - paragraph [ref=e1]: ${'word '.repeat(2000)}needle ${'tail '.repeat(2000)}`,
    );
    const [match] = matchText(long, { text: 'needle' });
    expect(match).toBeDefined();
    const m = match ?? { index: 0, at: 0 };
    const line = lineOf(long, m);
    expect(line).toContain('needle');
    expect(line.length).toBeLessThanOrEqual(MAX_MATCH_LINE_CHARS + 2);
    expect(line.startsWith('…') && line.endsWith('…')).toBe(true);
    const context = contextOf(long, m);
    expect(context).toContain('needle');
    expect(context.length).toBeLessThanOrEqual(MAX_CONTEXT_CHARS + 2);
  });

  it('excerpt leaves short text alone and marks where it cut', () => {
    expect(excerpt('short', 0, 10)).toBe('short');
    expect(excerpt('0123456789abcdef', 0, 4)).toBe('0123…');
    expect(excerpt('0123456789abcdef', 15, 4)).toBe('…cdef');
  });
});

describe('runWithDeadline', () => {
  it('returns what the work returns and passes its errors through', () => {
    expect(
      runWithDeadline(
        () => 42,
        1000,
        () => new Error('late'),
      ),
    ).toBe(42);
    expect(() =>
      runWithDeadline(
        () => {
          throw new RangeError('inner');
        },
        1000,
        () => new Error('late'),
      ),
    ).toThrow(RangeError);
  });

  it('interrupts a synchronous loop past the deadline', () => {
    const loop = () => {
      for (;;) {
        // spins until the vm timeout terminates it
      }
    };
    expect(() => runWithDeadline(loop, 50, () => new Error('late'))).toThrow('late');
  });
});

describe('matches that read the same', () => {
  it('are listed once, the others by ref in alike; a match without a ref stays listed', () => {
    const shown = [
      { ref: 'e1', line: 'link "deque" [ref=e1]' },
      { ref: 'e2', line: 'link "list" [ref=e2]' },
      { ref: 'e3', line: 'link "deque" [ref=e3]' },
      { ref: null, line: 'link "deque" [ref=e4]' },
      { ref: 'e5', line: 'link "deque" [ref=e5]' },
    ];
    expect(groupAlike(shown, (m) => m.line)).toEqual([
      { ref: 'e1', line: 'link "deque" [ref=e1]', alike: ['e3', 'e5'] },
      { ref: 'e2', line: 'link "list" [ref=e2]' },
      { ref: null, line: 'link "deque" [ref=e4]' },
    ]);
  });
});
