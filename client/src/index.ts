// The typed client of playwright-jsonrpc: `import { createClient } from 'playwright-jsonrpc/client'`.
export {
  createClient,
  rpcEndpoint,
  type CallArgs,
  type ClientOptions,
  type RpcClient,
} from './createClient.js';
export type { CallOptions } from './callOptions.js';
export { RpcClientError, RpcTransportError, errorNameOf, type FailureInfo } from './errors.js';
export { DEFAULT_RETRIES, RETRY_DELAYS_MS, isRetryableFailure, isSafeToRetry } from './retryPolicy.js';
export { METHOD_ERRORS, METHOD_NAMES, READ_ONLY_METHODS, RPC_ERROR_CODES } from './methods.generated.js';
// Every generated type: RpcMethods, MethodName, ParamsOf, ResultOf, RpcErrorName, PageGotoParams …
export type * from './methods.generated.js';
