// session.export's string literals: every text an agent typed or read comes back as it was when the
// exported test's TypeScript reads it, whatever characters it holds.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { q } from '../../src/methods/session/sessionExport.js';

describe('q', () => {
  it('writes a single-quoted literal that reads back as the same text', () => {
    for (const text of [
      "Grace O'Hara",
      'a\\b',
      'line one\nline two',
      'windows\r\nline',
      'tab\there',
      'para\u2028sep\u2029end',
      'nul\u0000bell\u0007del\u007f',
      'emoji 🚀 and ünïcode',
      '',
    ]) {
      const literal = q(text);
      expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
      // One line of source: no raw line terminator can end the literal early.
      expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
      expect(runInNewContext(literal)).toBe(text);
    }
  });
});
