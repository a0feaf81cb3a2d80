#!/usr/bin/env node
// The command line, `npx playwright-jsonrpc` (package.json "bin"): serve, stop, call, mcp. Each command's
// module is loaded only when it runs, so `call` does not load Playwright or the service.
import { EXIT_USAGE } from './call.js';
import { STATE_DIR_ENV } from './serviceRecord.js';
import { UsageError } from './serviceUrl.js';

const HELP = `Usage: playwright-jsonrpc <command> [options]

Commands:
  serve                   start the service (as npm start does); stops on SIGINT/SIGTERM and
                          when the process that started it exits
  serve --restart         stop the service running on PORT, then start a fresh one here (after
                          editing .env, playwright-jsonrpc.yaml or CONFIG_FILE, or rebuilding)
  stop                    stop the service running on PORT
  call METHOD [PARAMS]    call one JSON-RPC method of a running service, print the result as JSON
  mcp                     MCP over stdio: the service in this process, or bridged to a running
                          service's /mcp with --url or PLAYWRIGHT_JSONRPC_URL
  browser-server          a Playwright browser server with the service's flags, for BROWSER_ENDPOINTS

Run "playwright-jsonrpc <command> --help" for a command's options. Settings come from the
environment: API_KEY (the service key), PLAYWRIGHT_JSONRPC_URL (where call and mcp connect;
call's default http://127.0.0.1:3337), and for serve (and mcp without a URL) every variable of
docs/configuration.md.
`;

const SERVE_HELP = `Usage: playwright-jsonrpc serve [--restart] [--no-exit-with-parent]

Starts the service in this process, configured by the environment (PORT, HOST, API_KEY …; see
docs/configuration.md). With no API_KEY it generates one and prints it once on stderr.
SIGINT and SIGTERM close every session and the browser, then exit 0. While it listens it keeps a
record (pid, port, start; no key) in $${STATE_DIR_ENV} (default: a directory
playwright-jsonrpc-<uid> in the system's temporary directory), which --restart and stop read.

Options:
  --restart               first stop the service serve runs on the configured PORT (SIGTERM, then
                          wait until it has exited and the port is free), then start as usual,
                          with the configuration and code as they are now. No service recorded,
                          or its process gone: starts as usual and says so. A recorded pid that is
                          not that serve process is never signalled: exit 1, nothing started
  --no-exit-with-parent   keep running when the process that started this one exits (by default
                          the service stops then, within a second, so a killed npm, npx or shell
                          leaves no Chromium and no held port behind)
  -h, --help              this help

Exit codes: 1 start-up failed, or --restart refused or timed out; 2 configuration error;
3 no Chromium found.
`;

async function run(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return command === undefined ? EXIT_USAGE : 0;
    case 'serve': {
      if (wantsHelp) {
        process.stdout.write(SERVE_HELP);
        return 0;
      }
      const unknown = rest.filter((a) => a !== '--no-exit-with-parent' && a !== '--restart');
      if (unknown.length > 0) throw new UsageError(`serve takes no argument ${JSON.stringify(unknown[0])}`);
      const { serve } = await import('./serve.js');
      await serve({
        exitWithParent: !rest.includes('--no-exit-with-parent'),
        record: true,
        restart: rest.includes('--restart'),
      });
      // The service runs until a signal; its shutdown path sets the exit code.
      return undefined;
    }
    case 'stop': {
      const { runStop } = await import('./stop.js');
      return runStop(rest, process.stderr);
    }
    case 'call': {
      const { runCall } = await import('./call.js');
      return runCall(rest, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
      });
    }
    case 'mcp': {
      const { runMcpBridge } = await import('./mcpBridge.js');
      return runMcpBridge(rest, process.env);
    }
    case 'browser-server': {
      const { BROWSER_SERVER_HELP, runBrowserServer } = await import('./browserServer.js');
      if (wantsHelp) {
        process.stdout.write(BROWSER_SERVER_HELP);
        return 0;
      }
      return runBrowserServer(rest);
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command.slice(0, 40))}`);
  }
}

try {
  const code = await run(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
} catch (error) {
  // parseArgs throws TypeErrors with codes ERR_PARSE_ARGS_*: a usage error like ours.
  const usage =
    error instanceof UsageError ||
    (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
  if (!usage) throw error;
  process.stderr.write(`playwright-jsonrpc: ${error.message}\nRun "playwright-jsonrpc --help" for usage.\n`);
  process.exitCode = EXIT_USAGE;
}
