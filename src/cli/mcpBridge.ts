import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ToolListChangedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { GROUPS_QUERY } from '../mcp/requestMenu.js';
import { ALL_GROUPS, OPTIONAL_GROUPS, parseGroups } from '../mcp/toolGroups.js';
import { CALL_TIMEOUT_MS, EXIT_OK, EXIT_TRANSPORT } from './call.js';
import { watchParent } from './parentWatch.js';
import { apiKeyFrom, endpointOf, serviceBase, shownUrl, UsageError, URL_ENV } from './serviceUrl.js';

/** How long the bridge waits for the service's `initialize` answer before giving up at start. */
export const BRIDGE_CONNECT_TIMEOUT_MS = 15_000;
/** Every forwarded request waits at most this long: as `call`, past the longest method timeout. */
export const BRIDGE_REQUEST_TIMEOUT_MS = CALL_TIMEOUT_MS;
/** How the bridge names itself to the service in `initialize`. */
const BRIDGE_INFO = { name: 'playwright-jsonrpc-mcp-stdio', version: '0.1.0' };

export const MCP_HELP = `Usage: playwright-jsonrpc mcp [--url URL] [--groups LIST]

MCP over stdio, for MCP clients that start a local command. The tools, their schemas and their
results are those of the service's /mcp endpoint: tools/list and tools/call are passed to it as
they are.

With no --url and no $${URL_ENV}, the service runs in this process: Chromium, the allow-list and
the limits configured as for "serve" (the same environment and CONFIG_FILE), its HTTP listener on
127.0.0.1 at a free port with a key made for this run, so no API_KEY is needed. Closing stdin (the
client went away), SIGINT or SIGTERM closes the sessions and the browser, then exits.
With a URL it bridges to that running service, whose shared Chromium holds the sessions.

Options:
  --url URL       a running service (base URL or its /mcp endpoint); default $${URL_ENV},
                  else the service starts in this process
  --groups LIST   tool groups to list besides the core ones, comma-separated:
                  ${OPTIONAL_GROUPS.join(', ')}, or ${ALL_GROUPS}; the tool
                  tools_enable adds one while the client runs
  -h, --help      this help

Every log line goes to stderr; stdout carries MCP messages only. With a URL the API key comes
from the environment variable API_KEY, and the bridge exits with code 3 and a message on stderr
when the service cannot be reached or refuses the key.

Example (Claude Code):
  claude mcp add browser -- node /path/to/playwright-jsonrpc/dist/src/cli/main.js mcp
`;

/** Why the first connection failed, in words that point at the fix (the key is never printed). */
function connectFailure(error: unknown, where: string, hasKey: boolean): string {
  // 401 for a missing key, 403 for a wrong one (the service's edge).
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403))
    return hasKey
      ? `the service at ${where} refused the API key (HTTP ${error.code}): check API_KEY`
      : `the service at ${where} needs an API key (HTTP ${error.code}): set API_KEY in the environment`;
  if (error instanceof StreamableHTTPError) return `the service at ${where} answered HTTP ${error.code}`;
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `cannot reach the service at ${where}: ${error instanceof Error ? error.message : String(error)}${cause}`;
}

/**
 * `playwright-jsonrpc mcp`: a stdio MCP server whose every request is answered by a service's /mcp,
 * either a running one (--url, PLAYWRIGHT_JSONRPC_URL) or one started in this process. Either way
 * the stdio side is the same bridge onto the same /mcp route, so the tools, menus, limits and
 * errors have one implementation; in-process the hop is loopback HTTP within this process.
 * Resolves when stdin closes (the MCP client went away), after the in-process service closed.
 */
export async function runMcpBridge(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      groups: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return EXIT_OK;
  }
  if (values.groups !== undefined) {
    const { unknown } = parseGroups([values.groups]);
    if (unknown.length > 0)
      throw new UsageError(
        `--groups: unknown group ${JSON.stringify(unknown[0]?.slice(0, 40))} (the groups: ${OPTIONAL_GROUPS.join(', ')}, ${ALL_GROUPS})`,
      );
  }
  const withGroups = (endpoint: URL): URL => {
    if (values.groups !== undefined) endpoint.searchParams.set(GROUPS_QUERY, values.groups);
    return endpoint;
  };
  const url = values.url ?? (env[URL_ENV] === '' ? undefined : env[URL_ENV]);
  if (url !== undefined) {
    const endpoint = withGroups(endpointOf(serviceBase(values.url, env), 'mcp'));
    return bridgeStdio(endpoint, apiKeyFrom(env));
  }
  // Loaded only here: the bridge to a running service does not load Playwright.
  const { startInProcessService } = await import('./mcpInProcess.js');
  const local = await startInProcessService(env);
  if (typeof local === 'number') return local;
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    local.logger.info({ signal }, 'stopping: closing sessions and the browser');
    stop.abort();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // As for serve: a killed npx or shell between the client and this process must leave no Chromium.
  const stopWatching = watchParent((formerParent) => {
    local.logger.warn({ formerParent }, 'the process that started this one exited; stopping');
    stop.abort();
  });
  let code: number;
  try {
    code = await bridgeStdio(withGroups(endpointOf(local.base, 'mcp')), local.key, stop.signal);
  } finally {
    stopWatching();
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    const force = setTimeout(() => {
      local.logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, local.shutdownTimeoutMs);
    force.unref();
    await local.running.close();
    clearTimeout(force);
    local.logger.info('closed the sessions and the browser');
  }
  return code;
}

/**
 * Serves MCP on stdio, every request forwarded to `endpoint` (a service's /mcp). Resolves when stdin
 * closes, the stdio server closes or `stop` aborts; answers EXIT_TRANSPORT when the first
 * connection fails.
 */
async function bridgeStdio(endpoint: URL, key: string | undefined, stop?: AbortSignal): Promise<number> {
  const remote = new Client(BRIDGE_INFO, { capabilities: {} });
  const upstream = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: key === undefined ? {} : { 'x-api-key': key } },
  });
  try {
    await remote.connect(upstream, { timeout: BRIDGE_CONNECT_TIMEOUT_MS });
  } catch (error) {
    // stdout is the MCP channel: every message of the bridge goes to stderr.
    process.stderr.write(
      `playwright-jsonrpc mcp: ${connectFailure(error, shownUrl(endpoint), key !== undefined)}\n`,
    );
    return EXIT_TRANSPORT;
  }
  const server = new Server(remote.getServerVersion() ?? BRIDGE_INFO, {
    // The service's list changes when tools_enable adds a group; its notice is passed on.
    capabilities: { tools: { listChanged: true } },
    ...(remote.getInstructions() === undefined ? {} : { instructions: remote.getInstructions() }),
  });
  remote.setNotificationHandler(ToolListChangedNotificationSchema, () => server.sendToolListChanged());
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) =>
    remote.listTools(request.params, { signal: extra.signal, timeout: BRIDGE_REQUEST_TIMEOUT_MS }),
  );
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const token = request.params._meta?.progressToken;
    // Progress the service reports is passed on under the token the stdio client chose.
    const onprogress =
      token === undefined
        ? undefined
        : (progress: Progress): void => {
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { ...progress, progressToken: token },
              })
              .catch((error: unknown) =>
                process.stderr.write(`playwright-jsonrpc mcp: progress not sent: ${String(error)}\n`),
              );
          };
    // Forwarded as a raw request: the result (structuredContent, isError) reaches the client as the
    // service wrote it, not re-validated or reshaped here.
    return remote.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, {
      signal: extra.signal,
      timeout: BRIDGE_REQUEST_TIMEOUT_MS,
      ...(onprogress === undefined ? {} : { onprogress }),
    });
  });

  const stdio = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    server.onclose = () => resolve();
    if (stop?.aborted === true) resolve();
    stop?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(stdio);
  await closed;
  await server.close();
  await remote.close();
  return EXIT_OK;
}
