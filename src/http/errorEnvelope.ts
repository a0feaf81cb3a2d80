import type { Response } from 'express';
import type { ErrorName } from '../errors/catalogue.js';
import { errorResponse } from '../rpc/jsonRpc.js';

/**
 * Answers an HTTP request that is refused before any call runs (a stream that cannot open, a
 * session of another replica): the given status and the JSON-RPC error envelope of the catalogue
 * error, id null as no call had one.
 */
export function sendErrorEnvelope(
  res: Response,
  status: number,
  name: ErrorName,
  message: string,
  data?: Record<string, unknown>,
): void {
  res.status(status).json(errorResponse(null, name, message, data));
}
