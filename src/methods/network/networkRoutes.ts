// Request interception: network.route answers matching requests with a mock (fulfill),
// fails them (abort) or sends them on with changed headers (continue); network.unroute and
// network.routes. Everything stays behind the allow-list (browser/network/sessionRoutes.ts). Header values
// and bodies are the caller's: session methods log only the session id.
import { Type, type Static } from '@sinclair/typebox';
import { checkHeaders, MAX_HEADERS } from '../../browser/network/httpHeaders.js';
import {
  ABORT_CODES,
  existingRoutes,
  MAX_ROUTES,
  MAX_SESSION_GLOB_STATES,
  ROUTE_BODY_SCHEMA_CEILING_BYTES,
  routesOf,
  type RouteAction,
} from '../../browser/network/sessionRoutes.js';
import { compileGlob, GlobError, type UrlGlob } from '../../browser/network/urlGlob.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { ownContext } from '../session/storage.js';
import { requireExactlyOne } from './exactlyOne.js';

/** Characters of a route's pattern. */
export const MAX_ROUTE_PATTERN_CHARS = 1000;
/** The most matches `times` may ask for. */
const MAX_ROUTE_TIMES = 1_000_000;
/**
 * The body caps are config keys (MAX_ROUTE_BODY_BYTES, MAX_ROUTE_BODIES_BYTES), enforced by the
 * handler; the schema bounds body and bodyBase64 by the most the first may be set to.
 */
const MAX_BODY_BASE64_CHARS = Math.ceil(ROUTE_BODY_SCHEMA_CEILING_BYTES / 3) * 4;
const HeadersParam = Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), {
  maxProperties: MAX_HEADERS,
  description:
    'fulfill: the response headers; continue: request headers to add or change (the others are kept). Not Host, Content-Length, Connection, Proxy-* and the like for continue.',
});

function refuse(path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for network.route: ${path} ${message}`, {
    method: 'network.route',
    errors: [{ path, message, keyword: 'route', params: {} }],
  });
}

const RouteParams = {
  pattern: Type.String({
    minLength: 1,
    maxLength: MAX_ROUTE_PATTERN_CHARS,
    description:
      "The URLs to match, a glob on the whole URL: * is any run of characters but /, ** any run, {a,b} either option, \\ escapes the next character; e.g. 'http://127.0.0.1:8080/api/**'. Matched by the service in time linear in the URL (URLs over 4096 characters never match).",
  }),
  action: Type.Union([Type.Literal('fulfill'), Type.Literal('abort'), Type.Literal('continue')], {
    description:
      'fulfill: answer with status, headers and body, the server never asked; abort: fail the request with errorCode; continue: send it on with changed headers.',
  }),
  status: Type.Optional(
    Type.Integer({ minimum: 200, maximum: 599, description: 'fulfill: the HTTP status (default 200).' }),
  ),
  headers: Type.Optional(HeadersParam),
  body: Type.Optional(
    Type.String({
      maxLength: ROUTE_BODY_SCHEMA_CEILING_BYTES,
      description:
        'fulfill: the body as text (UTF-8), at most MAX_ROUTE_BODY_BYTES bytes (a configuration key).',
    }),
  ),
  bodyBase64: Type.Optional(
    Type.String({
      maxLength: MAX_BODY_BASE64_CHARS,
      pattern: '^[A-Za-z0-9+/]*={0,2}$',
      description:
        'fulfill: the body as base64, for bytes that are not text (instead of body); at most MAX_ROUTE_BODY_BYTES bytes decoded.',
    }),
  ),
  contentType: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: "fulfill: the Content-Type, e.g. 'application/json' (a content-type in headers wins).",
    }),
  ),
  errorCode: Type.Optional(
    Type.Union(
      ABORT_CODES.map((c) => Type.Literal(c)),
      {
        description:
          "abort: the network error the page sees (Playwright's route.abort codes; default failed).",
      },
    ),
  ),
  times: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_ROUTE_TIMES,
      description: 'Serve only this many matches, then the route goes away (default: until unrouted).',
    }),
  ),
};

type RouteInput = { [K in keyof typeof RouteParams]?: Static<(typeof RouteParams)[K]> };

/** The route's action from its params; a param of another action is refused. */
function actionOf(p: RouteInput & { action: RouteAction['action'] }, maxBodyBytes: number): RouteAction {
  const present = (keys: (keyof RouteInput)[]) => keys.filter((k) => p[k] !== undefined);
  const foreign =
    p.action === 'fulfill'
      ? present(['errorCode'])
      : p.action === 'abort'
        ? present(['status', 'headers', 'body', 'bodyBase64', 'contentType'])
        : present(['status', 'body', 'bodyBase64', 'contentType', 'errorCode']);
  if (foreign[0] !== undefined) throw refuse(`/${foreign[0]}`, `does not apply to the ${p.action} action`);
  if (p.action === 'abort') return { action: 'abort', errorCode: p.errorCode ?? 'failed' };
  const headers = checkHeaders(p.headers ?? {}, 'network.route', '/headers', p.action === 'continue');
  if (p.action === 'continue') {
    if (Object.keys(headers).length === 0)
      throw refuse('/headers', 'must name at least one header for the continue action');
    return { action: 'continue', headers };
  }
  if (p.body !== undefined && p.bodyBase64 !== undefined)
    throw refuse('/body', 'and bodyBase64 are both given');
  const body =
    p.bodyBase64 !== undefined ? Buffer.from(p.bodyBase64, 'base64') : Buffer.from(p.body ?? '', 'utf8');
  if (body.length > maxBodyBytes)
    throw refuse(
      p.bodyBase64 !== undefined ? '/bodyBase64' : '/body',
      `is over ${maxBodyBytes} bytes (MAX_ROUTE_BODY_BYTES)`,
    );
  if (p.contentType !== undefined && headers['content-type'] === undefined) {
    if (/[\r\n\0]/.test(p.contentType)) throw refuse('/contentType', 'has a line break or NUL');
    headers['content-type'] = p.contentType;
  }
  return { action: 'fulfill', status: p.status ?? 200, headers, body };
}

/** The pattern compiled, refused with what is wrong with it. */
function globOf(pattern: string): UrlGlob {
  try {
    return compileGlob(pattern);
  } catch (error) {
    if (error instanceof GlobError)
      throw refuse('/pattern', `is not a glob the service can match: ${error.message}`);
    throw error;
  }
}

const RouteInfoSchema = Type.Object({
  route_id: Type.String(),
  pattern: Type.String(),
  action: Type.String(),
  status: Type.Optional(Type.Integer()),
  errorCode: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Array(Type.String(), { description: 'Header names (never their values).' })),
  times: Type.Union([Type.Integer(), Type.Null()]),
  served: Type.Integer({ description: 'Requests it has answered, aborted or continued.' }),
});
const RoutesSchema = Type.Array(RouteInfoSchema, {
  description: "The session's active routes, newest last.",
});

export const networkRoute = defineSessionMethod({
  name: 'network.route',
  summary: 'Mock, fail or change the requests of the session whose URL matches a pattern',
  description: `Covers every page of the session, popups included; the newest matching route is tried first. A URL outside the allow-list is never answered or continued by a route: it stays blocked. At most ${MAX_ROUTES} routes per session, MAX_ROUTE_BODY_BYTES per body and MAX_ROUTE_BODIES_BYTES for all bodies (configuration keys). Not on an attached tab.`,
  params: RouteParams,
  result: Type.Object({ route_id: Type.String({ description: 'rt1, rt2 …: for network.unroute.' }) }),
  errors: ['INVALID_PARAMS', 'LIMIT_REACHED'],
  readOnly: false,
  async handler(params, { session, services }) {
    const context = ownContext(session, 'network.route');
    const action = actionOf(params, services.config.maxRouteBodyBytes);
    const glob = globOf(params.pattern);
    const routes = routesOf(context, services.policy, (type, text) => session.note(type, text));
    if (routes.globStates + glob.states > MAX_SESSION_GLOB_STATES)
      throw new ServiceError(
        'LIMIT_REACHED',
        `The session's route patterns would add up to ${routes.globStates + glob.states} characters (their brace options expanded), over the ${MAX_SESSION_GLOB_STATES} matched against each request: remove some routes first.`,
        { limit: 'MAX_SESSION_GLOB_STATES', max: MAX_SESSION_GLOB_STATES },
      );
    if (routes.size >= MAX_ROUTES)
      throw new ServiceError(
        'LIMIT_REACHED',
        `This session has ${MAX_ROUTES} routes, the most it may have: remove some with network.unroute, or match more URLs with one pattern.`,
        { limit: 'MAX_ROUTES', max: MAX_ROUTES },
      );
    const bytes = action.action === 'fulfill' ? action.body.length : 0;
    const maxBodies = services.config.maxRouteBodiesBytes;
    if (routes.bodyBytes + bytes > maxBodies)
      throw new ServiceError(
        'LIMIT_REACHED',
        `The session's routes would hold ${routes.bodyBytes + bytes} bytes of bodies, over the ${maxBodies} allowed (MAX_ROUTE_BODIES_BYTES): remove some routes first.`,
        { limit: 'MAX_ROUTE_BODIES_BYTES', max: maxBodies },
      );
    const route_id = await routes.add({ pattern: params.pattern, glob, times: params.times, action });
    return { route_id };
  },
});

export const networkUnroute = defineSessionMethod({
  name: 'network.unroute',
  summary: 'Remove a route of the session (route_id), or all of them (all: true)',
  description:
    'Answers how many were removed and the routes left. A route that served its times is already gone (removed: 0). Requests then go to the network as before; with no route left the session stops intercepting.',
  params: {
    route_id: Type.Optional(
      Type.String({ pattern: '^rt[1-9][0-9]{0,8}$', description: 'The id network.route answered.' }),
    ),
    all: Type.Optional(Type.Literal(true, { description: 'Remove every route of the session.' })),
  },
  result: Type.Object({ removed: Type.Integer(), routes: RoutesSchema }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const context = ownContext(session, 'network.unroute');
    requireExactlyOne('network.unroute', params, 'route_id', 'all', 'route_id or all: true');
    const routes = existingRoutes(context);
    if (routes === undefined) return { removed: 0, routes: [] };
    const removed =
      params.route_id === undefined ? await routes.removeAll() : Number(await routes.remove(params.route_id));
    return { removed, routes: routes.list() };
  },
});

export const networkRoutes = defineSessionMethod({
  name: 'network.routes',
  summary: "List the session's active routes: pattern, action, times and how many requests each served",
  params: {},
  result: Type.Object({ routes: RoutesSchema }),
  errors: ['INVALID_PARAMS'],
  readOnly: true,
  async handler(_params, { session }) {
    const context = ownContext(session, 'network.routes');
    return { routes: existingRoutes(context)?.list() ?? [] };
  },
});

export const networkRouteMethods = [networkRoute, networkUnroute, networkRoutes];
