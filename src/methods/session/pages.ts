import { Type } from '@sinclair/typebox';
import { NavigationBlockedError } from '../../browser/engine/browserErrors.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { NAVIGATION_TIMEOUT_MS, NavigationResult, WaitUntil, timeoutParam } from '../params.js';

const PageId = Type.String({
  pattern: '^p[0-9]+$',
  maxLength: 12,
  description:
    'A page of the session as pages.list names it: p1 is the main page, p2, p3… the pages it opened.',
});

const PageInfo = Type.Object({
  page_id: Type.String({ description: 'p1, p2…; never reused in the session.' }),
  url: Type.String(),
  title: Type.String({
    description: 'The title, or the last one seen when the page does not answer quickly.',
  }),
  active: Type.Boolean({
    description: 'True for the page every page.*, find.*, screenshot and axe.run call acts on.',
  }),
  opener: Type.Optional(Type.String({ description: 'The page that opened this one, when known.' })),
  dialog: Type.Optional(
    Type.Object(
      { type: Type.String(), message: Type.String() },
      { description: 'A dialog open on this page, waiting for dialog.handle.' },
    ),
  ),
});

export const pagesList = defineSessionMethod({
  name: 'pages.list',
  summary:
    'List the pages of the session: the main page and the popups, window.open and target=_blank pages its pages opened',
  description:
    'A page opened by the session does not become active by itself: pages.select makes it the one calls act on. The action that opened it records a {kind: "page"} event, and the console log a "popup opened" line.',
  params: {},
  result: Type.Object({ pages: Type.Array(PageInfo) }),
  errors: [],
  readOnly: true,
  async handler(_params, { session }) {
    const pages = await session.pages.list();
    return {
      pages: pages.map((p) => {
        const dialog = session.dialogs.pendingOn(p.page_id);
        return dialog === undefined ? p : { ...p, dialog: { type: dialog.type, message: dialog.message } };
      }),
    };
  },
});

export const pagesSelect = defineSessionMethod({
  name: 'pages.select',
  summary:
    'Make a page of the session the active one: every later page.*, find.*, screenshot and axe.run call acts on it',
  description:
    'Refs belong to the page whose snapshot gave them (refs of pages other than p1 start with the page id, p2e5): a ref of another page is STALE_REF, never acts here. An unknown page_id is INVALID_PARAMS.',
  params: { page_id: PageId },
  result: Type.Object({
    page_id: Type.String(),
    url: Type.String(),
    title: Type.String(),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const selected = session.pages.select(params.page_id);
    return { page_id: selected.id, url: selected.page.url(), title: await session.title() };
  },
});

export const pagesClose = defineSessionMethod({
  name: 'pages.close',
  summary: 'Close one page of the session (its beforeunload handlers do not run)',
  description:
    'Closing the active page makes its opener active, or else the main page p1, or else the newest page left. The last page of a session cannot be closed (INVALID_PARAMS): session.close ends the session. A page closed frees its slot under MAX_POPUPS_PER_SESSION.',
  params: { page_id: PageId },
  result: Type.Object({
    closed: Type.String({ description: 'The page closed.' }),
    active: Type.String({ description: 'The active page now.' }),
  }),
  errors: ['INVALID_PARAMS', 'TIMEOUT'],
  readOnly: false,
  async handler(params, { session }) {
    const active = await session.pages.close(params.page_id);
    return { closed: params.page_id, active };
  },
});

export const pagesOpen = defineSessionMethod({
  name: 'pages.open',
  summary: 'Open a new page in the session, make it the active one, and optionally navigate it to a URL',
  description:
    "The page shares the session's cookies and storage (a new tab of the same browser profile) and is listed by pages.list; with url it is navigated as page.goto does (allow-list, settle, the same answer), without it it stays on about:blank. Counts under MAX_POPUPS_PER_SESSION like the pages the session's pages open: past it, LIMIT_REACHED.",
  params: {
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: 'Absolute http(s) URL inside the allow-list (ALLOW_HOST_REGEX).',
      }),
    ),
    waitUntil: WaitUntil,
    timeout: timeoutParam(NAVIGATION_TIMEOUT_MS, 'the navigation'),
  },
  result: Type.Object({
    page_id: Type.String({ description: 'The new page, now the active one.' }),
    ...NavigationResult.properties,
  }),
  errors: ['LIMIT_REACHED', 'NAVIGATION_BLOCKED', 'TIMEOUT', 'ACTION_FAILED'],
  readOnly: false,
  async handler(params, { session, services }) {
    // A URL the allow-list refuses fails before any page opens.
    if (params.url !== undefined) {
      const verdict = services.policy.checkNavigation(params.url);
      if (!verdict.allowed) throw new NavigationBlockedError(params.url, verdict.reason);
    }
    const opened = await session.pages.open();
    session.pages.select(opened.id);
    if (params.url === undefined)
      return { page_id: opened.id, url: opened.page.url(), title: '', status: null };
    const navigation = await session.goto(params.url, params.waitUntil, params.timeout);
    return { ...navigation, page_id: opened.id };
  },
});

export const pagesMethods = [pagesList, pagesSelect, pagesOpen, pagesClose];
