import { setMaxListeners } from 'node:events';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { ERRORS, errorNameForCode, type ErrorName } from '../errors/catalogue.js';
import { ServiceError } from '../errors/serviceError.js';
import type { Logger } from '../observability/logger.js';
import type { CallContext, RpcDispatcher } from '../rpc/dispatch.js';
import { principalOf } from './auth.js';

/**
 * What the REST projections (seed 002's runner API, seed 000's endpoints) share: a JSON body
 * reader, the CallContext of a request (as POST /rpc builds it), and the HTTP answer of a failed
 * call. They add no behaviour: every route calls RpcDispatcher.call.
 */
export interface RestOptions {
  dispatcher: RpcDispatcher;
  bodyLimit: string;
  logger: Logger;
}

/** The HTTP status of each catalogue error, on the REST routes (POST /rpc answers 200 with the error). */
export const HTTP_STATUS_OF: Record<ErrorName, number> = {
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  INVALID_PARAMS: 400,
  METHOD_NOT_FOUND: 404,
  INTERNAL_ERROR: 500,
  ACTION_FAILED: 422,
  TIMEOUT: 504,
  UNAUTHORIZED: 401,
  LIMIT_REACHED: 429,
  UNKNOWN_TOOL: 404,
  RESOURCE_UNAVAILABLE: 503,
  SESSION_NOT_FOUND: 404,
  NAVIGATION_BLOCKED: 403,
  AGENT_NOT_FOUND: 404,
  STALE_REF: 409,
  DIALOG_PENDING: 409,
  PAGE_NAVIGATED: 409,
};

/** An error code no catalogue entry has: an agent's own error, passed through (the agent failed). */
const FOREIGN_CODE_STATUS = 502;

/** The JSON-RPC error object of a REST answer. */
export interface RestError {
  code: number;
  message: string;
  data?: unknown;
}

/** A failed call as REST answers it: the status its code fits and the body `{error: {code, message, data?}}`. */
export interface RestFailure {
  status: number;
  body: { error: RestError };
  /** data.retryAfterMs of the error, when it has one. */
  retryAfterMs: number | undefined;
}

/**
 * The REST answer of a failed call, whatever carries it: sendError's HTTP answer, or the `error`
 * event of a stream that had already answered 200. Anything but a ServiceError is INTERNAL_ERROR.
 */
export function restFailureOf(error: unknown, statusOverride?: number): RestFailure {
  const failure = error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR');
  const name = errorNameForCode(failure.code);
  const status = statusOverride ?? (name === undefined ? FOREIGN_CODE_STATUS : HTTP_STATUS_OF[name]);
  const body: RestError = { code: failure.code, message: failure.message };
  if (failure.data !== undefined) body.data = failure.data;
  const retryAfterMs = failure.data?.retryAfterMs;
  return {
    status,
    body: { error: body },
    retryAfterMs: typeof retryAfterMs === 'number' ? retryAfterMs : undefined,
  };
}

/** Answers a failed call: the status its code fits, `{error: {code, message, data?}}`, Retry-After on 429. */
export function sendError(res: Response, error: unknown, statusOverride?: number): void {
  const { status, body, retryAfterMs } = restFailureOf(error, statusOverride);
  if (status === 429 && retryAfterMs !== undefined)
    res.set('retry-after', String(Math.ceil(retryAfterMs / 1000)));
  res.status(status).json(body);
}

/** A refusal of the REST layer itself (a bad body, an unknown tool …), as a catalogue error. */
export function refusal(name: ErrorName, message: string, data?: Record<string, unknown>): ServiceError {
  return new ServiceError(name, message, data);
}

/** The CallContext of a request: its id, principal, logger, and a signal aborted when the client goes. */
export function callContext(req: Request, res: Response, logger: Logger): CallContext {
  const requestId = String(res.locals.requestId);
  const principal = principalOf(res);
  const gone = new AbortController();
  // A seed 000 route makes a few calls in a row on one request, each listening on it.
  setMaxListeners(0, gone.signal);
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return {
    requestId,
    origin: req.ip ?? 'http',
    log: logger.child({ requestId, principal: principal.id }),
    principal,
    signal: gone.signal,
  };
}

/**
 * A POST body reader: only application/json (415 otherwise: none of the CORS-safelisted types, so a
 * web page cannot post here cross-origin without a preflight the service never answers), at most
 * BODY_LIMIT (413), a JSON object (400 otherwise).
 */
export function jsonObjectBody(bodyLimit: string): RequestHandler[] {
  return [
    (req: Request, res: Response, next: NextFunction) => {
      if (!req.is('application/json')) {
        sendError(
          res,
          refusal('INVALID_REQUEST', 'Unsupported content type: send Content-Type: application/json'),
          415,
        );
        return;
      }
      next();
    },
    express.json({ limit: bodyLimit, type: 'application/json', strict: false }),
    (req: Request, res: Response, next: NextFunction) => {
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        sendError(res, refusal('INVALID_REQUEST', 'The body must be a JSON object'));
        return;
      }
      next();
    },
  ];
}

/** body-parser's errors on the REST routes: malformed JSON 400, an oversized body 413. */
export function restBodyErrors(bodyLimit: string) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    const type = typeof error === 'object' && error !== null && 'type' in error ? String(error.type) : '';
    if (type === 'entity.parse.failed') {
      res.status(400).json({ error: { code: ERRORS.PARSE_ERROR.code, message: ERRORS.PARSE_ERROR.message } });
      return;
    }
    if (type === 'entity.too.large') {
      res.status(413).json({
        error: {
          code: ERRORS.INVALID_REQUEST.code,
          message: `Request body too large: the limit is ${bodyLimit} (BODY_LIMIT)`,
        },
      });
      return;
    }
    next(error);
  };
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Wraps a REST route: whatever it throws is answered as `{error}` with the status its code fits.
 * Dispatcher calls throw ServiceErrors (already logged by dispatch); anything else is a bug of the
 * route, logged here (its message only) and answered INTERNAL_ERROR.
 */
export function restRoute(logger: Logger) {
  return (handler: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response): void => {
      handler(req, res).catch((error: unknown) => {
        if (!(error instanceof ServiceError)) {
          const message = error instanceof Error ? error.message : String(error);
          logger.error({ err: { message }, requestId: res.locals.requestId }, 'REST route failed');
        }
        if (res.headersSent) return;
        sendError(res, error);
      });
    };
}

/** A REST route's handler: what it throws is answered by restRoute. */
export type RestHandler = (req: Request, res: Response) => Promise<void>;

/**
 * The router of one REST projection and how its routes are added: each wrapped by restRoute, a POST
 * behind the JSON object body reader. `done` comes last: it answers body-parser's errors on the
 * paths that read a body (mounted after the routes, as an error handler must be) and gives the router.
 */
export interface RestRouter {
  get(path: string, handler: RestHandler): void;
  post(path: string, handler: RestHandler): void;
  delete(path: string, handler: RestHandler): void;
  /** The CallContext of a request, logging through the projection's logger. */
  context(req: Request, res: Response): CallContext;
  done(bodyPaths: string[]): Router;
}

/** A REST projection's router, set up the one way both projections need it. */
export function restRouter(options: RestOptions): RestRouter {
  const { logger, bodyLimit } = options;
  const router = express.Router();
  const route = restRoute(logger);
  const body = jsonObjectBody(bodyLimit);
  return {
    get(path, handler) {
      router.get(path, route(handler));
    },
    post(path, handler) {
      router.post(path, ...body, route(handler));
    },
    delete(path, handler) {
      router.delete(path, route(handler));
    },
    context: (req, res) => callContext(req, res, logger),
    done(bodyPaths) {
      router.use(bodyPaths, restBodyErrors(bodyLimit));
      return router;
    },
  };
}

/**
 * True when an Accept header names `type` itself (e.g. text/html, text/event-stream) with a q above
 * 0. A wildcard range (any type, or any subtype of text) does not count: a client gets another
 * form of an answer only when it asked for that form by name, so a client that sends no Accept or
 * a wildcard keeps the default answer.
 */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const wanted = type.toLowerCase();
  return accept.split(',').some((range) => {
    const [name, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (name !== wanted) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
