import { setMaxListeners } from 'node:events';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { Logger } from '../observability/logger.js';
import type { RpcDispatcher } from '../rpc/dispatch.js';
import { errorResponse, handleJsonRpcBody } from '../rpc/jsonRpc.js';
import { principalOf } from './auth.js';
import { jsonBodyErrors } from './bodyErrors.js';

/**
 * The media types a JSON-RPC body may be sent as: JSON, and the JSON-RPC types stock clients send
 * (jsonrpclib: application/json-rpc; the JSON-RPC 1.1 draft: application/jsonrequest).
 */
export const RPC_MEDIA_TYPES = ['application/json', 'application/json-rpc', 'application/jsonrequest'];

/**
 * POST /rpc: JSON in, JSON-RPC out. Only RPC_MEDIA_TYPES are accepted. None is CORS-safelisted
 * (those are text/plain, application/x-www-form-urlencoded and multipart/form-data), so a web page
 * cannot post JSON-RPC here cross-origin without a CORS preflight, which the service never
 * answers; text/plain and form bodies get 415.
 */
export function rpcRouter(
  dispatcher: RpcDispatcher,
  options: { bodyLimit: string; batchMax: number; logger: Logger; countBatch: RequestHandler },
): Router {
  const router = express.Router();
  router.post(
    '/rpc',
    (req: Request, res: Response, next: NextFunction) => {
      if (!req.is(RPC_MEDIA_TYPES)) {
        res
          .status(415)
          .json(
            errorResponse(
              null,
              'INVALID_REQUEST',
              `Unsupported content type: send Content-Type: ${RPC_MEDIA_TYPES.join(', ')}`,
            ),
          );
        return;
      }
      next();
    },
    express.json({
      limit: options.bodyLimit,
      type: RPC_MEDIA_TYPES,
      strict: false,
      // body-parser reads an empty body as {}; it is not JSON, so it is a parse error (-32700).
      verify: (_req, _res, buf) => {
        if (buf.length === 0) throw Object.assign(new Error('empty body'), { type: 'entity.parse.failed' });
      },
    }),
    options.countBatch,
    async (req: Request, res: Response) => {
      const requestId = String(res.locals.requestId);
      const principal = principalOf(res);
      const log = options.logger.child({ requestId, principal: principal.id });
      // The client closing its connection before the answer is out means it has gone.
      const gone = new AbortController();
      // All members of a batch share it, each running idleFor adding a listener.
      setMaxListeners(0, gone.signal);
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const response = await handleJsonRpcBody(
        req.body,
        dispatcher,
        {
          requestId,
          origin: req.ip ?? 'http',
          log,
          principal,
          signal: gone.signal,
          forwardedBy: forwardedByOf(req.headers[FORWARDED_BY_HEADER]),
        },
        options.batchMax,
      );
      if (response === undefined) res.status(204).end();
      else res.json(response);
    },
  );
  // Body-parser errors: malformed JSON is a JSON-RPC parse error; an oversized body is HTTP 413.
  router.use('/rpc', jsonBodyErrors(options.bodyLimit, 200));
  return router;
}

/**
 * The header a replica's forwarded call carries (src/replicas/forward.ts sends it): the forwarding
 * replica's id, at most 64 characters of it.
 */
export const FORWARDED_BY_HEADER = 'x-forwarded-by-replica';

function forwardedByOf(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first.slice(0, 64);
}
