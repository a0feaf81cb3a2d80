// @ts-check
// The console's one door to the service: the API key (kept in localStorage, sent only in the
// Authorization header, never in a URL), authorized fetch, JSON-RPC calls and a Server-Sent Events
// reader over fetch (EventSource cannot send a header). Every page of the console imports this
// module; its exports are a stable API (docs/console.md).

/** JSON.parse typed as unknown (this module imports nothing, so any page can use it alone). @param {string} text @returns {unknown} */
function parseJson(text) {
  return JSON.parse(text);
}

/** The localStorage entry that holds the key. */
export const KEY_STORAGE_NAME = 'playwright-jsonrpc.apiKey';
/** The window event sent when the key is stored, forgotten or refused by the service. */
export const KEY_CHANGE_EVENT = 'playwright-jsonrpc:key';

/** An HTTP answer that is not a success (status 0: the request never reached the service). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {unknown} [body]
   */
  constructor(status, message, body) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/** A JSON-RPC error answer: its code, message and data, as the service sent them. */
export class RpcError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
}

/** @returns {string | null} the stored key, or null */
export function getKey() {
  try {
    const key = window.localStorage.getItem(KEY_STORAGE_NAME);
    return key === null || key === '' ? null : key;
  } catch {
    // Storage disabled (a private window's policy): the console works as if no key was stored.
    return null;
  }
}

/** @returns {boolean} */
export function hasKey() {
  return getKey() !== null;
}

/** @param {'stored' | 'forgotten' | 'refused'} why */
function announce(why) {
  window.dispatchEvent(new CustomEvent(KEY_CHANGE_EVENT, { detail: { why } }));
}

/** Stores a key as is (use saveKeyIfValid to store only a key the service accepts). @param {string} key */
export function setKey(key) {
  window.localStorage.setItem(KEY_STORAGE_NAME, key);
  announce('stored');
}

/** Forgets the stored key. */
export function clearKey() {
  window.localStorage.removeItem(KEY_STORAGE_NAME);
  announce('forgotten');
}

/**
 * Calls `listener` whenever the key is stored, forgotten or refused; returns the unsubscribe.
 * @param {(why: 'stored' | 'forgotten' | 'refused') => void} listener
 * @returns {() => void}
 */
export function onKeyChange(listener) {
  /** @param {Event} event */
  const handler = (event) => {
    const detail = /** @type {CustomEvent<{ why: 'stored' | 'forgotten' | 'refused' }>} */ (event).detail;
    listener(detail.why);
  };
  window.addEventListener(KEY_CHANGE_EVENT, handler);
  return () => window.removeEventListener(KEY_CHANGE_EVENT, handler);
}

/** @param {string} path */
function sameOriginPath(path) {
  if (!path.startsWith('/') || path.startsWith('//'))
    throw new TypeError(`apiFetch takes a path of this service (starting with one /), not ${path}`);
  return path;
}

/**
 * fetch() on this service with the key in the Authorization header. A 401 or 403 for the stored key
 * forgets it (the service no longer accepts it) and throws ApiError; other statuses are returned.
 * @param {string} path a path of this service, e.g. /rpc
 * @param {RequestInit & { key?: string }} [init] `key` overrides the stored key (to test one)
 * @returns {Promise<Response>}
 */
export async function apiFetch(path, init = {}) {
  const { key: given, ...rest } = init;
  const key = given ?? getKey();
  if (key === null) throw new ApiError(401, 'No API key: enter it first.');
  const headers = new Headers(rest.headers);
  headers.set('authorization', `Bearer ${key}`);
  let response;
  try {
    response = await fetch(sameOriginPath(path), {
      ...rest,
      headers,
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(
      0,
      `The service did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    const body = await response.text();
    if (given === undefined && getKey() === key) {
      window.localStorage.removeItem(KEY_STORAGE_NAME);
      announce('refused');
    }
    throw new ApiError(response.status, refusalText(response.status, body), body);
  }
  return response;
}

/**
 * @param {number} status
 * @param {string} body
 */
function refusalText(status, body) {
  let detail;
  try {
    const parsed = /** @type {{ error?: { message?: string } | string }} */ (parseJson(body));
    detail = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? '');
  } catch {
    detail = body.slice(0, 200);
  }
  return `The service refused the key (HTTP ${status})${detail ? `: ${detail}` : ''}.`;
}

let nextId = 1;

/**
 * One JSON-RPC call on POST /rpc; answers its result or throws RpcError (or ApiError).
 * @param {string} method
 * @param {Record<string, unknown>} [params]
 * @param {{ key?: string, signal?: AbortSignal }} [options]
 * @returns {Promise<unknown>}
 */
export async function rpc(method, params = {}, options = {}) {
  const response = await apiFetch('/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = await response.text();
  /** @typedef {{ result?: unknown, error?: { code: number, message: string, data?: unknown } }} RpcReply */
  /** @type {RpcReply} */
  let reply;
  try {
    reply = /** @type {RpcReply} */ (parseJson(text));
  } catch {
    throw new ApiError(response.status, `HTTP ${response.status}: not JSON-RPC: ${text.slice(0, 200)}`, text);
  }
  if (reply.error) throw new RpcError(reply.error.code, reply.error.message, reply.error.data);
  return reply.result;
}

/**
 * Asks the service whether it accepts `key` (GET /openrpc.json with it).
 * @param {string} key
 * @returns {Promise<{ ok: true } | { ok: false, message: string }>}
 */
export async function verifyKey(key) {
  try {
    const response = await apiFetch('/openrpc.json', { key });
    if (response.ok) return { ok: true };
    return { ok: false, message: `The service answered HTTP ${response.status}.` };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Stores the key only when the service accepts it; a refused key leaves nothing stored.
 * @param {string} key
 * @returns {Promise<{ ok: true } | { ok: false, message: string }>}
 */
export async function saveKeyIfValid(key) {
  const trimmed = key.trim();
  if (trimmed === '') return { ok: false, message: 'Enter a key.' };
  const verdict = await verifyKey(trimmed);
  if (verdict.ok) setKey(trimmed);
  else if (getKey() === trimmed) clearKey();
  return verdict;
}

/**
 * @typedef {{ event: string, data: string, id: string | undefined }} SseMessage
 */

/**
 * The Server-Sent Events of a byte stream, parsed as the HTML standard says (fields event, data,
 * id; comments skipped; a blank line ends a message; data lines joined with \n). A message the
 * stream ended in the middle of is not delivered, as EventSource does. The runner page reads the
 * Messages API's stream with it too.
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<SseMessage>}
 */
export async function* readSseBody(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  /** @type {string[]} */
  let data = [];
  /** @type {string | undefined} */
  let id;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
          event = '';
          data = [];
          continue;
        }
        // A comment (a keep-alive ping): nothing to deliver.
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const raw = colon < 0 ? '' : line.slice(colon + 1);
        const text = raw.startsWith(' ') ? raw.slice(1) : raw;
        if (field === 'data') data.push(text);
        else if (field === 'event') event = text;
        else if (field === 'id') id = text;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The Server-Sent Events of a fetch() response body (readSseBody). Ends with the body.
 * @param {Response} response
 * @returns {AsyncGenerator<SseMessage>}
 */
export async function* readSse(response) {
  if (response.body === null) return;
  yield* readSseBody(response.body);
}

/**
 * Opens an event stream of this service (GET with the key) and returns the response; a status other
 * than 200 is returned as is, for the caller to explain.
 * @param {string} path
 * @param {{ signal?: AbortSignal, lastEventId?: string }} [options]
 * @returns {Promise<Response>}
 */
export function openStream(path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return apiFetch(path, { headers, ...(options.signal === undefined ? {} : { signal: options.signal }) });
}
