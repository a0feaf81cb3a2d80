// `playwright-jsonrpc mcp` with no service URL: the service (and its Chromium) starts in the command's
// own process and speaks MCP on stdio. Driven by the MCP SDK's Client over the child's pipes, as a
// stdio MCP client does; no API_KEY is set, since the in-process service makes its own. Closing
// stdin is how a client goes away: the process must then exit 0 by itself, leaving no Chromium.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { mcpStdioScenario } from '../helpers/stdioMcp.js';

/** The bin as npx runs it (node on the entry file), from source through tsx, as cli.test.ts does. */
const BIN = ['--import', 'tsx', 'src/cli/main.ts'];
/** Bound on the whole test: start-up, five calls and the exit, each bounded above. */
const TEST_TIMEOUT_MS = 120_000;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer();
});

afterAll(async () => {
  await fixtures?.close();
});

describe('playwright-jsonrpc mcp without a service URL', () => {
  it(
    'runs the service in process: core tools, a page read over stdio, a clean exit when stdin closes',
    async () => {
      // No API_KEY and no PLAYWRIGHT_JSONRPC_URL: nothing of a running service is needed.
      const child = spawn(process.execPath, [...BIN, 'mcp'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', CHROMIUM_PATH },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      await mcpStdioScenario(child, fixtures.url);
    },
    TEST_TIMEOUT_MS,
  );
});
