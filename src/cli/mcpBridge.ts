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
import { apiKeyFrom, endpointOf, serviceBase, shownUrl, UsageError, URL_ENV } from './serviceUrl.js';

/** How long the bridge waits for the service's `initialize` answer before giving up at start. */
export const BRIDGE_CONNECT_TIMEOUT_MS = 15_000;
/** Every forwarded request waits at most this long: as `call`, past the longest method timeout. */
export const BRIDGE_REQUEST_TIMEOUT_MS = CALL_TIMEOUT_MS;
/** How the bridge names itself to the service in `initialize`. */
const BRIDGE_INFO = { name: 'playwright-jsonrpc-mcp-stdio', version: '0.1.0' };

export const MCP_HELP = `Usage: playwright-jsonrpc mcp [--url URL] [--groups LIST]

MCP over stdio, for MCP clients that only start local commands. It bridges to a running service's
/mcp endpoint: tools/list and tools/call are forwarded as they are, so the tools, their schemas
and their results are the service's own, and sessions live in the service's shared Chromium.

Options:
  --url URL       the service (base URL or its /mcp endpoint); default $${URL_ENV},
                  then http://127.0.0.1:3337
  --groups LIST   tool groups to list besides the core ones, comma-separated:
                  ${OPTIONAL_GROUPS.join(', ')}, or ${ALL_GROUPS}; the tool
                  tools_enable adds one while the client runs
  -h, --help      this help

The API key comes from the environment variable API_KEY. The bridge connects at start and exits
with code 3 and a message on stderr when the service cannot be reached or refuses the key.

Example (Claude Code):
  claude mcp add browser --env API_KEY=dev-key-123 -- \\
    node /path/to/playwright-jsonrpc/dist/src/cli/main.js mcp
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
 * `playwright-jsonrpc mcp`: a stdio MCP server whose every request is the service's /mcp answer.
 * A bridge rather than a service in this process: the service is one shared Chromium with keys,
 * limits and session ownership; a stdio client then costs a small Node process, not a browser, and
 * what /mcp projects (tool list, results, errors) is reused without a second copy here.
 * Resolves when stdin closes (the MCP client went away).
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
  const base = serviceBase(values.url, env);
  const endpoint = endpointOf(base, 'mcp');
  if (values.groups !== undefined) {
    const { unknown } = parseGroups([values.groups]);
    if (unknown.length > 0)
      throw new UsageError(
        `--groups: unknown group ${JSON.stringify(unknown[0]?.slice(0, 40))} (the groups: ${OPTIONAL_GROUPS.join(', ')}, ${ALL_GROUPS})`,
      );
    endpoint.searchParams.set(GROUPS_QUERY, values.groups);
  }
  const key = apiKeyFrom(env);
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
  });
  await server.connect(stdio);
  await closed;
  await server.close();
  await remote.close();
  return EXIT_OK;
}
