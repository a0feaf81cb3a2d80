import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { BrowserSource } from './browser/engine/browserSource.js';
import type { Config } from './config/config.js';
import { eventStreamRouter, type OpenEventFeed } from './http/eventStream.js';
import { healthRouter } from './http/health.js';
import { requireAllowedHost } from './http/hostCheck.js';
import { noOAuthRouter } from './http/noOAuth.js';
import { isKeyPlaceholder } from './http/auth.js';
import { countBatchMembers, requireKeyWithinLimits } from './http/edgeGate.js';
import { EdgeLimits } from './http/rateLimits.js';
import { Refusals, watchRefusals } from './http/refusals.js';
import { requestId } from './http/requestId.js';
import { rpcRouter } from './http/rpcRoute.js';
import { runnerRouter } from './http/runnerApi.js';
import { seed000Router } from './http/seed000Api.js';
import { screencastRouter } from './http/screencast.js';
import { SERVICE_ROUTES } from './http/serviceRoutes.js';
import { uiRouter } from './http/uiRoute.js';
import type { ScreencastHub } from './browser/artifacts/screencast.js';
import type { ServiceCapacity } from './browser/engine/poolPolicy.js';
import { MCP_PATH, mcpRouter } from './mcp/mcpRoute.js';
import type { ToolAvailability } from './mcp/toolAvailability.js';
import type { Logger } from './observability/logger.js';
import type { Metrics } from './observability/metrics.js';
import type { RpcDispatcher } from './rpc/dispatch.js';
import { errorResponse } from './rpc/jsonRpc.js';
import { replicaStreamGuard } from './replicas/replicaEdge.js';
import type { OpenRpcDocument } from './rpc/openrpc.js';

export interface AppDeps {
  config: Config;
  dispatcher: RpcDispatcher;
  browser: BrowserSource;
  metrics: Metrics;
  logger: Logger;
  /** Which optional MCP tools can work here (tabs_* need CDP_URL, agents_* a connected agent). */
  mcpTools?: ToolAvailability;
  /** The OpenRPC document, served on GET /openrpc.json (the same as rpc.discover answers). */
  openrpc: OpenRpcDocument;
  /** The live view of sessions (GET /sessions/{id}/screencast); the route is absent without it. */
  screencasts?: ScreencastHub;
  /** Opens a feed of a session's event log for GET /sessions/{id}/events. */
  openEventFeed: OpenEventFeed;
  /** Sessions and free slots for GET /readyz; without it /readyz reports the browser only. */
  capacity?: () => ServiceCapacity;
  /** Where refusals are counted and logged (shared with the WebSocket endpoint); one of its own when absent. */
  refusals?: Refusals;
}

/** Builds the HTTP app; never listens by itself, so tests start it on port 0 with real dependencies. */
export function createApp(deps: AppDeps): Express {
  const { config } = deps;
  if (config.apiKeys.length === 0)
    throw new Error('createApp needs at least one API key: the service never runs open');
  // A placeholder is what a client without API_KEY sends (.mcp.json's default): as a key it would
  // let every such client in.
  if (config.apiKeys.some(isKeyPlaceholder))
    throw new Error(
      'API_KEY or ADMIN_API_KEY holds a placeholder (an unexpanded $VARIABLE or the .mcp.json default), never accepted as a key: set a real key',
    );
  const app = express();
  app.disable('x-powered-by');
  // Express hashes every response body for an ETag, a screenshot's megabytes included; no answer
  // here is cached or revalidated, so the hash is work for nothing.
  app.set('etag', false);
  // TRUSTED_PROXIES, compiled: req.ip is the client a trusted balancer names in X-Forwarded-For,
  // else the direct peer (src/ws/clientAddress.ts gives WebSocket handshakes the same answer).
  app.set('trust proxy', config.trustProxy);
  // First, so every refusal below (the Host check's included) is counted and logged once it is out.
  app.use(watchRefusals(deps.refusals ?? new Refusals(deps.metrics.httpRefusals, deps.logger)));
  app.use(helmet());
  // Before anything is served or counted: a DNS-rebinding page must get nothing but the refusal.
  app.use(requireAllowedHost(config.allowedHosts));
  app.use(requestId);
  app.use(healthRouter(deps.browser, deps.capacity));
  const limits = new EdgeLimits(config.apiKeys, config.rateLimitMax, config.rateLimitWindowMs);
  // Before the key check: OAuth discovery gets 404, not a 401 that would send MCP clients to sign in.
  app.use(noOAuthRouter());
  // The web console's static files (no data in them, so no key: docs/console.md), and GET / from a
  // browser, which leads to it.
  app.use(uiRouter({ modelApiOrigins: config.uiModelApiOrigins }));
  app.use(
    requireKeyWithinLimits(limits, {
      adminKey: config.adminApiKey,
      forbiddenOnKeyProblem: [MCP_PATH],
    }),
  );
  // Each member of a batch (on /rpc and /mcp) costs its key one use, once the body is read.
  const countBatch = countBatchMembers(limits, config.batchMax);
  // Behind the key like rpc.discover, which answers the same document (docs/security.md).
  app.get('/openrpc.json', (_req, res) => {
    res.json(deps.openrpc);
  });
  app.get('/metrics', async (_req, res) => {
    res.set('content-type', deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  // On a replica: another replica's session streams are refused naming it (they are not forwarded).
  app.use(replicaStreamGuard(config.replicaId));
  if (deps.screencasts !== undefined) app.use(screencastRouter(deps.screencasts, deps.logger));
  app.use(
    mcpRouter(deps.dispatcher, {
      bodyLimit: config.bodyLimit,
      batchMax: config.batchMax,
      logger: deps.logger,
      countBatch,
      availability: deps.mcpTools,
    }),
  );
  app.use(
    eventStreamRouter({
      openFeed: deps.openEventFeed,
      logger: deps.logger,
      heartbeatMs: config.eventStreamHeartbeatMs,
    }),
  );
  app.use(
    rpcRouter(deps.dispatcher, {
      bodyLimit: config.bodyLimit,
      batchMax: config.batchMax,
      logger: deps.logger,
      countBatch,
    }),
  );
  const rest = { dispatcher: deps.dispatcher, bodyLimit: config.bodyLimit, logger: deps.logger };
  app.use(runnerRouter(rest));
  app.use(seed000Router({ ...rest, cdpConfigured: config.cdpUrl !== undefined }));
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: 'not found', routes: SERVICE_ROUTES });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // Never the error object whole: body-parser errors carry the raw request body.
    const message = error instanceof Error ? error.message : String(error);
    deps.logger.error({ err: { message }, requestId: res.locals.requestId }, 'unhandled HTTP error');
    res.status(500).json(errorResponse(null, 'INTERNAL_ERROR'));
  });
  return app;
}
