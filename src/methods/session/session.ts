// methods/session/: session.*, pages.*, dialog.*, cookies and storage, downloads.* and the artifacts of a session.
import { ReplayPictures } from '../../browser/artifacts/replayPictures.js';
import { Type } from '@sinclair/typebox';
import { NavigationBlockedError } from '../../browser/engine/browserErrors.js';
import { defineMethod, SessionIdSchema } from '../defineSessionMethod.js';
import { ServiceError } from '../../errors/serviceError.js';
import { DialogPolicyParam } from './dialog.js';
import { SecretsParam, setSecrets } from './sessionSecrets.js';
import { NAVIGATION_TIMEOUT_MS, NavigationResult } from '../params.js';
import { clipboardOf } from '../../browser/engine/sessionClipboard.js';
import { LIST_TITLE_TIMEOUT_MS } from '../../browser/session/session.js';
import { traceDeps } from './artifacts.js';
import { tracesOf } from '../../browser/artifacts/traceStore.js';
import { emulationOverrides, EmulationParams } from './sessionEmulation.js';
import { completeStorageState, StorageStateInputSchema } from './storageSchemas.js';

const Viewport = Type.Object(
  {
    width: Type.Integer({ minimum: 100, maximum: 7680, description: 'Viewport width in CSS pixels.' }),
    height: Type.Integer({ minimum: 100, maximum: 4320, description: 'Viewport height in CSS pixels.' }),
  },
  { additionalProperties: false, description: 'Viewport size; default 1280×800.' },
);

export const sessionCreate = defineMethod({
  name: 'session.create',
  summary: 'Open an isolated browser session (its own cookies, storage and cache) with one page',
  description:
    'The session belongs to the API key that created it: every other key gets SESSION_NOT_FOUND for it (ADMIN_API_KEY excepted). One key holds at most MAX_SESSIONS_PER_KEY sessions, all keys together MAX_SESSIONS.',
  params: {
    headless: Type.Optional(
      Type.Boolean({
        description:
          'Must match the shared browser mode (HEADLESS); sessions share one browser and cannot change it.',
      }),
    ),
    viewport: Type.Optional(Viewport),
    userAgent: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'User-Agent header and navigator.userAgent for this session.',
      }),
    ),
    storageState: Type.Optional(StorageStateInputSchema),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description:
          'Navigate the new session to this URL (inside the allow-list) as page.goto with waitUntil load does; the answer then carries its url, title and status. If the navigation fails, the session is closed and the call fails with its error.',
      }),
    ),
    secrets: Type.Optional(SecretsParam),
    replay: Type.Optional(
      Type.Boolean({
        description:
          'Keep a picture of the page after each call that changes something, to step through the session later (replay.picture), also for REPLAY_KEEP_MS after it closed (default: REPLAY).',
      }),
    ),
    ...EmulationParams,
    dialogs: Type.Optional(DialogPolicyParam),
    traceOnFailure: Type.Optional(
      Type.Boolean({
        description:
          "Record a Playwright trace of each call; a call that fails keeps its trace (trace_id in the error's data, read with trace.get), one that succeeds discards it. At most MAX_FAILURE_TRACES kept, oldest deleted. Costs time on every call; not with trace.start.",
      }),
    ),
    proxy: Type.Optional(
      Type.Unknown({
        description:
          'Not supported: every request goes through the service egress proxy that enforces the allow-list. Any value is refused.',
      }),
    ),
  },
  result: Type.Object({
    session_id: Type.String({ description: 'Pass this to every session-scoped method.' }),
    ...Type.Partial(NavigationResult).properties,
  }),
  errors: [
    'LIMIT_REACHED',
    'RESOURCE_UNAVAILABLE',
    'INVALID_PARAMS',
    'NAVIGATION_BLOCKED',
    'TIMEOUT',
    'ACTION_FAILED',
  ],
  readOnly: false,
  async handler(params, { services, principal }) {
    if (params.proxy !== undefined) {
      throw new ServiceError(
        'INVALID_PARAMS',
        'Invalid params for session.create: per-session proxies are not supported; every request goes through the service allow-list proxy',
        {
          method: 'session.create',
          errors: [{ path: '/proxy', message: 'is not supported', keyword: 'not', params: {} }],
        },
      );
    }
    if (params.headless !== undefined && params.headless !== services.browser.headless) {
      throw new ServiceError(
        'INVALID_PARAMS',
        `Invalid params for session.create: the shared browser runs with HEADLESS=${String(services.browser.headless)}; omit headless or pass ${String(services.browser.headless)}`,
        {
          method: 'session.create',
          errors: [
            {
              path: '/headless',
              message: `must be ${String(services.browser.headless)}`,
              keyword: 'const',
              params: {},
            },
          ],
        },
      );
    }
    // A URL the allow-list refuses fails the create before any session exists.
    if (params.url !== undefined) {
      const verdict = services.policy.checkNavigation(params.url);
      if (!verdict.allowed) throw new NavigationBlockedError(params.url, verdict.reason);
    }
    const session = await services.sessions.create(
      {
        ...emulationOverrides(params, { viewport: params.viewport, userAgent: params.userAgent }),
        storageState:
          params.storageState === undefined
            ? undefined
            : completeStorageState(params.storageState, '/storageState'),
      },
      principal,
    );
    // Before any call can reach the session: its page is still blank, no dialog can have opened.
    if (params.dialogs !== undefined) session.dialogs.setPolicy(params.dialogs);
    if (params.secrets !== undefined) {
      setSecrets(session, params.secrets);
      // Also by its log, which outlives a closed session while its record is kept (replay.trace).
      setSecrets(session.log, params.secrets);
    }
    if (params.replay ?? services.config.replay.pictures)
      session.replay = new ReplayPictures(services.config.replay.maxBytes);
    const clipboard = clipboardOf(session.context);
    if (clipboard !== undefined)
      clipboard.readAllowed = params.permissions?.includes('clipboard-read') ?? false;
    if (params.traceOnFailure === true) {
      try {
        await tracesOf(session, traceDeps(services)).traceFailures();
      } catch (error) {
        await services.sessions.close(session.id);
        throw error;
      }
    }
    if (params.url === undefined) return { session_id: session.id };
    try {
      // No call can reach the session before its id is answered: its lock is not needed yet.
      return { session_id: session.id, ...(await session.goto(params.url, 'load', NAVIGATION_TIMEOUT_MS)) };
    } catch (error) {
      await services.sessions.close(session.id);
      throw error;
    }
  },
});

export const sessionClose = defineMethod({
  name: 'session.close',
  summary: 'Close a session and its browser context; idempotent and bounded in time even on a frozen page',
  description:
    "Closing a session of this key that already ended answers closed: false; an id this key never held (another key's session included) is SESSION_NOT_FOUND and closes nothing.",
  params: { session_id: SessionIdSchema },
  result: Type.Object({
    ok: Type.Boolean({ description: 'Always true: the session is closed after this call.' }),
    closed: Type.Boolean({
      description: 'True when this call closed it; false when it had already ended (closed or expired).',
    }),
  }),
  errors: ['SESSION_NOT_FOUND'],
  readOnly: false,
  logFields: (params) => ({ sessionId: params.session_id }),
  async handler(params, { services, principal }) {
    const closed = await services.sessions.closeFor(params.session_id, principal);
    return { ok: true, closed };
  },
});

export const sessionList = defineMethod({
  name: 'session.list',
  summary: 'List the live sessions of this API key with their current URL and title',
  description: "Only the sessions the calling key created; ADMIN_API_KEY lists every key's.",
  params: {},
  result: Type.Object({
    sessions: Type.Array(
      Type.Object({
        session_id: Type.String(),
        url: Type.String(),
        title: Type.String(),
        createdAt: Type.String({ description: 'ISO 8601 time of creation.' }),
        lastUsedAt: Type.String({ description: 'ISO 8601 time of the last call on it.' }),
        expiresAt: Type.String({
          description:
            'ISO 8601 time it closes if no call comes before (lastUsedAt plus SESSION_TTL_MS); each call moves it.',
        }),
        pages: Type.Integer({ description: 'Its open pages (the main page and the ones it opened).' }),
      }),
    ),
  }),
  errors: [],
  readOnly: true,
  async handler(_params, { services, principal }) {
    const sessions = await Promise.all(
      services.sessions.visibleTo(principal).map(async (s) => ({
        session_id: s.id,
        url: s.page.url(),
        title: await s.title(LIST_TITLE_TIMEOUT_MS),
        createdAt: s.createdAt.toISOString(),
        lastUsedAt: new Date(s.lastUsedAt).toISOString(),
        expiresAt: new Date(s.lastUsedAt + services.config.sessionTtlMs).toISOString(),
        pages: s.pages.all().length,
      })),
    );
    return { sessions };
  },
});

export const sessionMethods = [sessionCreate, sessionClose, sessionList];
