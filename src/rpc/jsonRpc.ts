import { ERRORS, type ErrorName } from '../errors/catalogue.js';
import { ServiceError } from '../errors/serviceError.js';
import type { CallContext, RpcDispatcher } from './dispatch.js';

export type JsonRpcId = string | number | null;

export interface JsonServiceErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonServiceErrorObject };

/** The one writer of error envelopes: every error a caller sees is built here from the catalogue. */
export function errorResponse(
  id: JsonRpcId,
  error: ServiceError | ErrorName,
  message?: string,
  data?: unknown,
): JsonRpcResponse {
  if (typeof error === 'string') {
    const body: JsonServiceErrorObject = {
      code: ERRORS[error].code,
      message: message ?? ERRORS[error].message,
    };
    if (data !== undefined) body.data = data;
    return { jsonrpc: '2.0', id, error: body };
  }
  const body: JsonServiceErrorObject = { code: error.code, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  return { jsonrpc: '2.0', id, error: body };
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/**
 * One JSON-RPC 2.0 request object → its response, or undefined for a notification (no id member).
 * Never throws: every failure becomes an error envelope.
 */
export async function handleRequestObject(
  message: unknown,
  dispatcher: RpcDispatcher,
  ctx: CallContext,
): Promise<JsonRpcResponse | undefined> {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return errorResponse(null, 'INVALID_REQUEST', 'Invalid request: each request must be a JSON object');
  }
  const req = message as Record<string, unknown>;
  const hasId = Object.hasOwn(req, 'id');
  const id = hasId && isValidId(req.id) ? req.id : null;
  if (hasId && !isValidId(req.id)) {
    return errorResponse(null, 'INVALID_REQUEST', 'Invalid request: id must be a string, a number or null');
  }
  if (req.jsonrpc !== '2.0')
    return errorResponse(id, 'INVALID_REQUEST', 'Invalid request: jsonrpc must be exactly "2.0"');
  if (typeof req.method !== 'string' || req.method.length === 0) {
    return errorResponse(id, 'INVALID_REQUEST', 'Invalid request: method must be a non-empty string');
  }
  if (req.params !== undefined && (typeof req.params !== 'object' || req.params === null)) {
    return errorResponse(id, 'INVALID_REQUEST', 'Invalid request: params must be an object or an array');
  }
  try {
    // A notification's caller never waits for an answer, so its leaving cancels nothing.
    const result = await dispatcher.call(req.method, req.params, hasId ? ctx : { ...ctx, signal: undefined });
    return hasId ? { jsonrpc: '2.0', id, result: result ?? null } : undefined;
  } catch (error) {
    if (!hasId) return undefined;
    return errorResponse(id, error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR'));
  }
}

/**
 * A parsed body (single request or batch) → what to send back: a response, an array of them, or
 * undefined when nothing is due (only notifications). Batch members run concurrently: calls on one
 * session still serialise on its lock.
 */
export async function handleJsonRpcBody(
  body: unknown,
  dispatcher: RpcDispatcher,
  ctx: CallContext,
  batchMax: number,
): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  if (!Array.isArray(body)) return handleRequestObject(body, dispatcher, ctx);
  if (body.length === 0) return errorResponse(null, 'INVALID_REQUEST', 'Invalid request: an empty batch');
  if (body.length > batchMax) {
    return errorResponse(
      null,
      'INVALID_REQUEST',
      `Invalid request: a batch of ${body.length} calls is over the limit of ${batchMax} (BATCH_MAX)`,
      {
        batchMax,
      },
    );
  }
  const responses = await Promise.all(body.map((m) => handleRequestObject(m, dispatcher, ctx)));
  const due = responses.filter((r): r is JsonRpcResponse => r !== undefined);
  return due.length > 0 ? due : undefined;
}
