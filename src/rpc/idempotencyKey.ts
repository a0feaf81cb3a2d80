// The `idempotency_key` param (seed 002's name) every method takes, and what the store keys and
// compares a repeat by. The key is the caller's, not a secret: it is logged, cut to a few characters.
import { createHash } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';

/** The param's name on every transport: JSON-RPC params, MCP arguments, seed 002's execute body. */
export const IDEMPOTENCY_PARAM = 'idempotency_key';

/** A key is at most this long: a UUID or a model's tool-call id fits many times over. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** A log line carries at most this much of a key: enough to find its calls, never a long string. */
export const MAX_LOGGED_IDEMPOTENCY_KEY_CHARS = 64;

/** Visible ASCII only: no spaces, control characters or look-alike Unicode to tell apart in a log. */
const KEY_PATTERN = '^[\\x21-\\x7E]+$';

/** The param of a method that changes something: a repeat of the key gets the first answer. */
export function idempotencyKeySchema(readOnly: boolean): TSchema {
  return Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_IDEMPOTENCY_KEY_CHARS,
      pattern: KEY_PATTERN,
      description: readOnly
        ? 'Accepted and ignored: a read-only call runs again on a repeat.'
        : 'Your key for this call: a repeat within IDEMPOTENCY_TTL_MS gets the first answer instead of a second run.',
    }),
  );
}

/** The key as a log line shows it. */
export function loggedKey(key: string): string {
  return key.length <= MAX_LOGGED_IDEMPOTENCY_KEY_CHARS
    ? key
    : `${key.slice(0, MAX_LOGGED_IDEMPOTENCY_KEY_CHARS)}…`;
}

/** JSON with every object's keys sorted, so `{a, b}` and `{b, a}` read the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/**
 * What a repeat must match: the method and its validated params (defaults filled, the key left out),
 * hashed so the store holds no param values (a cookie, a header) beyond the call.
 */
export function fingerprint(method: string, params: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson([method, params]))
    .digest('base64url');
}
