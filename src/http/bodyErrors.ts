import type { NextFunction, Request, Response } from 'express';
import { errorResponse } from '../rpc/jsonRpc.js';

/**
 * body-parser's errors as JSON-RPC answers: malformed JSON is a parse error (-32700, id null), an
 * oversized body HTTP 413. The error object carries the raw body, so it is answered, never logged.
 * `/rpc` answers a parse error with HTTP 200 (JSON-RPC over HTTP); `/mcp` with 400 (Streamable HTTP).
 */
export function jsonBodyErrors(bodyLimit: string, parseErrorStatus: number) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    const type = typeof error === 'object' && error !== null && 'type' in error ? String(error.type) : '';
    if (type === 'entity.parse.failed') {
      res.status(parseErrorStatus).json(errorResponse(null, 'PARSE_ERROR'));
      return;
    }
    if (type === 'entity.too.large') {
      res
        .status(413)
        .json(
          errorResponse(
            null,
            'INVALID_REQUEST',
            `Request body too large: the limit is ${bodyLimit} (BODY_LIMIT)`,
          ),
        );
      return;
    }
    next(error);
  };
}
