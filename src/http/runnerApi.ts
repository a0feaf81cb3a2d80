import type { Request, Response, Router } from 'express';
import type { RpcDispatcher } from '../rpc/dispatch.js';
import { streamExecute, wantsEventStream } from './executeStream.js';
import { toolContent } from './toolContent.js';
import { isObject, refusal, restRouter, type RestOptions } from './restCommon.js';

/** Seed 002's environment types this service has: one, a browser session. */
export const ENV_TYPES = ['browser'] as const;

/** The fields of an execute body (seed 002: tool_name, args, idempotency_key; session_id on POST /execute). */
const EXECUTE_FIELDS = new Set(['tool_name', 'args', 'idempotency_key', 'session_id']);

/** The routes of seed 002's runner API, for the 404 answer's route list. */
export const RUNNER_ROUTES = [
  'POST /sessions',
  'GET /sessions',
  'POST /sessions/{id}/execute',
  'POST /execute',
  'DELETE /sessions/{id}',
];

type MethodInfo = ReturnType<RpcDispatcher['methods']>[number];

/** What execute answers (seed 002's ToolResult): the result as text for a model, and the result itself. */
interface ExecuteAnswer {
  content: string;
  details: unknown;
}

function executeAnswer(method: string, result: unknown): ExecuteAnswer {
  return { content: toolContent(method, result), details: result ?? null };
}

/** A method's MCP tool name, as /mcp names it (mcp/mcpRoute.ts toolName: dots become underscores). */
function mcpToolName(method: string): string {
  return method.replace(/\./g, '_');
}

/** A session method: its params name the session (defineSessionMethod adds session_id). */
function isSessionMethod(def: MethodInfo): boolean {
  return def.params.required?.includes('session_id') === true;
}

/** The method a tool name names: a method name (page.goto) or its MCP tool name (page_goto). */
function methodOf(dispatcher: RpcDispatcher, tool: string): MethodInfo | undefined {
  return dispatcher.methods().find((def) => def.name === tool || mcpToolName(def.name) === tool);
}

/**
 * The params of one execute: the body checked (what it holds, the tool a session method, no other
 * session named) and turned into the method's params. Throws the refusal otherwise.
 */
function executeCall(
  dispatcher: RpcDispatcher,
  sessionId: string,
  body: Record<string, unknown>,
): { method: string; params: Record<string, unknown> } {
  const unknown = Object.keys(body).filter((k) => !EXECUTE_FIELDS.has(k));
  if (unknown.length > 0)
    throw refusal('INVALID_PARAMS', `Unknown field(s) in the execute body: ${unknown.join(', ')}`, {
      fields: unknown,
    });
  const { tool_name: tool, args = {}, idempotency_key: key } = body;
  if (typeof tool !== 'string' || tool.length === 0)
    throw refusal('INVALID_PARAMS', 'tool_name must be a non-empty string (a method name, e.g. page.goto)');
  if (!isObject(args)) throw refusal('INVALID_PARAMS', 'args must be a JSON object of the method params');
  if (key !== undefined && (typeof key !== 'string' || key.length === 0))
    throw refusal('INVALID_PARAMS', 'idempotency_key must be a non-empty string');
  const def = methodOf(dispatcher, tool);
  if (def === undefined)
    throw refusal(
      'METHOD_NOT_FOUND',
      `Unknown tool ${tool}: tool names are method names (page.goto) or their MCP names (page_goto); GET /openrpc.json lists them.`,
      { tool_name: tool },
    );
  if (!isSessionMethod(def))
    throw refusal(
      'INVALID_REQUEST',
      `${def.name} is not a session method: execute runs methods on a session (their params have session_id); call ${def.name} on POST /rpc.`,
      { tool_name: tool, method: def.name },
    );
  if (args.session_id !== undefined && args.session_id !== sessionId)
    throw refusal(
      'INVALID_PARAMS',
      'args.session_id names another session than the path: leave it out (the path names the session).',
      { session_id: sessionId },
    );
  const params: Record<string, unknown> = { ...args, session_id: sessionId };
  if (key !== undefined) params.idempotency_key = key;
  return { method: def.name, params };
}

/**
 * Seed 002's runner API, a projection of the method table (every route is one dispatcher call):
 * POST /sessions (session.create), GET /sessions (session.list), POST /sessions/{id}/execute (the
 * named session method), DELETE /sessions/{id} (session.close). POST /execute is the seed's browser
 * loop's form, with session_id in the body. Either execute answers as Server-Sent Events when asked
 * (Accept: text/event-stream, executeStream.ts). Behind the key check and the rate limits: each
 * request costs its key one use.
 */
export function runnerRouter(options: RestOptions): Router {
  const { dispatcher } = options;
  const rest = restRouter(options);

  rest.post('/sessions', async (req, res) => {
    const { env_type: envType, ...params } = req.body as Record<string, unknown>;
    if (envType !== undefined && !ENV_TYPES.some((t) => t === envType))
      throw refusal(
        'INVALID_PARAMS',
        `env_type ${JSON.stringify(envType)} is not one this service has: its one environment is "browser" (or leave env_type out).`,
        { env_types: ENV_TYPES },
      );
    const result = await dispatcher.call('session.create', params, rest.context(req, res));
    res.status(201).json(result);
  });

  rest.get('/sessions', async (req, res) => {
    res.json(await dispatcher.call('session.list', {}, rest.context(req, res)));
  });

  const execute = async (req: Request, res: Response, sessionId: unknown): Promise<void> => {
    if (typeof sessionId !== 'string' || sessionId.length === 0)
      throw refusal('INVALID_PARAMS', 'session_id must be a non-empty string');
    // Refusals of the body and the tool answer as JSON with their status, in either form: the
    // stream starts only when the call does.
    const { method, params } = executeCall(dispatcher, sessionId, req.body as Record<string, unknown>);
    const ctx = rest.context(req, res);
    const answer = async (): Promise<ExecuteAnswer> =>
      executeAnswer(method, await dispatcher.call(method, params, ctx));
    if (wantsEventStream(req.get('accept'))) await streamExecute(res, method, ctx.log, answer);
    else res.json(await answer());
  };

  rest.post('/sessions/:id/execute', async (req, res) => {
    const given: unknown = (req.body as Record<string, unknown>).session_id;
    if (given !== undefined && given !== req.params.id)
      throw refusal('INVALID_PARAMS', 'session_id in the body names another session than the path.', {
        session_id: req.params.id,
      });
    await execute(req, res, req.params.id);
  });

  rest.post('/execute', async (req, res) => {
    await execute(req, res, (req.body as Record<string, unknown>).session_id);
  });

  rest.delete('/sessions/:id', async (req, res) => {
    const result = await dispatcher.call(
      'session.close',
      { session_id: req.params.id },
      rest.context(req, res),
    );
    res.json(result);
  });

  return rest.done(['/sessions', '/execute']);
}
