// HTTP headers a caller gives the browser to send (network.setExtraHeaders, a route's continue) or
// to answer with (a route's fulfil). Their values are the caller's secrets (Authorization, tokens):
// a refusal names the header, never its value, since an error's message reaches a debug log line.
import { ServiceError } from '../../errors/serviceError.js';

/** Headers one call may give (extra headers, a route's fulfil or continue). */
export const MAX_HEADERS = 50;
/** Characters of one header name, and of one value. */
export const MAX_HEADER_NAME_CHARS = 256;
export const MAX_HEADER_VALUE_CHARS = 8192;
/** Characters of all names and values of one call together. */
export const MAX_HEADERS_TOTAL_CHARS = 32 * 1024;

/** An RFC 9110 token: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A value may not break the header block (CR, LF) or carry a NUL. */
const BAD_VALUE = /[\r\n\0]/;

/**
 * Headers a request of the browser may not be given: the ones the network stack owns (length,
 * framing, the connection) and the ones that address the request or its proxy (Host, Proxy-*),
 * which the egress proxy relies on.
 */
const REQUEST_FORBIDDEN = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

function refused(method: string, path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for ${method}: ${path} ${message}`, {
    method,
    errors: [{ path, message, keyword: 'header', params: {} }],
  });
}

/**
 * Checks a header map: names are tokens, values one line, counts and sizes within the caps; for a
 * request, none of the headers the network stack or the egress proxy owns. Names come back lower case.
 */
export function checkHeaders(
  headers: Record<string, string>,
  method: string,
  path: string,
  forRequest: boolean,
): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS)
    throw refused(method, path, `has ${entries.length} headers, more than the ${MAX_HEADERS} allowed`);
  let total = 0;
  const checked = new Map<string, string>();
  for (const [name, value] of entries) {
    const at = `${path}/${name.slice(0, MAX_HEADER_NAME_CHARS)}`;
    if (name.length > MAX_HEADER_NAME_CHARS || !TOKEN.test(name))
      throw refused(method, at, "is not a header name (letters, digits and !#$%&'*+-.^_`|~)");
    const lower = name.toLowerCase();
    if (forRequest && (REQUEST_FORBIDDEN.has(lower) || lower.startsWith('proxy-')))
      throw refused(method, at, 'is a header the browser or the egress proxy sets itself');
    if (value.length > MAX_HEADER_VALUE_CHARS)
      throw refused(method, at, `has a value longer than ${MAX_HEADER_VALUE_CHARS} characters`);
    if (BAD_VALUE.test(value)) throw refused(method, at, 'has a value with a line break or NUL');
    total += name.length + value.length;
    if (checked.has(lower)) throw refused(method, at, 'is given twice (header names ignore case)');
    checked.set(lower, value);
  }
  if (total > MAX_HEADERS_TOTAL_CHARS)
    throw refused(method, path, `is ${total} characters, more than the ${MAX_HEADERS_TOTAL_CHARS} allowed`);
  // fromEntries defines own properties: a header named __proto__ stays a header.
  return Object.fromEntries(checked);
}
