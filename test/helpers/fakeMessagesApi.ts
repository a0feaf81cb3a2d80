// A small fake of the Anthropic Messages API for the runner page's tests: POST /v1/messages answers
// a scripted turn as the real API streams it (SSE: message_start, content blocks with text_delta and
// input_json_delta, message_delta with stop_reason, message_stop), with CORS for the page's origin,
// and records every request it got.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer to one POST /v1/messages. */
export type FakeTurn =
  | { kind: 'stream'; blocks: FakeBlock[]; stopReason: 'end_turn' | 'tool_use' | 'max_tokens' }
  /** An HTTP error with the API's error body ({type: 'error', error: {type, message}}). */
  | { kind: 'http-error'; status: number; type: string; message: string }
  /** A stream that starts, then sends an error event (as the API does when overloaded mid-stream). */
  | { kind: 'stream-error'; type: string; message: string }
  /** A stream that starts (with this text, if any) and never ends until the caller goes away (for the stop button). */
  | { kind: 'hang'; text?: string };

export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface RecordedRequest {
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    stream?: boolean;
    max_tokens?: number;
    tools?: { name: string; description: string; input_schema: Record<string, unknown> }[];
    messages?: { role: string; content: unknown }[];
    [key: string]: unknown;
  };
}

export interface FakeMessagesApi {
  /** http://127.0.0.1:<port>: the base URL the page is given. */
  url: string;
  /** Every POST /v1/messages, in order (preflights not included). */
  requests: RecordedRequest[];
  /** Every request of any kind, as `METHOD /path`. */
  hits: string[];
  /** The turns still to answer; past the last one the fake answers end_turn with "(script ended)". */
  script: FakeTurn[];
  /** The origin CORS admits (the page's, known once the service runs); other origins get no CORS header. */
  allowOrigin: string;
  close(): Promise<void>;
}

/** The headers the page sends cross-origin, which the preflight must allow. */
const ALLOWED_HEADERS =
  'content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access';

/** A turn that says text then calls one tool. */
export function toolTurn(
  id: string,
  name: string,
  input: Record<string, unknown>,
  text = `Calling ${name}.`,
): FakeTurn {
  return {
    kind: 'stream',
    stopReason: 'tool_use',
    blocks: [
      { type: 'text', text },
      { type: 'tool_use', id, name, input },
    ],
  };
}

/** A final turn: text only. */
export function textTurn(text: string): FakeTurn {
  return { kind: 'stream', stopReason: 'end_turn', blocks: [{ type: 'text', text }] };
}

/** Splits s in two (the page must join the parts: deltas arrive in pieces). */
function halves(s: string): string[] {
  const mid = Math.ceil(s.length / 2);
  return [s.slice(0, mid), s.slice(mid)];
}

function sse(res: http.ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function streamTurn(res: http.ServerResponse, turn: Extract<FakeTurn, { kind: 'stream' }>, n: number): void {
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_fake_${n}`,
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'fake',
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  });
  // A comment and a ping, as the real stream has: the page must skip both.
  res.write(': keep-alive\n\n');
  sse(res, 'ping', { type: 'ping' });
  turn.blocks.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      for (const part of halves(block.text))
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: part },
        });
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      for (const part of halves(JSON.stringify(block.input)))
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: turn.stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

/** Starts the fake on 127.0.0.1 (a free port); set allowOrigin before a page calls it. */
export async function startFakeMessagesApi(script: FakeTurn[] = []): Promise<FakeMessagesApi> {
  const requests: RecordedRequest[] = [];
  const hits: string[] = [];
  const hanging = new Set<http.ServerResponse>();
  const fake: FakeMessagesApi = {
    url: '',
    requests,
    hits,
    script,
    allowOrigin: '',
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    hits.push(`${req.method ?? ''} ${path}`);
    if (fake.allowOrigin !== '' && req.headers.origin === fake.allowOrigin)
      res.setHeader('access-control-allow-origin', fake.allowOrigin);
    res.setHeader('vary', 'origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '0',
      });
      res.end();
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'Not found' } }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
      requests.push({ headers: req.headers, body });
      const turn = fake.script.shift() ?? textTurn('(script ended)');
      if (turn.kind === 'http-error') {
        res.writeHead(turn.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: turn.type, message: turn.message } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (turn.kind === 'stream') streamTurn(res, turn, requests.length);
      else if (turn.kind === 'stream-error') {
        sse(res, 'message_start', {
          type: 'message_start',
          message: { id: 'msg_err', type: 'message', role: 'assistant', content: [] },
        });
        sse(res, 'error', { type: 'error', error: { type: turn.type, message: turn.message } });
        res.end();
      } else {
        sse(res, 'message_start', {
          type: 'message_start',
          message: { id: 'msg_hang', type: 'message', role: 'assistant', content: [] },
        });
        if (turn.text !== undefined) {
          sse(res, 'content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: '' },
          });
          sse(res, 'content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: turn.text },
          });
        }
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve, reject) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  return fake;
}
