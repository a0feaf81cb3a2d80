import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { principalOf } from '../http/auth.js';
import { jsonBodyErrors } from '../http/bodyErrors.js';
import type { Logger } from '../observability/logger.js';
import type { MethodInfo, Principal } from '../rpc/defineMethod.js';
import type { RpcDispatcher } from '../rpc/dispatch.js';
import { ServiceError } from '../errors/serviceError.js';
import { errorResponse } from '../rpc/jsonRpc.js';
import { requiredParams } from '../rpc/openrpc.js';
import { withBudgetDefaults } from './resultBudget.js';
import { ALL_TOOLS, NOT_TOOLS, isListed, type ToolAvailability } from './toolAvailability.js';
import { outputSchemaOf, toolResult } from './toolOutput.js';
import { withProgress } from './toolProgress.js';
import { toolText } from './toolTexts.js';

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
  'Call session_close when done.';

/** MCP tool names allow `[A-Za-z0-9_-]` everywhere clients check them: `page.goto` is `page_goto`. */
export function toolName(method: string): string {
  return method.replace(/\./g, '_');
}

/**
 * The MCP tool of a method: its params schema as the input schema, a description written for a
 * model (toolTexts.ts), its result schema as the output schema, read-only as a hint.
 */
export function toolOf(def: MethodInfo): Tool {
  // TypeBox marks schemas with symbol keys; the tool gets plain JSON Schema.
  const inputSchema = JSON.parse(JSON.stringify(def.params)) as Tool['inputSchema'];
  // A defaulted param may be left out: MCP clients must not demand it (page_goto's waitUntil).
  inputSchema.required = requiredParams(def.params);
  return {
    name: toolName(def.name),
    title: def.name,
    description: toolText(def.name, def.summary),
    inputSchema,
    outputSchema: outputSchemaOf(def),
    annotations: { readOnlyHint: def.readOnly, openWorldHint: true },
  };
}

/** Whether a POSTed MCP body holds a call that asked for progress (its answer then needs a stream). */
function wantsProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    if (typeof m !== 'object' || m === null || !('params' in m)) return false;
    const { params } = m;
    if (typeof params !== 'object' || params === null || !('_meta' in params)) return false;
    const { _meta } = params;
    return typeof _meta === 'object' && _meta !== null && 'progressToken' in _meta;
  });
}

/**
 * MCP at /mcp: every method of the table is a tool (`page.goto` → `page_goto`), called through the
 * same dispatcher as /rpc, so validation, sessions, locks, errors, caps and logs are the same. A
 * failed call is a tool result with `isError` whose text carries the JSON-RPC error (code, message,
 * data). Stateless Streamable HTTP: each POST is answered on its own; sessions are the service's
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
  const defs = dispatcher.methods().filter((def) => !NOT_TOOLS.has(def.name));
  const tools = defs.map((def) => ({ method: def.name, tool: toolOf(def) }));
  const defOf = new Map(defs.map((def) => [toolName(def.name), def]));
  const router = express.Router();

  const serverFor = (requestId: string, origin: string, principal: Principal): Server => {
    const server = new Server(SERVER_INFO, {
      // listChanged: false, because stateless /mcp has no stream to push tools/list_changed on.
      capabilities: { tools: { listChanged: false } },
      instructions: MCP_INSTRUCTIONS,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: tools.filter((t) => isListed(t.method, availability)).map((t) => t.tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const def = defOf.get(request.params.name);
      if (def === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${request.params.name.slice(0, 100)}. tools/list names every tool.`,
        );
      }
      const log = options.logger.child({ requestId, transport: 'mcp', principal: principal.id });
      const args = withBudgetDefaults(def.name, request.params.arguments ?? {});
      try {
        const result = await withProgress(
          request.params._meta?.progressToken,
          request.params.name,
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
        return toolResult(def, result);
      } catch (error) {
        const failure = errorResponse(
          null,
          error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR'),
        );
        return {
          isError: true,
          content: [{ type: 'text', text: JSON.stringify('error' in failure ? failure.error : failure) }],
        };
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
    const server = serverFor(requestId, `mcp:${req.ip ?? 'unknown'}`, principalOf(res));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // One JSON answer, unless a call asked for progress: then an SSE stream carries the
      // notifications/progress before the answer (the only stream stateless MCP has).
      enableJsonResponse: !wantsProgress(req.body),
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
