// The reference agent's built-in tools. Each takes the evaluate request's input and returns its output.

/** One JSON-RPC call to the browser service; the page_text tool makes four. */
const RPC_CALL_TIMEOUT_MS = 60_000;

export interface ToolContext {
  /** The browser service's POST /rpc (for page_text). */
  rpcUrl: string | undefined;
  apiKey: string | undefined;
  /** The evaluate request's url, when the input names none. */
  url: string | undefined;
  signal: AbortSignal;
}

export type Tool = (input: unknown, ctx: ToolContext) => Promise<unknown>;

/** An error a tool throws on purpose: its code and data reach the hub (seed 001 §4.2). */
export class ToolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

function asRecord(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

async function rpc<T>(ctx: ToolContext, method: string, params: Record<string, unknown>): Promise<T> {
  if (ctx.rpcUrl === undefined)
    throw new ToolError(-32005, 'page_text needs RPC_URL (the browser service /rpc)');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (ctx.apiKey !== undefined) headers['x-api-key'] = ctx.apiKey;
  const res = await fetch(ctx.rpcUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(RPC_CALL_TIMEOUT_MS)]),
  });
  if (res.status === 401) throw new ToolError(-32002, 'The browser service refused the API key (API_KEY)');
  const body = (await res.json()) as {
    result?: T;
    error?: { code: number; message: string; data?: unknown };
  };
  if (body.error !== undefined) {
    throw new ToolError(body.error.code, `${method}: ${body.error.message}`, {
      method,
      data: body.error.data,
    });
  }
  return body.result as T;
}

/** Returns its input: the smallest round trip through the hub. */
export const echo: Tool = async (input) => input;

/**
 * Reads a page's visible text through the browser service: session.create → page.goto →
 * page.text → session.close. Input: { url?, selector?, maxChars? } (url defaults to the request's).
 */
export const pageText: Tool = async (input, ctx) => {
  const args = asRecord(input);
  const url = typeof args.url === 'string' ? args.url : ctx.url;
  if (url === undefined)
    throw new ToolError(-32602, 'page_text needs a url (in input.url or the request url)');
  const { session_id } = await rpc<{ session_id: string }>(ctx, 'session.create', {});
  try {
    const nav = await rpc<{ url: string; title: string }>(ctx, 'page.goto', { session_id, url });
    const textParams: Record<string, unknown> = { session_id };
    if (typeof args.selector === 'string') textParams.selector = args.selector;
    if (typeof args.maxChars === 'number') textParams.maxChars = args.maxChars;
    // page.text names truncated only when it cut the text; this tool's output always says it.
    const text = await rpc<{ text: string; truncated?: true }>(ctx, 'page.text', textParams);
    return { url: nav.url, title: nav.title, text: text.text, truncated: text.truncated === true };
  } finally {
    await rpc(ctx, 'session.close', { session_id }).catch(() => undefined);
  }
};

export const BUILT_IN_TOOLS: Record<string, Tool> = { echo, page_text: pageText };
