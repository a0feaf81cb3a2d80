// The peer: @playwright/mcp in Streamable HTTP mode with --isolated, driven by the official MCP SDK client.
// A session is one MCP client connection (the server gives each connection its own browser context in
// one shared browser).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  chromiumRoots,
  cmdline,
  freePort,
  killTreeNow,
  readProc,
  spawnLogged,
  stopTree,
  type ProcInfo,
  type Spawned,
} from '../lib/proc.js';
import { ACTING_OP_IDS } from '../lib/results.js';
import { sleep, withTimeout } from '../lib/stats.js';
import { VIEWPORT } from './floor.js';
import type { BenchSession, BenchSystem, Target, TextRead } from './types.js';

const require = createRequire(import.meta.url);

/** Where the peer's CLI is, and its version and the Playwright it runs on. */
export function peerPackage(): { cli: string; version: string; playwright: string } {
  const pkgPath = require.resolve('@playwright/mcp/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    version?: string;
    dependencies?: Record<string, string>;
  };
  return {
    cli: path.join(path.dirname(pkgPath), 'cli.js'),
    version: pkg.version ?? 'unknown',
    playwright: pkg.dependencies?.['playwright-core'] ?? pkg.dependencies?.playwright ?? 'unknown',
  };
}

export interface ToolReply {
  /** The text parts, joined: what an agent reads. */
  text: string;
  /** Characters of every text part. */
  textChars: number;
  /** Bytes of every image part (decoded from base64). */
  imageBytes: number;
  /** How many image parts there were. */
  images: number;
  /** Characters of the JSON-RPC response message that carried the result (SSE framing not counted). */
  wireChars: number;
}

function parseReply(tool: string, result: unknown): ToolReply {
  const content: unknown =
    typeof result === 'object' && result !== null && 'content' in result ? result.content : [];
  const texts: string[] = [];
  let imageBytes = 0;
  let images = 0;
  if (Array.isArray(content)) {
    for (const part of content as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      const type = 'type' in part ? part.type : undefined;
      if (type === 'text' && 'text' in part && typeof part.text === 'string') texts.push(part.text);
      if (type === 'image' && 'data' in part && typeof part.data === 'string') {
        imageBytes += Math.floor((part.data.length * 3) / 4);
        images++;
      }
    }
  }
  const text = texts.join('\n');
  const isError =
    typeof result === 'object' && result !== null && 'isError' in result && result.isError === true;
  if (isError) throw new Error(`peer ${tool} failed: ${text.slice(0, 400)}`);
  const wireChars = JSON.stringify({ result, jsonrpc: '2.0', id: 1 }).length;
  return { text, textChars: text.length, imageBytes, images, wireChars };
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The ref of `role "name"` in a snapshot (`- button "New Project" [ref=e4]`). */
export function refFor(snapshot: string, target: Target): string | undefined {
  const re = new RegExp(
    `- ${escapeRegex(target.role)} "${escapeRegex(target.name)}"[^\\n]*?\\[ref=([^\\]]+)\\]`,
  );
  return re.exec(snapshot)?.[1];
}

export class PeerSession implements BenchSession {
  private lastSnapshot = '';

  constructor(
    private readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
    private readonly timeoutMs: number,
  ) {}

  async tool(name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: this.timeoutMs,
    });
    return parseReply(name, result);
  }

  async goto(url: string): Promise<void> {
    // browser_navigate has no waitUntil: it waits for load and its own settle (--timeout-settle, 500 ms).
    this.lastSnapshot = (await this.tool('browser_navigate', { url })).text;
  }

  async gotoAndWaitForText(url: string, text: string): Promise<void> {
    await this.goto(url);
    await this.tool('browser_wait_for', { text });
  }

  private snapshotRead(reply: ToolReply, probe: string | undefined): TextRead {
    this.lastSnapshot = reply.text;
    return {
      textChars: reply.textChars,
      responseChars: reply.wireChars,
      contains: probe === undefined || reply.text.includes(probe),
    };
  }

  async readText(selector: string, probe?: string): Promise<TextRead> {
    return this.snapshotRead(await this.tool('browser_snapshot', { target: selector }), probe);
  }

  async readPage(probe?: string): Promise<TextRead> {
    return this.snapshotRead(await this.tool('browser_snapshot'), probe);
  }

  async snapshot(probe?: string): Promise<TextRead> {
    return this.readPage(probe);
  }

  async actionable(probe?: string): Promise<TextRead> {
    // browser_snapshot has no interactive-only mode: "what can I do" is the whole snapshot.
    return this.readPage(probe);
  }

  async prepare(target: Target): Promise<void> {
    if (refFor(this.lastSnapshot, target) === undefined)
      this.lastSnapshot = (await this.tool('browser_snapshot')).text;
    if (refFor(this.lastSnapshot, target) === undefined)
      throw new Error(`peer: no ref for ${target.role} "${target.name}" in the snapshot`);
  }

  private ref(target: Target): { target: string; element: string } {
    const ref = refFor(this.lastSnapshot, target);
    if (ref === undefined)
      throw new Error(`peer: no ref for ${target.role} "${target.name}"; call prepare first`);
    return { target: ref, element: `${target.role} "${target.name}"` };
  }

  async click(target: Target): Promise<void> {
    await this.tool('browser_click', this.ref(target));
  }

  async fill(target: Target, value: string): Promise<void> {
    await this.tool('browser_type', { ...this.ref(target), text: value });
  }

  async screenshot(): Promise<number> {
    return (await this.tool('browser_take_screenshot', { type: 'png' })).imageBytes;
  }

  async close(): Promise<void> {
    try {
      await this.tool('browser_close');
      await this.transport.terminateSession();
    } finally {
      await this.client.close();
    }
  }
}

export interface PeerOptions {
  executablePath: string;
  args: string[];
  runningAsRoot: boolean;
  timeoutMs: number;
  repoRoot: string;
}

export class PeerSystem implements BenchSystem {
  readonly name = 'peer';
  /** browser_navigate has no waitUntil option; the peer reaches the XHR content only by waiting for text. */
  /** The acting rows (issue 11) are floor and service only: the peer's tools need a ref from a snapshot first. */
  readonly unsupported = new Set<string>(['goto.projects.networkidle', ...ACTING_OP_IDS]);
  private spawned: Spawned | undefined;
  private self: ProcInfo | undefined;
  private keeper: BenchSession | undefined;
  private roots: ProcInfo[] = [];
  private outDir: string | undefined;
  private clients = 0;
  port = 0;

  constructor(private readonly options: PeerOptions) {}

  async start(): Promise<void> {
    const pkg = peerPackage();
    this.port = await freePort();
    this.outDir = await mkdtemp(path.join(tmpdir(), 'bench-peer-'));
    // The CLI has no flag for extra Chromium arguments: the same launch flags go in through its config file.
    const configPath = path.join(this.outDir, 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({
        browser: {
          browserName: 'chromium',
          launchOptions: { args: this.options.args },
          contextOptions: { viewport: VIEWPORT },
        },
      }),
    );
    const args = [
      pkg.cli,
      '--port',
      String(this.port),
      '--host',
      '127.0.0.1',
      '--allowed-hosts',
      `127.0.0.1:${this.port}`,
      '--isolated',
      '--headless',
      '--executable-path',
      this.options.executablePath,
      '--config',
      configPath,
      '--output-dir',
      path.join(this.outDir, 'output'),
    ];
    if (this.options.runningAsRoot) args.push('--no-sandbox');
    this.spawned = spawnLogged(process.execPath, args, { cwd: this.outDir, env: { ...process.env } });
    this.self = readProc(this.spawned.pid);
    let exited = false;
    void this.spawned.exited.then(() => {
      exited = true;
    });
    const deadline = Date.now() + 60_000;
    // The keeper connection launches the shared browser and holds it for the whole run: with --isolated
    // the peer closes its browser when its last client leaves, and the floor and the service keep theirs.
    for (;;) {
      if (exited) throw new Error(`peer exited during start-up:\n${this.spawned.tail()}`);
      if (Date.now() > deadline) throw new Error(`peer not answering within 60 s:\n${this.spawned.tail()}`);
      try {
        this.keeper = await withTimeout(this.createSession({ open: true }), 60_000, 'peer keeper session');
        break;
      } catch (error) {
        if (!/ECONNREFUSED|fetch failed/i.test(String(error)) && !(error instanceof TypeError)) throw error;
        await sleep(200);
      }
    }
    this.roots = chromiumRoots(this.spawned.pid);
    if (this.roots.length === 0) throw new Error('peer: connected, but no Chromium process found under it');
  }

  async createSession(options: { open?: boolean } = {}): Promise<PeerSession> {
    const client = new Client({ name: `bench-peer-${++this.clients}`, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${this.port}/mcp`));
    await client.connect(transport, { timeout: this.options.timeoutMs });
    const session = new PeerSession(client, transport, this.options.timeoutMs);
    try {
      // The context opens on the first tool call; about:blank makes create comparable to context+page.
      if (options.open !== false) await session.goto('about:blank');
    } catch (error) {
      await client.close();
      throw error;
    }
    return session;
  }

  /** The peer's tool list as an MCP client is sent it (tools/list on a connection of its own, no tool called). */
  async listTools(): Promise<Tool[]> {
    const client = new Client({ name: `bench-peer-${++this.clients}`, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${this.port}/mcp`));
    await client.connect(transport, { timeout: this.options.timeoutMs });
    try {
      return (await client.listTools(undefined, { timeout: this.options.timeoutMs })).tools;
    } finally {
      try {
        await transport.terminateSession();
      } finally {
        await client.close();
      }
    }
  }

  /** The peer's working directory, its workspace root: the only files its tools may read. */
  workspace(): string {
    if (this.outDir === undefined) throw new Error('peer not started');
    return this.outDir;
  }

  browserRoots(): number[] {
    if (this.spawned) this.roots = chromiumRoots(this.spawned.pid);
    return this.roots.map((p) => p.pid);
  }

  browserCommand(): string[] {
    const root = this.roots[0];
    return root ? cmdline(root.pid) : [];
  }

  async stop(): Promise<void> {
    const keeper = this.keeper;
    this.keeper = undefined;
    if (keeper) {
      await withTimeout(keeper.close(), 10_000, 'peer keeper close').catch((error: unknown) => {
        process.stderr.write(`peer: keeper close failed (${String(error)})\n`);
      });
    }
    const spawned = this.spawned;
    this.spawned = undefined;
    if (spawned) await stopTree(spawned, 15_000);
    for (const root of this.roots) killTreeNow(root);
    if (this.outDir) await rm(this.outDir, { recursive: true, force: true });
  }

  killNow(): void {
    for (const root of this.roots) killTreeNow(root);
    if (this.self) killTreeNow(this.self);
  }
}
