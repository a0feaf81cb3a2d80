import { RPC_ERROR_CODES, type RpcErrorName } from './methods.generated.js';

const NAME_BY_CODE = new Map<number, RpcErrorName>(
  (Object.keys(RPC_ERROR_CODES) as RpcErrorName[]).map((name) => [RPC_ERROR_CODES[name], name]),
);

/** The catalogue name of a JSON-RPC error code; undefined for a code the catalogue does not know. */
export function errorNameOf(code: number): RpcErrorName | undefined {
  return NAME_BY_CODE.get(code);
}

export interface FailureInfo {
  /** The method that was called. */
  method: string;
  /** How many HTTP attempts were made, retries included. */
  attempts: number;
  /** The HTTP status of the last attempt; undefined when no response came. */
  httpStatus: number | undefined;
}

/**
 * The service answered with a JSON-RPC error: `code` and `errorName` come from its catalogue
 * (src/rpc/errors.ts), `data` carries what it knew (selector, url, timeoutMs, retryAfterMs …).
 */
export class RpcClientError extends Error {
  readonly code: number;
  /** The catalogue name (SESSION_NOT_FOUND, TIMEOUT …); undefined for a code this client does not know. */
  readonly errorName: RpcErrorName | undefined;
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly method: string;
  readonly attempts: number;
  readonly httpStatus: number | undefined;

  constructor(error: { code: number; message: string; data?: unknown }, info: FailureInfo) {
    super(error.message);
    this.name = 'RpcClientError';
    this.code = error.code;
    this.errorName = errorNameOf(error.code);
    // The service always sends an object; anything else is kept, wrapped, rather than dropped.
    this.data =
      error.data === undefined
        ? undefined
        : typeof error.data === 'object' && error.data !== null && !Array.isArray(error.data)
          ? (error.data as Record<string, unknown>)
          : { value: error.data };
    this.method = info.method;
    this.attempts = info.attempts;
    this.httpStatus = info.httpStatus;
  }
}

/**
 * No JSON-RPC answer came: the service could not be reached (`httpStatus` undefined), or it answered
 * with an HTTP error or a body that is not a JSON-RPC response.
 */
export class RpcTransportError extends Error {
  readonly method: string;
  readonly attempts: number;
  readonly httpStatus: number | undefined;

  constructor(message: string, info: FailureInfo, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RpcTransportError';
    this.method = info.method;
    this.attempts = info.attempts;
    this.httpStatus = info.httpStatus;
  }
}
