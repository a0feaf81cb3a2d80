import { describe, expect, it } from 'vitest';
import { MAX_LOGGED_STRING_CHARS, scrubText, scrubUrl, scrubValue } from '../../src/observability/scrub.js';

describe('scrubUrl', () => {
  it('drops userinfo and replaces query values, keeping names, host and path', () => {
    expect(scrubUrl('http://user:pw@127.0.0.1:8080/a/b?token=t1&x=2')).toBe(
      'http://***@127.0.0.1:8080/a/b?token=***&x=***',
    );
  });

  it('replaces fragment values only where the fragment holds pairs', () => {
    expect(scrubUrl('https://h.test/cb#access_token=abc&state=1')).toBe(
      'https://h.test/cb#access_token=***&state=***',
    );
    expect(scrubUrl('https://h.test/app#/projects')).toBe('https://h.test/app#/projects');
  });

  it('keeps the punctuation that ends a sentence out of the query', () => {
    expect(scrubUrl('http://h.test/?q=secret).')).toBe('http://h.test/?q=***).');
  });

  it('leaves a URL with nothing secret as it is', () => {
    expect(scrubUrl('http://localhost:3337/rpc')).toBe('http://localhost:3337/rpc');
  });

  it('still drops userinfo and query from what does not parse', () => {
    const out = scrubUrl('http://us er:pw@bad host/?k=v');
    expect(out).not.toContain('pw');
    expect(out).not.toContain('k=v');
  });
});

describe('scrubText and scrubValue', () => {
  it('scrubs every URL inside free text', () => {
    const text = 'Navigation to http://a:b@h.test/?t=1 was blocked: it led to https://x.test/?k=2';
    expect(scrubText(text)).toBe(
      'Navigation to http://***@h.test/?t=*** was blocked: it led to https://x.test/?k=***',
    );
  });

  it('cuts long text and says how much was cut', () => {
    const out = scrubText('y'.repeat(MAX_LOGGED_STRING_CHARS + 10));
    expect(out.startsWith('y'.repeat(MAX_LOGGED_STRING_CHARS))).toBe(true);
    expect(out).toContain('[10 more chars]');
  });

  it('walks objects, arrays and errors, and stops at a bounded depth', () => {
    const error = new Error('see http://h.test/?k=secret');
    const out = scrubValue({ a: ['http://u:p@h.test/'], err: error }) as {
      a: string[];
      err: { type: string; message: string; stack: string };
    };
    expect(out.a).toEqual(['http://***@h.test/']);
    expect(out.err.type).toBe('Error');
    expect(out.err.message).toBe('see http://h.test/?k=***');
    expect(out.err.stack).not.toContain('secret');
    let deep: unknown = 'http://h.test/?k=secret';
    for (let i = 0; i < 20; i++) deep = { next: deep };
    expect(JSON.stringify(scrubValue(deep))).not.toContain('secret');
  });
});
