import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  ListToolsRequestSchema,
  isInitializeRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { principalOf } from '../http/auth.js';
import { jsonBodyErrors } from '../http/bodyErrors.js';
import type { Logger } from '../observability/logger.js';
import type { Principal } from '../rpc/defineMethod.js';
import type { RpcDispatcher } from '../rpc/dispatch.js';
import { ServiceError } from '../errors/serviceError.js';
import { errorResponse } from '../rpc/jsonRpc.js';
import { withBudgetDefaults } from './resultBudget.js';
import { ALL_TOOLS, type ToolAvailability } from './toolAvailability.js';
import { ToolCatalog } from './toolCatalog.js';
import { CORE_GROUP, type ToolGroup } from './toolGroups.js';
import { menuOfRequest, type RequestMenu } from './requestMenu.js';
import { ToolMenus } from './toolMenus.js';
import { toolResult } from './toolOutput.js';
import { withProgress } from './toolProgress.js';
import { MAX_TOOLS_PER_ENABLE, TOOLS_ENABLE, groupsToEnable } from './toolsEnable.js';

/** Where MCP clients connect (Streamable HTTP, stateless). */
export const MCP_PATH = '/mcp';
/** The server name and version MCP clients see in `initialize`. */
const SERVER_INFO = { name: 'playwright-jsonrpc', version: '0.1.0' };
/** What a model reads once, at initialize: how the tools fit together. */
const MCP_INSTRUCTIONS =
  'A headless browser. Call session_create first and pass the session_id it returns to every other ' +
  'tool. Open a page with page_goto; read it with page_text, or with page_snapshot when you need ' +
  'element refs (e12) to act on with page_click, page_fill and page_press; see what went wrong with ' +
  'logs_pull and network_pull. Long answers come in parts: call again with the cursor they return. ' +
  'More tools (network mocking, cookies, downloads, JavaScript …) come in groups: tools_enable adds one. ' +
  'Call session_close when done.';

/** The messages of a POSTed body (one, or a batch). */
function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/**
 * Whether a POSTed body needs its answer as a stream: a call that asked for progress, or a
 * tools_enable, whose notifications/tools/list_changed must reach the client before the result
 * (stateless MCP has no other stream to push on).
 */
function wantsStream(body: unknown): boolean {
  return messagesOf(body).some((m) => {
    if (typeof m !== 'object' || m === null || !('params' in m)) return false;
    const { params } = m;
    if (typeof params !== 'object' || params === null) return false;
    if ('name' in params && params.name === TOOLS_ENABLE) return true;
    if (!('_meta' in params)) return false;
    const { _meta } = params;
    return typeof _meta === 'object' && _meta !== null && 'progressToken' in _meta;
  });
}

/**
 * What a tools_enable call asks for: a group (or all), and single tools by name, at least one of
 * them; INVALID_PARAMS for anything else.
 */
function enableRequest(
  args: Record<string, unknown> | undefined,
  catalog: ToolCatalog,
): { groups: ToolGroup[]; tools: string[] } | ServiceError {
  const refuse = (message: string) =>
    new ServiceError('INVALID_PARAMS', `${TOOLS_ENABLE}: ${message}`, {
      group: args?.group ?? null,
      tools: args?.tools ?? null,
    });
  const groups = args?.group === undefined ? [] : groupsToEnable(args.group);
  if (groups === undefined) return refuse('group must be one of its enum');
  const tools = args?.tools ?? [];
  if (!Array.isArray(tools) || tools.length > MAX_TOOLS_PER_ENABLE)
    return refuse(`tools must be a list of at most ${MAX_TOOLS_PER_ENABLE} tool names`);
  const names: string[] = [];
  for (const tool of tools) {
    if (typeof tool !== 'string' || catalog.lookup(tool)?.group === undefined)
      return refuse(
        `no tool ${JSON.stringify(String(tool).slice(0, 60))}: tools/list with ?groups=all names them all`,
      );
    names.push(tool);
  }
  if (groups.length === 0 && names.length === 0) return refuse('give a group or tools');
  return { groups, tools: names };
}

/** An isError tool result whose text is a JSON-RPC error object, as every failed call answers. */
function toolError(error: ServiceError): CallToolResult {
  const failure = errorResponse(null, error);
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify('error' in failure ? failure.error : failure) }],
  };
}

/**
 * MCP at /mcp: every method of the table is a tool (`page.goto` → `page_goto`), called through the
 * same dispatcher as /rpc, so validation, sessions, locks, errors, caps and logs are the same. A
 * failed call is a tool result with `isError` whose text carries the JSON-RPC error (code, message,
 * data). The list holds the core group, the groups the client's URL asks for and those it enabled
 * with tools_enable (toolGroups.ts); a tool of another group answers which group to enable.
 * Stateless Streamable HTTP: each POST is answered on its own; sessions are the service's
 * (session_id in the arguments), not MCP sessions. Mounted behind the API key and rate limits.
 */
export function mcpRouter(
  dispatcher: RpcDispatcher,
  options: {
    bodyLimit: string;
    batchMax: number;
    logger: Logger;
    countBatch: RequestHandler;
    /** Which optional tools can work here (toolAvailability.ts); without it every tool is listed. */
    availability?: ToolAvailability;
  },
): Router {
  const availability = options.availability ?? ALL_TOOLS;
  const catalog = new ToolCatalog(dispatcher.methods());
  const menus = new ToolMenus();
  const router = express.Router();

  const serverFor = (requestId: string, origin: string, principal: Principal, menu: RequestMenu): Server => {
    const server = new Server(SERVER_INFO, {
      // tools_enable changes the list, and says so on the stream of its own answer.
      capabilities: { tools: { listChanged: true } },
      instructions: MCP_INSTRUCTIONS,
    });
    const groupsNow = () => menu.groups(menus, principal.id);
    const toolsNow = () => menu.tools(menus, principal.id);
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: catalog.list(groupsNow(), availability, menu.outputSchemas, toolsNow()),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const { name } = request.params;
      if (name === TOOLS_ENABLE) {
        const asked = enableRequest(request.params.arguments, catalog);
        if (asked instanceof ServiceError) return toolError(asked);
        const { groups } = asked;
        const listed = groupsNow();
        const single = asked.tools.filter((t) => !listed.has(catalog.lookup(t)?.group ?? CORE_GROUP));
        const enabled = menu.enable(menus, principal.id, groups, single);
        if (enabled instanceof ServiceError) return toolError(enabled);
        if (enabled) await extra.sendNotification({ method: 'notifications/tools/list_changed' });
        const answer = {
          enabled: groups,
          tools: [...groups.flatMap((g) => catalog.namesOf(g)), ...single],
          groups: [...groupsNow()],
        };
        return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      }
      const entry = catalog.lookup(name);
      if (entry === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${name.slice(0, 100)}. tools/list names every tool.`,
        );
      }
      const { def, group } = entry;
      if (group !== undefined && !groupsNow().has(group) && !toolsNow().has(name)) {
        return toolError(
          new ServiceError(
            'METHOD_NOT_FOUND',
            `${name} is not enabled here: it is in the tool group "${group}". Call ${TOOLS_ENABLE} with {"tools":["${name}"]} (or {"group":"${group}"}), then call ${name} again.`,
            { tool: name, group },
          ),
        );
      }
      const log = options.logger.child({ requestId, transport: 'mcp', principal: principal.id });
      const args = withBudgetDefaults(def.name, request.params.arguments ?? {});
      try {
        const result = await withProgress(
          request.params._meta?.progressToken,
          name,
          extra.sendNotification,
          log,
          () =>
            dispatcher.call(def.name, args, {
              requestId,
              origin,
              log,
              principal,
              // Aborted when this request's connection closes (the transport closes with it).
              // Stateless, so a notifications/cancelled arrives on another POST and does not reach
              // this call.
              signal: extra.signal,
            }),
        );
        return toolResult(def, result, args);
      } catch (error) {
        return toolError(error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR'));
      }
    });
    return server;
  };

  // A batch of MCP messages costs its key one use per message, as a batch does on /rpc.
  const limitedBody = [express.json({ limit: options.bodyLimit }), options.countBatch];
  router.post(MCP_PATH, limitedBody, async (req: Request, res: Response) => {
    const requestId = String(res.locals.requestId);
    // BATCH_MAX holds here as on /rpc (the SDK alone would take up to 100 messages per POST).
    if (Array.isArray(req.body) && req.body.length > options.batchMax) {
      res
        .status(400)
        .json(
          errorResponse(
            null,
            'INVALID_REQUEST',
            `Invalid request: a batch of ${req.body.length} messages is over the limit of ${options.batchMax} (BATCH_MAX)`,
            { batchMax: options.batchMax },
          ),
        );
      return;
    }
    const menu = menuOfRequest(req);
    if (menu instanceof ServiceError) {
      res.status(400).json(errorResponse(null, menu));
      return;
    }
    const server = serverFor(requestId, `mcp:${req.ip ?? 'unknown'}`, principalOf(res), menu);
    const initialize = messagesOf(req.body).some((m) => isInitializeRequest(m));
    const transport = new StreamableHTTPServerTransport({
      // An initialize is answered with a new Mcp-Session-Id, which the client sends back on every
      // request: what ties its requests to the groups it enables (toolMenus.ts). Other requests get
      // no generator, so the transport checks no session: stateless, whatever the header says.
      sessionIdGenerator: initialize ? () => ToolMenus.newId() : undefined,
      // One JSON answer, unless a call needs notifications before its answer (progress, the list
      // changed): then an SSE stream carries them (the only stream stateless MCP has).
      enableJsonResponse: !wantsStream(req.body),
    });
    res.on('close', () => {
      void transport.close().catch((error: unknown) => options.logger.debug({ err: error }, 'mcp close'));
      void server.close().catch((error: unknown) => options.logger.debug({ err: error }, 'mcp close'));
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Body errors, answered as on /rpc (400 for a parse error here); the raw body is never logged.
  router.use(MCP_PATH, jsonBodyErrors(options.bodyLimit, 400));
  // Stateless: no server-initiated stream to open (GET) and no MCP session to end (DELETE).
  router.all(MCP_PATH, (_req: Request, res: Response) => {
    res
      .status(405)
      .set('allow', 'POST')
      .json(errorResponse(null, 'INVALID_REQUEST', 'MCP here is stateless Streamable HTTP: POST only'));
  });
  return router;
}
