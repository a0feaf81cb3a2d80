// This service over HTTP /rpc: spawned as a child process, called with keep-alive connections.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
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
import { ACTION_SELECTORS, DRAG, KEY, MOUSE_POINT, TYPE_TEXT, selectValue } from '../lib/acting.js';
import { sleep } from '../lib/stats.js';
import type { ActionKind, BenchSession, BenchSystem, FillStep, Target, TextRead } from './types.js';
import { CONFIG_KEYS } from '../../src/config/configKeys.js';

interface RpcResponse {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${code} ${message}`);
    this.name = 'RpcError';
  }
}

class StaleSocketError extends Error {
  constructor(cause: Error) {
    super(`stale keep-alive socket: ${cause.message}`, { cause });
    this.name = 'StaleSocketError';
  }
}

/** A minimal JSON-RPC client on node:http with a keep-alive agent (no per-call connection set-up). */
export class RpcClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private nextId = 1;

  constructor(
    private readonly port: number,
    private readonly apiKey: string,
    private readonly timeoutMs: number,
  ) {}

  /** Calls one method; returns the result and the size of the whole response body (what a caller reads). */
  async call(
    method: string,
    params: Record<string, unknown>,
  ): Promise<{ result: Record<string, unknown>; chars: number }> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    const text = await this.post('/rpc', body);
    const reply = JSON.parse(text) as RpcResponse;
    if (reply.error) throw new RpcError(method, reply.error.code, reply.error.message);
    if (!reply.result) throw new RpcError(method, 0, 'response without result');
    return { result: reply.result, chars: text.length };
  }

  /**
   * POST, retried once when a reused keep-alive socket turns out to have been closed by the server
   * (its keepAliveTimeout ran out while the socket sat idle): that request never reached it.
   */
  private async post(path: string, body: string): Promise<string> {
    try {
      return await this.postOnce(path, body);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.postOnce(path, body);
    }
  }

  private postOnce(path: string, body: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method: 'POST',
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-api-key': this.apiKey,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200)
              reject(new Error(`HTTP ${res.statusCode ?? '?'}: ${text.slice(0, 300)}`));
            else resolve(text);
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from ${path} within ${this.timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (req.reusedSocket && error.code === 'ECONNRESET') reject(new StaleSocketError(error));
        else reject(error);
      });
      req.end(body);
    });
  }

  /** GET (with the key); resolves with the status code and the body. */
  get(path: string): Promise<{ status: number; body: string }> {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method: 'GET',
          agent: this.agent,
          timeout: 5000,
          headers: { 'x-api-key': this.apiKey },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }

  destroy(): void {
    this.agent.destroy();
  }
}

function textResult(result: Record<string, unknown>, chars: number, probe: string | undefined): TextRead {
  const text = typeof result.text === 'string' ? result.text : '';
  return {
    textChars: text.length,
    responseChars: chars,
    contains: probe === undefined || text.includes(probe),
  };
}

/** page.snapshot's largest page (its maxChars bound): the whole snapshot of a fixture page in one answer. */
const WHOLE_SNAPSHOT_CHARS = 500_000;

/** The fields of a page.snapshot answer the benchmark reads. */
export interface SnapshotAnswer {
  snapshot: string;
  revision: number;
  /** Characters of the whole answer (every page of it). */
  length: number;
  cursor: string | null;
  since: number | null;
  changes: { added: number; removed: number; changed: number } | null;
  note: string | null;
  /** Characters of the whole JSON-RPC response that carried it. */
  responseChars: number;
}

const count = (o: object, key: string): number => {
  const v: unknown = Reflect.get(o, key);
  if (typeof v !== 'number') throw new Error(`page.snapshot: changes.${key} is not a number`);
  return v;
};

function snapshotAnswer(result: Record<string, unknown>, chars: number): SnapshotAnswer {
  const { snapshot, revision, length, cursor, since, changes, note } = result;
  if (typeof snapshot !== 'string' || typeof revision !== 'number')
    throw new Error('page.snapshot answered without snapshot or revision');
  // A whole answer leaves its length out: it is the snapshot's own.
  const whole = typeof length === 'number' ? length : snapshot.length;
  return {
    snapshot,
    revision,
    length: whole,
    cursor: typeof cursor === 'string' ? cursor : null,
    since: typeof since === 'number' ? since : null,
    changes:
      typeof changes === 'object' && changes !== null
        ? {
            added: count(changes, 'added'),
            removed: count(changes, 'removed'),
            changed: count(changes, 'changed'),
          }
        : null,
    note: typeof note === 'string' ? note : null,
    responseChars: chars,
  };
}

export class ServiceSession implements BenchSession {
  constructor(
    private readonly rpc: RpcClient,
    private readonly id: string,
  ) {}

  /** One call of this session (the task suite calls methods as an agent does). */
  call(method: string, params: Record<string, unknown> = {}) {
    return this.rpc.call(method, { session_id: this.id, ...params });
  }

  async goto(url: string, waitUntil: 'load' | 'networkidle'): Promise<void> {
    await this.call('page.goto', { url, waitUntil });
  }

  /** One network.route (the routes row of issue 14). */
  async route(params: Record<string, unknown>): Promise<void> {
    await this.call('network.route', params);
  }

  async gotoAndWaitForText(url: string, text: string): Promise<void> {
    await this.call('page.goto', { url, waitUntil: 'load' });
    // page.text waits for its selector to match: the service's way to wait for rendered text.
    await this.call('page.text', { selector: `text=${text}`, maxChars: 200 });
  }

  async readText(selector: string, probe?: string): Promise<TextRead> {
    const { result, chars } = await this.call('page.text', { selector, maxChars: 2_000_000 });
    return textResult(result, chars, probe);
  }

  async readPage(probe?: string): Promise<TextRead> {
    const { result, chars } = await this.call('page.text', {});
    return textResult(result, chars, probe);
  }

  /** One page.snapshot call, with maxChars at its bound so that the answer comes whole. */
  async snapshotAnswer(params: { interactive?: boolean; since?: number } = {}): Promise<SnapshotAnswer> {
    const { result, chars } = await this.call('page.snapshot', { ...params, maxChars: WHOLE_SNAPSHOT_CHARS });
    const answer = snapshotAnswer(result, chars);
    if (answer.cursor !== null)
      throw new Error(
        `page.snapshot: ${answer.length} chars do not fit in one answer of ${WHOLE_SNAPSHOT_CHARS}`,
      );
    return answer;
  }

  private async snapshotRead(interactive: boolean, probe: string | undefined): Promise<TextRead> {
    const answer = await this.snapshotAnswer({ interactive });
    return {
      textChars: answer.length,
      responseChars: answer.responseChars,
      contains: probe === undefined || answer.snapshot.includes(probe),
    };
  }

  async snapshot(probe?: string): Promise<TextRead> {
    return this.snapshotRead(false, probe);
  }

  async actionable(probe?: string): Promise<TextRead> {
    return this.snapshotRead(true, probe);
  }

  /** page.fill by a ref from the last page.snapshot. */
  async fillRef(ref: string, value: string): Promise<void> {
    await this.call('page.fill', { ref, value });
  }

  async prepare(_target: Target): Promise<void> {
    // Selectors need no preparation.
  }

  async click(target: Target): Promise<void> {
    await this.call('page.click', { selector: target.selector });
  }

  async fill(target: Target, value: string): Promise<void> {
    await this.call('page.fill', { selector: target.selector, value });
  }

  /** The method of each action (it settles and reports); an action that navigated is an error here. */
  async act(kind: ActionKind, i: number): Promise<void> {
    const [method, params] = actionCall(kind, i);
    const { result } = await this.call(method, params);
    // The report says navigated: true only when the action loaded a new document.
    if (result.navigated !== undefined)
      throw new Error(
        `${method} answered navigated: ${JSON.stringify(result.navigated)} (the row must not navigate)`,
      );
  }

  async fillsThenClick(fills: readonly FillStep[], click: string): Promise<void> {
    for (const { selector, value } of fills) await this.call('page.fill', { selector, value });
    await this.call('page.click', { selector: click });
  }

  async actBatch(fills: readonly FillStep[], click: string): Promise<void> {
    const steps = [
      ...fills.map(({ selector, value }) => ({ method: 'page.fill', params: { selector, value } })),
      { method: 'page.click', params: { selector: click } },
    ];
    const { result } = await this.call('page.act', { steps });
    const answered = Array.isArray(result.steps) ? result.steps.length : 0;
    if (result.ok !== true || answered !== steps.length)
      throw new Error(`page.act: ok ${String(result.ok)}, ${answered} of ${steps.length} steps answered`);
  }

  async screenshot(): Promise<number> {
    const { result } = await this.call('screenshot', {});
    const data = typeof result.base64 === 'string' ? result.base64 : '';
    return Math.floor((data.length * 3) / 4);
  }

  async close(): Promise<void> {
    await this.call('session.close');
  }
}

/** The service method and params of each action of the acting rows (the same as the floor's calls). */
function actionCall(kind: ActionKind, i: number): [string, Record<string, unknown>] {
  switch (kind) {
    case 'hover':
    case 'dblclick':
    case 'check':
    case 'focus':
    case 'scroll':
      return [`page.${kind}`, { selector: ACTION_SELECTORS[kind] }];
    case 'select':
      return ['page.select', { selector: ACTION_SELECTORS.select, values: [selectValue(i)] }];
    case 'type':
      return ['page.type', { selector: ACTION_SELECTORS.type, text: TYPE_TEXT }];
    case 'keyboard':
      return ['page.keyboard', { action: 'press', key: KEY }];
    case 'mouse':
      return ['page.mouse', { action: 'click', x: MOUSE_POINT.x, y: MOUSE_POINT.y }];
    case 'drag':
      return ['page.drag', { selector: DRAG.source, targetSelector: DRAG.target, steps: DRAG.steps }];
  }
}

export interface ServiceOptions {
  repoRoot: string;
  /** `built`: node dist/src/main.js (what npm start runs); `source`: src/main.ts through tsx. */
  entry: ServiceEntry;
  executablePath: string;
  timeoutMs: number;
  /** Extra environment for the child (MAX_SESSIONS etc. are set here and may be overridden). */
  env?: Record<string, string>;
}

export type ServiceEntry = 'built' | 'source';

/** quiesce: how often it reads /readyz, and how long it waits at most. */
const QUIESCE_POLL_MS = 50;
const QUIESCE_MAX_MS = 10_000;

export class ServiceSystem implements BenchSystem {
  readonly name = 'service';
  readonly unsupported = new Set<string>();
  private spawned: Spawned | undefined;
  private self: ProcInfo | undefined;
  private rpc: RpcClient | undefined;
  private roots: ProcInfo[] = [];
  private apiKey = '';
  port = 0;

  constructor(private readonly options: ServiceOptions) {}

  async start(): Promise<void> {
    this.port = await freePort();
    const apiKey = randomBytes(18).toString('base64url');
    this.apiKey = apiKey;
    const entry = this.options.entry === 'built' ? ['dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'];
    this.spawned = spawnLogged(process.execPath, entry, {
      cwd: this.options.repoRoot,
      env: {
        ...process.env,
        PORT: String(this.port),
        HOST: '127.0.0.1',
        API_KEY: apiKey,
        LOG_LEVEL: 'warn',
        MAX_SESSIONS: '40',
        RATE_LIMIT_MAX: '1000000',
        CHROMIUM_PATH: this.options.executablePath,
        CONFIG_FILE: '',
        ...this.options.env,
      },
    });
    this.self = readProc(this.spawned.pid);
    this.rpc = new RpcClient(this.port, apiKey, this.options.timeoutMs);
    const deadline = Date.now() + 90_000;
    let exited = false;
    void this.spawned.exited.then(() => {
      exited = true;
    });
    for (;;) {
      if (exited) throw new Error(`service exited during start-up:\n${this.spawned.tail()}`);
      if (Date.now() > deadline) throw new Error(`service not ready within 90 s:\n${this.spawned.tail()}`);
      const status = await this.rpc.get('/readyz').then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      await sleep(100);
    }
    this.roots = chromiumRoots(this.spawned.pid);
    if (this.roots.length === 0) throw new Error('service: ready, but no Chromium process found under it');
  }

  /**
   * Ready pooled contexts, as /readyz reports them; undefined when it did not say (a 503 while the
   * browser relaunches still carries the count; a body without one does not).
   */
  private async readyPool(): Promise<number | undefined> {
    if (!this.rpc) throw new Error('service not started');
    const { body } = await this.rpc.get('/readyz');
    try {
      const pool = (JSON.parse(body) as { pool?: unknown }).pool;
      return typeof pool === 'number' ? pool : undefined;
    } catch {
      // Not JSON: not quiet yet, as far as the bench can tell; the deadline bounds the wait.
      return undefined;
    }
  }

  /**
   * Until the pool holds POOL_SIZE ready contexts again (its refill has ended), at most
   * QUIESCE_MAX_MS: false when that passed first.
   */
  async quiesce(): Promise<boolean> {
    // As the service reads it: an empty value is unset.
    const size = Number(
      this.options.env?.POOL_SIZE || process.env.POOL_SIZE || CONFIG_KEYS.POOL_SIZE.default,
    );
    const deadline = Date.now() + QUIESCE_MAX_MS;
    for (;;) {
      const pool = await this.readyPool();
      if (pool !== undefined && pool >= size) return true;
      if (Date.now() >= deadline) return false;
      await sleep(QUIESCE_POLL_MS);
    }
  }

  /**
   * The tool list of /mcp as an MCP client is sent it (tools/list over the SDK client), with the
   * groups of `query` (`?groups=all`); '' is the default menu.
   */
  async mcpTools(query = ''): Promise<Tool[]> {
    if (!this.rpc) throw new Error('service not started');
    const client = new Client({ name: 'bench-menu', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(
      new URL(`http://127.0.0.1:${this.port}/mcp${query}`),
      {
        requestInit: { headers: { 'x-api-key': this.apiKey } },
      },
    );
    await client.connect(transport, { timeout: this.options.timeoutMs });
    try {
      return (await client.listTools(undefined, { timeout: this.options.timeoutMs })).tools;
    } finally {
      await client.close();
    }
  }

  async createSession(): Promise<ServiceSession> {
    if (!this.rpc) throw new Error('service not started');
    const { result } = await this.rpc.call('session.create', {});
    const id = result.session_id;
    if (typeof id !== 'string') throw new Error('session.create returned no session_id');
    return new ServiceSession(this.rpc, id);
  }

  /**
   * The sum of rpc_request_duration_seconds, over every method or only `method` (page.act's steps go
   * through the dispatcher too: counting them as well would count their time twice).
   */
  /** The /metrics text (the churn phase reads the pool's hits and misses from it). */
  async metricsText(): Promise<string> {
    if (!this.rpc) throw new Error('service not started');
    const { status, body } = await this.rpc.get('/metrics');
    if (status !== 200) throw new Error(`/metrics answered ${status}`);
    return body;
  }

  async serverClockMs(method?: string): Promise<number> {
    if (!this.rpc) throw new Error('service not started');
    const { status, body } = await this.rpc.get('/metrics');
    if (status !== 200) throw new Error(`/metrics answered ${status}`);
    let seconds = 0;
    for (const m of body.matchAll(/^rpc_request_duration_seconds_sum(\{[^}]*\})? ([0-9.eE+-]+)$/gm))
      if (method === undefined || (m[1] ?? '').includes(`method="${method}"`)) seconds += Number(m[2]);
    return seconds * 1000;
  }

  browserRoots(): number[] {
    // The service relaunches a crashed browser: look again rather than trust the start-up pid.
    if (this.spawned) this.roots = chromiumRoots(this.spawned.pid);
    return this.roots.map((p) => p.pid);
  }

  browserCommand(): string[] {
    const root = this.roots[0];
    return root ? cmdline(root.pid) : [];
  }

  async stop(): Promise<void> {
    this.rpc?.destroy();
    const spawned = this.spawned;
    this.spawned = undefined;
    if (spawned) await stopTree(spawned, 15_000);
    for (const root of this.roots) killTreeNow(root);
  }

  killNow(): void {
    for (const root of this.roots) killTreeNow(root);
    if (this.self) killTreeNow(this.self);
  }
}
