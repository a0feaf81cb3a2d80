// The shapes of cookies and storage state, shared by session.create, cookies.* and
// session.storageState / session.setStorageState, and the step from the minimal cookie a caller may
// give (name, value and a url, or name, value and a domain) to the whole one Playwright stores.
import { Type, type Static } from '@sinclair/typebox';
import { ServiceError } from '../../errors/serviceError.js';

/** A cookie set in one call (cookies.set) or given at session.create: at most this many. */
export const MAX_COOKIES_PER_CALL = 1000;
/** localStorage entries per origin, and origins, in a storage state given to the service. */
export const MAX_STORAGE_ENTRIES = 1000;
export const MAX_STORAGE_ORIGINS = 100;

const SameSite = Type.Union([Type.Literal('Strict'), Type.Literal('Lax'), Type.Literal('None')], {
  description: 'SameSite policy.',
});

/** A cookie as the browser holds it: every attribute, as cookies.get and session.storageState answer. */
export const CookieSchema = Type.Object(
  {
    name: Type.String({ description: 'Cookie name.' }),
    value: Type.String({ description: 'Cookie value.' }),
    domain: Type.String({ description: 'Cookie domain (a leading dot: every subdomain too).' }),
    path: Type.String({ description: 'Cookie path.' }),
    expires: Type.Number({ description: 'Unix time in seconds; -1 for a session cookie.' }),
    httpOnly: Type.Boolean({ description: 'HttpOnly: invisible to the scripts of the page.' }),
    secure: Type.Boolean({ description: 'Secure: sent over HTTPS only.' }),
    sameSite: SameSite,
  },
  { additionalProperties: false },
);
export type CookieRecord = Static<typeof CookieSchema>;

/**
 * A cookie to set: name and value, and either `url` or `domain` (with `path`, default "/"); the
 * other attributes are optional, as Playwright's addCookies takes them.
 */
export const CookieInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 4096, description: 'Cookie name.' }),
    value: Type.String({ maxLength: 4096, description: 'Cookie value.' }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'The URL the cookie belongs to (its host and path); give this or domain.',
      }),
    ),
    domain: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Cookie domain (a leading dot: every subdomain too); give this or url.',
      }),
    ),
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'Cookie path, with domain; default "/".' }),
    ),
    expires: Type.Optional(
      Type.Number({ description: 'Unix time in seconds; -1 or absent for a session cookie.' }),
    ),
    httpOnly: Type.Optional(Type.Boolean({ description: 'HttpOnly; default false.' })),
    secure: Type.Optional(
      Type.Boolean({ description: 'Secure; default true for an https url, else false.' }),
    ),
    sameSite: Type.Optional(SameSite),
  },
  { additionalProperties: false },
);
export type CookieInput = Static<typeof CookieInputSchema>;

const OriginStorage = Type.Object(
  {
    origin: Type.String({ description: 'Origin, e.g. http://localhost:8080.' }),
    localStorage: Type.Array(
      Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false }),
      { maxItems: MAX_STORAGE_ENTRIES },
    ),
  },
  { additionalProperties: false },
);

/** Storage state given to the service: cookies in the minimal shape or the whole one, localStorage per origin. */
export const StorageStateInputSchema = Type.Object(
  {
    cookies: Type.Array(CookieInputSchema, {
      maxItems: MAX_COOKIES_PER_CALL,
      description:
        'Cookies: name, value and a url or a domain at least (the shape Playwright storageState() returns works as it is).',
    }),
    origins: Type.Optional(
      Type.Array(OriginStorage, { maxItems: MAX_STORAGE_ORIGINS, description: 'localStorage per origin.' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Cookies and localStorage (Playwright storageState); never logged.',
  },
);
export type StorageStateInput = Static<typeof StorageStateInputSchema>;

/** Storage state as the service answers it: every cookie attribute, localStorage per origin. */
export const StorageStateSchema = Type.Object({
  cookies: Type.Array(CookieSchema),
  origins: Type.Array(OriginStorage),
});
export type StorageStateRecord = Static<typeof StorageStateSchema>;

function badCookie(at: string, field: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params: the cookie at ${at} ${message}`, {
    errors: [{ path: `${at}/${field}`, message, keyword: 'cookie', params: {} }],
  });
}

/**
 * The whole cookie for a minimal one: a url gives domain, path (up to its last slash) and secure,
 * as Playwright derives them; a domain without a path gets "/". A cookie with both or neither of url
 * and domain, or an unreadable url, is INVALID_PARAMS naming the cookie.
 */
/** `at` is the cookie's place in the params, as a JSON pointer (/cookies/0). */
export function completeCookie(cookie: CookieInput, at: string): CookieRecord {
  const { url, domain, path, ...rest } = cookie;
  if ((url === undefined) === (domain === undefined))
    throw badCookie(at, url === undefined ? 'url' : 'domain', 'needs exactly one of url and domain');
  let place: { domain: string; path: string; secure: boolean };
  if (url !== undefined) {
    if (path !== undefined) throw badCookie(at, 'path', 'takes path only with domain (a url has its own)');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      // Not a URL: said so to the caller, who can fix it.
      throw badCookie(at, 'url', 'has a url that is not an absolute URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw badCookie(at, 'url', 'has a url that is not http or https');
    const dir = parsed.pathname.slice(0, parsed.pathname.lastIndexOf('/') + 1);
    place = { domain: parsed.hostname, path: dir === '' ? '/' : dir, secure: parsed.protocol === 'https:' };
  } else {
    place = { domain: domain ?? '', path: path ?? '/', secure: false };
  }
  return {
    name: rest.name,
    value: rest.value,
    domain: place.domain,
    path: place.path,
    expires: rest.expires ?? -1,
    httpOnly: rest.httpOnly ?? false,
    secure: rest.secure ?? place.secure,
    sameSite: rest.sameSite ?? 'Lax',
  };
}

/** A storage state given to the service, every cookie made whole (completeCookie). */
export function completeStorageState(state: StorageStateInput, at: string): StorageStateRecord {
  return {
    cookies: state.cookies.map((c, i) => completeCookie(c, `${at}/cookies/${i}`)),
    origins: state.origins ?? [],
  };
}
