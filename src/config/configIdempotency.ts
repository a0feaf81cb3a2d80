// The idempotency store's keys: how long a call's answer is kept for a repeat of its
// idempotency_key, and the bounds on what the store holds. Kept apart from configKeys.ts and
// config.ts (both near the file-size limit), as configCaps.ts is: the table is spread into
// CONFIG_KEYS, the values into Config.
import { readCaps, type ReadWholeNumber, type RefuseKey } from './configLoaders.js';

const MIB = 1024 * 1024;

export const IDEMPOTENCY_CONFIG_KEYS = {
  IDEMPOTENCY_TTL_MS: {
    default: '600000',
    group: 'http',
    description:
      'How long the answer of a call made with an idempotency_key is kept after the call ended (10 min): a repeat of the key within it gets that answer without running again; after it the key is forgotten and a repeat runs as a new call. At most 24 h.',
  },
  IDEMPOTENCY_MAX_KEYS: {
    default: '20000',
    group: 'http',
    description:
      "idempotency_keys one API key holds at most, running calls included (each key has its own, so no caller's keys push out another's): past it that caller's oldest ended ones are forgotten before their IDEMPOTENCY_TTL_MS (rpc_idempotency_evictions_total counts them), and when all its keys are running its new keyed call is refused with LIMIT_REACHED. At most 1000000.",
  },
  IDEMPOTENCY_MAX_ANSWER_BYTES: {
    default: '2097152',
    group: 'http',
    description:
      'The largest answer (as JSON, 2 MiB) kept for a repeat. A larger one reaches the caller and those waiting with it, but a later repeat gets LIMIT_REACHED (reason idempotent-answer-not-kept): the call ran and is not run again. At most IDEMPOTENCY_MAX_BYTES.',
  },
  IDEMPOTENCY_MAX_BYTES: {
    default: '67108864',
    group: 'http',
    description:
      "Bytes of one API key's kept answers together (64 MiB, held in memory; each key has its own). Past it that caller's oldest answers are dropped but their keys kept: a repeat gets LIMIT_REACHED (reason idempotent-answer-not-kept), never a second run. At most 4 GiB.",
  },
} as const;

export type IdempotencyConfigKey = keyof typeof IDEMPOTENCY_CONFIG_KEYS;

/** The store's bounds, as Config carries them. */
export interface IdempotencyConfig {
  idempotencyTtlMs: number;
  idempotencyMaxKeys: number;
  idempotencyMaxAnswerBytes: number;
  idempotencyMaxBytes: number;
}

/** Reads the keys with loadConfig's reader, and checks them against each other. */
export function loadIdempotencyConfig(
  read: ReadWholeNumber<IdempotencyConfigKey>,
  refuse: RefuseKey<IdempotencyConfigKey>,
): IdempotencyConfig {
  return readCaps(
    read,
    refuse,
    {
      idempotencyTtlMs: ['IDEMPOTENCY_TTL_MS', 1, 24 * 3600 * 1000],
      idempotencyMaxKeys: ['IDEMPOTENCY_MAX_KEYS', 1, 1_000_000],
      idempotencyMaxAnswerBytes: ['IDEMPOTENCY_MAX_ANSWER_BYTES', 0, 4096 * MIB],
      idempotencyMaxBytes: ['IDEMPOTENCY_MAX_BYTES', 0, 4096 * MIB],
    },
    // An answer over what all answers may hold would be dropped the moment it was kept.
    { item: 'answer', one: 'idempotencyMaxAnswerBytes', all: 'idempotencyMaxBytes' },
  );
}
