// The live sessions' configuration keys (configLive.ts): defaults and bounds.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { configError } from '../helpers/configError.js';

describe('live sessions configuration', () => {
  it('defaults: a heartbeat every 15 s, 64 subscriptions and streams per key, 64 calls queued per session', () => {
    expect(loadConfig({}).eventStreamHeartbeatMs).toBe(15_000);
    expect(loadConfig({}).maxQueuedCallsPerSession).toBe(64);
    expect(loadConfig({}).maxSubscriptionsPerKey).toBe(64);
    expect(loadConfig({ MAX_SUBSCRIPTIONS_PER_KEY: '1' }).maxSubscriptionsPerKey).toBe(1);
    expect(loadConfig({ MAX_QUEUED_CALLS_PER_SESSION: '1' }).maxQueuedCallsPerSession).toBe(1);
    expect(loadConfig({ EVENT_STREAM_HEARTBEAT_MS: '100' }).eventStreamHeartbeatMs).toBe(100);
  });

  it.each([
    ['EVENT_STREAM_HEARTBEAT_MS', '0'],
    ['EVENT_STREAM_HEARTBEAT_MS', '99'],
    ['EVENT_STREAM_HEARTBEAT_MS', '3600001'],
    ['EVENT_STREAM_HEARTBEAT_MS', 'often'],
    ['MAX_QUEUED_CALLS_PER_SESSION', '0'],
    ['MAX_QUEUED_CALLS_PER_SESSION', '10001'],
    ['MAX_SUBSCRIPTIONS_PER_KEY', '0'],
    ['MAX_SUBSCRIPTIONS_PER_KEY', '100001'],
    ['MAX_SUBSCRIPTIONS_PER_KEY', 'many'],
  ])('refuses %s=%s naming the key', (key, value) => {
    expect(configError({ [key]: value }).variable).toBe(key);
  });
});
