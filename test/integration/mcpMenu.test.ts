// The MCP menu at /mcp, driven by the official MCP SDK client against the real service: the small
// default list and what it costs, groups asked for in the URL or a header, tools_enable and its
// notifications/tools/list_changed, the answer of a tool whose group is not enabled, every group at
// once, and the annotations of every tool.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { allMethods } from '../../src/methods/index.js';
import { CORE_MENU_BUDGET_CHARS } from '../../src/mcp/toolCatalog.js';
import { methodsOf, type ToolGroup } from '../../src/mcp/toolGroups.js';
import { menuChars } from '../../src/mcp/menuSize.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

/** Bound on connecting and on each request. */
const MCP_TIMEOUT_MS = 30_000;

const suite = useServiceSuite();
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

async function connect(query = '', headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-menu-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp${query}`), {
    requestInit: { headers: { 'x-api-key': TEST_API_KEY, ...headers } },
  });
  await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  clients.push(client);
  return client;
}

async function names(client: Client): Promise<string[]> {
  return (await client.listTools(undefined, { timeout: MCP_TIMEOUT_MS })).tools.map((t) => t.name);
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

const toolOf = (method: string) => method.replace(/\./g, '_');
/** The tools a group lists here (no CDP_URL: no tabs_*; no agent connected: no agents_*). */
const listedOf = (group: ToolGroup) => methodsOf(group).map(toolOf);

describe('MCP menu', () => {
  it(`lists the core tools by default, within ${CORE_MENU_BUDGET_CHARS} characters and without output schemas`, async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const core = [...methodsOf('core').map(toolOf), 'tools_enable'];
    expect(tools.map((t) => t.name).sort()).toEqual(core.sort());
    for (const needed of [
      'session_create',
      'session_close',
      'session_list',
      'page_goto',
      'page_back',
      'page_reload',
      'page_snapshot',
      'find_byRole',
      'find_byText',
      'page_click',
      'page_fill',
      'page_type',
      'page_press',
      'page_select',
      'page_check',
      'page_act',
      'page_text',
      'dialog_handle',
      'pages_list',
      'pages_select',
      'logs_pull',
      'network_pull',
      'screenshot',
      'tools_enable',
    ])
      expect(core).toContain(needed);
    expect(tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name)).toEqual([]);
    const size = menuChars(tools);
    expect(size).toBeLessThanOrEqual(CORE_MENU_BUDGET_CHARS);
    // Every param name is the method's own: the menu leaves params out, it never renames one.
    for (const tool of tools) {
      const def = allMethods.find((m) => toolOf(m.name) === tool.name);
      if (def === undefined) continue;
      for (const param of Object.keys(tool.inputSchema.properties ?? {}))
        expect(Object.keys(def.params.properties), `${tool.name}.${param}`).toContain(param);
    }
    // The whole table costs many times more: what the groups keep out of every model request.
    const everything = await connect('?groups=all&outputSchemas=true');
    const all = (await everything.listTools()).tools;
    expect(menuChars(all)).toBeGreaterThan(size * 5);
  });

  it('adds the groups named in ?groups= and in the x-mcp-groups header; refuses a group it does not know', async () => {
    const viaQuery = await names(await connect('?groups=network,storage'));
    expect(viaQuery).toEqual(expect.arrayContaining([...listedOf('network'), ...listedOf('storage')]));
    expect(viaQuery).toEqual(expect.arrayContaining(methodsOf('core').map(toolOf)));
    expect(viaQuery.filter((n) => listedOf('files').includes(n))).toEqual([]);
    const viaHeader = await names(await connect('', { 'x-mcp-groups': 'files' }));
    expect(viaHeader).toEqual(expect.arrayContaining(listedOf('files')));
    expect(viaHeader).not.toContain('network_route');

    const unknown = await fetch(`${suite.service.url}/mcp?groups=network,netwrk`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': TEST_API_KEY,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/Unknown tool group "netwrk".*network, storage/);
  });

  it('tools_enable adds a group for this client only, and the client receives notifications/tools/list_changed', async () => {
    const client = await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    expect(await names(client)).not.toContain('network_route');
    const enabled = await call(client, 'tools_enable', { group: 'network' });
    expect(enabled.isError).toBeFalsy();
    expect(json<{ enabled: string[]; tools: string[] }>(enabled)).toMatchObject({
      enabled: ['network'],
      tools: listedOf('network'),
    });
    await waitFor(() => changed === 1, 10_000, 'notifications/tools/list_changed');
    expect(await names(client)).toEqual(expect.arrayContaining(listedOf('network')));
    // Enabled already: nothing changes, and no notice.
    await call(client, 'tools_enable', { group: 'network' });
    expect(changed).toBe(1);
    // Another client of the same key keeps its own menu.
    expect(await names(await connect())).not.toContain('network_route');
    // A group it does not know is a tool error, not a change.
    const wrong = await call(client, 'tools_enable', { group: 'bogus' });
    expect(wrong.isError).toBe(true);
    expect(json<{ code: number }>(wrong).code).toBe(-32602);
    // all: every group.
    await call(client, 'tools_enable', { group: 'all' });
    await waitFor(() => changed === 2, 10_000, 'the second list_changed');
    expect(await names(client)).toEqual(
      expect.arrayContaining([...listedOf('page'), ...listedOf('inspect')]),
    );
  });

  it('tools_enable adds single tools by name: only those are listed and callable; refuses names it does not know', async () => {
    const client = await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    const before = await names(client);
    const enabled = await call(client, 'tools_enable', { tools: ['page_evaluate', 'page_upload'] });
    expect(json<{ tools: string[] }>(enabled).tools).toEqual(['page_evaluate', 'page_upload']);
    await waitFor(() => changed === 1, 10_000, 'notifications/tools/list_changed');
    expect((await names(client)).sort()).toEqual([...before, 'page_evaluate', 'page_upload'].sort());
    const { session_id } = json<{ session_id: string }>(await call(client, 'session_create'));
    expect(json(await call(client, 'page_evaluate', { session_id, expression: '2 + 2' }))).toEqual({
      result: 4,
    });
    // Another tool of the same group is still not enabled.
    expect((await call(client, 'axe_run', { session_id })).isError).toBe(true);
    await call(client, 'session_close', { session_id });
    for (const bad of [
      { tools: ['page_teleport'] },
      { tools: 'page_evaluate' },
      {},
      { tools: Array(17).fill('page_upload') },
    ]) {
      const refused = await call(client, 'tools_enable', bad);
      expect(refused.isError).toBe(true);
      expect(json<{ code: number }>(refused).code).toBe(-32602);
    }
    expect(changed).toBe(1);
  });

  it('answers a call of a tool whose group is not enabled with an error naming the group; it runs once enabled', async () => {
    const client = await connect();
    const { session_id } = json<{ session_id: string }>(await call(client, 'session_create'));
    const refused = await call(client, 'page_evaluate', { session_id, expression: '1 + 1' });
    expect(refused.isError).toBe(true);
    const error = json<{ code: number; message: string; data: { tool: string; group: string } }>(refused);
    expect(error.code).toBe(-32601);
    expect(error.data).toEqual({ tool: 'page_evaluate', group: 'inspect' });
    expect(error.message).toContain('page_evaluate is not enabled here');
    expect(error.message).toContain('tools_enable with {"tools":["page_evaluate"]} (or {"group":"inspect"})');
    await call(client, 'tools_enable', { group: 'inspect' });
    expect(json(await call(client, 'page_evaluate', { session_id, expression: '1 + 1' }))).toEqual({
      result: 2,
    });
    // A tool that does not exist stays a protocol error.
    await expect(call(client, 'page_teleport')).rejects.toThrow(/Unknown tool: page_teleport/);
    await call(client, 'session_close', { session_id });
  });

  it('tools_enable without the Mcp-Session-Id of an initialize says how to ask for the group instead', async () => {
    const answer = await fetch(`${suite.service.url}/mcp`, {
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
        params: { name: 'tools_enable', arguments: { group: 'network' } },
      }),
    });
    // tools_enable is answered as a stream, for its list_changed notice.
    expect(answer.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await answer.text();
    expect(text).toContain('"isError":true');
    expect(text).toContain('/mcp?groups=network');
    expect(text).not.toContain('notifications/tools/list_changed');
  });

  it('groups=all lists every tool, each with a title and the hints of its method', async () => {
    const { tools } = await (await connect('?groups=all')).listTools();
    const expected = allMethods
      .map((m) => m.name)
      .filter((m) => !['rpc.discover', 'session.subscribe', 'session.unsubscribe'].includes(m))
      .filter((m) => !m.startsWith('tabs.') && !m.startsWith('agents.'))
      .map(toolOf);
    expect(tools.map((t) => t.name).sort()).toEqual([...expected, 'tools_enable'].sort());
    for (const tool of tools) {
      const def = allMethods.find((m) => toolOf(m.name) === tool.name);
      const hints = tool.annotations ?? {};
      expect(hints.title, tool.name).toMatch(/^[A-Z]/);
      expect(hints.title, tool.name).not.toContain('.');
      expect(tool.title).toBe(hints.title);
      expect(typeof hints.openWorldHint, tool.name).toBe('boolean');
      if (def === undefined) continue;
      expect(hints.readOnlyHint, tool.name).toBe(def.readOnly);
      if (def.readOnly) continue;
      expect(typeof hints.destructiveHint, tool.name).toBe('boolean');
      expect(typeof hints.idempotentHint, tool.name).toBe('boolean');
    }
    const hintsOf = (name: string) => tools.find((t) => t.name === name)?.annotations;
    expect(hintsOf('page_text')).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(hintsOf('session_close')).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(hintsOf('page_check')).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(hintsOf('session_create')).toMatchObject({ destructiveHint: false, idempotentHint: false });
  });
});
