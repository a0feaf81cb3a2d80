// sessionStorage of the active page's origin: read, write and clear it (cookies and localStorage are
// storage.ts's). sessionStorage belongs to one tab and one origin, so these act on the document the
// active page shows now. Values are the caller's secrets: they never reach a log line (session
// methods log only the session id).
import { Type } from '@sinclair/typebox';
import type { Page } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';

/** sessionStorage.get answers at most this many characters of keys and values; past it, LIMIT_REACHED. */
export const MAX_SESSION_STORAGE_CHARS = 1_000_000;
/** Keys one call may name (get, set or clear). */
const MAX_STORAGE_KEYS = 100;
/** A value set, at most (Chromium keeps about 10 MB per origin in all). */
const MAX_STORAGE_VALUE_CHARS = 1_000_000;

const KeyList = Type.Array(Type.String({ maxLength: 1024 }), { minItems: 1, maxItems: MAX_STORAGE_KEYS });

/** What the page answers when it has no sessionStorage of its own (about:blank, data: URLs). */
interface Denied {
  denied: string;
}

type GetAnswer =
  | Denied
  | { origin: string; items: Record<string, string>; count: number }
  | { origin: string; over: number };
type SetAnswer =
  Denied | { origin: string; set: number } | { origin: string; set: number; refused: string; why: string };
type ClearAnswer = Denied | { origin: string; cleared: number };

/** The answer of a page, or INVALID_PARAMS when its document had no sessionStorage. */
function allowed<T extends object>(page: Page, method: string, answer: T | Denied): T {
  if (isDenied(answer))
    throw new ServiceError(
      'INVALID_PARAMS',
      `${method}: the active page (${page.url().slice(0, 100)}) has no sessionStorage of its own (${answer.denied.slice(0, 200)}): navigate to a page of the site first.`,
      {
        errors: [{ path: '/session_id', message: 'the page has no storage', keyword: 'origin', params: {} }],
      },
    );
  return answer;
}

function isDenied(answer: object): answer is Denied {
  return 'denied' in answer;
}

export const sessionStorageGet = defineSessionMethod({
  name: 'sessionStorage.get',
  summary: "Read the active page's sessionStorage (its origin's, in this tab): every item, or the keys named",
  description: `Answers the origin and its items as {key: value}. Fails with LIMIT_REACHED past ${MAX_SESSION_STORAGE_CHARS} characters of keys and values: name the keys you need.`,
  params: {
    keys: Type.Optional({ ...KeyList, description: 'Only these keys (a key not there is left out).' }),
  },
  result: Type.Object({
    origin: Type.String(),
    items: Type.Record(Type.String(), Type.String()),
    count: Type.Integer({ description: 'Items answered.' }),
  }),
  errors: ['INVALID_PARAMS', 'LIMIT_REACHED'],
  readOnly: true,
  async handler(params, { session }) {
    const answer = await session.page.evaluate(
      ([keys, max]): GetAnswer => {
        let storage: Storage;
        try {
          storage = window.sessionStorage;
        } catch (error) {
          return { denied: String(error) };
        }
        const names = keys ?? Array.from({ length: storage.length }, (_, i) => storage.key(i) ?? '');
        const items: Record<string, string> = {};
        let size = 0;
        for (const name of names) {
          const value = storage.getItem(name);
          if (value === null) continue;
          size += name.length + value.length;
          // Past the cap the page answers the size alone: nothing more crosses to the service.
          if (size <= max) items[name] = value;
        }
        return size > max
          ? { origin: location.origin, over: size }
          : { origin: location.origin, items, count: Object.keys(items).length };
      },
      [params.keys ?? null, MAX_SESSION_STORAGE_CHARS] as const,
    );
    const read = allowed(session.page, 'sessionStorage.get', answer);
    if ('over' in read)
      throw new ServiceError(
        'LIMIT_REACHED',
        `sessionStorage of ${read.origin} holds ${read.over} characters, over the ${MAX_SESSION_STORAGE_CHARS} a call answers: name the keys you need.`,
        { limit: 'MAX_SESSION_STORAGE_CHARS', max: MAX_SESSION_STORAGE_CHARS, size: read.over },
      );
    return read;
  },
});

export const sessionStorageSet = defineSessionMethod({
  name: 'sessionStorage.set',
  summary: "Set items in the active page's sessionStorage: {key: value}, replacing the same keys",
  description:
    'The page sees them at once (a script reading sessionStorage later gets them); no storage event fires in the same tab. A value the browser cannot keep (its quota is about 10 MB per origin) fails the call with INVALID_PARAMS, after the items before it were set.',
  params: {
    items: Type.Record(
      Type.String({ maxLength: 1024 }),
      Type.String({ maxLength: MAX_STORAGE_VALUE_CHARS }),
      {
        minProperties: 1,
        maxProperties: MAX_STORAGE_KEYS,
        description: 'The items to set, {key: value}.',
      },
    ),
  },
  result: Type.Object({ origin: Type.String(), set: Type.Integer() }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const answer = await session.page.evaluate((items): SetAnswer => {
      let storage: Storage;
      try {
        storage = window.sessionStorage;
      } catch (error) {
        return { denied: String(error) };
      }
      let set = 0;
      for (const [key, value] of Object.entries(items)) {
        try {
          storage.setItem(key, value);
        } catch (error) {
          return { origin: location.origin, set, refused: key, why: String(error) };
        }
        set++;
      }
      return { origin: location.origin, set };
    }, params.items);
    const done = allowed(session.page, 'sessionStorage.set', answer);
    if ('refused' in done)
      throw new ServiceError(
        'INVALID_PARAMS',
        `sessionStorage.set: the browser refused the item ${JSON.stringify(done.refused.slice(0, 100))} (${done.why.slice(0, 200)}); the ${done.set} before it were set.`,
        {
          errors: [{ path: '/items', message: 'refused by the browser', keyword: 'quota', params: {} }],
          set: done.set,
        },
      );
    return done;
  },
});

export const sessionStorageClear = defineSessionMethod({
  name: 'sessionStorage.clear',
  summary: "Remove items from the active page's sessionStorage: the keys named, or every item",
  params: {
    keys: Type.Optional({ ...KeyList, description: 'Only these keys; every item without it.' }),
  },
  result: Type.Object({ origin: Type.String(), cleared: Type.Integer({ description: 'Items removed.' }) }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const answer = await session.page.evaluate((keys): ClearAnswer => {
      let storage: Storage;
      try {
        storage = window.sessionStorage;
      } catch (error) {
        return { denied: String(error) };
      }
      const before = storage.length;
      if (keys === null) storage.clear();
      else for (const key of keys) storage.removeItem(key);
      return { origin: location.origin, cleared: before - storage.length };
    }, params.keys ?? null);
    return allowed(session.page, 'sessionStorage.clear', answer);
  },
});

export const sessionStorageMethods = [sessionStorageGet, sessionStorageSet, sessionStorageClear];
