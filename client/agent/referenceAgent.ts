// A reference evaluation agent for the hub on /agents (seed 001's protocol).
//
//   HUB_URL=ws://127.0.0.1:3337/agents CLIENT_ID=$(uuidgen) AGENT_SECRET=… API_KEY=… \
//     npx tsx client/agent/referenceAgent.ts
//
// AGENT_SECRET (or SECRET_KEY, its older name) is the service's AGENT_SECRET, sent as secretKey: the
// hub refuses every register without it.
//
// It registers, signals ready, runs `evaluate` calls with its tools (echo, page_text), answers
// configure_llm, pings the hub, and reconnects with exponential backoff and full jitter.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import { BUILT_IN_TOOLS, ToolError, type Tool } from './tools.js';

/** First reconnect waits up to this long… */
const BACKOFF_BASE_MS = 500;
/** …doubling per failed attempt up to this cap (full jitter: a random wait in [0, cap]). */
const BACKOFF_MAX_MS = 30_000;
/** Seed 001: a ping every 30 s keeps the connection alive through proxies. */
const PING_INTERVAL_MS = 30_000;
/** No pong for this long after a ping: the connection is dead, reconnect. */
const PONG_TIMEOUT_MS = 10_000;
/** An evaluation without a timeout gets this long (seed 001's example). */
const DEFAULT_EVALUATION_TIMEOUT_MS = 30_000;
/** Finished results are kept this long, so an evaluation the hub re-sends after a reconnect is not run twice. */
const RESULT_MEMORY_MS = 120_000;
/** The hub's close code for a connection replaced by a newer one with the same clientId. */
export const CLOSE_REPLACED = 4000;

export interface ReferenceAgentOptions {
  /** ws://host:port/agents */
  hubUrl: string;
  /** A UUID; keep it across restarts so the hub recognises the agent. */
  clientId: string;
  /** The service's AGENT_SECRET, sent as secretKey; the hub refuses a register without it. */
  secretKey?: string | undefined;
  /** The browser service's /rpc for page_text; default: HUB_URL's host with http(s) and /rpc. */
  rpcUrl?: string | undefined;
  apiKey?: string | undefined;
  maxConcurrency?: number;
  version?: string;
  tools?: Record<string, Tool>;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface ReferenceAgentEvents {
  /** registration_ack accepted; evaluationsCount is what the hub will re-send. */
  registered: [evaluationsCount: number];
  /** registration_ack rejected: the agent stops (a wrong secret will not get better by retrying). */
  rejected: [reason: string];
  disconnected: [code: number];
  /** A newer connection with this clientId took over: this one stops instead of fighting it for the id. */
  replaced: [];
  /** An evaluate call was answered (status success or an error). */
  evaluated: [evaluationId: string, ok: boolean];
}

interface LlmConfig {
  provider: string;
  models: unknown;
  endpoint?: string;
  /** Kept for the tools that would call the provider; never logged. */
  apiKey?: string;
}

type Reply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** http(s)://host:port/rpc for ws(s)://host:port/agents. */
export function rpcUrlFor(hubUrl: string): string {
  const url = new URL(hubUrl);
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  url.pathname = '/rpc';
  url.search = '';
  return url.href;
}

export class ReferenceAgent extends EventEmitter<ReferenceAgentEvents> {
  private ws: WebSocket | undefined;
  private stopped = true;
  private attempt = 0;
  private accepted = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  /** Running or recently finished evaluations by JSON-RPC id. */
  private readonly results = new Map<string, { done: Reply | undefined }>();
  private readonly aborts = new Set<AbortController>();
  private readonly tools: Record<string, Tool>;
  private llm: LlmConfig | undefined;
  private readonly log: (line: string) => void;

  constructor(private readonly options: ReferenceAgentOptions) {
    super();
    this.tools = options.tools ?? BUILT_IN_TOOLS;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** Connected and accepted by the hub. */
  get registered(): boolean {
    return this.accepted;
  }

  /** The LLM settings configure_llm gave it (the key left out). */
  get llmConfig(): Omit<LlmConfig, 'apiKey'> | undefined {
    if (this.llm === undefined) return undefined;
    const { apiKey: _key, ...rest } = this.llm;
    return rest;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.stopHeartbeat();
    for (const abort of this.aborts) abort.abort();
    const ws = this.ws;
    this.ws = undefined;
    if (ws === undefined || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'agent stopping');
    });
  }

  private connect(): void {
    const ws = new WebSocket(this.options.hubUrl);
    this.ws = ws;
    this.attempt++;
    ws.on('message', (data, isBinary) => {
      if (isBinary) this.log('ignoring a binary frame: the protocol is JSON text');
      else this.onMessage(ws, rawText(data));
    });
    ws.on('pong', () => clearTimeout(this.pongTimer));
    ws.on('error', (error) => this.log(`hub connection error: ${error.message}`));
    ws.on('close', (code) => {
      if (this.ws !== ws) return;
      this.accepted = false;
      this.stopHeartbeat();
      this.emit('disconnected', code);
      if (code === CLOSE_REPLACED && !this.stopped) {
        this.log('replaced by a newer connection with the same CLIENT_ID; stopping');
        this.stopped = true;
        this.emit('replaced');
        return;
      }
      if (!this.stopped) this.scheduleReconnect();
    });
  }

  /** Exponential backoff with full jitter, so a fleet does not reconnect in lockstep. */
  private scheduleReconnect(): void {
    const base = this.options.backoffBaseMs ?? BACKOFF_BASE_MS;
    const cap = Math.min(this.options.backoffMaxMs ?? BACKOFF_MAX_MS, base * 2 ** Math.min(this.attempt, 20));
    const delay = Math.round(Math.random() * cap);
    this.log(`reconnecting in ${delay} ms (attempt ${this.attempt})`);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private startHeartbeat(ws: WebSocket): void {
    this.stopHeartbeat();
    this.pingTimer = setInterval(() => {
      this.send(ws, { type: 'ping', timestamp: new Date().toISOString() });
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => {
        this.log('no pong from the hub; reconnecting');
        ws.terminate();
      }, this.options.pongTimeoutMs ?? PONG_TIMEOUT_MS);
    }, this.options.pingIntervalMs ?? PING_INTERVAL_MS);
  }

  private stopHeartbeat(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  private send(ws: WebSocket, message: object): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }

  private onMessage(ws: WebSocket, text: string): void {
    let message: Record<string, unknown>;
    try {
      message = record(JSON.parse(text));
    } catch (error) {
      this.log(`ignoring a frame that is not JSON: ${(error as Error).message}`);
      return;
    }
    switch (message.type) {
      case 'welcome':
        this.send(ws, {
          type: 'register',
          clientId: this.options.clientId,
          ...(this.options.secretKey === undefined ? {} : { secretKey: this.options.secretKey }),
          capabilities: {
            tools: Object.keys(this.tools),
            maxConcurrency: this.options.maxConcurrency ?? 2,
            version: this.options.version ?? '1.0.0',
          },
        });
        return;
      case 'registration_ack':
        if (message.status === 'accepted') {
          this.attempt = 0;
          this.accepted = true;
          const count = typeof message.evaluationsCount === 'number' ? message.evaluationsCount : 0;
          this.log(`registered as ${this.options.clientId}; ${count} evaluation(s) to resume`);
          this.send(ws, { type: 'ready', timestamp: new Date().toISOString() });
          this.startHeartbeat(ws);
          this.emit('registered', count);
        } else {
          const reason = typeof message.reason === 'string' ? message.reason : 'rejected';
          this.log(`registration rejected: ${reason}`);
          this.stopped = true;
          this.emit('rejected', reason);
        }
        return;
      case 'pong':
        clearTimeout(this.pongTimer);
        return;
    }
    if (message.jsonrpc === '2.0' && typeof message.method === 'string') this.onRequest(ws, message);
  }

  private onRequest(ws: WebSocket, message: Record<string, unknown>): void {
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const params = record(message.params);
    // Answer on whatever connection is current when the reply is ready: after a reconnect, the new one.
    const answer = (r: Reply) => {
      const current = this.ws;
      if (current !== undefined) this.send(current, { jsonrpc: '2.0', id, ...r });
    };
    if (message.method === 'evaluate') {
      const key = String(id);
      // The hub re-sends what was in flight when the connection dropped: a run still going answers
      // when it ends; a finished one answers again now (its first answer may have been lost).
      const known = this.results.get(key);
      if (known !== undefined) {
        if (known.done !== undefined) answer(known.done);
        return;
      }
      const entry: { done: Reply | undefined } = { done: undefined };
      this.results.set(key, entry);
      void this.evaluate(ws, params).then((r) => {
        entry.done = r;
        setTimeout(() => this.results.delete(key), RESULT_MEMORY_MS).unref();
        answer(r);
      });
      return;
    }
    if (message.method === 'configure_llm') {
      answer(this.configureLlm(params));
      return;
    }
    answer({ error: { code: -32601, message: `Method not found: ${String(message.method)}` } });
  }

  private async evaluate(ws: WebSocket, params: Record<string, unknown>): Promise<Reply> {
    const evaluationId = typeof params.evaluationId === 'string' ? params.evaluationId : 'unnamed';
    const toolName = typeof params.tool === 'string' ? params.tool : '';
    const tool = this.tools[toolName];
    if (tool === undefined) {
      return { error: { code: -32004, message: `Invalid tool: ${toolName}`, data: { tool: toolName } } };
    }
    const timeoutMs = typeof params.timeout === 'number' ? params.timeout : DEFAULT_EVALUATION_TIMEOUT_MS;
    const abort = new AbortController();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    const started = Date.now();
    const status = (state: string, message: string) =>
      this.send(this.ws ?? ws, { type: 'status', evaluationId, status: state, message });
    status('running', `running ${toolName}`);
    try {
      const run = tool(params.input, {
        rpcUrl: this.options.rpcUrl ?? rpcUrlFor(this.options.hubUrl),
        apiKey: this.options.apiKey,
        url: typeof params.url === 'string' ? params.url : undefined,
        signal: abort.signal,
      });
      const aborted = new Promise<never>((_, reject) =>
        abort.signal.addEventListener(
          'abort',
          () => reject(new ToolError(-32001, `Timeout after ${timeoutMs} ms`)),
          {
            once: true,
          },
        ),
      );
      const output = await Promise.race([run, aborted]);
      const executionTime = Date.now() - started;
      status('completed', `${toolName} done`);
      this.emit('evaluated', evaluationId, true);
      return {
        result: {
          status: 'success',
          output,
          executionTime,
          toolCalls: [
            {
              tool: toolName,
              timestamp: new Date(started).toISOString(),
              duration: executionTime,
              status: 'success',
            },
          ],
          metadata: { agent: 'reference', version: this.options.version ?? '1.0.0' },
        },
      };
    } catch (error) {
      status('failed', `${toolName} failed`);
      this.emit('evaluated', evaluationId, false);
      const message = error instanceof Error ? error.message : String(error);
      return {
        error: {
          code: error instanceof ToolError ? error.code : -32000,
          message: error instanceof ToolError ? message : 'Tool execution failed',
          data: {
            tool: toolName,
            error: message,
            url: params.url,
            timestamp: new Date().toISOString(),
            ...(error instanceof ToolError ? error.data : {}),
          },
        },
      };
    } finally {
      clearTimeout(timer);
      this.aborts.delete(abort);
    }
  }

  /** Seed 000's configure_llm: keeps the settings; the key stays in memory only. */
  private configureLlm(params: Record<string, unknown>): Reply {
    const provider = params.provider;
    if (typeof provider !== 'string') {
      return { error: { code: -32602, message: 'configure_llm needs a provider' } };
    }
    const next: LlmConfig = {
      provider,
      models: params.models,
      ...(typeof params.endpoint === 'string' ? { endpoint: params.endpoint } : {}),
      ...(typeof params.apiKey === 'string' ? { apiKey: params.apiKey } : {}),
    };
    this.llm = params.partial === true && this.llm !== undefined ? { ...this.llm, ...next } : next;
    this.log(`LLM configured: provider ${provider}`);
    return {
      result: { status: 'success', message: 'LLM configuration applied', provider, models: params.models },
    };
  }
}

function main(): void {
  const env = process.env;
  const clientId = env.CLIENT_ID ?? randomUUID();
  if (env.CLIENT_ID === undefined)
    process.stderr.write(`CLIENT_ID not set; using ${clientId} for this run\n`);
  const maxConcurrency = env.MAX_CONCURRENCY === undefined ? undefined : Number(env.MAX_CONCURRENCY);
  if (maxConcurrency !== undefined && !(Number.isInteger(maxConcurrency) && maxConcurrency >= 1)) {
    process.stderr.write(`MAX_CONCURRENCY must be a whole number >= 1, got ${env.MAX_CONCURRENCY}\n`);
    process.exit(2);
  }
  const secretKey = env.AGENT_SECRET ?? env.SECRET_KEY;
  if (secretKey === undefined || secretKey === '') {
    process.stderr.write(
      "AGENT_SECRET not set: the hub refuses agents without its secret; set AGENT_SECRET to the service's\n",
    );
    process.exit(2);
  }
  const agent = new ReferenceAgent({
    hubUrl: env.HUB_URL ?? 'ws://127.0.0.1:3337/agents',
    clientId,
    secretKey,
    rpcUrl: env.RPC_URL,
    apiKey: env.API_KEY,
    maxConcurrency,
  });
  agent.on('rejected', () => {
    process.exitCode = 1;
    void agent.stop();
  });
  // Another process runs with this CLIENT_ID now; exiting (0) keeps a supervisor from restarting a duplicate.
  agent.on('replaced', () => void agent.stop());
  const stop = () => void agent.stop().then(() => process.exit(process.exitCode ?? 0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  agent.start();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
