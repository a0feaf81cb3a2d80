// Cookies and storage during a session: cookies.get / set / clear, the session's
// storage state (cookies plus localStorage of every origin) exported and imported, and init
// scripts. Values are the caller's secrets: params and answers never reach a log line (logger
// REDACT_PATHS, and session methods log only the session id).
import { Type } from '@sinclair/typebox';
import type { Session } from '../../browser/session/session.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import {
  completeCookie,
  completeStorageState,
  CookieInputSchema,
  CookieSchema,
  StorageStateInputSchema,
  StorageStateSchema,
  type CookieRecord,
} from './storageSchemas.js';

/** cookies.get answers at most this many cookies (a context may hold thousands), and says how many more. */
export const MAX_COOKIES_LISTED = 1000;
/** cookies.set takes at most this many cookies per call. */
export const MAX_COOKIES_SET = 100;
/** URLs cookies.get may filter by. */
const MAX_COOKIE_URLS = 50;

const NameFilter = Type.Optional(
  Type.String({ minLength: 1, maxLength: 4096, description: 'Only cookies of this name.' }),
);
const DomainFilter = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 255,
    description:
      'Only cookies of this domain or its subdomains: "example.com" matches cookies of example.com, .example.com and www.example.com.',
  }),
);

interface CookieFilter {
  name?: string | undefined;
  domain?: string | undefined;
  path?: string | undefined;
}

/** Whether a cookie passes the filter: same name and path when given; its domain is the given one or under it. */
function matches(cookie: CookieRecord, filter: CookieFilter): boolean {
  if (filter.name !== undefined && cookie.name !== filter.name) return false;
  if (filter.path !== undefined && cookie.path !== filter.path) return false;
  if (filter.domain !== undefined) {
    const want = filter.domain.replace(/^\./, '').toLowerCase();
    const have = cookie.domain.replace(/^\./, '').toLowerCase();
    if (have !== want && !have.endsWith(`.${want}`)) return false;
  }
  return true;
}

/** The user's own browser (a tab attached with tabs.attach) keeps its cookies and storage: refused. */
export function ownContext(session: Session, method: string): Session['context'] {
  if (session.attached)
    throw new ServiceError(
      'INVALID_PARAMS',
      `${method} is not available on an attached tab: its cookies and storage belong to the user's own browser.`,
      { errors: [{ path: '/session_id', message: 'is an attached tab', keyword: 'attached', params: {} }] },
    );
  return session.context;
}

/** Playwright refused a cookie (a SameSite=None cookie without Secure, say): the caller's to fix. */
function cookieRefused(error: unknown): ServiceError {
  const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return new ServiceError('INVALID_PARAMS', `Invalid params: the browser refused a cookie: ${reason}`, {
    errors: [{ path: '/cookies', message: 'refused by the browser', keyword: 'cookie', params: {} }],
  });
}

export const cookiesGet = defineSessionMethod({
  name: 'cookies.get',
  summary: "Read the session's cookies with every attribute, httpOnly ones included",
  description: `Filter by urls (cookies the browser would send to them), domain and name; all of the session's cookies without a filter. At most ${MAX_COOKIES_LISTED} cookies per answer (more counts the rest).`,
  params: {
    urls: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
        maxItems: MAX_COOKIE_URLS,
        description: 'Only cookies that would be sent to these URLs.',
      }),
    ),
    domain: DomainFilter,
    name: NameFilter,
  },
  result: Type.Object({
    cookies: Type.Array(CookieSchema),
    count: Type.Integer({ description: 'Cookies that matched (cookies lists the first ones).' }),
    more: Type.Integer({ description: `Matches left out past ${MAX_COOKIES_LISTED}.` }),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session }) {
    for (const [i, url] of (params.urls ?? []).entries()) {
      if (!URL.canParse(url))
        throw new ServiceError('INVALID_PARAMS', `Invalid params: urls/${i} is not an absolute URL`, {
          errors: [{ path: `/urls/${i}`, message: 'must be an absolute URL', keyword: 'format', params: {} }],
        });
    }
    const context = ownContext(session, 'cookies.get');
    const all = await context.cookies(params.urls ?? []);
    const found = all.filter((c) => matches(c, params));
    return {
      cookies: found.slice(0, MAX_COOKIES_LISTED),
      count: found.length,
      more: Math.max(0, found.length - MAX_COOKIES_LISTED),
    };
  },
});

export const cookiesSet = defineSessionMethod({
  name: 'cookies.set',
  summary: 'Set cookies in the session: name, value and a url or a domain each, other attributes optional',
  description:
    'A cookie given a url takes its host, its path up to the last slash, and Secure for https; one given a domain takes path "/" unless given. A cookie of the same name, domain and path is replaced.',
  params: {
    cookies: Type.Array(CookieInputSchema, {
      minItems: 1,
      maxItems: MAX_COOKIES_SET,
      description: 'The cookies to set: name, value and a url or a domain each.',
    }),
  },
  result: Type.Object({
    set: Type.Integer({ description: 'Cookies the browser now holds.' }),
    notStored: Type.Array(Type.Object({ name: Type.String(), domain: Type.String(), path: Type.String() }), {
      description:
        'Cookies the browser did not keep as given, without an error of its own: an expiry in the past, a domain it rewrote or refused, a cookie rule of the browser.',
    }),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const cookies = params.cookies.map((c, i) => completeCookie(c, `/cookies/${i}`));
    const context = ownContext(session, 'cookies.set');
    try {
      await context.addCookies(cookies);
    } catch (error) {
      throw cookieRefused(error);
    }
    // Chromium drops a cookie it will not store without saying so: look for each one.
    const held = await context.cookies();
    const bare = (domain: string) => domain.replace(/^\./, '').toLowerCase();
    const notStored = cookies
      .filter(
        (c) =>
          !held.some(
            (h) =>
              h.name === c.name &&
              h.path === c.path &&
              bare(h.domain) === bare(c.domain) &&
              h.value === c.value,
          ),
      )
      .map(({ name, domain, path }) => ({ name, domain, path }));
    return { set: cookies.length - notStored.length, notStored };
  },
});

export const cookiesClear = defineSessionMethod({
  name: 'cookies.clear',
  summary: 'Delete cookies of the session: all of them, or those of a name, domain or path',
  params: {
    name: NameFilter,
    domain: DomainFilter,
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'Only cookies of exactly this path.' }),
    ),
  },
  result: Type.Object({ cleared: Type.Integer({ description: 'Cookies deleted.' }) }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const context = ownContext(session, 'cookies.clear');
    const doomed = (await context.cookies()).filter((c) => matches(c, params));
    // Expired cookies are deleted: the way Playwright's own clearCookies removes a filtered set.
    if (doomed.length > 0) await context.addCookies(doomed.map((c) => ({ ...c, expires: 0 })));
    return { cleared: doomed.length };
  },
});

export const sessionStorageState = defineSessionMethod({
  name: 'session.storageState',
  summary: "Export the session's storage state: every cookie and the localStorage of every origin",
  description: `The shape session.create and session.setStorageState take, to carry a logged-in state to another session. Fails with LIMIT_REACHED past MAX_STORAGE_STATE_CHARS characters of JSON (a configuration key).`,
  params: {},
  result: Type.Object({ storageState: StorageStateSchema }),
  errors: ['LIMIT_REACHED', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(_params, { session, services }) {
    // MAX_STORAGE_STATE_CHARS: localStorage can hold megabytes per origin; past the cap the call
    // fails rather than answer part of the state.
    const max = services.config.maxStorageStateChars;
    const state = await ownContext(session, 'session.storageState').storageState();
    const storageState = {
      cookies: state.cookies,
      origins: state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage })),
    };
    const size = JSON.stringify(storageState).length;
    if (size > max)
      throw new ServiceError(
        'LIMIT_REACHED',
        `The session's storage state is ${size} characters of JSON, over the ${max} a call answers (MAX_STORAGE_STATE_CHARS): read the cookies with cookies.get and what you need of localStorage with page.evaluate.`,
        { limit: 'MAX_STORAGE_STATE_CHARS', max, size },
      );
    return { storageState };
  },
});

export const sessionSetStorageState = defineSessionMethod({
  name: 'session.setStorageState',
  summary: "Replace the session's cookies and localStorage with a storage state (from session.storageState)",
  description:
    'Clears the cookies and storage of every origin, then sets the given ones; the pages stay open (reload a page for it to read the new state). Cookies may be given in the minimal shape (name, value and a url or a domain).',
  params: { storageState: StorageStateInputSchema },
  result: Type.Object({
    cookies: Type.Integer({ description: 'Cookies set.' }),
    origins: Type.Integer({ description: 'Origins whose localStorage was set.' }),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const state = completeStorageState(params.storageState, '/storageState');
    const context = ownContext(session, 'session.setStorageState');
    try {
      await context.setStorageState(state);
    } catch (error) {
      throw cookieRefused(error);
    }
    return { cookies: state.cookies.length, origins: state.origins.length };
  },
});

/** Init scripts one session may add, and the characters of each. */
export const MAX_INIT_SCRIPTS = 20;
export const MAX_INIT_SCRIPT_CHARS = 100_000;
const initScripts = new WeakMap<Session, number>();

export const sessionAddInitScript = defineSessionMethod({
  name: 'session.addInitScript',
  summary: "Add a script that runs in every page and frame of the session before the page's own scripts",
  description: `From the next document on (reload a page for it to run there); it stays for the session's life. At most ${MAX_INIT_SCRIPTS} per session, ${MAX_INIT_SCRIPT_CHARS} characters each.`,
  params: {
    script: Type.String({
      minLength: 1,
      maxLength: MAX_INIT_SCRIPT_CHARS,
      description: 'JavaScript source, run as a classic script in the main world of every frame.',
    }),
  },
  result: Type.Object({ count: Type.Integer({ description: "The session's init scripts now." }) }),
  errors: ['LIMIT_REACHED', 'INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const context = ownContext(session, 'session.addInitScript');
    const count = initScripts.get(session) ?? 0;
    if (count >= MAX_INIT_SCRIPTS)
      throw new ServiceError(
        'LIMIT_REACHED',
        `This session has ${MAX_INIT_SCRIPTS} init scripts, the most it may have: put what you need in fewer scripts.`,
        { limit: 'MAX_INIT_SCRIPTS', max: MAX_INIT_SCRIPTS },
      );
    await context.addInitScript({ content: params.script });
    initScripts.set(session, count + 1);
    return { count: count + 1 };
  },
});

export const storageMethods = [
  cookiesGet,
  cookiesSet,
  cookiesClear,
  sessionStorageState,
  sessionSetStorageState,
  sessionAddInitScript,
];
