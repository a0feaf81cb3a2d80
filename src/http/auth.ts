import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import type { Principal } from '../rpc/defineMethod.js';

/** Hex digits of the key's SHA-256 that name its principal: 64 bits, unique among configured keys. */
const PRINCIPAL_DIGEST_CHARS = 16;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Reads one request header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

/**
 * The key request headers present: `x-api-key`, or `Authorization: Bearer …`. Never the query
 * string. Used for HTTP requests and for WebSocket handshakes alike.
 */
export function presentedKeyIn(header: HeaderReader): string | undefined {
  const apiKey = header('x-api-key');
  if (apiKey) return apiKey;
  const auth = header('authorization');
  const m = auth === undefined ? null : /^Bearer\s+(.+)$/i.exec(auth);
  return m?.[1]?.trim();
}

/** A HeaderReader over Node's parsed headers (a repeated header counts by its first value). */
export function headerReader(headers: IncomingHttpHeaders): HeaderReader {
  return (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
}

/**
 * What the shipped .mcp.json sends as its key when API_KEY is unset (`${API_KEY:-…}`): not a key
 * but an instruction, which `claude mcp get` shows to whoever looks at the server's headers.
 */
export const UNSET_KEY_PLACEHOLDER = 'set-API_KEY-in-your-environment';

/** A variable reference a client sent as it was written: `${API_KEY}`, `${API_KEY:-x}`, `$API_KEY`. */
const UNEXPANDED_VARIABLE = /^\$(\{[A-Za-z_]\w*(:?[-=?+][^}]*)?\}|[A-Za-z_]\w*)$/;

/**
 * True when a presented key is a placeholder rather than a guess: the .mcp.json default, or a
 * variable reference the client never expanded. The service never accepts one as a key.
 */
export function isKeyPlaceholder(key: string): boolean {
  const value = key.trim();
  return value === UNSET_KEY_PLACEHOLDER || UNEXPANDED_VARIABLE.test(value);
}

/** The key an HTTP request presents (see presentedKeyIn). */
export function presentedKey(req: Request): string | undefined {
  return presentedKeyIn((name) => req.get(name));
}

/**
 * Compares against every configured key in constant time: digests make the lengths equal, and the
 * loop never stops early, so timing tells nothing about which key or how much of it matched.
 */
export function keyMatches(presented: string, keys: readonly string[]): boolean {
  const got = digest(presented);
  let match = false;
  for (const key of keys) match = timingSafeEqual(got, digest(key)) || match;
  return match;
}

/**
 * The principal of a key that was accepted: `key:` and a short digest of it (never the key, so it
 * may be logged), and admin when it is ADMIN_API_KEY (compared in constant time, as every key is).
 */
export function principalFor(acceptedKey: string, adminKey: string | undefined): Principal {
  return {
    id: `key:${digest(acceptedKey).toString('hex').slice(0, PRINCIPAL_DIGEST_CHARS)}`,
    admin: adminKey !== undefined && keyMatches(acceptedKey, [adminKey]),
  };
}

/** The principal the edge put on the response; a route mounted without the key check fails closed. */
export function principalOf(res: Response): Principal {
  const principal: unknown = res.locals.principal;
  if (
    typeof principal !== 'object' ||
    principal === null ||
    !('id' in principal) ||
    typeof principal.id !== 'string' ||
    !('admin' in principal) ||
    typeof principal.admin !== 'boolean'
  )
    throw new Error('no principal on the request: the route is mounted without the API key check');
  return { id: principal.id, admin: principal.admin };
}
