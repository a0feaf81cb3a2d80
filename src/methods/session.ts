import { Type } from '@sinclair/typebox';
import { defineMethod, SessionIdSchema } from './defineSessionMethod.js';
import { ServiceError } from '../errors/serviceError.js';

const Viewport = Type.Object(
  {
    width: Type.Integer({ minimum: 100, maximum: 7680, description: 'Viewport width in CSS pixels.' }),
    height: Type.Integer({ minimum: 100, maximum: 4320, description: 'Viewport height in CSS pixels.' }),
  },
  { additionalProperties: false, description: 'Viewport size; default 1280×800.' },
);

const Cookie = Type.Object(
  {
    name: Type.String({ description: 'Cookie name.' }),
    value: Type.String({ description: 'Cookie value.' }),
    domain: Type.String({ description: 'Cookie domain.' }),
    path: Type.String({ description: 'Cookie path.' }),
    expires: Type.Number({ description: 'Unix time in seconds; -1 for a session cookie.' }),
    httpOnly: Type.Boolean({ description: 'HttpOnly flag.' }),
    secure: Type.Boolean({ description: 'Secure flag.' }),
    sameSite: Type.Union([Type.Literal('Strict'), Type.Literal('Lax'), Type.Literal('None')], {
      description: 'SameSite policy.',
    }),
  },
  { additionalProperties: false },
);

const StorageState = Type.Object(
  {
    cookies: Type.Array(Cookie, {
      maxItems: 1000,
      description: 'Cookies, in the shape Playwright storageState() returns.',
    }),
    origins: Type.Array(
      Type.Object(
        {
          origin: Type.String({ description: 'Origin, e.g. http://localhost:8080.' }),
          localStorage: Type.Array(
            Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false }),
            {
              maxItems: 1000,
            },
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100, description: 'localStorage per origin.' },
    ),
  },
  {
    additionalProperties: false,
    description: 'Cookies and localStorage to start with (Playwright storageState); never logged.',
  },
);

export const sessionCreate = defineMethod({
  name: 'session.create',
  summary: 'Open an isolated browser session (its own cookies, storage and cache) with one page',
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
    storageState: Type.Optional(StorageState),
    proxy: Type.Optional(
      Type.Unknown({
        description:
          'Not supported: every request goes through the service egress proxy that enforces the allow-list. Any value is refused.',
      }),
    ),
  },
  result: Type.Object({
    session_id: Type.String({ description: 'Pass this to every session-scoped method.' }),
  }),
  errors: ['LIMIT_REACHED', 'RESOURCE_UNAVAILABLE', 'INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { services }) {
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
    const session = await services.sessions.create({
      viewport: params.viewport,
      userAgent: params.userAgent,
      storageState: params.storageState,
    });
    return { session_id: session.id };
  },
});

export const sessionClose = defineMethod({
  name: 'session.close',
  summary: 'Close a session and its browser context; idempotent and bounded in time even on a frozen page',
  params: { session_id: SessionIdSchema },
  result: Type.Object({
    ok: Type.Boolean({ description: 'Always true: the session is closed after this call.' }),
    closed: Type.Boolean({
      description: 'True when this call closed it; false when it was already closed or unknown.',
    }),
  }),
  errors: [],
  readOnly: false,
  async handler(params, { services }) {
    const closed = await services.sessions.close(params.session_id);
    return { ok: true, closed };
  },
});

export const sessionList = defineMethod({
  name: 'session.list',
  summary: 'List every live session with its current URL and title',
  params: {},
  result: Type.Object({
    sessions: Type.Array(
      Type.Object({
        session_id: Type.String(),
        url: Type.String(),
        title: Type.String(),
        createdAt: Type.String({ description: 'ISO 8601 time of creation.' }),
        lastUsedAt: Type.String({ description: 'ISO 8601 time of the last call on it.' }),
      }),
    ),
  }),
  errors: [],
  readOnly: true,
  async handler(_params, { services }) {
    const sessions = await Promise.all(
      services.sessions.list().map(async (s) => ({
        session_id: s.id,
        url: s.page.url(),
        title: await s.title(),
        createdAt: s.createdAt.toISOString(),
        lastUsedAt: new Date(s.lastUsedAt).toISOString(),
      })),
    );
    return { sessions };
  },
});

export const sessionMethods = [sessionCreate, sessionClose, sessionList];
