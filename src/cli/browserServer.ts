// `playwright-jsonrpc browser-server`: a Playwright browser server for BROWSER_ENDPOINTS, launched
// with the service's own Chromium flags (WebRTC handling policy, the closed-network switches, the
// lean process model) so a remote browser is held to what the local one is. It prints its ws://
// endpoint on stdout, one line, and runs until SIGINT or SIGTERM (or its parent exits).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { chromium, type BrowserServer } from 'playwright-core';
import { IGNORED_DEFAULT_ARGS, resolveBrowser, serviceLaunchArgs } from '../browser/engine/browserResolve.js';
import { watchParent } from './parentWatch.js';
import { UsageError } from './serviceUrl.js';

/**
 * The launch-level proxy of a browser server: a loopback port nothing listens on (binding it needs
 * root), so a context made without the service's per-context proxy reaches nothing at all, loopback
 * included (Playwright proxies loopback too). The service's contexts override it with their own.
 */
export const DENY_ALL_PROXY = 'http://127.0.0.1:1';

export const BROWSER_SERVER_HELP = `Usage: playwright-jsonrpc browser-server [--host H] [--port P] [--ws-path PATH]

Starts a Playwright browser server (chromium.launchServer) with the service's Chromium flags and a
deny-all launch proxy, and prints its ws:// endpoint on stdout. List that endpoint in the service's
BROWSER_ENDPOINTS (docs/operations.md, "Remote browsers"). The browser is found as the service
finds it (CHROMIUM_PATH, Playwright's download, the system's Chromium). SIGINT and SIGTERM close it.

Options:
  --host H          address to listen on (default 127.0.0.1)
  --port P          port (default 0: a free one)
  --ws-path PATH    the endpoint's path (default a random one: it is the server's only secret)
  --no-exit-with-parent  keep running when the process that started this one exits
  -h, --help        this help
`;

export interface BrowserServerArgs {
  host: string;
  port: number;
  wsPath: string;
  exitWithParent: boolean;
}

export function parseBrowserServerArgs(argv: string[]): BrowserServerArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      'ws-path': { type: 'string' },
      'no-exit-with-parent': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65_535)
    throw new UsageError(`--port must be a port from 0 to 65535, got ${JSON.stringify(values.port)}`);
  const wsPath = values['ws-path'] ?? `/${randomBytes(16).toString('hex')}`;
  return {
    host: values.host,
    port,
    wsPath: wsPath.startsWith('/') ? wsPath : `/${wsPath}`,
    exitWithParent: !values['no-exit-with-parent'],
  };
}

/** Starts the compliant browser server; resolves once it listens, with its endpoint. */
export async function launchBrowserServer(args: BrowserServerArgs): Promise<BrowserServer> {
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved)
    throw new Error(`No Chromium found. Looked at: ${resolved.tried.join(', ')}. Set CHROMIUM_PATH.`);
  const launchArgs = serviceLaunchArgs(process.getuid?.() === 0);
  return chromium.launchServer({
    executablePath: resolved.executablePath,
    headless: true,
    args: launchArgs,
    ignoreDefaultArgs: [...IGNORED_DEFAULT_ARGS],
    chromiumSandbox: !launchArgs.includes('--no-sandbox'),
    proxy: { server: DENY_ALL_PROXY },
    host: args.host,
    port: args.port,
    wsPath: args.wsPath,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

/** The command: launch, print the endpoint, close on a signal or when the parent goes. */
export async function runBrowserServer(argv: string[]): Promise<undefined> {
  const args = parseBrowserServerArgs(argv);
  const server = await launchBrowserServer(args);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`browser-server: closing failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (args.exitWithParent) watchParent(stop);
  server.process().once('exit', () => {
    if (stopping) return;
    process.stderr.write('browser-server: the browser exited; stopping\n');
    process.exit(1);
  });
  process.stdout.write(`${server.wsEndpoint()}\n`);
  return undefined;
}
