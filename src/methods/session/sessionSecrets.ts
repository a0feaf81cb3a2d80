// Typed secrets: values a session is given at session.create ({secrets: {NAME: value}}) that
// page.fill and page.type put in by name ({secret: "NAME"}), so the agent never has them; every
// answer of the session's methods has each value replaced by <secret:NAME> (a field that shows it,
// a page that echoes it, a log line of the page), and no log line of the service carries it (the
// params name it only, and session.create's secrets are redacted as its storage state is).
import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../errors/serviceError.js';
import { refuseParams } from '../params.js';

/** Secrets a session holds at most. */
export const MAX_SECRETS = 32;
/** A secret's value is this long at least (a shorter one would be replaced in ordinary text) … */
export const MIN_SECRET_CHARS = 4;
/** … and this long at most. */
export const MAX_SECRET_CHARS = 4096;

export const SecretsParam = Type.Record(
  Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' }),
  Type.String({ minLength: MIN_SECRET_CHARS, maxLength: MAX_SECRET_CHARS }),
  {
    // A name that is not in capitals is refused, not ignored.
    additionalProperties: false,
    maxProperties: MAX_SECRETS,
    description: `Values to type by name (page.fill or page.type with secret: "NAME") that no answer shows: each is replaced by <secret:NAME> wherever an answer would carry it. Names in capitals (PASSWORD, API_TOKEN); values ${MIN_SECRET_CHARS} to ${MAX_SECRET_CHARS} characters; at most ${MAX_SECRETS}.`,
  },
);

export const SecretName = Type.String({
  pattern: '^[A-Z][A-Z0-9_]{0,63}$',
  description:
    'Instead of the text: the name of a secret given at session.create; answers show <secret:NAME>.',
});

/** The secrets of each session that has any, longest value first (a value inside another is replaced after it). */
const held = new WeakMap<object, [name: string, value: string][]>();

export function setSecrets(session: object, secrets: Record<string, string>): void {
  const entries = Object.entries(secrets).sort((a, b) => b[1].length - a[1].length);
  if (entries.length > 0) held.set(session, entries);
}

/** The value of a secret of the session, or INVALID_PARAMS naming the ones it has. */
export function secretValue(session: object, name: string, method: string): string {
  const entries = held.get(session) ?? [];
  const found = entries.find(([n]) => n === name);
  if (found !== undefined) return found[1];
  throw new ServiceError(
    'INVALID_PARAMS',
    `${method}: the session has no secret ${name} (${
      entries.length === 0
        ? 'it was created without secrets'
        : `it has ${entries
            .map(([n]) => n)
            .sort()
            .join(', ')}`
    }): give secrets to session.create.`,
    { errors: [{ path: '/secret', message: 'unknown secret', keyword: 'secret', params: {} }] },
  );
}

/** page.fill's value or page.type's text, or a secret instead: exactly one (INVALID_PARAMS otherwise). */
export function exactlyOneText(
  method: string,
  param: string,
  text: string | undefined,
  secret: string | undefined,
): void {
  if ((text === undefined) !== (secret === undefined)) return;
  const message = `give ${param} or secret (the name of a secret of the session), ${text === undefined ? 'one of them' : 'not both'}`;
  throw refuseParams(method, message);
}

/** Keys whose strings are binary data (base64 images and files): no secret can be read in them. */
const BINARY_KEYS = new Set(['base64']);

/** `value` with every secret of the session replaced by <secret:NAME>, however deep in it. */
export function redactSecrets<T>(session: object, value: T): T {
  const entries = held.get(session);
  if (entries === undefined) return value;
  const text = (s: string): string =>
    entries.reduce(
      (out, [name, secret]) => (out.includes(secret) ? out.split(secret).join(`<secret:${name}>`) : out),
      s,
    );
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key !== undefined && BINARY_KEYS.has(key) ? v : text(v);
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v))
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, k)]));
    return v;
  };
  return walk(value) as T;
}

/** An error of a session's call with the secrets taken out of its message and data. */
export function redactError(session: object, error: unknown): unknown {
  if (held.get(session) === undefined || !(error instanceof Error)) return error;
  const message = redactSecrets(session, error.message);
  if (error instanceof ServiceError) {
    const data = redactSecrets(session, error.data);
    if (message === error.message && JSON.stringify(data) === JSON.stringify(error.data)) return error;
    return new ServiceError(error.errorName, message, data, error);
  }
  error.message = message;
  return error;
}
