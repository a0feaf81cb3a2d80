// The live sessions' configuration keys (configLive.ts): defaults and bounds.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('live sessions configuration', () => {
  it('defaults: a heartbeat every 15 s, 64 calls queued per session', () => {
    expect(loadConfig({}).eventStreamHeartbeatMs).toBe(15_000);
    expect(loadConfig({}).maxQueuedCallsPerSession).toBe(64);
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
  ])('refuses %s=%s naming the key', (key, value) => {
    expect(configError({ [key]: value }).variable).toBe(key);
  });
});
