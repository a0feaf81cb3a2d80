// The warm pool's demand keys: how far the pool grows when creates arrive back to back,
// how many contexts it opens at once, and how far back it counts creates. Kept apart from
// configKeys.ts and config.ts (both near the file-size limit), as configIdempotency.ts is: the table
// is spread into CONFIG_KEYS after POOL_SIZE and POOL_REFILL_IDLE_MS, the values into Config.

export const POOL_CONFIG_KEYS = {
  POOL_MAX_SIZE: {
    default: '12',
    group: 'sessions',
    description:
      'The most ready contexts the pool grows to while creates arrive faster than it refills (learned from the creates of the last POOL_DEMAND_WINDOW_MS: as many as arrived within two context openings, at least POOL_SIZE). It shrinks back to POOL_SIZE when the creates stop; pooled contexts still count against MAX_SESSIONS, which bounds it too. At least POOL_SIZE, at most 100.',
  },
  POOL_MAX_OPENING: {
    default: '2',
    group: 'sessions',
    description:
      "Contexts the pool opens at once in the background. It never opens one while a session call runs or within 50 ms of one, nor in the first 500 ms of a new session until its first call ended (an opening costs the CPU every tenant's calls need); while creates keep arriving (two or more within POOL_DEMAND_WINDOW_MS) it opens as soon as calls leave it that gap, otherwise it waits for POOL_REFILL_IDLE_MS without calls. 1 to 16.",
  },
  POOL_DEMAND_WINDOW_MS: {
    default: '10000',
    group: 'sessions',
    description:
      'How far back session creates count as demand: the pool sizes itself from the creates within it, and refills without waiting for POOL_REFILL_IDLE_MS only when two or more fell within it. 100 ms to 10 min.',
  },
} as const;

export type PoolConfigKey = keyof typeof POOL_CONFIG_KEYS;

/** The pool's demand bounds, as Config carries them. */
export interface PoolConfig {
  /** POOL_SIZE (its entry is in configKeys.ts, with POOL_REFILL_IDLE_MS). */
  poolSize: number;
  poolMaxSize: number;
  poolMaxOpening: number;
  poolDemandWindowMs: number;
}

/**
 * Reads the keys; `read(key, min, max)` is loadConfig's whole-number reader (it throws a ConfigError
 * naming the key). `refuse(key, message)` makes the ConfigError of a cross-key check.
 */
export function loadPoolConfig(
  read: (key: PoolConfigKey | 'POOL_SIZE', min: number, max: number) => number,
  refuse: (key: PoolConfigKey, message: string) => Error,
): PoolConfig {
  const poolSize = read('POOL_SIZE', 0, 100);
  const config: PoolConfig = {
    poolSize,
    poolMaxSize: read('POOL_MAX_SIZE', 0, 100),
    poolMaxOpening: read('POOL_MAX_OPENING', 1, 16),
    poolDemandWindowMs: read('POOL_DEMAND_WINDOW_MS', 100, 600_000),
  };
  if (config.poolMaxSize < poolSize)
    throw refuse(
      'POOL_MAX_SIZE',
      `${config.poolMaxSize} is under POOL_SIZE (${poolSize}): the pool never holds fewer than POOL_SIZE while it may`,
    );
  return config;
}
