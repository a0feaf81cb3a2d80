/** Where the CLI finds the service when neither --url nor PLAYWRIGHT_JSONRPC_URL says: `npm start`'s default. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:3337';
/** The environment variable naming the service for `call` and `mcp`. */
export const URL_ENV = 'PLAYWRIGHT_JSONRPC_URL';

/** Thrown for a command line the CLI cannot act on; main prints it with the usage hint. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * The service's base URL from --url, then PLAYWRIGHT_JSONRPC_URL, then the default. Either the base
 * or an endpoint (`…/rpc`, `…/mcp`) may be given; the endpoint's path is dropped.
 */
export function serviceBase(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): URL {
  const raw = flag ?? env[URL_ENV] ?? DEFAULT_SERVICE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The text may carry a password: the message names the source, not the value.
    throw new UsageError(`${flag === undefined ? URL_ENV : '--url'} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`the service URL must be http: or https:, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw new UsageError('the service URL must not carry a user or password: the key goes in API_KEY');
  url.pathname = url.pathname.replace(/\/(rpc|mcp)\/?$/, '').replace(/\/$/, '');
  url.search = '';
  url.hash = '';
  return url;
}

/** A URL as it may appear in a message: scheme, host and path; never a password or query values. */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The API key the CLI sends: API_KEY from the environment (never from argv, where `ps` shows it). */
export function apiKeyFrom(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env.API_KEY?.split(',')[0]?.trim();
  return key === undefined || key === '' ? undefined : key;
}

/** One of the service's endpoints (`rpc`, `mcp`) under its base URL. */
export function endpointOf(base: URL, name: 'rpc' | 'mcp'): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/$/, '')}/${name}`;
  return url;
}
