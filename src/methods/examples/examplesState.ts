// Examples for openrpc.json of the cookies.* and sessionStorage.* methods, the session's storage state
// (read and replaced) and init scripts, in that order, from the exchanges docs/behaviour.md shows
// (session id and fixture port made the same for every example).
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_ORIGIN as O, EXAMPLE_SESSION as S } from './exampleValues.js';

const sid = {
  name: 'sid',
  value: 'sid-0f3c9a',
  domain: '127.0.0.1',
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Strict',
};

export const stateExamples: Record<string, MethodExample[]> = {
  'cookies.get': [
    {
      name: 'one cookie by name, httpOnly included (docs/behaviour.md)',
      params: { session_id: S, name: 'sid' },
      result: { cookies: [sid], count: 1, more: 0 },
    },
  ],
  'cookies.set': [
    {
      name: 'one cookie set, one Chromium drops (docs/behaviour.md)',
      params: {
        session_id: S,
        cookies: [
          { name: 'lang', value: 'en', url: `${O}/` },
          { name: 'old', value: '1', domain: '127.0.0.1', expires: 1000 },
        ],
      },
      result: { set: 1, notStored: [{ name: 'old', domain: '127.0.0.1', path: '/' }] },
    },
  ],
  'cookies.clear': [
    {
      name: 'the cookies of one name (docs/behaviour.md)',
      params: { session_id: S, name: 'sid' },
      result: { cleared: 1 },
    },
  ],
  'sessionStorage.get': [
    {
      name: "the active page's items (docs/behaviour.md)",
      params: { session_id: S },
      result: { origin: O, items: { step: '2', draft: 'Hello' }, count: 2 },
    },
  ],
  'sessionStorage.set': [
    {
      name: 'two items for the page to read (docs/behaviour.md)',
      params: { session_id: S, items: { step: '2', draft: 'Hello' } },
      result: { origin: O, set: 2 },
    },
  ],
  'sessionStorage.clear': [
    {
      name: 'one key (docs/behaviour.md)',
      params: { session_id: S, keys: ['draft'] },
      result: { origin: O, cleared: 1 },
    },
  ],
  'session.storageState': [
    {
      name: 'cookies and localStorage to carry to another session (docs/behaviour.md)',
      params: { session_id: S },
      result: {
        storageState: {
          cookies: [sid],
          origins: [{ origin: O, localStorage: [{ name: 'cart', value: '3' }] }],
        },
      },
    },
  ],
  'session.setStorageState': [
    {
      name: 'replace the cookies and storage (docs/behaviour.md)',
      params: {
        session_id: S,
        storageState: {
          cookies: [
            { name: 'sid', value: 'sid-0f3c9a', url: `${O}/` },
            { name: 'lang', value: 'en', url: `${O}/` },
          ],
          origins: [{ origin: O, localStorage: [{ name: 'cart', value: '3' }] }],
        },
      },
      result: { cookies: 2, origins: 1 },
    },
  ],
  'session.addInitScript': [
    {
      name: 'a script before every document of the session (docs/behaviour.md)',
      params: { session_id: S, script: 'window.__testMode = true;' },
      result: { count: 1 },
    },
  ],
};
