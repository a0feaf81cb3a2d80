import { Type } from '@sinclair/typebox';
import { NavigationBlockedError } from '../browser/engine/browserErrors.js';
import type { SessionCaller } from '../browser/engine/sessionOwners.js';
import type { TabPage } from '../cdp/cdpTabs.js';
import { defineMethod } from './defineSessionMethod.js';
import { ServiceError } from '../errors/serviceError.js';
import type { Services } from './services.js';

const TabId = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The tab id (its CDP target id) as tabs.list or tabs.open return it.',
});

const CDP_NOTE = 'Needs CDP_URL: a Chrome started with --remote-debugging-port.';
const OWNER_NOTE =
  "A tab opened or attached is the calling API key's until it closes: another key's tab is refused as a tab that does not exist (ADMIN_API_KEY reaches every tab).";

export const tabsList = defineMethod({
  name: 'tabs.list',
  summary: 'List the tabs of the CDP_URL browser that the caller may use',
  description: `${CDP_NOTE} Lists the tabs the calling API key opened or attached and the tabs no key has (the browser's own, never attached); ADMIN_API_KEY sees every tab.`,
  params: {},
  result: Type.Object({
    tabs: Type.Array(
      Type.Object({
        tabId: Type.String(),
        url: Type.String(),
        title: Type.String(),
        session_id: Type.Union([Type.String(), Type.Null()], {
          description:
            'The session attached to this tab by tabs.attach when the caller may use it (its own; any for ADMIN_API_KEY); null otherwise.',
        }),
        attached: Type.Boolean({
          description: 'Whether a session is attached to this tab.',
        }),
      }),
    ),
  }),
  errors: ['RESOURCE_UNAVAILABLE', 'TIMEOUT'],
  readOnly: true,
  async handler(_params, { services, principal }) {
    const tabs = await services.tabs.list(principal);
    return {
      tabs: tabs.map((tab) => {
        const id = tab.session_id;
        const attached = id !== null && services.sessions.get(id) !== undefined;
        // Another key's session id would let this caller name it: it sees only that the tab is taken.
        const own = attached && services.sessions.lookup(id, principal) !== undefined;
        return { ...tab, session_id: own ? id : null, attached };
      }),
    };
  },
});

export const tabsOpen = defineMethod({
  name: 'tabs.open',
  summary: 'Open a tab on a URL (inside the allow-list) in the CDP_URL browser',
  description: `${CDP_NOTE} ${OWNER_NOTE}`,
  params: {
    url: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'Absolute http(s) URL inside the allow-list (ALLOW_HOST_REGEX), or about:blank.',
    }),
    background: Type.Boolean({
      default: false,
      description: 'Open without focusing the tab (default false).',
    }),
  },
  result: Type.Object({
    tabId: Type.String({ description: 'The new tab id.' }),
    url: Type.String({ description: 'The URL it was opened on.' }),
    status: Type.Literal('opened'),
  }),
  errors: ['NAVIGATION_BLOCKED', 'RESOURCE_UNAVAILABLE', 'TIMEOUT'],
  readOnly: false,
  async handler(params, { services, principal }) {
    const verdict = services.policy.checkNavigation(params.url);
    if (!verdict.allowed) {
      throw new NavigationBlockedError(params.url, verdict.reason);
    }
    const tabId = await services.tabs.open(verdict.url, params.background, principal);
    return { tabId, url: verdict.url, status: 'opened' as const };
  },
});

export const tabsClose = defineMethod({
  name: 'tabs.close',
  summary:
    'Close a tab of the CDP_URL browser; answers once the browser no longer lists it (a session attached to it ends)',
  description: `${CDP_NOTE} ${OWNER_NOTE}`,
  params: { tabId: TabId },
  result: Type.Object({
    ok: Type.Boolean(),
    tabId: Type.String(),
    status: Type.Literal('closed'),
  }),
  errors: ['ACTION_FAILED', 'RESOURCE_UNAVAILABLE', 'TIMEOUT'],
  readOnly: false,
  async handler(params, { services, principal }) {
    await services.tabs.closeTab(params.tabId, principal);
    return { ok: true, tabId: params.tabId, status: 'closed' as const };
  },
});

/**
 * Makes a tab a session: the session's buffers record it from now on. The tab was guarded before
 * this (CdpTabs.attach: page route, WebSocket route, no WebRTC), since the CDP browser does not go
 * through the egress proxy. session.close, the idle janitor or the tab closing detach it; the tab
 * itself stays the user's, and stays guarded while the service is connected.
 */
function adoptTab(services: Services, tab: TabPage, owner: SessionCaller): string {
  const { page, context, tabId } = tab;
  let sessionId = '';
  const release = () => {
    services.tabs.detached(tabId, sessionId);
    return Promise.resolve();
  };
  sessionId = services.sessions.adopt(context, page, release, owner).id;
  return sessionId;
}

export const tabsAttach = defineMethod({
  name: 'tabs.attach',
  summary:
    'Attach to a tab of the CDP_URL browser: returns a session_id every page.*, screenshot and logs.* method works on',
  description: `${CDP_NOTE} Attaching the same tab again returns the same session. session.close detaches without closing the tab. Only what happens after attaching is recorded. ${OWNER_NOTE}`,
  params: { tabId: TabId },
  result: Type.Object({
    session_id: Type.String({ description: 'Pass this to any session-scoped method.' }),
    tabId: Type.String(),
    url: Type.String({ description: 'The tab URL when attached.' }),
  }),
  errors: ['ACTION_FAILED', 'RESOURCE_UNAVAILABLE', 'TIMEOUT', 'LIMIT_REACHED'],
  readOnly: false,
  async handler(params, { services, principal }) {
    const sessionId = await services.tabs.attach(
      params.tabId,
      principal,
      (tab) => Promise.resolve(adoptTab(services, tab, principal)),
      (id) => services.sessions.get(id) !== undefined,
      async (id) => {
        await services.sessions.close(id);
      },
    );
    // The tab is the caller's but its live session is not: ADMIN_API_KEY attached it. Sharing it
    // would hand the admin's session over.
    if (
      services.sessions.get(sessionId) !== undefined &&
      services.sessions.lookup(sessionId, principal) === undefined
    )
      throw new ServiceError(
        'ACTION_FAILED',
        `Tab ${params.tabId} is attached by another API key; it can be attached once that session ends.`,
        { tabId: params.tabId },
      );
    const session = services.sessions.resolve(sessionId, principal);
    return { session_id: sessionId, tabId: params.tabId, url: session.page.url() };
  },
});

export const tabMethods = [tabsList, tabsOpen, tabsClose, tabsAttach];
