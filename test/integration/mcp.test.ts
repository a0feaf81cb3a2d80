// MCP at /mcp, driven by the official MCP SDK client: every method of the table is a tool, called
// through the same dispatcher as /rpc, against the real service, Chromium and the fixture app. Most
// tests here ask for every group (?groups=all) and the output schemas; the default menu, the groups
// and tools_enable are mcpMenu.test.ts's.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_RESULT_BUDGET_CHARS } from '../../src/mcp/resultBudget.js';
import { TOOL_TEXTS } from '../../src/mcp/toolTexts.js';
import { PUSH_ONLY } from '../../src/mcp/toolAvailability.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, startTestService, waitFor, type TestService } from '../helpers/testService.js';
import { freePort } from '../helpers/ports.js';

/** Bound on connecting and on each tool call. */
const MCP_TIMEOUT_MS = 30_000;

const AGENT_SECRET = 'mcp-agent-secret-3c9e1f7a';
const suite = useServiceSuite({ AGENT_SECRET });
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

/** Every group, and each tool's outputSchema: the whole projection of the table. */
const EVERYTHING = '?groups=all&outputSchemas=true';

async function connect(
  apiKey = TEST_API_KEY,
  service: TestService = suite.service,
  query = EVERYTHING,
): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp${query}`), {
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
  onprogress?: (progress: Progress) => void,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: MCP_TIMEOUT_MS,
    ...(onprogress === undefined ? {} : { onprogress }),
  })) as CallToolResult;
}

/** What a model-facing text must not contain: a dotted method name, an env-like name, a seed. */
function descriptionProblems(text: string, methods: readonly string[]): string[] {
  const problems: string[] = [];
  for (const m of methods) if (m.includes('.') && text.includes(m)) problems.push(`method name ${m}`);
  const env = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/.exec(text);
  if (env !== null) problems.push(`env-like word ${env[0]}`);
  if (/seed/i.test(text)) problems.push('seed');
  if (/json-rpc|-320\d\d/i.test(text)) problems.push('protocol detail');
  return problems;
}

const openrpcMethods = (): string[] =>
  (JSON.parse(readFileSync('openrpc.json', 'utf8')) as { methods: { name: string }[] }).methods.map(
    (m) => m.name,
  );

/** Checks a tool result's structuredContent against the tool's outputSchema with a fresh Ajv. */
function expectValidOutput(tool: Tool | undefined, result: CallToolResult): Record<string, unknown> {
  expect(tool?.outputSchema?.type).toBe('object');
  const validate = new Ajv({ strict: false }).compile(tool?.outputSchema ?? {});
  expect(result.isError).toBeFalsy();
  const structured = result.structuredContent;
  expect(validate(structured), JSON.stringify(validate.errors)).toBe(true);
  // The text part is the same JSON, for clients that read only content.
  expect(json(result)).toEqual(structured);
  return structured ?? {};
}

/** The JSON text of a tool result (first text part). */
function json<T>(result: CallToolResult): T {
  const part = result.content.find((c) => c.type === 'text');
  if (part?.type !== 'text') throw new Error('no text content');
  return JSON.parse(part.text) as T;
}

describe('MCP /mcp', () => {
  it('lists, with every group, a tool per method of the table but rpc.discover, tabs.* (no CDP_URL), agents.* (no agent) and the WebSocket-only ones, and tools_enable', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const shown = openrpcMethods().filter(
      (m) => m !== 'rpc.discover' && !m.startsWith('tabs.') && !m.startsWith('agents.') && !PUSH_ONLY.has(m),
    );
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...shown.map((m) => m.replace(/\./g, '_')), 'tools_enable'].sort(),
    );
    const goto = tools.find((t) => t.name === 'page_goto');
    // Defaulted params (waitUntil, timeout) may be left out: no client must demand them.
    expect([...(goto?.inputSchema.required ?? [])].sort()).toEqual(['session_id', 'url']);
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
      const defaulted = (tool.inputSchema.required ?? []).filter((p) => properties[p]?.default !== undefined);
      expect(defaulted, tool.name).toEqual([]);
      if (tool.name !== 'tools_enable') expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    expect(goto?.annotations?.readOnlyHint).toBe(false);
    expect(tools.find((t) => t.name === 'page_text')?.annotations?.readOnlyHint).toBe(true);
    // rpc_discover is no tool: tools/list is MCP's discovery.
    await expect(call(client, 'rpc_discover')).rejects.toThrow(/Unknown tool: rpc_discover/);
  });

  it('describes every tool for a model: no dotted method names, env-like names, seeds or codes', async () => {
    const methods = openrpcMethods();
    // Every method that can be a tool has a model-facing text, and nothing else has one.
    expect(Object.keys(TOOL_TEXTS).sort()).toEqual(methods.filter((m) => m !== 'rpc.discover').sort());
    for (const [method, text] of Object.entries(TOOL_TEXTS)) {
      expect(descriptionProblems(text, methods), method).toEqual([]);
      expect(text.length, method).toBeGreaterThan(30);
    }
    // The rules catch what they are for (the old descriptions broke them).
    expect(
      descriptionProblems("Send seed 000's configure_llm; see page.snapshot and CDP_URL (-32010)", methods),
    ).toEqual(['method name page.snapshot', 'env-like word CDP_URL', 'seed', 'protocol detail']);
    const client = await connect();
    const { tools, instructions } = { ...(await client.listTools()), instructions: client.getInstructions() };
    const methodOf = new Map(methods.map((m) => [m.replace(/\./g, '_'), m]));
    for (const tool of tools) {
      if (tool.name === 'tools_enable')
        expect(descriptionProblems(tool.description ?? '', methods)).toEqual([]);
      else expect(tool.description, tool.name).toBe(TOOL_TEXTS[methodOf.get(tool.name) ?? '']);
    }
    expect(descriptionProblems(instructions ?? '', methods)).toEqual([]);
  });

  it('drives a session with the default menu: create, goto, text, screenshot as an image, close', async () => {
    const client = await connect(TEST_API_KEY, suite.service, '');
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
    const client = await connect(TEST_API_KEY, suite.service, '');
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
    // 403, not 401: MCP clients answer a 401 with an OAuth sign-in (mcpClients.test.ts).
    expect(bare.status).toBe(403);
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

  it('answers structuredContent that validates against each tool outputSchema, and the same JSON as text', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const tool = (name: string) => tools.find((t) => t.name === name);
    const check = async (name: string, args: Record<string, unknown> = {}) =>
      expectValidOutput(tool(name), await call(client, name, args));
    const { session_id } = await check('session_create');
    expect(session_id).toMatch(/^s_/);
    await check('page_goto', { session_id, url: `${suite.fixture.url}/projects` });
    await check('page_text', { session_id, selector: 'main' });
    await check('page_snapshot', { session_id, interactive: true });
    await check('find_byText', { session_id, text: 'Apollo' });
    await check('page_evaluate', { session_id, expression: 'document.title' });
    await check('page_content', { session_id });
    await check('logs_pull', { session_id });
    await check('network_pull', { session_id });
    await check('session_list');
    // A screenshot: image content, and its metadata (without the base64) as structured content.
    const shot = await call(client, 'screenshot', { session_id });
    const meta = expectValidOutput(tool('screenshot'), {
      ...shot,
      content: shot.content.filter((c) => c.type === 'text'),
    });
    expect(meta).toMatchObject({ mime: 'image/png' });
    expect(meta).not.toHaveProperty('base64');
    expect(tool('screenshot')?.outputSchema?.required).not.toContain('base64');
    await check('session_close', { session_id });
    // The check could fail: the same schema refuses a result of the wrong shape.
    const validate = new Ajv({ strict: false }).compile(tool('session_create')?.outputSchema ?? {});
    expect(validate({ session_id: 42 })).toBe(false);
  });

  it('caps text answers by default on /big; a cursor continues where the answer stopped; /rpc keeps its defaults', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const s = await suite.open('/big');
    const whole = await suite.service.call<{ text: string; truncated: boolean }>('page.text', {
      session_id: s,
    });
    // /rpc's own default (90000 characters) is unchanged: the whole ~200 KB page does not fit it either.
    expect(whole.text.length).toBeGreaterThan(MCP_RESULT_BUDGET_CHARS * 2);
    const full = await suite.service.call<{ text: string }>('page.text', {
      session_id: s,
      maxChars: 2_000_000,
    });
    type Part = { text: string; truncated?: true; cursor?: string; approxTokens?: number };
    const first = expectValidOutput(
      tools.find((t) => t.name === 'page_text'),
      await call(client, 'page_text', { session_id: s }),
    ) as Part;
    expect(first.text.length).toBeLessThanOrEqual(MCP_RESULT_BUDGET_CHARS);
    expect(first.text.length).toBeGreaterThan(MCP_RESULT_BUDGET_CHARS / 2);
    expect(first).toMatchObject({ truncated: true, approxTokens: Math.ceil(first.text.length / 4) });
    expect(first.cursor).toEqual(expect.any(String));
    const second = json<Part>(await call(client, 'page_text', { session_id: s, cursor: first.cursor }));
    expect(second.text.length).toBeLessThanOrEqual(MCP_RESULT_BUDGET_CHARS);
    expect(full.text.startsWith(first.text + second.text)).toBe(true);
    // A caller that asks for more gets it: the method's own maxChars wins over the MCP default.
    const more = json<Part>(await call(client, 'page_text', { session_id: s, maxChars: 50_000 }));
    expect(more.text.length).toBeGreaterThan(MCP_RESULT_BUDGET_CHARS);
    // page_snapshot pages the same way.
    const snap = json<{ snapshot: string; cursor: string | null }>(
      await call(client, 'page_snapshot', { session_id: s }),
    );
    expect(snap.snapshot.length).toBeLessThanOrEqual(MCP_RESULT_BUDGET_CHARS);
    expect(snap.cursor).toEqual(expect.any(String));

    // page_content has no cursor: it is cut, with a note of what was left out and how to get more.
    const rpcHtml = await suite.service.call<{ html: string }>('page.content', { session_id: s });
    expect(rpcHtml.html.length).toBeGreaterThan(MCP_RESULT_BUDGET_CHARS * 5);
    const content = await call(client, 'page_content', { session_id: s });
    const cut = expectValidOutput(
      tools.find((t) => t.name === 'page_content'),
      content,
    ) as { html: string; _omitted: { characters: number; items: number; note: string } };
    const text = content.content.find((c) => c.type === 'text');
    expect(text?.type === 'text' && text.text.length).toBeLessThanOrEqual(MCP_RESULT_BUDGET_CHARS + 1_000);
    expect(cut.html).toMatch(/… \[\d+ more characters\]$/);
    expect(rpcHtml.html.startsWith(cut.html.replace(/… \[\d+ more characters\]$/, ''))).toBe(true);
    expect(cut._omitted.characters).toBe(rpcHtml.html.length - cut.html.indexOf('… ['));
    expect(cut._omitted.note).toMatch(/page_text|page_evaluate/);
    // A value from the page that is too long loses list items, counted, and still validates.
    const big = await call(client, 'page_evaluate', {
      session_id: s,
      expression: 'Array.from({ length: 5000 }, (_, i) => "item " + i)',
    });
    const evaluated = expectValidOutput(
      tools.find((t) => t.name === 'page_evaluate'),
      big,
    ) as {
      result: string[];
      _omitted: { items: number };
    };
    expect(evaluated.result[0]).toBe('item 0');
    expect(evaluated._omitted.items).toBe(5000 - evaluated.result.length);
    // A small answer is untouched: no _omitted.
    const small = json(await call(client, 'page_evaluate', { session_id: s, expression: '1 + 1' }));
    expect(small).toEqual({ result: 2 });
    await call(client, 'session_close', { session_id: s });
  });

  it('lists tabs_* only with CDP_URL set (even unreachable), and agents_* only while an agent is connected', async () => {
    // No CDP browser listens on this port: the service starts, tabs_* are listed, a call says why it fails.
    const cdp = await startTestService({
      CDP_URL: `http://127.0.0.1:${await freePort()}`,
      CDP_TIMEOUT_MS: '2000',
    });
    try {
      const client = await connect(TEST_API_KEY, cdp);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['tabs_list', 'tabs_open', 'tabs_close', 'tabs_attach']));
      expect(names.some((n) => n.startsWith('agents_'))).toBe(false);
      const failed = await call(client, 'tabs_list');
      expect(failed.isError).toBe(true);
      expect(json<{ code: number }>(failed).code).toBe(-32005);
    } finally {
      for (const c of clients.splice(0)) await c.close();
      await cdp.close();
    }

    const client = await connect();
    const listed = async () => (await client.listTools()).tools.map((t) => t.name);
    expect((await listed()).some((n) => n.startsWith('agents_') || n.startsWith('tabs_'))).toBe(false);
    // A hidden tool still answers for itself when called.
    expect(json<{ total: number }>(await call(client, 'agents_list')).total).toBe(0);
    const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/agents`);
    const inbox: { type?: string; status?: string }[] = [];
    ws.on('message', (data: Buffer) => inbox.push(JSON.parse(data.toString('utf8')) as { type?: string }));
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      await waitFor(() => inbox.some((m) => m.type === 'welcome'), 10_000, 'welcome');
      ws.send(
        JSON.stringify({
          type: 'register',
          clientId: randomUUID(),
          secretKey: AGENT_SECRET,
          capabilities: { tools: ['echo'], maxConcurrency: 1, version: 'test-1.0.0' },
        }),
      );
      await waitFor(() => inbox.some((m) => m.type === 'registration_ack'), 10_000, 'registration_ack');
      expect(inbox.find((m) => m.type === 'registration_ack')).toMatchObject({ status: 'accepted' });
      expect(await listed()).toEqual(
        expect.arrayContaining(['agents_list', 'agents_evaluate', 'agents_configureLLM']),
      );
    } finally {
      ws.close();
    }
    await waitFor(
      async () => !(await listed()).includes('agents_list'),
      10_000,
      'agents_* to be hidden again',
    );
  });

  it('sends notifications/progress to a caller that asked, at the start, while it runs and at the end', async () => {
    const client = await connect();
    const { session_id } = json<{ session_id: string }>(await call(client, 'session_create'));
    const progress: Progress[] = [];
    // A pause of several progress intervals: ticks come while it runs.
    const paused = await call(client, 'page_waitFor', { session_id, state: 'idleFor', ms: 5_000 }, (p) =>
      progress.push(p),
    );
    expect(paused.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress[0]?.progress).toBe(0);
    const last = progress.at(-1);
    expect(last?.total).toBe(last?.progress);
    expect(last?.message).toMatch(/finished/);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]?.progress ?? 0).toBeGreaterThan(progress[i - 1]?.progress ?? 0);
    // Without a progressToken the answer stays one JSON body (no stream), and no progress is sent.
    const plain = await fetch(`${suite.service.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': TEST_API_KEY,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'session_list', arguments: {} },
      }),
    });
    expect(plain.headers.get('content-type')).toMatch(/application\/json/);
    expect(JSON.stringify(await plain.json())).not.toContain('notifications/progress');
    await call(client, 'session_close', { session_id });
  });
});
