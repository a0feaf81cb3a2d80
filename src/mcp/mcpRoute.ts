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

/** Where MCP clients connect (Streamable HTTP, stateless). */
export const MCP_PATH = '/mcp';
/** The server name and version MCP clients see in `initialize`. */
const SERVER_INFO = { name: 'playwright-jsonrpc', version: '0.1.0' };

/** MCP tool names allow `[A-Za-z0-9_-]` everywhere clients check them: `page.goto` is `page_goto`. */
export function toolName(method: string): string {
  return method.replace(/\./g, '_');
}

/** The MCP tool of a method: its params schema as the input schema, read-only as a hint. */
export function toolOf(def: MethodInfo): Tool {
  // TypeBox marks schemas with symbol keys; the tool gets plain JSON Schema.
  const inputSchema = JSON.parse(JSON.stringify(def.params)) as Tool['inputSchema'];
  // A defaulted param may be left out: MCP clients must not demand it (page_goto's waitUntil).
  inputSchema.required = requiredParams(def.params);
  return {
    name: toolName(def.name),
    title: def.name,
    description: def.description === undefined ? def.summary : `${def.summary}. ${def.description}`,
    inputSchema,
    annotations: { readOnlyHint: def.readOnly, openWorldHint: true },
  };
}

/** A method's result as tool content: a screenshot as an image, anything else as compact JSON. */
function toolResult(method: string, result: unknown): CallToolResult {
  if (
    method === 'screenshot' &&
    typeof result === 'object' &&
    result !== null &&
    'base64' in result &&
    typeof result.base64 === 'string'
  ) {
    const { base64, ...rest } = result as { base64: string } & Record<string, unknown>;
    const mimeType = typeof rest.mime === 'string' ? rest.mime : 'image/png';
    return {
      content: [
        { type: 'image', data: base64, mimeType },
        { type: 'text', text: JSON.stringify(rest) },
      ],
    };
  }
  return { content: [{ type: 'text', text: JSON.stringify(result ?? null) }] };
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
  options: { bodyLimit: string; batchMax: number; logger: Logger; countBatch: RequestHandler },
): Router {
  const tools = dispatcher.methods().map(toolOf);
  const methodOf = new Map(dispatcher.methods().map((def) => [toolName(def.name), def.name]));
  const router = express.Router();

  const serverFor = (requestId: string, origin: string, principal: Principal): Server => {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions:
        'A shared headless Chromium. Call session_create, then page_goto, page_text, page_click, ' +
        'logs_pull and network_pull with the session_id it returns; session_close when done.',
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const method = methodOf.get(request.params.name);
      if (method === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${request.params.name.slice(0, 100)}. tools/list names every tool.`,
        );
      }
      const log = options.logger.child({ requestId, transport: 'mcp', principal: principal.id });
      try {
        const result = await dispatcher.call(method, request.params.arguments ?? {}, {
          requestId,
          origin,
          log,
          principal,
          // Aborted when this request's connection closes (the transport closes with it). Stateless,
          // so a notifications/cancelled arrives on another POST and does not reach this call.
          signal: extra.signal,
        });
        return toolResult(method, result);
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
      enableJsonResponse: true,
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
