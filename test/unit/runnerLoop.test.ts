// ui/runnerLoop.js (the runner page's loop, a browser ES module) in Node: the SSE reader across any
// chunk boundary, the tools made from the committed openrpc.json, the streamed message assembled,
// the API's errors, and UI_MODEL_API_ORIGINS's parsing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

interface Tool {
  name: string;
  description: string;
  input_schema: { properties: Record<string, unknown>; required: string[] };
}
/** The part of ui/runnerLoop.js these tests use (the module is checked by ui/tsconfig.json). */
interface RunnerLoop {
  sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }>;
  toolsFromOpenRpc(doc: unknown, wanted: string[] | 'all'): { tools: Tool[]; methodOf: Map<string, string> };
  streamMessage(o: Record<string, unknown>): Promise<{
    message: { role: string; content: Record<string, unknown>[] };
    stopReason: string | null;
  }>;
  toolResultContent(r: { ok: boolean; content: string; details: unknown }): {
    blocks: Record<string, unknown>[];
    image: unknown;
  };
  MAX_TOOL_RESULT_CHARS: number;
  TOOL_NAME_PATTERN: RegExp;
}

// A path in a variable: TypeScript does not resolve it (ui/ is its own JS project).
const modulePath = '../../ui/runnerLoop.js';
const loop = (await import(modulePath)) as RunnerLoop;

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(enc.encode(c));
      controller.close();
    },
  });
}

async function collect<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

const STREAM = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m"}}\n\n',
  ': keep-alive\n\n',
  'event: ping\ndata: {"type":"ping"}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Héllo "}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"world"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"page_goto","input":{}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"url\\": \\"http://127."}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"0.0.1/\\"}"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

describe('sseEvents', () => {
  it('reads the same events whatever the chunking, CRLF included, multi-byte characters split', async () => {
    const whole = await collect(loop.sseEvents(streamOf([STREAM])));
    expect(whole.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const bytes = new TextEncoder().encode(STREAM);
    // One byte at a time splits é's two bytes and every line.
    const single = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    expect(await collect(loop.sseEvents(single))).toEqual(whole);
    expect(await collect(loop.sseEvents(streamOf([STREAM.replace(/\n/g, '\r\n')])))).toEqual(whole);
  });

  it('joins multi-line data; an event the stream ends inside is not delivered (as EventSource does)', async () => {
    expect(await collect(loop.sseEvents(streamOf(['data: a\ndata: b\n\nevent: x\ndata: c'])))).toEqual([
      { event: 'message', data: 'a\nb' },
    ]);
  });
});

describe('streamMessage', () => {
  const call = (response: Response, onText: (t: string) => void = () => undefined) =>
    loop.streamMessage({
      fetch: () => Promise.resolve(response),
      baseUrl: 'https://api.example.com/',
      apiKey: 'k',
      model: 'm',
      system: 's',
      messages: [],
      tools: [],
      signal: new AbortController().signal,
      onText,
    });

  it('assembles text and tool input from their deltas and reports the stop reason', async () => {
    const texts: string[] = [];
    const { message, stopReason } = await call(new Response(STREAM), (t) => texts.push(t));
    expect(texts).toEqual(['Héllo ', 'world']);
    expect(stopReason).toBe('tool_use');
    expect(message).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Héllo world' },
        { type: 'tool_use', id: 'toolu_1', name: 'page_goto', input: { url: 'http://127.0.0.1/' } },
      ],
    });
  });

  it('throws the API error of an HTTP failure and of an error event', async () => {
    await expect(
      call(
        new Response('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', {
          status: 429,
        }),
      ),
    ).rejects.toThrow('HTTP 429 rate_limit_error: slow down');
    await expect(
      call(
        new Response(
          'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n',
        ),
      ),
    ).rejects.toThrow('api_error: boom');
    await expect(
      call(
        new Response(
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}\n\n' +
            'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}\n\n' +
            'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
        ),
      ),
    ).rejects.toThrow('tool input that is not JSON');
  });
});

describe('toolsFromOpenRpc', () => {
  const doc: unknown = JSON.parse(readFileSync(new URL('../../openrpc.json', import.meta.url), 'utf8'));

  it('offers every session method but session.close, named for the API, without session_id', () => {
    const { tools, methodOf } = loop.toolsFromOpenRpc(doc, 'all');
    const names = tools.map((t) => t.name);
    expect(names).toContain('page_goto');
    expect(names).toContain('screenshot');
    expect(names).not.toContain('session_close');
    expect(names).not.toContain('session_create');
    expect(names).not.toContain('agents_list');
    for (const t of tools) {
      expect(t.name).toMatch(loop.TOOL_NAME_PATTERN);
      expect(t.input_schema.properties).not.toHaveProperty('session_id');
      expect(t.input_schema.required).not.toContain('session_id');
    }
    expect(methodOf.get('page_goto')).toBe('page.goto');
    expect(methodOf.get('find_byRole')).toBe('find.byRole');
  });

  it('refuses a method that is not a session method of the document', () => {
    expect(() => loop.toolsFromOpenRpc(doc, ['page.goto', 'session.create', 'no.such'])).toThrow(
      'Not a session method of this service: session.create, no.such',
    );
  });
});

describe('toolResultContent', () => {
  it('sends a screenshot as an image block and cuts long text', () => {
    const shot = loop.toolResultContent({
      ok: true,
      content: 'Screenshot image/png',
      details: { base64: 'iVBORw0KGgo=', mime: 'image/png' },
    });
    expect(shot.blocks).toEqual([
      { type: 'text', text: 'Screenshot image/png' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    const long = loop.toolResultContent({
      ok: true,
      content: 'x'.repeat(loop.MAX_TOOL_RESULT_CHARS + 10),
      details: {},
    });
    expect(String(long.blocks[0]?.text)).toContain(`[cut at ${loop.MAX_TOOL_RESULT_CHARS} of`);
    expect(long.image).toBeUndefined();
  });
});

describe('UI_MODEL_API_ORIGINS', () => {
  const load = (value?: string) =>
    loadConfig({ API_KEY: 'k', ...(value === undefined ? {} : { UI_MODEL_API_ORIGINS: value }) });

  it('defaults to the Anthropic API; takes origins, lower-cased, a trailing slash dropped; none for none', () => {
    expect(load().uiModelApiOrigins).toEqual(['https://api.anthropic.com']);
    expect(load('https://API.example.com/, http://127.0.0.1:8787').uiModelApiOrigins).toEqual([
      'https://api.example.com',
      'http://127.0.0.1:8787',
    ]);
    expect(load('none').uiModelApiOrigins).toEqual([]);
  });

  it('refuses anything that is not an http(s) origin alone', () => {
    for (const bad of [
      'https://api.example.com/v1',
      'api.example.com',
      'wss://api.example.com',
      'https://*.example.com',
      'https://u:p@api.example.com',
      "https://a.example.com 'unsafe-eval'",
      'https://a.example.com;script-src *',
    ])
      expect(() => load(bad), bad).toThrow(/UI_MODEL_API_ORIGINS/);
  });
});
