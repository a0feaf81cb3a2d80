// The live sessions' keys: the event streams' heartbeat, the feeds of sessions' logs one key
// holds (MAX_SUBSCRIPTIONS_PER_KEY), and the bound on calls queued
// for one session's lock (MAX_QUEUED_CALLS_PER_SESSION). Kept apart from configKeys.ts and config.ts (both near the file-size
// limit), as configIdempotency.ts is: the table is spread into CONFIG_KEYS, the values into Config.

export const LIVE_CONFIG_KEYS = {
  EVENT_STREAM_HEARTBEAT_MS: {
    default: '15000',
    group: 'http',
    description:
      'How often an open GET /sessions/{id}/events stream sends a `: ping` comment line, so proxies and clients see a live connection (15 s). 100 to 3600000.',
  },
  MAX_SUBSCRIPTIONS_PER_KEY: {
    default: '64',
    group: 'http',
    description:
      "Subscriptions (session.subscribe, on all of a key's /rpc sockets) and GET /sessions/{id}/events streams one API key may hold together; past it the next gets LIMIT_REACHED (429 for a stream). Each sends every entry of its session's log: one key's cannot stall the others' calls. MAX_SUBSCRIPTIONS_PER_SOCKET and MAX_EVENT_STREAMS_PER_KEY still apply. 1 to 100000.",
  },
  MAX_QUEUED_CALLS_PER_SESSION: {
    default: '64',
    group: 'sessions',
    description:
      "Calls that may wait for one session's turn behind the call it runs (its calls run one at a time): past it a call is refused at once with LIMIT_REACHED (reason session-queue-full, data.retryAfterMs), not queued, and an idempotency_key does not keep that refusal. 1 to 10000.",
  },
} as const;

export type LiveConfigKey = keyof typeof LIVE_CONFIG_KEYS;

/** The live sessions' settings, as Config carries them. */
export interface LiveConfig {
  eventStreamHeartbeatMs: number;
  /** Subscriptions and event streams one key holds together (FeedQuota). */
  maxSubscriptionsPerKey: number;
  maxQueuedCallsPerSession: number;
}

/** Reads the keys; `read(key, min, max)` is loadConfig's whole-number reader (it throws a ConfigError naming the key). */
export function loadLiveConfig(read: (key: LiveConfigKey, min: number, max: number) => number): LiveConfig {
  return {
    eventStreamHeartbeatMs: read('EVENT_STREAM_HEARTBEAT_MS', 100, 3_600_000),
    maxSubscriptionsPerKey: read('MAX_SUBSCRIPTIONS_PER_KEY', 1, 100_000),
    maxQueuedCallsPerSession: read('MAX_QUEUED_CALLS_PER_SESSION', 1, 10_000),
  };
}
