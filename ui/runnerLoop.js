// @ts-check
// The agent loop of the runner page (seed 002), without the page: the Messages API called from the
// browser with streaming, this service's session methods offered as tools, each tool call executed
// through POST /sessions/{id}/execute. runner.js wires it to the DOM; test/unit/runnerLoop.test.ts
// runs it in Node against scripted streams.
import { readSseBody } from './api.js';
import { serviceClient } from './runnerService.js';
import { runCheck } from './runnerSamples.js';

/** Model calls one run makes at most, unless the person sets fewer (the form shows it). */
export const DEFAULT_MAX_STEPS = 20;
/** The most the max-steps field accepts. */
export const MAX_STEPS_LIMIT = 100;
/** max_tokens of each Messages API call. */
export const MAX_TOKENS = 4096;
/** The anthropic-version header the loop speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** A tool result's text is cut at this many characters before it goes back to the model. */
export const MAX_TOOL_RESULT_CHARS = 50_000;
/** Tool names the Messages API accepts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** The methods offered as tools when the person does not choose (`all` offers every session method). */
export const DEFAULT_TOOL_METHODS = [
  'page.goto',
  'page.snapshot',
  'page.text',
  'page.click',
  'page.fill',
  'page.press',
  'page.select',
  'page.back',
  'page.waitFor',
  'find.byRole',
  'find.byText',
  'screenshot',
];
/** Session methods never offered: the page opens and closes the session itself. */
const NOT_TOOLS = new Set(['session.close']);

export const SYSTEM_PROMPT =
  'You operate a web browser through the tools given. A browser session is already open for you ' +
  '(its page starts blank): navigate with page_goto, read with page_snapshot or page_text, act with ' +
  'the other tools. When the task is done, answer with a short summary and call no more tools.';

/** A failure of the Messages API (HTTP status, or an error event inside the stream). */
export class ModelApiError extends Error {
  /**
   * @param {string} message
   * @param {number | undefined} status
   * @param {string | undefined} type
   */
  constructor(message, status, type) {
    super(message);
    this.name = 'ModelApiError';
    this.status = status;
    this.type = type;
  }
}

/**
 * @typedef {{ name: string, description: string, input_schema: Record<string, unknown> }} Tool
 * @typedef {{ tools: Tool[], methodOf: Map<string, string> }} ToolSet
 * @typedef {{ type: string, [key: string]: unknown }} Block
 * @typedef {{ role: 'user' | 'assistant', content: string | Block[] }} Message
 */

/** @param {string} method e.g. page.goto → page_goto */
export function toolNameOf(method) {
  return method.replace(/\./g, '_');
}

/**
 * The tools for the Messages API from the service's OpenRPC document: every session method (its
 * params have session_id), without session_id, which the execute path names.
 * @param {unknown} doc GET /openrpc.json
 * @param {string[] | 'all'} wanted method names, or every session method
 * @returns {ToolSet}
 */
export function toolsFromOpenRpc(doc, wanted) {
  const methods = isRecord(doc) && Array.isArray(doc.methods) ? doc.methods : [];
  /** @type {Map<string, Tool>} */
  const byMethod = new Map();
  for (const m of methods) {
    if (!isRecord(m) || typeof m.name !== 'string' || !Array.isArray(m.params)) continue;
    if (NOT_TOOLS.has(m.name) || !m.params.some((p) => isRecord(p) && p.name === 'session_id')) continue;
    /** @type {Record<string, unknown>} */
    const properties = {};
    /** @type {string[]} */
    const required = [];
    for (const p of m.params) {
      if (!isRecord(p) || typeof p.name !== 'string' || p.name === 'session_id') continue;
      properties[p.name] = p.schema ?? {};
      if (p.required === true) required.push(p.name);
    }
    const name = toolNameOf(m.name);
    if (!TOOL_NAME_PATTERN.test(name)) continue;
    const summary = typeof m.summary === 'string' ? m.summary : m.name;
    const description = typeof m.description === 'string' ? `${summary}\n\n${m.description}` : summary;
    byMethod.set(m.name, {
      name,
      description,
      input_schema: { type: 'object', properties, required, additionalProperties: false },
    });
  }
  const names = wanted === 'all' ? [...byMethod.keys()] : wanted;
  const unknown = names.filter((n) => !byMethod.has(n));
  if (unknown.length > 0)
    throw new Error(`Not a session method of this service: ${unknown.join(', ')} (see GET /openrpc.json)`);
  /** @type {Tool[]} */
  const tools = [];
  /** @type {Map<string, string>} */
  const methodOf = new Map();
  for (const n of names) {
    const tool = byMethod.get(n);
    if (tool === undefined || methodOf.has(tool.name)) continue;
    tools.push(tool);
    methodOf.set(tool.name, n);
  }
  return { tools, methodOf };
}

/** The Messages API's stream is read with the console's SSE parser (api.js). */
export const sseEvents = readSseBody;

/**
 * One streamed Messages API call: POST {baseUrl}/v1/messages with stream: true. Text arrives
 * through onText as it streams; a tool_use block's input is the JSON its input_json_delta parts
 * make. Resolves with the assistant message and its stop_reason.
 * @param {{
 *   fetch: typeof fetch, baseUrl: string, apiKey: string, model: string, system: string,
 *   messages: Message[], tools: Tool[], signal: AbortSignal,
 *   onText: (text: string) => void, onBlockStart?: (block: Block) => void,
 * }} o
 * @returns {Promise<{ message: { role: 'assistant', content: Block[] }, stopReason: string | null }>}
 */
export async function streamMessage(o) {
  const res = await o.fetch(`${o.baseUrl.replace(/\/+$/, '')}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': o.apiKey,
      'anthropic-version': ANTHROPIC_VERSION,
      'anthropic-dangerous-direct-browser-access': 'true',
    },
    body: JSON.stringify({
      model: o.model,
      max_tokens: MAX_TOKENS,
      system: o.system,
      messages: o.messages,
      tools: o.tools,
      stream: true,
    }),
    signal: o.signal,
  });
  if (!res.ok || res.body === null) {
    const text = await res.text();
    const { type, message } = apiError(text);
    throw new ModelApiError(
      `The Messages API answered HTTP ${res.status}${type ? ` ${type}` : ''}: ${message || text.slice(0, 500)}`,
      res.status,
      type,
    );
  }
  /** @type {Block[]} */
  const content = [];
  /** @type {Map<number, string>} */
  const partialJson = new Map();
  /** @type {string | null} */
  let stopReason = null;
  for await (const { event, data } of sseEvents(res.body)) {
    if (event === 'ping') continue;
    /** @type {Record<string, unknown>} */
    let e;
    try {
      const parsed = /** @type {unknown} */ (JSON.parse(data));
      if (!isRecord(parsed)) continue;
      e = parsed;
    } catch {
      throw new ModelApiError(
        `The Messages API sent an event that is not JSON: ${data.slice(0, 200)}`,
        200,
        undefined,
      );
    }
    const index = typeof e.index === 'number' ? e.index : -1;
    if (e.type === 'error') {
      const { type, message } = apiError(data);
      throw new ModelApiError(`The Messages API stream failed: ${type ?? 'error'}: ${message}`, 200, type);
    } else if (e.type === 'content_block_start' && isRecord(e.content_block)) {
      const block = /** @type {Block} */ ({ ...e.content_block, type: String(e.content_block.type) });
      content[index] = block;
      if (block.type === 'tool_use') partialJson.set(index, '');
      if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') o.onText(block.text);
      o.onBlockStart?.(block);
    } else if (e.type === 'content_block_delta' && isRecord(e.delta)) {
      const block = content[index];
      const d = e.delta;
      if (block === undefined) continue;
      if (d.type === 'text_delta' && typeof d.text === 'string') {
        block.text = `${typeof block.text === 'string' ? block.text : ''}${d.text}`;
        o.onText(d.text);
      } else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') {
        partialJson.set(index, (partialJson.get(index) ?? '') + d.partial_json);
      } else if (d.type === 'thinking_delta' && typeof d.thinking === 'string') {
        block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${d.thinking}`;
      } else if (d.type === 'signature_delta' && typeof d.signature === 'string') {
        block.signature = d.signature;
      }
    } else if (e.type === 'content_block_stop') {
      const block = content[index];
      const json = partialJson.get(index);
      if (block !== undefined && json !== undefined) {
        try {
          block.input = json.trim() === '' ? {} : /** @type {unknown} */ (JSON.parse(json));
        } catch {
          throw new ModelApiError(
            `The model sent tool input that is not JSON: ${json.slice(0, 200)}`,
            200,
            undefined,
          );
        }
        partialJson.delete(index);
      }
    } else if (e.type === 'message_delta' && isRecord(e.delta)) {
      if (typeof e.delta.stop_reason === 'string') stopReason = e.delta.stop_reason;
    } else if (e.type === 'message_stop') {
      break;
    }
  }
  return { message: { role: 'assistant', content: content.filter((b) => b !== undefined) }, stopReason };
}

/**
 * What a tool result sends back to the model: the execute answer's text (cut at
 * MAX_TOOL_RESULT_CHARS), and a screenshot as an image block.
 * @param {{ ok: boolean, content: string, details: unknown }} r
 * @returns {{ blocks: Block[], image: { mime: string, base64: string } | undefined }}
 */
export function toolResultContent(r) {
  const d = r.details;
  const image =
    r.ok &&
    isRecord(d) &&
    typeof d.base64 === 'string' &&
    typeof d.mime === 'string' &&
    d.mime.startsWith('image/')
      ? { mime: d.mime, base64: d.base64 }
      : undefined;
  const text =
    r.content.length > MAX_TOOL_RESULT_CHARS
      ? `${r.content.slice(0, MAX_TOOL_RESULT_CHARS)}\n[cut at ${MAX_TOOL_RESULT_CHARS} of ${r.content.length} characters]`
      : r.content;
  /** @type {Block[]} */
  const blocks = [{ type: 'text', text: text === '' ? '(empty)' : text }];
  if (image !== undefined)
    blocks.push({ type: 'image', source: { type: 'base64', media_type: image.mime, data: image.base64 } });
  return { blocks, image };
}

/**
 * @typedef {(
 *   | { kind: 'status', text: string }
 *   | { kind: 'step', step: number, maxSteps: number }
 *   | { kind: 'text', text: string }
 *   | { kind: 'tool_call', id: string, method: string, input: unknown }
 *   | { kind: 'tool_progress', id: string, method: string, elapsedMs: number }
 *   | { kind: 'tool_result', id: string, method: string, isError: boolean, text: string, image?: { mime: string, base64: string } }
 *   | { kind: 'reward', reward: number, checkKind: string, check: string, method: string, saw: string }
 * )} TraceEvent
 */

/**
 * The whole run: create a session, open the sample's startUrl when it has one, loop model call →
 * tool calls → results until the model stops calling tools or maxSteps model calls were made, run
 * the check for the reward (runnerSamples.js), close the session.
 * @param {{
 *   fetch: typeof fetch, serviceKey: string, apiKey: string, baseUrl: string, model: string,
 *   task: string, startUrl?: string, check?: import('./runnerSamples.js').Check, maxSteps: number,
 *   toolMethods: string[] | 'all', signal: AbortSignal, onEvent: (e: TraceEvent) => void,
 * }} o
 * @returns {Promise<{ outcome: string, reward: number | undefined }>}
 */
export async function runAgent(o) {
  const maxSteps = Math.max(1, Math.min(MAX_STEPS_LIMIT, Math.floor(o.maxSteps)));
  const service = serviceClient({ fetch: o.fetch, serviceKey: o.serviceKey, signal: o.signal });
  const { tools, methodOf } = toolsFromOpenRpc(await service.openRpc(), o.toolMethods);
  const sessionId = await service.createSession();
  o.onEvent({ kind: 'status', text: `session ${sessionId} open` });
  /** @type {number | undefined} */
  let reward;
  /** @type {string} */
  let outcome;
  try {
    const startUrl = o.startUrl;
    if (startUrl !== undefined) {
      // The sample's page, opened before the model's first call: a failure ends the run, since the
      // task was written for that page.
      const id = `start-${sessionId}`;
      o.onEvent({ kind: 'tool_call', id, method: 'page.goto', input: { url: startUrl } });
      const r = await service.execute(sessionId, 'page.goto', { url: startUrl }, id, (elapsedMs) =>
        o.onEvent({ kind: 'tool_progress', id, method: 'page.goto', elapsedMs }),
      );
      o.onEvent({ kind: 'tool_result', id, method: 'page.goto', isError: !r.ok, text: r.content });
      if (!r.ok) throw new Error(`The sample's startUrl ${startUrl} could not be opened: ${r.content}`);
    }
    const task = startUrl === undefined ? o.task : `${o.task}\n\n(The browser is already at ${startUrl}.)`;
    /** @type {Message[]} */
    const messages = [{ role: 'user', content: task }];
    for (let step = 1; ; step++) {
      o.onEvent({ kind: 'step', step, maxSteps });
      const { message, stopReason } = await streamMessage({
        fetch: o.fetch,
        baseUrl: o.baseUrl,
        apiKey: o.apiKey,
        model: o.model,
        system: SYSTEM_PROMPT,
        messages,
        tools,
        signal: o.signal,
        onText: (text) => o.onEvent({ kind: 'text', text }),
      });
      messages.push(message);
      const calls = message.content.filter((b) => b.type === 'tool_use');
      if (stopReason !== 'tool_use' || calls.length === 0) {
        outcome = `the model stopped: ${stopReason ?? 'no stop_reason'}`;
        break;
      }
      if (step >= maxSteps) {
        // No model call may follow, so the calls of this last step are not run: nobody would read
        // their results.
        outcome = `max steps reached (${maxSteps}): the model still asked for ${calls.length} tool call(s), not run`;
        break;
      }
      /** @type {Block[]} */
      const results = [];
      for (const call of calls) {
        const id = String(call.id);
        const toolName = String(call.name);
        const method = methodOf.get(toolName);
        o.onEvent({ kind: 'tool_call', id, method: method ?? toolName, input: call.input });
        const r =
          method === undefined
            ? {
                ok: false,
                content: `Unknown tool ${toolName}: it is not one of the tools offered.`,
                details: undefined,
              }
            : await service.execute(sessionId, method, call.input, id, (elapsedMs) =>
                o.onEvent({ kind: 'tool_progress', id, method, elapsedMs }),
              );
        const { blocks, image } = toolResultContent(r);
        const first = blocks[0];
        const text = first !== undefined && typeof first.text === 'string' ? first.text : '';
        o.onEvent({
          kind: 'tool_result',
          id,
          method: method ?? toolName,
          isError: !r.ok,
          text,
          ...(image === undefined ? {} : { image }),
        });
        results.push({
          type: 'tool_result',
          tool_use_id: id,
          content: blocks,
          ...(r.ok ? {} : { is_error: true }),
        });
      }
      messages.push({ role: 'user', content: results });
    }
    if (o.check !== undefined) {
      // Read-only calls: no idempotency key, a repeat reads the page again.
      const checked = await runCheck(
        (method, args) => service.execute(sessionId, method, args, undefined),
        o.check,
      );
      reward = checked.reward;
      o.onEvent({
        kind: 'reward',
        reward,
        checkKind: checked.kind,
        check: checked.check,
        method: checked.method,
        saw: checked.saw,
      });
    }
    return { outcome, reward };
  } finally {
    // Closed whatever happened, stop included: its own request, since o.signal may have fired. A
    // failed close is shown, not thrown: it must not hide why the run ended (the janitor closes the
    // session after SESSION_TTL_MS anyway).
    try {
      await serviceClient({ fetch: o.fetch, serviceKey: o.serviceKey }).closeSession(sessionId);
      o.onEvent({ kind: 'status', text: `session ${sessionId} closed` });
    } catch (error) {
      o.onEvent({ kind: 'status', text: `session ${sessionId} not closed: ${String(error)}` });
    }
  }
}

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isRecord(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The {type, message} of an Anthropic error body ({type: 'error', error: {type, message}}).
 * @param {string} text
 * @returns {{ type: string | undefined, message: string }}
 */
function apiError(text) {
  try {
    const body = /** @type {unknown} */ (JSON.parse(text));
    if (isRecord(body) && isRecord(body.error))
      return {
        type: typeof body.error.type === 'string' ? body.error.type : undefined,
        message: typeof body.error.message === 'string' ? body.error.message : '',
      };
  } catch {
    // Not JSON: the caller shows the text itself.
  }
  return { type: undefined, message: '' };
}
