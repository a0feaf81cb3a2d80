import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { keyMatches, presentedKey } from '../../src/http/auth.js';

const KEY = 'k3y-0123456789abcdef';

/** Just enough of an Express request for presentedKey: header lookup by case-insensitive name. */
function fakeRequest(headers: Record<string, string>): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { get: (name: string) => lower[name.toLowerCase()] } as unknown as Request;
}

describe('keyMatches', () => {
  it('accepts the configured key', () => {
    expect(keyMatches(KEY, [KEY])).toBe(true);
  });

  it('accepts any of several keys, wherever it is in the list', () => {
    const keys = ['first-key', KEY, 'third-key'];
    for (const k of keys) expect(keyMatches(k, keys)).toBe(true);
  });

  it.each([
    ['a prefix of the key', KEY.slice(0, -1)],
    ['the key plus one character', `${KEY}x`],
    ['the key in another case', KEY.toUpperCase()],
    ['the key with a space', ` ${KEY}`],
    ['an empty string', ''],
    ['an unrelated key', 'nope'],
  ])('refuses %s', (_what, presented) => {
    expect(keyMatches(presented, [KEY, 'other-key'])).toBe(false);
  });

  it('refuses everything when no key is configured', () => {
    expect(keyMatches(KEY, [])).toBe(false);
    expect(keyMatches('', [])).toBe(false);
  });
});

describe('presentedKey', () => {
  it('reads x-api-key', () => {
    expect(presentedKey(fakeRequest({ 'x-api-key': KEY }))).toBe(KEY);
  });

  it('reads Authorization: Bearer, whatever the scheme case', () => {
    expect(presentedKey(fakeRequest({ authorization: `Bearer ${KEY}` }))).toBe(KEY);
    expect(presentedKey(fakeRequest({ authorization: `bearer   ${KEY}` }))).toBe(KEY);
  });

  it('prefers x-api-key over Authorization', () => {
    expect(presentedKey(fakeRequest({ 'x-api-key': KEY, authorization: 'Bearer other' }))).toBe(KEY);
  });

  it('ignores other schemes and an absent key', () => {
    expect(presentedKey(fakeRequest({ authorization: `Basic ${KEY}` }))).toBeUndefined();
    expect(presentedKey(fakeRequest({ authorization: 'Bearer' }))).toBeUndefined();
    expect(presentedKey(fakeRequest({}))).toBeUndefined();
  });
});
