import { ERRORS, type ErrorName } from '../errors/catalogue.js';
import { ServiceError } from '../errors/serviceError.js';

/** The header a forwarded call carries: the replica that forwarded it (for the owner's logs). */
import { FORWARDED_BY_HEADER } from '../http/rpcRoute.js';
export { FORWARDED_BY_HEADER };

/** One call to send to the replica that owns it. */
export interface ForwardRequest {
  /** The peer's origin (REPLICA_PEERS). */
  origin: string;
  replica: string;
  from: string;
  method: string;
  params: unknown;
  /** The caller's own key, so the owner sees the same principal (and its limits and sessions). */
  apiKey: string;
  requestId: string;
  /** The caller's signal: its going away cancels the forward. */
  signal: AbortSignal | undefined;
  timeoutMs: number;
}

/** How a forward failed without an answer from the peer, for the caller's error (replicaDispatcher). */
export type ForwardFailure = 'unreachable' | 'lost' | 'timeout' | 'caller-gone' | 'refused';

export class ForwardError extends Error {
  constructor(
    readonly failure: ForwardFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ForwardError';
  }
}

const NAME_BY_CODE = new Map<number, ErrorName>(
  (Object.keys(ERRORS) as ErrorName[]).map((name) => [ERRORS[name].code, name]),
);

/** Codes of errors that say the peer was never reached (nothing was sent). */
const NOT_REACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(error: unknown): string | undefined {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string')
    return cause.code;
  return undefined;
}

function failureOf(error: unknown, caller: AbortSignal | undefined, timeout: AbortSignal): ForwardError {
  if (caller?.aborted === true) return new ForwardError('caller-gone', 'the caller went away');
  if (timeout.aborted) return new ForwardError('timeout', 'no answer within REPLICA_FORWARD_TIMEOUT_MS');
  const code = causeCode(error);
  if (code !== undefined && NOT_REACHED.has(code)) return new ForwardError('unreachable', code);
  return new ForwardError('lost', code ?? (error instanceof Error ? error.message : String(error)));
}

/** A JSON-RPC error object from the peer, as the ServiceError the caller gets (same code, message, data). */
function peerError(error: unknown): ServiceError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  const name = typeof code === 'number' ? NAME_BY_CODE.get(code) : undefined;
  if (name === undefined || typeof message !== 'string') return undefined;
  const fields = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : undefined;
  return new ServiceError(name, message, fields as Record<string, unknown> | undefined);
}

/**
 * Sends one call to its replica's POST /rpc and answers what that replica answered: its result, or
 * its error as a ServiceError. Throws a ForwardError when no JSON-RPC answer came back.
 */
export async function forwardCall(request: ForwardRequest): Promise<unknown> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]);
  let text: string;
  let status: number;
  try {
    const response = await fetch(`${request.origin}/rpc`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': request.apiKey,
        'x-request-id': request.requestId,
        [FORWARDED_BY_HEADER]: request.from,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: request.method, params: request.params }),
      signal,
      redirect: 'error',
    });
    status = response.status;
    // The peer is this service: its answers are bounded by its own caps (MAX_SCREENSHOT_BYTES …).
    text = await response.text();
  } catch (error) {
    throw failureOf(error, request.signal, timeout);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON-RPC at all (a proxy's page, a crash): said below with the status.
    body = undefined;
  }
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    if ('result' in body) return body.result;
    const error = 'error' in body ? peerError(body.error) : undefined;
    if (error !== undefined) throw error;
  }
  throw new ForwardError('refused', `HTTP ${status} without a JSON-RPC answer`, status);
}
