// @ts-check
// The runner page's client of this service (seed 002's runner API): the OpenRPC document, a
// session, a tool call through execute in its streamed form, the session's close. The service key
// goes only here (same origin), never to the model.
import { readSseBody } from './api.js';

/**
 * The service's side: its key goes only to the service (same origin), never to the model.
 * @param {{ fetch: typeof fetch, serviceKey: string, signal?: AbortSignal }} o
 */
export function serviceClient(o) {
  const headers = { authorization: `Bearer ${o.serviceKey}`, 'content-type': 'application/json' };
  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<{ ok: boolean, status: number, body: unknown }>}
   */
  const request = async (method, path, body) => {
    const res = await o.fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: o.signal,
    });
    return { ok: res.ok, status: res.status, body: parseBody(await res.text()) };
  };
  return {
    /** @returns {Promise<unknown>} */
    async openRpc() {
      const r = await request('GET', '/openrpc.json');
      if (!r.ok) throw new Error(`GET /openrpc.json answered HTTP ${r.status}: ${describeError(r.body)}`);
      return r.body;
    },
    /** @returns {Promise<string>} */
    async createSession() {
      const r = await request('POST', '/sessions', {});
      const id = isRecord(r.body) ? r.body.session_id : undefined;
      if (!r.ok || typeof id !== 'string')
        throw new Error(`POST /sessions answered HTTP ${r.status}: ${describeError(r.body)}`);
      return id;
    },
    /**
     * One tool call, in execute's streamed form (Accept: text/event-stream): onProgress gets the
     * milliseconds the call has run at each `progress` event, then one `result` or `error` event
     * ends it. A refusal before the call starts (a bad body, an unknown tool) is plain JSON with
     * its status.
     * @param {string} sessionId
     * @param {string} method
     * @param {unknown} args
     * @param {string | undefined} idempotencyKey
     * @param {(elapsedMs: number) => void} [onProgress]
     * @returns {Promise<ExecuteResult>}
     */
    async execute(sessionId, method, args, idempotencyKey, onProgress) {
      const path = `/sessions/${encodeURIComponent(sessionId)}/execute`;
      const res = await o.fetch(path, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body: JSON.stringify({
          tool_name: method,
          args: isRecord(args) ? args : {},
          idempotency_key: idempotencyKey,
        }),
        signal: o.signal,
      });
      const streamed = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
      if (!streamed || res.body === null) {
        const body = parseBody(await res.text());
        return executeAnswer(res.ok, body, `HTTP ${res.status}`);
      }
      for await (const { event, data } of readSseBody(res.body)) {
        const body = parseBody(data);
        if (event === 'progress') {
          if (isRecord(body) && typeof body.elapsedMs === 'number') onProgress?.(body.elapsedMs);
        } else if (event === 'result' || event === 'error') {
          return executeAnswer(event === 'result', body, `an ${event} event`);
        }
      }
      return {
        ok: false,
        content: `POST ${path}: the event stream ended without a result or error event`,
        details: undefined,
      };
    },
    /** @param {string} sessionId */
    async closeSession(sessionId) {
      const r = await request('DELETE', `/sessions/${encodeURIComponent(sessionId)}`);
      if (!r.ok)
        throw new Error(`DELETE /sessions/${sessionId} answered HTTP ${r.status}: ${describeError(r.body)}`);
    },
  };
}

/** @typedef {{ ok: boolean, content: string, details: unknown }} ExecuteResult */

/**
 * An execute answer (a JSON body, or a stream's result or error event) as a tool result: ok with
 * its content when it is `{content, details}`, else the error it carries in one line.
 * @param {boolean} ok
 * @param {unknown} body
 * @param {string} what what answered, for an error without a body
 * @returns {ExecuteResult}
 */
function executeAnswer(ok, body, what) {
  if (ok && isRecord(body) && typeof body.content === 'string')
    return { ok: true, content: body.content, details: body.details };
  return { ok: false, content: describeError(body) || what, details: body };
}

/**
 * A body of the service (or an event's data): JSON, or the text itself when it is not.
 * @param {string} text
 * @returns {unknown}
 */
function parseBody(text) {
  try {
    return text === '' ? undefined : /** @type {unknown} */ (JSON.parse(text));
  } catch {
    // Not JSON (a proxy's error page): the text itself says what went wrong.
    return text;
  }
}

/**
 * The service's error answer ({error: {code, message, data?}}) as one line.
 * @param {unknown} body
 */
function describeError(body) {
  if (isRecord(body) && isRecord(body.error)) {
    const { code, message, data } = body.error;
    const name = typeof code === 'number' || typeof code === 'string' ? String(code) : 'error';
    return `${name}: ${typeof message === 'string' ? message : ''}${data === undefined ? '' : ` ${JSON.stringify(data)}`}`;
  }
  return typeof body === 'string' ? body.slice(0, 500) : JSON.stringify(body ?? null);
}

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isRecord(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
