// The idempotency store's configuration keys: defaults, bounds and the cross-key check.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { configError } from '../helpers/configError.js';

describe('IDEMPOTENCY_* configuration', () => {
  it('defaults: 10 minutes, 20000 keys, 2 MiB an answer, 64 MiB in all', () => {
    const config = loadConfig({});
    expect(config.idempotencyTtlMs).toBe(600_000);
    expect(config.idempotencyMaxKeys).toBe(20_000);
    expect(config.idempotencyMaxAnswerBytes).toBe(2 * 1024 * 1024);
    expect(config.idempotencyMaxBytes).toBe(64 * 1024 * 1024);
  });

  it.each([
    ['IDEMPOTENCY_TTL_MS', '0'],
    ['IDEMPOTENCY_TTL_MS', String(24 * 3600 * 1000 + 1)],
    ['IDEMPOTENCY_MAX_KEYS', '0'],
    ['IDEMPOTENCY_MAX_KEYS', '1000001'],
    ['IDEMPOTENCY_MAX_BYTES', '-1'],
    ['IDEMPOTENCY_MAX_ANSWER_BYTES', 'lots'],
  ])('refuses %s=%s naming the key', (key, value) => {
    expect(configError({ [key]: value }).variable).toBe(key);
  });

  it('refuses an answer cap over the cap of all answers', () => {
    const error = configError({ IDEMPOTENCY_MAX_ANSWER_BYTES: '2000', IDEMPOTENCY_MAX_BYTES: '1000' });
    expect(error.variable).toBe('IDEMPOTENCY_MAX_ANSWER_BYTES');
    expect(
      loadConfig({ IDEMPOTENCY_MAX_ANSWER_BYTES: '1000', IDEMPOTENCY_MAX_BYTES: '1000' }).idempotencyMaxBytes,
    ).toBe(1000);
  });
});
