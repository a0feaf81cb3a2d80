// Real MCP clients against /mcp (issue 17, item 2): the MCP Inspector's CLI and mcp-remote (the
// stdio bridge) list the tools with the key, and end promptly with the service's own "API key"
// message without it or with a wrong one, instead of starting an OAuth sign-in (a 401 would send
// both looking for an authorization server; mcp-remote then waits for a browser forever). Each
// refusal is logged with its reason, path and address, and never with the key.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSET_KEY_PLACEHOLDER } from '../../src/http/auth.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const GOOD_KEY = 'mcp-clients-good-key-0123456789';
const WRONG_KEY = 'mcp-clients-WRONG-key-9876543210';
/**
 * Bound on one client run: long enough for a loaded CI machine, short enough that a client waiting
 * for an OAuth sign-in (which never comes) fails the test instead of hanging it.
 */
const CLIENT_BOUND_MS = 60_000;
const TEST_TIMEOUT_MS = 3 * CLIENT_BOUND_MS;

const require = createRequire(import.meta.url);
const repoTest = dirname(dirname(fileURLToPath(import.meta.url)));

/** A package's file, or undefined when the package is not installed. */
function packageFile(pkg: string, file: string): string | undefined {
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), file);
  } catch (error) {
    // Not installed: the tests that need it skip (or fail in CI) with what to install.
    if (error instanceof Error && 'code' in error && error.code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

const inspectorCli = packageFile('@modelcontextprotocol/inspector-cli', 'build/cli.js');
const mcpRemote = packageFile('mcp-remote', 'dist/proxy.js');
const inCi = process.env.CI === 'true';

/** it(), or a skip that says what to install; in CI a missing client fails instead. */
function withClient(path: string | undefined, install: string): typeof it | typeof it.skip {
  if (path !== undefined || inCi) return it;
  console.warn(`skipped: install ${install} (npm ci installs it as a devDependency)`);
  return it.skip;
}

function required(path: string | undefined, install: string): string {
  if (path === undefined) throw new Error(`${install} is not installed (npm ci installs it)`);
  return path;
}

let service: TestService;
let mcpUrl: string;
let home: string;

beforeAll(async () => {
  service = await startTestService({ API_KEY: GOOD_KEY });
  mcpUrl = `${service.url}/mcp`;
  // mcp-remote keeps its OAuth state under HOME (~/.mcp-auth): a directory of this run only.
  home = mkdtempSync(join(tmpdir(), 'mcp-clients-'));
});

afterAll(async () => {
  await service?.close();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in its own process group and ends it (the group: the Inspector's launcher starts a
 * second node) when it outlives CLIENT_BOUND_MS, failing with what it printed by then.
 */
function runBounded(args: string[], cwd: string): Promise<Run> {
  const child = spawn(process.execPath, args, {
    cwd,
    detached: true,
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`still running after ${CLIENT_BOUND_MS} ms; stderr: ${stderr.slice(-2000)}`));
    }, CLIENT_BOUND_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The service's log lines that report a refused key. */
function refusalLines(): Record<string, unknown>[] {
  return service.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('request refused'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function expectRefusalLogged(reason: 'missing' | 'invalid' | 'placeholder'): void {
  // A placeholder key (API_KEY never set in the client) is a 400: no status a client signs in on.
  const status = reason === 'placeholder' ? 400 : 403;
  expect(refusalLines()).toContainEqual(
    expect.objectContaining({ reason, path: '/mcp', status, address: expect.any(String) as unknown }),
  );
  expect(service.logs.join('')).not.toContain(WRONG_KEY);
  expect(service.logs.join('')).not.toContain(GOOD_KEY);
}

describe('MCP Inspector CLI (@modelcontextprotocol/inspector-cli)', () => {
  const install = '@modelcontextprotocol/inspector-cli 1.0.3';
  // 1.0.3 looks for its package.json from the working directory (modelcontextprotocol/inspector
  // #1503): it runs from a directory whose parent has one, as the docs say.
  const inspect = (headers: string[]): Promise<Run> =>
    runBounded(
      [
        required(inspectorCli, install),
        '--cli',
        mcpUrl,
        '--transport',
        'http',
        ...headers.flatMap((h) => ['--header', h]),
        '--method',
        'tools/list',
      ],
      repoTest,
    );

  withClient(inspectorCli, install)(
    'lists the tools with the key; a wrong or missing key ends it with the service message, no OAuth',
    async () => {
      const listed = await inspect([`x-api-key: ${GOOD_KEY}`]);
      expect(listed.code, listed.stderr).toBe(0);
      const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toContain('session_create');

      const wrong = await inspect([`x-api-key: ${WRONG_KEY}`]);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toContain('Invalid API key');
      expect(wrong.stderr).not.toMatch(/OAuth/i);
      expectRefusalLogged('invalid');

      const missing = await inspect([]);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('Missing API key');
      expect(missing.stderr).not.toMatch(/OAuth/i);
      expectRefusalLogged('missing');

      const unset = await inspect([`x-api-key: ${UNSET_KEY_PLACEHOLDER}`]);
      expect(unset.code).not.toBe(0);
      expect(unset.stderr).toContain('Set API_KEY in your environment');
      expect(unset.stderr).not.toMatch(/OAuth/i);
      expectRefusalLogged('placeholder');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('mcp-remote (stdio bridge)', () => {
  const install = 'mcp-remote 0.15.1';

  /** Connects the SDK's stdio client through mcp-remote; resolves with its stderr once it ends. */
  async function bridge(headerArgs: string[]): Promise<{ client: Client; transport: StdioClientTransport }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [required(mcpRemote, install), mcpUrl, ...headerArgs],
      env: { ...(process.env as Record<string, string>), HOME: home },
      stderr: 'pipe',
    });
    return { client: new Client({ name: 'mcp-clients-test', version: '1.0.0' }), transport };
  }

  function stderrOf(transport: StdioClientTransport): () => string {
    let text = '';
    transport.stderr?.on('data', (c: Buffer) => (text += c.toString('utf8')));
    return () => text;
  }

  withClient(mcpRemote, install)(
    'lists the tools with the key',
    async () => {
      const { client, transport } = await bridge(['--header', `x-api-key:${GOOD_KEY}`]);
      try {
        await client.connect(transport, { timeout: CLIENT_BOUND_MS });
        const { tools } = await client.listTools(undefined, { timeout: CLIENT_BOUND_MS });
        expect(tools.map((t) => t.name)).toContain('session_create');
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    ['a wrong key', ['--header', `x-api-key:${WRONG_KEY}`], 'Invalid API key', 'invalid'],
    ['no key', [], 'Missing API key', 'missing'],
    [
      'the .mcp.json default of an unset API_KEY',
      ['--header', `x-api-key:${UNSET_KEY_PLACEHOLDER}`],
      'Set API_KEY in your environment',
      'placeholder',
    ],
  ] as const)(
    'with %s, ends within the bound saying so, without waiting for a sign-in',
    async (_what, headerArgs, message, reason) => {
      if (mcpRemote === undefined && !inCi) {
        console.warn(`skipped: install ${install} (npm ci installs it as a devDependency)`);
        return;
      }
      const { client, transport } = await bridge([...headerArgs]);
      const stderr = stderrOf(transport);
      try {
        // The bridge exits, which closes the stdio connection: connect rejects, it does not hang.
        await expect(client.connect(transport, { timeout: CLIENT_BOUND_MS })).rejects.toThrow();
        expect(stderr()).toContain(message);
        expect(stderr()).not.toContain('Waiting for authorization');
        expect(stderr()).not.toContain('Authentication required');
        expectRefusalLogged(reason);
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
