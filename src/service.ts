import { openFeed } from './browser/events/eventFeed.js';
import { FeedQuota } from './browser/events/feedQuota.js';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { join } from 'node:path';
import { AgentRegistry } from './hub/agentRegistry.js';
import { CdpTabs } from './cdp/cdpTabs.js';
import { EvaluationLog } from './hub/evaluationLog.js';
import { createApp } from './app.js';
import { resolveBrowser } from './browser/engine/browserResolve.js';
import { startBrowser } from './browserSetup.js';
import type { BrowserTier } from './browser/engine/browserTier.js';
import { SessionRegistry } from './browser/session/sessionRegistry.js';
import { ScreencastHub } from './browser/artifacts/screencast.js';
import type { HostLookup } from './browser/network/resolveUpstream.js';
import { UrlPolicy } from './browser/network/urlPolicy.js';
import type { Config } from './config/config.js';
import { AGENTS_PATH, AgentEndpoint } from './hub/agentEndpoint.js';
import { UpgradeRouter } from './ws/upgradeRouter.js';
import { HOST_REFUSED, hostAllowed } from './http/hostCheck.js';
import { RPC_SOCKET_PATH, RpcSocketEndpoint } from './http/rpcSocket.js';
import { Refusals } from './http/refusals.js';
import { methodExamples } from './methods/examples/methodExamples.js';
import { allMethods } from './methods/index.js';
import type { Services } from './methods/services.js';
import { mapError } from './errors/mapError.js';
import type { Logger } from './observability/logger.js';
import { highWaterBytes, MemoryWatchdog } from './observability/memoryWatchdog.js';
import { Metrics } from './observability/metrics.js';
import { ServiceError } from './errors/serviceError.js';
import { Dispatcher } from './rpc/dispatch.js';
import { replicaAware } from './replicas/replicaEdge.js';
import { startReplicaParts } from './replicas/replicaService.js';
import { sessionIdPrefix } from './replicas/sessionIds.js';
import { IdempotencyStore } from './rpc/idempotencyStore.js';
import { MethodTable } from './rpc/methodTable.js';
import { buildOpenRpc, type OpenRpcDocument } from './rpc/openrpc.js';
import { ParamsValidator } from './rpc/validate.js';

/** The package version, read from package.json whether running from src/ (tsx) or dist/src/ (node). */
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'playwright-jsonrpc' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Not at this depth: try the next one.
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();

/** The calls that still run past the memory high water: they free memory or hold none. */
const MEMORY_FREEING_METHODS = new Set([
  'session.close',
  'session.list',
  'logs.pull',
  'network.pull',
  'rpc.discover',
]);
/** What a refusal for memory suggests: a few watchdog samples. */
const MEMORY_RETRY_AFTER_MS = 5000;

export class BrowserNotFoundError extends Error {
  constructor(readonly tried: string[]) {
    super(
      `No Chromium found. Looked at: ${tried.join(', ')}. Set CHROMIUM_PATH, install Debian's chromium (apt-get install -y chromium), or run npx playwright install chromium.`,
    );
    this.name = 'BrowserNotFoundError';
  }
}

export interface RunningService {
  url: string;
  port: number;
  server: http.Server;
  services: Services;
  dispatcher: Dispatcher<Services>;
  /** The answers of keyed calls (tests read its stats). */
  idempotency: IdempotencyStore;
  watchdog: MemoryWatchdog;
  /** The live views in progress (the console's GET /sessions/{id}/screencast). */
  screencasts: ScreencastHub;
  /** The remote browser tier, with BROWSER_ENDPOINTS. */
  tier: BrowserTier | undefined;
  close(): Promise<void>;
}

/** The OpenRPC document of the method table; the same for every instance, so built once. */
export function openRpcDocument(): OpenRpcDocument {
  return buildOpenRpc(allMethods, VERSION, methodExamples);
}

/**
 * Starts everything: the egress proxy, the shared browser, the session registry and its janitor,
 * the HTTP server. Used by main.ts and by the integration tests (port 0), which may answer the egress
 * proxy's name lookups themselves (`egressLookup`) so that no test asks real DNS.
 */
export async function startService(
  config: Config,
  logger: Logger,
  options: { metrics?: Metrics; egressLookup?: HostLookup } = {},
): Promise<RunningService> {
  const metrics = options.metrics ?? new Metrics();
  const policy = new UrlPolicy(config.allowHostRegex);
  const { browser, proxy, tier } = await startBrowser(
    config,
    policy,
    () => {
      const resolved = resolveBrowser(config.chromiumPath);
      if ('tried' in resolved) throw new BrowserNotFoundError(resolved.tried);
      return resolved;
    },
    logger,
    options.egressLookup,
  );
  browser.on('lost', () => metrics.browserRestarts.inc());

  const sessions = new SessionRegistry(
    browser,
    policy,
    {
      maxSessions: config.maxSessions,
      maxSessionsPerOwner: config.maxSessionsPerKey,
      ttlMs: config.sessionTtlMs,
      replayKeepMs: config.replay.keepMs,
      janitorIntervalMs: config.janitorIntervalMs,
      closeTimeoutMs: config.sessionCloseTimeoutMs,
      pool: {
        minSize: config.poolSize,
        maxSize: config.poolMaxSize,
        maxOpening: config.poolMaxOpening,
        windowMs: config.poolDemandWindowMs,
        refillIdleMs: config.poolRefillIdleMs,
      },
      context: {
        clipboardChars: config.maxClipboardChars,
        consoleRate: config.pageBudget.rate,
        consoleBurst: config.pageBudget.burst,
      },
      idPrefix: sessionIdPrefix(config.replicaId),
      session: {
        console: config.consoleBufferSize,
        network: config.networkBufferSize,
        events: config.maxSessionEvents,
        budget: config.pageBudget,
        requestDetails: config.maxNetworkDetails,
        maxQueuedCalls: config.maxQueuedCallsPerSession,
        settle: {
          quietMs: config.settleQuietMs,
          bodyGraceMs: config.settleBodyGraceMs,
          maxPendingMs: config.settleMaxPendingMs,
        },
        downloads: {
          maxBytes: config.maxDownloadBytes,
          maxSessionBytes: config.maxSessionDownloadBytes,
          maxCount: config.maxSessionDownloads,
        },
      },
    },
    logger,
    {
      created: () => metrics.sessionsCreated.inc(),
      expired: () => metrics.sessionsExpired.inc(),
      countChanged: (n) => metrics.sessionsActive.set(n),
      poolTaken: (hit) => metrics.poolTakes.inc({ outcome: hit ? 'hit' : 'miss' }),
    },
  );
  sessions.startJanitor();

  // The agent hub (DESIGN §8): agents on WebSocket /agents, callers through agents.* and tabs.*.
  const evaluationLog = new EvaluationLog(join(config.logDir, 'evaluations.jsonl'), logger);
  const agents = new AgentRegistry(
    {
      agentSecret: config.agentSecret,
      reconnectGraceMs: config.agentReconnectGraceMs,
      queueTimeoutMs: config.agentQueueTimeoutMs,
    },
    evaluationLog,
    logger,
    {
      connectedChanged: (n) => metrics.agentsConnected.set(n),
      evaluationFinished: (status) => metrics.agentEvaluations.inc({ status }),
    },
  );
  const tabs = new CdpTabs({
    cdpUrl: config.cdpUrl,
    connectTimeoutMs: config.cdpTimeoutMs,
    commandTimeoutMs: config.cdpTimeoutMs,
    policy,
    logger,
  });

  const openrpc = openRpcDocument();
  // One count of every key's subscriptions and event streams, shared by both transports.
  const feedQuota = new FeedQuota(config.maxSubscriptionsPerKey);
  const services: Services = {
    config,
    browser,
    sessions,
    feedQuota,
    policy,
    metrics,
    openrpc: () => openrpc,
    agents,
    tabs,
    // The dispatcher is built below with these services; a call reaches it only once it exists.
    call: (method, params, ctx) =>
      routed.call(method, params, {
        requestId: ctx.requestId,
        origin: ctx.origin,
        log: ctx.log,
        principal: ctx.principal,
        signal: ctx.signal,
      }),
  };
  const watchdog = new MemoryWatchdog(highWaterBytes(config.memoryHighWaterMb), logger);
  watchdog.start();
  const table = new MethodTable(allMethods);
  const idempotency = new IdempotencyStore(
    {
      ttlMs: config.idempotencyTtlMs,
      maxKeys: config.idempotencyMaxKeys,
      maxAnswerBytes: config.idempotencyMaxAnswerBytes,
      maxBytes: config.idempotencyMaxBytes,
    },
    () => metrics.idempotencyEvictions.inc(),
  );
  const dispatcher = new Dispatcher({
    table,
    validator: new ParamsValidator(table.list()),
    services,
    metrics,
    idempotency,
    // Past the memory high water only the calls that free memory (or only read the table) run.
    admit: (def) =>
      watchdog.overloaded && !MEMORY_FREEING_METHODS.has(def.name)
        ? new ServiceError(
            'RESOURCE_UNAVAILABLE',
            `${def.name} was refused: the service's memory is past its high water (MEMORY_HIGH_WATER_MB). Close sessions or pull their buffers, then retry.`,
            { reason: 'memory', retryAfterMs: MEMORY_RETRY_AFTER_MS },
          )
        : undefined,
    // A closed target means a restart, a closed session or a crashed page, by what is true now.
    mapError: (error, call) => {
      const sessionId = call.params.session_id;
      return mapError(error, {
        ...call,
        browserReady: browser.ready,
        sessionOpen: typeof sessionId === 'string' ? sessions.get(sessionId) !== undefined : undefined,
      });
    },
  });
  // On a replica, calls for another replica's sessions (and hub calls) go there (docs/deployment.md).
  const routed = replicaAware(dispatcher, config, logger);
  const mcpTools = { cdpConfigured: config.cdpUrl !== undefined, agentsConnected: () => agents.list().total };
  const screencasts = new ScreencastHub(sessions);
  // One count and one bounded log of refusals for the HTTP edge and the /rpc handshakes alike.
  const refusals = new Refusals(metrics.httpRefusals, logger);
  const app = createApp({
    config,
    dispatcher: routed,
    browser,
    metrics,
    logger,
    mcpTools,
    openrpc,
    screencasts,
    // A closed session's log stays readable by its key for REPLAY_KEEP_MS (recordOf).
    openEventFeed: (...args) =>
      openFeed({ sessions: { resolve: (i, c) => sessions.recordOf(i, c) }, quota: feedQuota }, ...args),
    capacity: () => sessions.capacity(),
    refusals,
  });
  const server = http.createServer(app);
  const agentEndpoint = new AgentEndpoint(agents, {
    allowedOrigins: config.agentAllowedOrigins,
    maxPayloadBytes: config.agentMaxPayloadBytes,
    pingIntervalMs: config.agentPingIntervalMs,
    connectionTimeoutMs: config.agentConnectionTimeoutMs,
    trustProxy: config.trustProxy,
    logger,
  });
  // JSON-RPC over WebSocket on /rpc: the same dispatcher, envelope, key and limits as POST /rpc.
  const rpcSocket = new RpcSocketEndpoint(routed, {
    apiKeys: config.apiKeys,
    adminApiKey: config.adminApiKey,
    maxPayloadBytes: config.bodyLimitBytes,
    batchMax: config.batchMax,
    rateLimitMax: config.rateLimitMax,
    rateLimitWindowMs: config.rateLimitWindowMs,
    maxSocketsPerKey: config.maxRpcSocketsPerKey,
    maxSocketsPerAddress: config.maxRpcSocketsPerAddress,
    trustProxy: config.trustProxy,
    logger,
    refusals,
  });
  new UpgradeRouter((host) => hostAllowed(host, config.allowedHosts), HOST_REFUSED)
    .route(AGENTS_PATH, agentEndpoint.handleUpgrade)
    .route(RPC_SOCKET_PATH, rpcSocket.handleUpgrade)
    .attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // No page may spend the operator's rate limits or probe the API (the proxy refuses its own port itself).
  policy.refuseOwnPort(port, config.host);
  if (config.cdpUrl !== undefined) {
    const cdp = new URL(config.cdpUrl);
    policy.refuseOwnPort(
      Number(cdp.port || (cdp.protocol === 'https:' || cdp.protocol === 'wss:' ? 443 : 80)),
      cdp.hostname,
    );
  }
  const replica = await startReplicaParts(config, { sessions, browser, policy }, logger);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      watchdog.stop();
      await replica.close();
      server.closeIdleConnections();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Upgraded sockets are no longer HTTP connections: server.close waits for them, so close them first.
      await agentEndpoint.close();
      await rpcSocket.close();
      agents.close();
      screencasts.closeAll();
      await sessions.closeAll();
      await tabs.close().catch((error: unknown) => logger.warn({ err: error }, 'CDP disconnect failed'));
      await browser.close().catch((error: unknown) => logger.warn({ err: error }, 'browser close failed'));
      await proxy.close();
      await evaluationLog.close();
      server.closeAllConnections();
      await stopped;
    })();
    return closing;
  };
  return { url, port, server, services, dispatcher, idempotency, watchdog, screencasts, tier, close };
}
