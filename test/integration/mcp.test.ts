// MCP at /mcp, driven by the official MCP SDK client: every method of the table is a tool, called
// through the same dispatcher as /rpc, against the real service, Chromium and the fixture app.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** Bound on connecting and on each tool call. */
const MCP_TIMEOUT_MS = 30_000;

const suite = useServiceSuite();
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

async function connect(apiKey = TEST_API_KEY): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp`), {
    requestInit: { headers: { 'x-api-key': apiKey } },
  });
  await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  clients.push(client);
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: MCP_TIMEOUT_MS,
  })) as CallToolResult;
}

/** The JSON text of a tool result (first text part). */
function json<T>(result: CallToolResult): T {
  const part = result.content.find((c) => c.type === 'text');
  if (part?.type !== 'text') throw new Error('no text content');
  return JSON.parse(part.text) as T;
}

describe('MCP /mcp', () => {
  it('lists one tool per method of the table, with its params schema and read-only hint', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const openrpc = JSON.parse(readFileSync('openrpc.json', 'utf8')) as { methods: { name: string }[] };
    expect(tools.map((t) => t.name).sort()).toEqual(
      openrpc.methods.map((m) => m.name.replace(/\./g, '_')).sort(),
    );
    const goto = tools.find((t) => t.name === 'page_goto');
    // Defaulted params (waitUntil, timeout) may be left out: no client must demand them.
    expect([...(goto?.inputSchema.required ?? [])].sort()).toEqual(['session_id', 'url']);
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
      const defaulted = (tool.inputSchema.required ?? []).filter((p) => properties[p]?.default !== undefined);
      expect(defaulted, tool.name).toEqual([]);
    }
    expect(goto?.annotations?.readOnlyHint).toBe(false);
    expect(tools.find((t) => t.name === 'page_text')?.annotations?.readOnlyHint).toBe(true);
    for (const tool of tools) expect(tool.description?.length ?? 0).toBeGreaterThan(10);
  });

  it('drives a session: create, goto, text, screenshot as an image, close', async () => {
    const client = await connect();
    const { session_id } = json<{ session_id: string }>(await call(client, 'session_create'));
    expect(session_id).toMatch(/^s_/);
    const nav = await call(client, 'page_goto', { session_id, url: `${suite.fixture.url}/projects` });
    expect(nav.isError).toBeFalsy();
    expect(json<{ title: string }>(nav).title).toBe('Projects');
    const text = json<{ text: string }>(await call(client, 'page_text', { session_id, selector: 'main' }));
    expect(text.text).toContain('Apollo');
    const shot = await call(client, 'screenshot', { session_id });
    const image = shot.content.find((c) => c.type === 'image');
    expect(image?.type === 'image' && image.mimeType).toBe('image/png');
    if (image?.type !== 'image') throw new Error('no image content');
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    // The image is not repeated in the text part.
    expect(JSON.stringify(shot.content.filter((c) => c.type === 'text'))).not.toContain(
      image.data.slice(0, 40),
    );
    expect(json(await call(client, 'session_close', { session_id }))).toMatchObject({ ok: true });
  });

  it('reports a failed call as an isError result carrying the JSON-RPC code, message and data', async () => {
    const client = await connect();
    const missing = await call(client, 'page_text', { session_id: 's_missing' });
    expect(missing.isError).toBe(true);
    expect(json<{ code: number; data: { method: string } }>(missing)).toMatchObject({
      code: -32010,
      data: { method: 'page.text' },
    });
    const invalid = await call(client, 'page_goto', { session_id: 's_x', url: 42 });
    expect(json<{ code: number }>(invalid).code).toBe(-32602);
    // An unknown tool is a protocol error, as MCP clients expect.
    await expect(call(client, 'no_such_tool')).rejects.toThrow(/Unknown tool: no_such_tool/);
    // The allow-list holds on this transport as on /rpc.
    const { session_id } = json<{ session_id: string }>(await call(client, 'session_create'));
    const blocked = await call(client, 'page_goto', { session_id, url: 'file:///etc/passwd' });
    expect(blocked.isError).toBe(true);
    expect(json<{ code: number }>(blocked).code).toBe(-32011);
    await call(client, 'session_close', { session_id });
  });

  it('needs the API key like every route, and answers GET with 405', async () => {
    await expect(connect('wrong-key')).rejects.toThrow();
    const bare = await fetch(`${suite.service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bare.status).toBe(401);
    const get = await fetch(`${suite.service.url}/mcp`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(get.status).toBe(405);
  });

  it('answers a malformed body with -32700 and an oversized one with 413, never logging the body', async () => {
    const post = (body: string) =>
      fetch(`${suite.service.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': TEST_API_KEY,
        },
        body,
      });
    const secret = 'sk-MCP-BODY-SECRET-42';
    const malformed = await post(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"apiKey":"${secret}"`,
    );
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const huge = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', pad: 'x'.repeat(600 * 1024) }),
    );
    expect(huge.status).toBe(413);
    const batch = Array.from({ length: 51 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const over = await post(JSON.stringify(batch));
    expect(over.status).toBe(400);
    expect(await over.json()).toMatchObject({ error: { code: -32600, data: { batchMax: 50 } } });
    expect(suite.service.logs.join('\n')).not.toContain(secret);
  });
});
