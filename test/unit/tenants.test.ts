// The pure parts of tenancy: the principal a key maps to, and how ADMIN_API_KEY and
// MAX_SESSIONS_PER_KEY are read.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { principalFor } from '../../src/http/auth.js';
import { configError } from '../helpers/configError.js';

const KEY_A = 'tenant-a-key-0123456789';
const KEY_B = 'tenant-b-key-0123456789';
const ADMIN = 'tenant-admin-key-0123456789';

describe('principalFor', () => {
  it('names a key by a short digest, never by the key, and the same key always alike', () => {
    const a = principalFor(KEY_A, ADMIN);
    expect(a).toEqual({ id: expect.stringMatching(/^key:[0-9a-f]{16}$/) as unknown, admin: false });
    expect(a.id).not.toContain(KEY_A);
    expect(principalFor(KEY_A, undefined)).toEqual(a);
    expect(principalFor(KEY_B, ADMIN).id).not.toBe(a.id);
  });

  it('marks only ADMIN_API_KEY as admin', () => {
    expect(principalFor(ADMIN, ADMIN).admin).toBe(true);
    expect(principalFor(ADMIN, undefined).admin).toBe(false);
    expect(principalFor(KEY_A, ADMIN).admin).toBe(false);
  });
});

describe('ADMIN_API_KEY', () => {
  it('is accepted as an API key besides those of API_KEY, and is never generated', () => {
    expect(loadConfig({ API_KEY: `${KEY_A},${KEY_B}`, ADMIN_API_KEY: ADMIN })).toMatchObject({
      apiKeys: [KEY_A, KEY_B, ADMIN],
      adminApiKey: ADMIN,
    });
    expect(loadConfig({ API_KEY: KEY_A })).toMatchObject({ apiKeys: [KEY_A], adminApiKey: undefined });
  });

  it('refuses a key that is also a tenant key, or a list, without echoing it', () => {
    for (const value of [KEY_A, `${ADMIN},${KEY_B}`]) {
      const error = configError({ API_KEY: `${KEY_A},${KEY_B}`, ADMIN_API_KEY: value });
      expect(error.variable).toBe('ADMIN_API_KEY');
      expect(error.message).not.toContain(KEY_A);
      expect(error.message).not.toContain(ADMIN);
    }
  });
});

describe('MAX_SESSIONS_PER_KEY', () => {
  it.each([
    ['one key holds all of MAX_SESSIONS, as before', KEY_A, '8', 8],
    ['no key yet (one is generated) holds all of it', '', '8', 8],
    ['two keys share it', `${KEY_A},${KEY_B}`, '8', 4],
    ['three keys share it, rounded up', `${KEY_A},${KEY_B},k3`, '8', 3],
    ['a key repeated counts once', `${KEY_A},${KEY_A}`, '8', 8],
  ])('when unset: %s', (_what, apiKey, maxSessions, expected) => {
    const config = loadConfig({ API_KEY: apiKey, MAX_SESSIONS: maxSessions, ADMIN_API_KEY: ADMIN });
    expect(config.maxSessionsPerKey).toBe(expected);
  });

  it('takes a value when set, and refuses one below 1', () => {
    expect(loadConfig({ API_KEY: `${KEY_A},${KEY_B}`, MAX_SESSIONS_PER_KEY: '6' }).maxSessionsPerKey).toBe(6);
    expect(configError({ API_KEY: KEY_A, MAX_SESSIONS_PER_KEY: '0' }).variable).toBe('MAX_SESSIONS_PER_KEY');
  });
});
