// The command line (`npx playwright-jsonrpc`, package.json "bin") as a process, against the real
// service and the fixture app: `call` (results on stdout, JSON-RPC errors on stderr with exit code
// 1, usage errors 2, an unreachable service 3), every --help, and `mcp` through the MCP SDK's own
// StdioClientTransport, the way a stdio-only MCP client starts it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, TEST_API_KEY, waitFor, type TestService } from '../helpers/testService.js';

/** The bin as npx runs it (node on the entry file), from source through tsx: same code as the build. */
const BIN = ['--import', 'tsx', 'src/cli/main.ts'];
/** Bound on one CLI run: a call on loopback answers in well under this. */
const RUN_TIMEOUT_MS = 60_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`playwright-jsonrpc ${args.join(' ')} did not exit within ${RUN_TIMEOUT_MS} ms`));
    }, RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

let service: TestService;
let fixtures: FixtureServer;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startTestService();
  fixtures = await startFixtureServer();
  env = { API_KEY: TEST_API_KEY, PLAYWRIGHT_JSONRPC_URL: service.url };
});

afterAll(async () => {
  await fixtures?.close();
  await service?.close();
});

describe('playwright-jsonrpc call', () => {
  it('creates a session, navigates, reads the text (params on stdin) and closes it', async () => {
    const created = await cli(['call', 'session.create'], env);
    expect(created.code, created.stderr).toBe(0);
    const { session_id } = JSON.parse(created.stdout) as { session_id: string };
    expect(session_id).toMatch(/^s_/);
    try {
      const goto = await cli(
        ['call', 'page.goto', JSON.stringify({ session_id, url: `${fixtures.url}/projects` })],
        env,
      );
      expect(goto.code, goto.stderr).toBe(0);
      expect(JSON.parse(goto.stdout)).toMatchObject({ url: `${fixtures.url}/projects` });

      const text = await cli(
        ['call', 'page.text', '-'],
        env,
        JSON.stringify({ session_id, selector: 'main' }),
      );
      expect(text.code, text.stderr).toBe(0);
      expect((JSON.parse(text.stdout) as { text: string }).text).toContain('New Project');

      const plain = await cli(['call', 'page.text', '-', '--text'], env, JSON.stringify({ session_id }));
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toContain('Projects');
      expect(plain.stdout.trimStart().startsWith('{')).toBe(false);
    } finally {
      const closed = await cli(['call', 'session.close', JSON.stringify({ session_id }), '--compact'], env);
      expect(closed.code, closed.stderr).toBe(0);
      expect(closed.stdout.trim().split('\n')).toHaveLength(1);
    }
    expect(await service.call('session.list')).toMatchObject({ sessions: [] });
  });

  it('--url wins over PLAYWRIGHT_JSONRPC_URL and takes the /rpc endpoint too', async () => {
    const run = await cli(['call', 'session.list', '--url', `${service.url}/rpc`], {
      API_KEY: TEST_API_KEY,
      PLAYWRIGHT_JSONRPC_URL: 'http://127.0.0.1:9/',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty('sessions');
  });

  it('a wrong key exits 1 with the UNAUTHORIZED error on stderr and never prints the key', async () => {
    const wrong = 'wrong-key-shown-nowhere-42';
    const run = await cli(['call', 'session.list'], { ...env, API_KEY: wrong });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const error = JSON.parse(run.stderr) as { code: number; message: string };
    expect(error.code).toBe(-32002);
    expect(error.message).toMatch(/key/i);
    expect(run.stderr + run.stdout).not.toContain(wrong);
  });

  it('no key at all exits 1 and says to set API_KEY', async () => {
    const run = await cli(['call', 'session.list'], { PLAYWRIGHT_JSONRPC_URL: service.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('-32002');
    expect(run.stderr).toContain('set API_KEY');
  });

  it('an unknown method exits 1 with -32601 on stderr', async () => {
    const run = await cli(['call', 'page.nope'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const error = JSON.parse(run.stderr) as { code: number; message: string };
    expect(error.code).toBe(-32601);
    expect(error.message).toContain('page.nope');
  });

  it('invalid params exit 1 with -32602 and the expected params', async () => {
    const run = await cli(['call', 'session.list', '{"bogus":1}'], env);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stderr) as { code: number }).code).toBe(-32602);
  });

  it('bad command lines exit 2 and never echo params that may hold secrets', async () => {
    const notJson = await cli(['call', 'page.fill', '{"value":"hunter2-secret"'], env);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('not valid JSON');
    expect(notJson.stderr).not.toContain('hunter2');
    const scalar = await cli(['call', 'session.list', '42'], env);
    expect(scalar.code).toBe(2);
    expect((await cli(['call'], env)).code).toBe(2);
    expect((await cli(['call', 'session.list', '--timeout', 'soon'], env)).code).toBe(2);
    expect((await cli(['call', 'session.list', '--nope'], env)).code).toBe(2);
    expect((await cli(['frobnicate'], env)).code).toBe(2);
    for (const url of ['ftp://127.0.0.1/', 'http://user:pw-secret@127.0.0.1:9/', 'not a url pw-secret']) {
      const badUrl = await cli(['call', 'session.list', '--url', url], env);
      expect(badUrl.code, url).toBe(2);
      expect(badUrl.stderr).not.toContain('pw-secret');
    }
  });

  it('a service that cannot be reached exits 3 without printing the URL query', async () => {
    // Port 9 (discard) on loopback: nothing listens there on these machines.
    const run = await cli(['call', 'session.list', '--url', 'http://127.0.0.1:9/?token=q-secret'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('cannot reach http://127.0.0.1:9/rpc');
    expect(run.stderr).not.toMatch(/pw-secret|q-secret/);
  });

  it('--help of the CLI and of each command exits 0 and shows its usage', async () => {
    const top = await cli(['--help'], {});
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: playwright-jsonrpc <command>');
    for (const command of ['serve', 'stop', 'call', 'mcp']) {
      const run = await cli([command, '--help'], {});
      expect(run.code, command).toBe(0);
      expect(run.stdout).toContain(`Usage: playwright-jsonrpc ${command}`);
    }
    const bare = await cli([], {});
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Commands:');
  });

  it('package.json "bin" is the build of this entry point, which starts with a node shebang', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin['playwright-jsonrpc']).toBe('dist/src/cli/main.js');
    expect(readFileSync('src/cli/main.ts', 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});

describe('playwright-jsonrpc mcp (stdio)', () => {
  it('an MCP client over stdio lists the tools and calls them through the service', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('session_create');
      expect(names).toContain('page_goto');
      // Every tool the service's /mcp lists (unconfigured ones are hidden there), none of its own.
      expect(names.every((n) => /^[A-Za-z0-9_-]+$/.test(n))).toBe(true);
      const created = await client.callTool({ name: 'session_create', arguments: {} });
      expect(created.isError).toBeFalsy();
      const content = created.content as { type: string; text: string }[];
      const session_id = /"session_id":"(s_[^"]+)"/.exec(content.map((c) => c.text).join(''))?.[1];
      expect(session_id).toBeDefined();
      const goto = await client.callTool({
        name: 'page_goto',
        arguments: { session_id, url: `${fixtures.url}/projects` },
      });
      expect(goto.isError).toBeFalsy();
      const closed = await client.callTool({ name: 'session_close', arguments: { session_id } });
      expect(closed.isError).toBeFalsy();
      // A failed call is the service's isError result, passed on as it is.
      const failed = await client.callTool({ name: 'page_text', arguments: { session_id } });
      expect(failed.isError).toBe(true);
      expect(JSON.stringify(failed.content)).toContain('-32010');
    } finally {
      await client.close();
    }
  });

  it('--groups lists those groups; tools_enable adds one and its list_changed reaches the stdio client', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...BIN, 'mcp', '--groups', 'network'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-groups-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed += 1;
      });
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      expect(await names()).toEqual(
        expect.arrayContaining(['session_create', 'network_route', 'tools_enable']),
      );
      expect(await names()).not.toContain('cookies_get');
      const enabled = await client.callTool({ name: 'tools_enable', arguments: { group: 'storage' } });
      expect(enabled.isError).toBeFalsy();
      await waitFor(() => changed === 1, 10_000, 'notifications/tools/list_changed through the bridge');
      expect(await names()).toContain('cookies_get');
    } finally {
      await client.close();
    }
  });

  it('--groups with a group the service does not have is a usage error', async () => {
    const run = await cli(['mcp', '--groups', 'network,bogus'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--groups: unknown group "bogus"');
  });

  it('a wrong key stops the bridge at start with exit code 3 and a plain message', async () => {
    const run = await cli(['mcp'], { ...env, API_KEY: 'wrong-bridge-key-99' });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/refused the API key \(HTTP 40[13]\)/);
    expect(run.stderr).not.toContain('wrong-bridge-key-99');
  });

  it('an unreachable service stops the bridge with exit code 3', async () => {
    const run = await cli(['mcp', '--url', 'http://127.0.0.1:9'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('cannot reach the service at http://127.0.0.1:9/mcp');
  });
});
