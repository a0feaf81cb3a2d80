import type { Request } from 'express';
import type { ErrorName } from '../errors/catalogue.js';
import { errorResponse, type JsonRpcId, type JsonRpcResponse } from '../rpc/jsonRpc.js';

/**
 * How much of a refused request's body is read to find its JSON-RPC id: a call's envelope and
 * ordinary params fit; past it the answer's id is null and the rest of the body is not read.
 */
export const REFUSAL_BODY_PEEK_BYTES = 64 * 1024;
/** How long a refusal waits for that body: a client that sends it slowly gets id null, not a held socket. */
export const REFUSAL_BODY_WAIT_MS = 2_000;

/** What a refusal answers to: one id (a single request) or the ids of a batch's requests. */
export type RefusedIds = { batch: false; id: JsonRpcId } | { batch: true; ids: JsonRpcId[] };

const NO_ID: RefusedIds = { batch: false, id: null };

function isId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** A request object's id, or undefined for a notification or something that is not a request. */
function idOf(message: unknown): JsonRpcId | undefined {
  if (typeof message !== 'object' || message === null || !('id' in message)) return undefined;
  return isId(message.id) ? message.id : undefined;
}

/** The ids a parsed body carries: a request's id, or each batch member's (notifications have none). */
export function idsOfBody(body: unknown): RefusedIds {
  if (Array.isArray(body)) {
    const ids: JsonRpcId[] = [];
    for (const member of body as unknown[]) {
      const id = idOf(member);
      if (id !== undefined) ids.push(id);
    }
    return { batch: true, ids };
  }
  return { batch: false, id: idOf(body) ?? null };
}

/**
 * The ids of a request refused before its body was read: the body is read when it is JSON, at
 * most REFUSAL_BODY_PEEK_BYTES of it, for at most REFUSAL_BODY_WAIT_MS. Anything else (too large,
 * too slow, not JSON, not a POST) answers with id null. Never rejects.
 */
export function peekRefusedIds(req: Request): Promise<RefusedIds> {
  const declared = Number(req.get('content-length') ?? '0');
  if (
    req.method !== 'POST' ||
    !req.is(['json', 'application/json-rpc', 'application/jsonrequest']) ||
    declared > REFUSAL_BODY_PEEK_BYTES
  )
    return Promise.resolve(NO_ID);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (ids: RefusedIds): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(ids);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > REFUSAL_BODY_PEEK_BYTES) finish(NO_ID);
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      try {
        finish(idsOfBody(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      } catch {
        // Not JSON: the refusal still answers, with id null as JSON-RPC has it for a parse error.
        finish(NO_ID);
      }
    };
    // The client went away or sent a broken body: nobody is left to read the id.
    const onError = (): void => finish(NO_ID);
    const timer = setTimeout(() => finish(NO_ID), REFUSAL_BODY_WAIT_MS);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * The body of a refusal: one error object with the request's id, or for a batch one error per
 * member that has an id (what a batch would have answered, every call refused); a batch of
 * notifications only gets one error with id null, since a refusal must say something.
 */
export function refusalBody(
  ids: RefusedIds,
  name: ErrorName,
  message: string,
  data?: Record<string, unknown>,
): JsonRpcResponse | JsonRpcResponse[] {
  if (!ids.batch) return errorResponse(ids.id, name, message, data);
  if (ids.ids.length === 0) return errorResponse(null, name, message, data);
  return ids.ids.map((id) => errorResponse(id, name, message, data));
}
