// The agent hub: real `ws` agents on /agents, callers on /rpc (agents.*), the reference agent end to end.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer, type ClientOptions } from 'ws';
import { ReferenceAgent } from '../../client/agent/referenceAgent.js';
import {
  AgentBusyError,
  AgentCallError,
  AgentNotFoundError,
  AgentUnavailableError,
  EvaluationTimeoutError,
  UnknownToolError,
  errorCodeOf,
} from '../../src/hub/hubErrors.js';
import { CdpUnavailableError, TabNotFoundError } from '../../src/cdp/cdpErrors.js';
import {
  AgentRegistry,
  CLOSE_REPLACED,
  NO_SECRET_REASON,
  type AgentLink,
} from '../../src/hub/agentRegistry.js';
import { READY_BEFORE_REGISTER } from '../../src/hub/agentConnection.js';
import { EvaluationLog } from '../../src/hub/evaluationLog.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { mapError } from '../../src/errors/mapError.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import {
  TEST_API_KEY,
  startTestService,
  waitFor,
  type JsonRpcReply,
  type TestService,
} from '../helpers/testService.js';
import { Inbox } from '../helpers/inbox.js';

// Secrets that must pass through to agents and never reach a log line or evaluations.jsonl.
const SECRET = 'hub-secret-5f1c0a9e7d2b4c6a';
const WRONG_SECRET = 'wrong-secret-8e2d4b6f0a1c3e5d';
const MODEL_KEY = 'sk-model-key-3b7e9d1f5a2c4e6b';
const LLM_KEY = 'sk-llm-key-9c2e4a6b8d0f1a3c';

const MAX_PAYLOAD = 65_536;
const GRACE_MS = 2000;
const QUEUE_MS = 2000;
const ALLOWED_ORIGIN = 'http://allowed.test:8080';

type Msg = Record<string, unknown>;

let service: TestService;
let fixture: FixtureServer;
let logDir: string;
const open: TestAgent[] = [];
let toolSeq = 0;

/** A tool name no other test's agent offers, so routing without clientId is deterministic. */
function uniqueTool(): string {
  return `tool_${++toolSeq}_${randomUUID().slice(0, 6)}`;
}

function hubUrl(): string {
  return `${service.url.replace(/^http/, 'ws')}/agents`;
}

/** A raw `ws` agent that records every message and lets the test take them in order. */
class TestAgent {
  private readonly inbox = new Inbox<Msg>();
  readonly closed: Promise<{ code: number; reason: string }>;
  clientId: string = randomUUID();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => this.inbox.push(JSON.parse(data.toString('utf8')) as Msg));
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
  }

  /** Every message received, taken or not. */
  get received(): Msg[] {
    return this.inbox.received;
  }

  static async connect(options: ClientOptions = {}): Promise<TestAgent> {
    const ws = new WebSocket(hubUrl(), options);
    const agent = new TestAgent(ws);
    open.push(agent);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return agent;
  }

  /** The first message not taken yet that matches, waiting for it with a deadline. */
  next(match: (m: Msg) => boolean, what: string, timeoutMs = 10_000): Promise<Msg> {
    return this.inbox.next(match, what, timeoutMs);
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  async register(
    options: { tools?: string[]; maxConcurrency?: number; secretKey?: string | null; clientId?: string } = {},
  ): Promise<Msg> {
    if (options.clientId !== undefined) this.clientId = options.clientId;
    await this.next((m) => m.type === 'welcome', 'welcome');
    const secretKey = options.secretKey === undefined ? SECRET : options.secretKey;
    this.send({
      type: 'register',
      clientId: this.clientId,
      ...(secretKey === null ? {} : { secretKey }),
      capabilities: {
        tools: options.tools ?? ['echo'],
        maxConcurrency: options.maxConcurrency ?? 1,
        version: 'test-1.0.0',
      },
    });
    return this.next((m) => m.type === 'registration_ack', 'registration_ack');
  }

  ready(): void {
    this.send({ type: 'ready', timestamp: new Date().toISOString() });
  }

  evaluation(what = 'an evaluate request'): Promise<Msg> {
    return this.next((m) => m.method === 'evaluate', what);
  }

  reply(request: Msg, result: unknown): void {
    this.send({ jsonrpc: '2.0', id: request.id, result });
  }
}

async function listAgents(): Promise<Msg[]> {
  const { agents } = await service.call<{ agents: Msg[] }>('agents.list');
  return agents;
}

async function readyAgent(
  options: { tools?: string[]; maxConcurrency?: number; clientId?: string } = {},
): Promise<TestAgent> {
  const agent = await TestAgent.connect();
  const ack = await agent.register(options);
  expect(ack).toMatchObject({ type: 'registration_ack', status: 'accepted', clientId: agent.clientId });
  agent.ready();
  await waitFor(
    async () => (await listAgents()).some((a) => a.clientId === agent.clientId && a.status === 'ready'),
    10_000,
    `agent ${agent.clientId} to be ready`,
  );
  return agent;
}

function evaluate(params: Record<string, unknown>): Promise<JsonRpcReply> {
  return service.rpc('agents.evaluate', params);
}

function evaluationLogLines(): Msg[] {
  const path = join(logDir, 'evaluations.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Msg);
}

async function loggedEvaluation(evaluationId: string): Promise<Msg> {
  let found: Msg | undefined;
  await waitFor(
    () => {
      found = evaluationLogLines().find((l) => l.evaluationId === evaluationId);
      return found !== undefined;
    },
    10_000,
    `evaluation ${evaluationId} in evaluations.jsonl`,
  );
  if (found === undefined) throw new Error('unreachable');
  return found;
}

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'hub-logs-'));
  fixture = await startFixtureServer();
  service = await startTestService({
    LOG_DIR: logDir,
    AGENT_SECRET: SECRET,
    AGENT_PING_INTERVAL_MS: '200',
    AGENT_CONNECTION_TIMEOUT_MS: '3000',
    AGENT_RECONNECT_GRACE_MS: String(GRACE_MS),
    AGENT_QUEUE_TIMEOUT_MS: String(QUEUE_MS),
    AGENT_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD),
    AGENT_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
  });
});

afterEach(async () => {
  const closing = open.splice(0);
  for (const agent of closing) if (agent.ws.readyState === WebSocket.OPEN) agent.ws.close();
  await Promise.all(closing.map((a) => a.closed));
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
});

describe('registration', () => {
  it('greets with welcome, accepts a register with the secret, and lists the agent as connected then ready', async () => {
    const agent = await TestAgent.connect();
    const ack = await agent.register({ tools: ['echo', 'extract'], maxConcurrency: 3 });
    const welcome = agent.received[0];
    expect(welcome).toMatchObject({ type: 'welcome', version: '1.0.0' });
    expect(typeof welcome?.serverId).toBe('string');
    expect(typeof welcome?.timestamp).toBe('string');
    expect(ack).toEqual({
      type: 'registration_ack',
      clientId: agent.clientId,
      status: 'accepted',
      message: 'Client registered successfully',
      evaluationsCount: 0,
    });
    await waitFor(
      async () => (await listAgents()).some((a) => a.clientId === agent.clientId),
      5000,
      'the agent in agents.list',
    );
    const listed = (await listAgents()).find((a) => a.clientId === agent.clientId);
    expect(listed).toMatchObject({
      status: 'connected',
      capabilities: { tools: ['echo', 'extract'], maxConcurrency: 3, version: 'test-1.0.0' },
      inFlight: 0,
      remoteAddress: expect.stringContaining('127.0.0.1') as unknown,
      lastStatus: null,
    });
    expect(Number.isNaN(Date.parse(String(listed?.connectedAt)))).toBe(false);
    agent.ready();
    await waitFor(
      async () => (await listAgents()).some((a) => a.clientId === agent.clientId && a.status === 'ready'),
      5000,
      'status ready',
    );
  });

  it('rejects a wrong or missing secret key, a clientId that is not a UUID, and malformed messages', async () => {
    const wrong = await TestAgent.connect();
    expect(await wrong.register({ secretKey: WRONG_SECRET })).toMatchObject({
      status: 'rejected',
      reason: 'Invalid secret key',
    });
    expect((await wrong.closed).code).toBe(1008);

    const missing = await TestAgent.connect();
    expect(await missing.register({ secretKey: null })).toMatchObject({
      status: 'rejected',
      reason: 'Missing secret key',
    });

    const badId = await TestAgent.connect();
    const ack = await badId.register({ clientId: 'agent-7' });
    expect(ack).toMatchObject({ status: 'rejected', clientId: 'agent-7' });
    expect(String(ack.reason)).toMatch(/UUID/);

    const notJson = await TestAgent.connect();
    await notJson.next((m) => m.type === 'welcome', 'welcome');
    notJson.ws.send('hello, hub');
    const notJsonAck = await notJson.next((m) => m.type === 'registration_ack', 'ack');
    expect(notJsonAck).toMatchObject({ status: 'rejected', clientId: null });
    expect(String(notJsonAck.reason)).toMatch(/Malformed message/);
    expect((await notJson.closed).code).toBe(1008);

    const noCaps = await TestAgent.connect();
    await noCaps.next((m) => m.type === 'welcome', 'welcome');
    noCaps.send({ type: 'register', clientId: randomUUID(), secretKey: SECRET });
    const noCapsAck = await noCaps.next((m) => m.type === 'registration_ack', 'ack');
    expect(noCapsAck.status).toBe('rejected');
    expect(String(noCapsAck.reason)).toMatch(/Malformed register message.*capabilities/);

    const listed = (await listAgents()).map((a) => a.clientId);
    for (const agent of [wrong, missing, noCaps]) expect(listed).not.toContain(agent.clientId);
  });

  it('answers ping with pong', async () => {
    const agent = await TestAgent.connect();
    await agent.next((m) => m.type === 'welcome', 'welcome');
    agent.send({ type: 'ping', timestamp: new Date().toISOString() });
    const pong = await agent.next((m) => m.type === 'pong', 'pong');
    expect(Number.isNaN(Date.parse(String(pong.timestamp)))).toBe(false);
  });

  it('answers a malformed ready of a registered agent (-32600, id null), keeps it connected and not ready', async () => {
    const agent = await TestAgent.connect();
    expect(await agent.register()).toMatchObject({ status: 'accepted' });
    agent.send({ type: 'ready', timestamp: 5 });
    const answer = await agent.next(
      (m) => m.jsonrpc === '2.0' && m.id === null,
      'the malformed ready’s error',
    );
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: expect.stringMatching(/^Malformed ready message: .*timestamp/) as unknown,
        data: { type: 'ready' },
      },
    });
    expect(agent.ws.readyState).toBe(WebSocket.OPEN);
    expect((await listAgents()).find((a) => a.clientId === agent.clientId)?.status).toBe('connected');

    // A well-formed ready afterwards is taken, and answered by nothing: frames are answered in order,
    // so an error for it would arrive before the pong of the ping sent after it.
    agent.ready();
    agent.send({ type: 'ping', timestamp: new Date().toISOString() });
    await agent.next((m) => m.type === 'pong', 'pong');
    expect(agent.received.filter((m) => 'error' in m)).toHaveLength(1);
    await waitFor(
      async () => (await listAgents()).some((a) => a.clientId === agent.clientId && a.status === 'ready'),
      10_000,
      'status ready after a well-formed ready',
    );
  });

  it('answers a ready before register (-32600) and still accepts the register that follows', async () => {
    const agent = await TestAgent.connect();
    agent.ready();
    const answer = await agent.next((m) => m.id === null && 'error' in m, 'the early ready’s error');
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: READY_BEFORE_REGISTER, data: { type: 'ready' } },
    });
    expect(await agent.register()).toMatchObject({ status: 'accepted', clientId: agent.clientId });
  });

  it('after registration other malformed messages are answered too; a malformed JSON-RPC response is not', async () => {
    const agent = await TestAgent.connect();
    expect(await agent.register()).toMatchObject({ status: 'accepted' });
    agent.send({ type: 'status', progress: 2 });
    const status = await agent.next((m) => m.id === null && 'error' in m, 'the malformed status’s error');
    expect(status).toMatchObject({ error: { code: -32600, data: { type: 'status' } } });
    agent.ws.send('hello, hub');
    const notJson = await agent.next((m) => m.id === null && 'error' in m, 'the non-JSON frame’s error');
    expect(notJson).toMatchObject({
      error: { code: -32700, message: /not valid JSON/, data: { type: null } },
    });
    agent.ws.send(Buffer.from('{"type":"ready"}'), { binary: true });
    const binary = await agent.next((m) => m.id === null && 'error' in m, 'the binary frame’s error');
    expect(binary).toMatchObject({ error: { code: -32600, message: /binary frames/, data: { type: null } } });

    // Negative: a JSON-RPC response (an id of an object is no valid one) is never answered.
    agent.send({ jsonrpc: '2.0', id: { x: 1 }, result: 1 });
    agent.send({ type: 'ping', timestamp: new Date().toISOString() });
    await agent.next((m) => m.type === 'pong', 'pong');
    expect(agent.received.filter((m) => 'error' in m)).toHaveLength(3);
    expect(agent.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('refuses a handshake with a browser Origin (403) unless AGENT_ALLOWED_ORIGINS lists it', async () => {
    const refused = await TestAgent.connect({ origin: 'http://127.0.0.1:9999' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/403/);
    const allowed = await TestAgent.connect({ origin: ALLOWED_ORIGIN });
    await allowed.next((m) => m.type === 'welcome', 'welcome');
  });

  it("refuses a page loaded by the service's own Chromium", async () => {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    try {
      await service.call('page.goto', { session_id, url: `${fixture.url}/projects` });
      const before = (await listAgents()).length;
      const { result } = await service.call<{ result: string }>('page.evaluate', {
        session_id,
        expression: `(hub) => new Promise((resolve) => {
          const ws = new WebSocket(hub);
          ws.onopen = () => resolve('open');
          ws.onerror = () => resolve('error');
        })`,
        arg: hubUrl(),
      });
      // The service's own port is refused to every page (docs/security.md, "The service's own
      // ports"), so the handshake never reaches the hub; were it to, the Origin check refuses it.
      expect(result).toBe('error');
      expect((await listAgents()).length).toBe(before);
    } finally {
      await service.call('session.close', { session_id });
    }
  });

  it('closes a connection that sends a frame over AGENT_MAX_PAYLOAD_BYTES with 1009', async () => {
    const agent = await TestAgent.connect();
    await agent.next((m) => m.type === 'welcome', 'welcome');
    agent.send({ type: 'status', status: 'running', message: 'x'.repeat(MAX_PAYLOAD + 1024) });
    expect((await agent.closed).code).toBe(1009);
  });

  it('cuts a connection that stops answering pings (heartbeat) and drops it from agents.list', async () => {
    const agent = await TestAgent.connect({ autoPong: false });
    await agent.register();
    agent.ready();
    await waitFor(
      async () => (await listAgents()).some((a) => a.clientId === agent.clientId),
      5000,
      'the agent listed',
    );
    // From here the agent sends nothing and answers no ping.
    const closed = await agent.closed;
    expect(closed.code).toBe(1006);
    await waitFor(
      async () => !(await listAgents()).some((a) => a.clientId === agent.clientId),
      5000,
      'the agent gone from agents.list',
    );
  });
});

describe('agents.evaluate', () => {
  it('round trip: the seed evaluate request reaches the agent and its result comes back; logged and counted', async () => {
    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool] });
    const evaluationId = `eval-${randomUUID()}`;
    const call = evaluate({
      tool,
      input: { schema: { type: 'object' } },
      url: 'https://example.test/page',
      name: 'round trip',
      evaluationId,
      timeout: 20_000,
      metadata: { tags: ['t'] },
    });
    const request = await agent.evaluation();
    expect(request).toMatchObject({
      jsonrpc: '2.0',
      method: 'evaluate',
      params: {
        evaluationId,
        name: 'round trip',
        url: 'https://example.test/page',
        tool,
        input: { schema: { type: 'object' } },
        timeout: 20_000,
        metadata: { tags: ['t'] },
      },
    });
    expect(typeof request.id).toBe('string');
    agent.send({ type: 'status', evaluationId, status: 'running', progress: 0.5, message: 'halfway' });
    await waitFor(
      async () => {
        const listed = (await listAgents()).find((a) => a.clientId === agent.clientId);
        return (listed?.lastStatus as Msg | null)?.progress === 0.5;
      },
      5000,
      'the status update in agents.list',
    );
    const listed = (await listAgents()).find((a) => a.clientId === agent.clientId);
    expect(listed).toMatchObject({ status: 'busy', inFlight: 1 });
    expect(listed?.lastStatus).toMatchObject({ evaluationId, status: 'running', message: 'halfway' });
    const result = {
      status: 'success',
      output: { title: 'Example' },
      executionTime: 12,
      toolCalls: [{ tool, timestamp: new Date().toISOString(), duration: 10, status: 'success' }],
      metadata: { retryCount: 0 },
    };
    agent.reply(request, result);
    const reply = await call;
    expect(reply.error).toBeUndefined();
    expect(reply.result).toEqual({ ...result, evaluationId, clientId: agent.clientId });

    const line = await loggedEvaluation(evaluationId);
    expect(line).toMatchObject({
      evaluationId,
      clientId: agent.clientId,
      tool,
      status: 'success',
      errorCode: null,
      outputSize: JSON.stringify(result.output).length,
    });
    expect(typeof line.duration).toBe('number');
    expect(Number.isNaN(Date.parse(String(line.started)))).toBe(false);

    const metrics = await fetch(`${service.url}/metrics`, { headers: { 'x-api-key': TEST_API_KEY } });
    const text = await metrics.text();
    expect(text).toMatch(/agent_evaluations_total\{status="success"\} [1-9]/);
    expect(text).toMatch(/agents_connected [1-9]/);
  });

  it('AGENT_NOT_FOUND for an unknown or not-ready clientId or no agent; UNKNOWN_TOOL for a tool not offered', async () => {
    const nobody = await evaluate({ tool: uniqueTool(), input: {} });
    expect(nobody.error?.code).toBe(-32012);
    const unknownId = await evaluate({ clientId: randomUUID(), tool: 'echo', input: {} });
    expect(unknownId.error?.code).toBe(-32012);

    const notReady = await TestAgent.connect();
    await notReady.register({ tools: ['echo'] });
    const early = await evaluate({ clientId: notReady.clientId, tool: 'echo', input: {} });
    expect(early.error?.code).toBe(-32012);
    expect(early.error?.message).toMatch(/not sent ready/);

    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool] });
    const wrongTool = await evaluate({ clientId: agent.clientId, tool: 'no_such_tool', input: {} });
    expect(wrongTool.error?.code).toBe(-32004);
    expect(wrongTool.error?.data).toMatchObject({ tool: 'no_such_tool', tools: [tool] });
    const anyWrongTool = await evaluate({ tool: 'no_such_tool', input: {} });
    expect(anyWrongTool.error?.code).toBe(-32004);
    expect(agent.received.some((m) => m.method === 'evaluate')).toBe(false);
  });

  it('spreads concurrent evaluations over several agents offering the tool', async () => {
    const tool = uniqueTool();
    const a = await readyAgent({ tools: [tool], maxConcurrency: 1 });
    const b = await readyAgent({ tools: [tool], maxConcurrency: 1 });
    const c = await readyAgent({ tools: ['other'], maxConcurrency: 5 });
    const calls = [1, 2].map((i) => evaluate({ tool, input: { i }, timeout: 20_000 }));
    const [ea, eb] = await Promise.all([a.evaluation(), b.evaluation()]);
    if (ea === undefined || eb === undefined) throw new Error('unreachable');
    a.reply(ea, { status: 'success', output: 'from a' });
    b.reply(eb, { status: 'success', output: 'from b' });
    const results = await Promise.all(calls);
    const by = new Map(results.map((r) => [r.result?.clientId, r.result?.output]));
    expect(by.get(a.clientId)).toBe('from a');
    expect(by.get(b.clientId)).toBe('from b');
    expect(c.received.some((m) => m.method === 'evaluate')).toBe(false);
  });

  it('honours maxConcurrency: a second call queues, gets the slot when it frees, or LIMIT_REACHED past the queue wait', async () => {
    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool], maxConcurrency: 1 });
    const first = evaluate({ clientId: agent.clientId, tool, input: 1, timeout: 30_000 });
    const e1 = await agent.evaluation('the first evaluation');

    const refused = await evaluate({ clientId: agent.clientId, tool, input: 2 });
    expect(refused.error?.code).toBe(-32003);
    expect(refused.error?.data).toMatchObject({ limit: 'maxConcurrency', clientId: agent.clientId });
    expect(refused.error?.data?.retryAfterMs).toBeGreaterThan(0);

    const queuedLines = () =>
      service.logs.filter((l) => l.includes('evaluation waits for a free agent slot') && l.includes(tool))
        .length;
    const third = evaluate({ clientId: agent.clientId, tool, input: 3, timeout: 30_000 });
    await waitFor(() => queuedLines() === 2, 5000, 'the third call to queue');
    expect(agent.received.filter((m) => m.method === 'evaluate')).toHaveLength(1);
    agent.reply(e1, { status: 'success', output: 'one' });
    const e3 = await agent.evaluation('the queued evaluation');
    expect((e3.params as Msg).input).toBe(3);
    agent.reply(e3, { status: 'success', output: 'three' });
    expect((await first).result?.output).toBe('one');
    expect((await third).result?.output).toBe('three');
  });

  it('TIMEOUT when the agent does not answer in time; a late answer is ignored', async () => {
    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool] });
    const evaluationId = `eval-timeout-${randomUUID()}`;
    const call = evaluate({ clientId: agent.clientId, tool, input: {}, timeout: 200, evaluationId });
    const request = await agent.evaluation();
    expect((request.params as Msg).timeout).toBe(200);
    const reply = await call;
    expect(reply.error?.code).toBe(-32001);
    expect(reply.error?.data).toMatchObject({ clientId: agent.clientId, evaluationId, timeoutMs: 200 });
    expect(await loggedEvaluation(evaluationId)).toMatchObject({ status: 'timeout', errorCode: -32001 });
    agent.reply(request, { status: 'success', output: 'too late' });
    // The slot came back: the agent takes the next evaluation.
    const next = evaluate({ clientId: agent.clientId, tool, input: {}, timeout: 20_000 });
    const e2 = await agent.evaluation('the next evaluation');
    agent.reply(e2, { status: 'success', output: 'on time' });
    expect((await next).result?.output).toBe('on time');
  });

  it("passes the agent's error through with its code and data", async () => {
    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool] });
    const evaluationId = `eval-error-${randomUUID()}`;
    const call = evaluate({ clientId: agent.clientId, tool, input: {}, evaluationId });
    const request = await agent.evaluation();
    agent.send({
      jsonrpc: '2.0',
      id: request.id,
      error: {
        code: -32000,
        message: 'Tool execution failed',
        data: { tool, error: 'Page load timeout after 30000ms', url: 'https://example.test/' },
      },
    });
    const reply = await call;
    expect(reply.error).toMatchObject({
      code: -32000,
      message: 'Tool execution failed',
      data: {
        tool,
        error: 'Page load timeout after 30000ms',
        url: 'https://example.test/',
        clientId: agent.clientId,
        evaluationId,
      },
    });
    expect(await loggedEvaluation(evaluationId)).toMatchObject({ status: 'error', errorCode: -32000 });

    const second = evaluate({ clientId: agent.clientId, tool, input: {} });
    const r2 = await agent.evaluation('the second evaluation');
    agent.send({
      jsonrpc: '2.0',
      id: r2.id,
      error: { code: -32003, message: 'Rate limit exceeded', data: 7 },
    });
    expect((await second).error).toMatchObject({
      code: -32003,
      message: 'Rate limit exceeded',
      data: { agentData: 7 },
    });
  });

  it('re-sends an evaluation in flight to its agent when it re-registers within the grace period', async () => {
    const tool = uniqueTool();
    const first = await readyAgent({ tools: [tool] });
    const evaluationId = `eval-resend-${randomUUID()}`;
    const call = evaluate({ clientId: first.clientId, tool, input: { n: 1 }, evaluationId, timeout: 30_000 });
    const original = await first.evaluation();
    first.ws.terminate();
    await first.closed;

    const back = await TestAgent.connect();
    const ack = await back.register({ tools: [tool], clientId: first.clientId });
    expect(ack).toMatchObject({ status: 'accepted', evaluationsCount: 1 });
    expect(back.received.some((m) => m.method === 'evaluate')).toBe(false);
    back.ready();
    const resent = await back.evaluation('the re-sent evaluation');
    expect(resent.id).toBe(original.id);
    expect(resent.params).toMatchObject({ evaluationId, tool, input: { n: 1 } });
    expect((resent.params as Msg).timeout).toBeLessThanOrEqual(30_000);
    back.reply(resent, { status: 'success', output: 'after reconnect' });
    const reply = await call;
    expect(reply.result).toMatchObject({ output: 'after reconnect', clientId: first.clientId, evaluationId });
  });

  it('RESOURCE_UNAVAILABLE when the agent drops mid-evaluation and does not come back within the grace', async () => {
    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool] });
    const evaluationId = `eval-gone-${randomUUID()}`;
    const call = evaluate({ clientId: agent.clientId, tool, input: {}, evaluationId, timeout: 30_000 });
    await agent.evaluation();
    agent.ws.terminate();
    const reply = await call;
    expect(reply.error?.code).toBe(-32005);
    expect(reply.error?.data).toMatchObject({ clientId: agent.clientId, evaluationId });
    expect(reply.error?.message).toMatch(/did not come back within 2000 ms/);
    expect(await loggedEvaluation(evaluationId)).toMatchObject({ status: 'unavailable', errorCode: -32005 });
  });

  it('a newcomer with the same clientId and the secret replaces the old connection; a wrong secret never does', async () => {
    const tool = uniqueTool();
    const old = await readyAgent({ tools: [tool] });

    const intruder = await TestAgent.connect();
    expect(
      await intruder.register({ clientId: old.clientId, secretKey: WRONG_SECRET, tools: [tool] }),
    ).toMatchObject({
      status: 'rejected',
    });
    expect(old.ws.readyState).toBe(WebSocket.OPEN);

    const fresh = await TestAgent.connect();
    expect(await fresh.register({ clientId: old.clientId, tools: [tool, 'extra'] })).toMatchObject({
      status: 'accepted',
    });
    const closed = await old.closed;
    expect(closed.code).toBe(CLOSE_REPLACED);
    fresh.ready();
    await waitFor(
      async () => {
        const mine = (await listAgents()).filter((a) => a.clientId === old.clientId);
        return mine.length === 1 && mine[0]?.status === 'ready';
      },
      5000,
      'one ready entry for the clientId',
    );
    const call = evaluate({ clientId: old.clientId, tool: 'extra', input: 'x' });
    const request = await fresh.evaluation();
    fresh.reply(request, { status: 'success', output: 'fresh' });
    expect((await call).result?.output).toBe('fresh');
  });
});

describe('only agents that proved the secret', () => {
  it('a rogue without the secret gets no evaluation, and cannot take over the clientId of an agent that dropped mid-evaluation', async () => {
    const tool = uniqueTool();
    const real = await readyAgent({ tools: [tool] });
    const rogues = await Promise.all([TestAgent.connect(), TestAgent.connect()]);
    const [noKey, guessed] = rogues;
    if (noKey === undefined || guessed === undefined) throw new Error('unreachable');
    expect(await noKey.register({ tools: [tool], maxConcurrency: 100, secretKey: null })).toMatchObject({
      status: 'rejected',
    });
    expect(await guessed.register({ tools: [tool], maxConcurrency: 100, secretKey: 'guess' })).toMatchObject({
      status: 'rejected',
    });
    const model = { main_model: { provider: 'openai', model: 'gpt-4', api_key: MODEL_KEY } };
    const evaluationId = `eval-takeover-${randomUUID()}`;
    const call = evaluate({ tool, input: {}, model, evaluationId, timeout: 30_000 });
    const original = await real.evaluation();
    expect((original.params as Msg).model).toEqual(model);
    real.ws.terminate();
    await real.closed;

    const intruder = await TestAgent.connect();
    expect(
      await intruder.register({ clientId: real.clientId, secretKey: WRONG_SECRET, tools: [tool] }),
    ).toMatchObject({ status: 'rejected' });
    expect((await intruder.closed).code).toBe(1008);
    const back = await TestAgent.connect();
    expect(await back.register({ clientId: real.clientId, tools: [tool] })).toMatchObject({
      status: 'accepted',
      evaluationsCount: 1,
    });
    back.ready();
    const resent = await back.evaluation('the re-sent evaluation');
    back.reply(resent, { status: 'success', output: 'genuine' });
    expect((await call).result).toMatchObject({ output: 'genuine', clientId: real.clientId });
    for (const rogue of [noKey, guessed, intruder])
      expect(rogue.received.some((m) => m.method === 'evaluate')).toBe(false);
  });
});

describe('agents.configureLLM and secrets', () => {
  it('forwards configure_llm and returns the agent answer', async () => {
    const agent = await readyAgent({ tools: [uniqueTool()] });
    const call = service.rpc('agents.configureLLM', {
      clientId: agent.clientId,
      provider: 'litellm',
      apiKey: LLM_KEY,
      endpoint: 'http://127.0.0.1:4000',
      models: { main: 'big', mini: 'small' },
    });
    const request = await agent.next((m) => m.method === 'configure_llm', 'configure_llm');
    expect(request.params).toEqual({
      provider: 'litellm',
      apiKey: LLM_KEY,
      endpoint: 'http://127.0.0.1:4000',
      models: { main: 'big', mini: 'small' },
      partial: false,
    });
    agent.send({ jsonrpc: '2.0', id: request.id, result: { status: 'success', message: 'configured' } });
    expect((await call).result).toEqual({ status: 'success', message: 'configured' });
    const missing = await service.rpc('agents.configureLLM', {
      clientId: randomUUID(),
      provider: 'openai',
      apiKey: LLM_KEY,
      models: { main: 'm' },
    });
    expect(missing.error?.code).toBe(-32012);
  });

  it('keeps the configuration per clientId: an agent that reconnects gets it again, a partial one merged in', async () => {
    const agent = await readyAgent({ tools: [uniqueTool()] });
    const configure = async (params: Record<string, unknown>) => {
      const call = service.rpc('agents.configureLLM', { clientId: agent.clientId, ...params });
      const request = await agent.next((m) => m.method === 'configure_llm', 'configure_llm');
      agent.send({ jsonrpc: '2.0', id: request.id, result: { status: 'success' } });
      expect((await call).error).toBeUndefined();
    };
    await configure({
      provider: 'litellm',
      apiKey: LLM_KEY,
      endpoint: 'http://127.0.0.1:4000',
      models: { main: 'big', mini: 'small' },
    });
    await configure({
      provider: 'litellm',
      apiKey: LLM_KEY,
      models: { main: 'big', nano: 'tiny' },
      partial: true,
    });
    // The connection drops; the same clientId comes back on a new one.
    agent.ws.close();
    await agent.closed;
    const again = await TestAgent.connect();
    again.clientId = agent.clientId;
    expect(await again.register({})).toMatchObject({ status: 'accepted', clientId: agent.clientId });
    again.ready();
    const resent = await again.next((m) => m.method === 'configure_llm', 'configure_llm sent again');
    // The whole configuration: the endpoint of the first, the models of both.
    expect(resent.params).toEqual({
      provider: 'litellm',
      apiKey: LLM_KEY,
      endpoint: 'http://127.0.0.1:4000',
      models: { main: 'big', mini: 'small', nano: 'tiny' },
      partial: false,
    });
    again.send({ jsonrpc: '2.0', id: resent.id, result: { status: 'success' } });
    // An agent never configured gets none when it is ready.
    const fresh = await readyAgent({ tools: [uniqueTool()] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fresh.received.filter((m) => m.method === 'configure_llm')).toEqual([]);
  });

  it('never writes the secret key, model api_keys or the configureLLM apiKey to a log or evaluations.jsonl', async () => {
    const tool = uniqueTool();
    const agent = await readyAgent({ tools: [tool] });
    const evaluationId = `eval-secrets-${randomUUID()}`;
    const model = {
      main_model: { provider: 'openai', model: 'gpt-4', api_key: MODEL_KEY },
      mini_model: { provider: 'openai', model: 'gpt-4-mini', api_key: MODEL_KEY },
      nano_model: { provider: 'groq', model: 'llama', api_key: MODEL_KEY },
    };
    const call = evaluate({ tool, input: { message: 'hi' }, model, evaluationId });
    const request = await agent.evaluation();
    expect((request.params as Msg).model).toEqual(model);
    agent.send({
      jsonrpc: '2.0',
      id: request.id,
      error: { code: -32000, message: 'failed', data: { tool } },
    });
    await call;
    const configure = service.rpc('agents.configureLLM', {
      clientId: agent.clientId,
      provider: 'openai',
      apiKey: LLM_KEY,
      models: { main: 'gpt-4' },
    });
    const cfg = await agent.next((m) => m.method === 'configure_llm', 'configure_llm');
    agent.send({ jsonrpc: '2.0', id: cfg.id, result: { status: 'success' } });
    await configure;
    const intruder = await TestAgent.connect();
    await intruder.register({ secretKey: WRONG_SECRET });
    await loggedEvaluation(evaluationId);

    const logs = service.logs.join('');
    const jsonl = readFileSync(join(logDir, 'evaluations.jsonl'), 'utf8');
    expect(logs).toContain(evaluationId);
    for (const secret of [SECRET, WRONG_SECRET, MODEL_KEY, LLM_KEY]) {
      expect(logs).not.toContain(secret);
      expect(jsonl).not.toContain(secret);
    }

    // And pino itself blanks them wherever a hub object would carry them.
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    logger.info({ secretKey: SECRET, message: { secretKey: SECRET } }, 'register');
    logger.info({ params: { model }, evaluate: { params: { model } } }, 'evaluate');
    logger.info({ params: { apiKey: LLM_KEY }, request: { params: { apiKey: LLM_KEY } } }, 'configure_llm');
    const written = lines.join('');
    expect(written).toContain('[redacted]');
    for (const secret of [SECRET, MODEL_KEY, LLM_KEY]) expect(written).not.toContain(secret);
  });

  it('tabs.* answer RESOURCE_UNAVAILABLE with a clear message when CDP_URL is not set', async () => {
    const reply = await service.rpc('tabs.list', {});
    expect(reply.error?.code).toBe(-32005);
    expect(reply.error?.message).toMatch(/CDP_URL/);
  });
});

describe('the reference agent (client/agent)', () => {
  it('registers, runs echo and page_text against the fixture app, answers configure_llm, and stops when displaced', async () => {
    const clientId = randomUUID();
    const agent = new ReferenceAgent({
      hubUrl: hubUrl(),
      clientId,
      secretKey: SECRET,
      apiKey: TEST_API_KEY,
      backoffBaseMs: 50,
      backoffMaxMs: 200,
      log: () => undefined,
    });
    let registrations = 0;
    let replaced = false;
    agent.on('registered', () => registrations++);
    agent.on('replaced', () => (replaced = true));
    agent.start();
    try {
      await waitFor(
        async () => (await listAgents()).some((a) => a.clientId === clientId && a.status === 'ready'),
        10_000,
        'the reference agent to be ready',
      );
      const echo = await service.call<Msg>('agents.evaluate', {
        clientId,
        tool: 'echo',
        input: { hello: 'hub' },
      });
      expect(echo).toMatchObject({ status: 'success', output: { hello: 'hub' }, clientId });
      expect(echo.toolCalls).toEqual([expect.objectContaining({ tool: 'echo', status: 'success' })]);

      const page = await service.call<Msg>('agents.evaluate', {
        clientId,
        tool: 'page_text',
        url: `${fixture.url}/projects`,
        input: { selector: 'main' },
        timeout: 45_000,
      });
      expect(page.status).toBe('success');
      expect(page.output).toMatchObject({ title: 'Projects', truncated: false });
      expect(String((page.output as Msg).text)).toContain('Apollo');
      const { sessions } = await service.call<{ sessions: unknown[] }>('session.list');
      expect(sessions).toEqual([]);

      const configured = await service.call<Msg>('agents.configureLLM', {
        clientId,
        provider: 'groq',
        apiKey: LLM_KEY,
        models: { main: 'llama-3.1-8b-instant' },
      });
      expect(configured).toMatchObject({ status: 'success', provider: 'groq' });
      expect(agent.llmConfig).toEqual({ provider: 'groq', models: { main: 'llama-3.1-8b-instant' } });

      const failing = await service.rpc('agents.evaluate', { clientId, tool: 'page_text', input: {} });
      expect(failing.error?.code).toBe(-32602);

      // A newer connection with the same clientId and secret takes over: the agent stops, no flapping.
      const displacer = await TestAgent.connect();
      expect(await displacer.register({ clientId, tools: ['only_the_displacer'] })).toMatchObject({
        status: 'accepted',
      });
      await waitFor(() => replaced, 10_000, 'the reference agent to learn it was replaced');
      expect(registrations).toBe(1);
      expect(displacer.ws.readyState).toBe(WebSocket.OPEN);
      const mine = (await listAgents()).filter((a) => a.clientId === clientId);
      expect(mine.map((a) => (a.capabilities as Msg).tools)).toEqual([['only_the_displacer']]);
    } finally {
      await agent.stop();
    }
  });
});

describe('the reference agent against a hub that drops it', () => {
  it('reconnects with backoff, re-registers with its clientId, and answers a re-sent evaluation from the same run', async () => {
    const hub = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(hub, 'listening');
    const { port } = hub.address() as AddressInfo;
    const registers: Msg[] = [];
    const replies: Msg[] = [];
    const connections: WebSocket[] = [];
    hub.on('connection', (ws) => {
      connections.push(ws);
      const send = (m: unknown) => ws.send(JSON.stringify(m));
      send({ type: 'welcome', serverId: 'fake', version: '1.0.0', timestamp: new Date().toISOString() });
      ws.on('message', (data: Buffer) => {
        const m = JSON.parse(data.toString('utf8')) as Msg;
        if (m.type === 'register') {
          registers.push(m);
          send({ type: 'registration_ack', clientId: m.clientId, status: 'accepted', evaluationsCount: 0 });
        } else if (m.type === 'ready') {
          // Every connection gets the same call: the second one is the hub's re-send after the drop.
          send({
            jsonrpc: '2.0',
            method: 'evaluate',
            id: 'e-1',
            params: { evaluationId: 'e-1', tool: 'slow', input: 'x' },
          });
        } else if (m.jsonrpc === '2.0') replies.push({ ...m, connection: connections.indexOf(ws) });
      });
    });
    let runs = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const clientId = randomUUID();
    const agent = new ReferenceAgent({
      hubUrl: `ws://127.0.0.1:${port}/agents`,
      clientId,
      backoffBaseMs: 20,
      backoffMaxMs: 100,
      tools: {
        slow: async () => {
          runs++;
          await released;
          return 'slow done';
        },
      },
      log: () => undefined,
    });
    agent.start();
    try {
      await waitFor(() => runs === 1, 10_000, 'the first run of the tool');
      connections[0]?.terminate();
      await waitFor(() => registers.length === 2, 10_000, 'the agent to reconnect and register again');
      expect(registers.map((r) => r.clientId)).toEqual([clientId, clientId]);
      await waitFor(() => connections.length === 2, 10_000, 'the second connection');
      release();
      await waitFor(() => replies.length >= 1, 10_000, 'the answer');
      expect(runs).toBe(1);
      expect(replies).toEqual([
        expect.objectContaining({
          id: 'e-1',
          connection: 1,
          result: expect.objectContaining({ output: 'slow done' }) as unknown,
        }),
      ]);
    } finally {
      await agent.stop();
      for (const ws of connections) ws.terminate();
      await new Promise<void>((resolve) => hub.close(() => resolve()));
    }
  });
});

describe('AgentRegistry (domain)', () => {
  class FakeLink implements AgentLink {
    readonly sent: Msg[] = [];
    closedWith: number | undefined;
    readonly remoteAddress = '127.0.0.1';
    send(message: object): void {
      this.sent.push(message as Msg);
    }
    close(code: number): void {
      this.closedWith = code;
    }
  }

  /** A registry with the hub secret, or (null) one started without any. */
  function registry(dir: string, agentSecret: string | null = SECRET): AgentRegistry {
    const logger = createLogger('silent');
    return new AgentRegistry(
      { agentSecret: agentSecret ?? undefined, reconnectGraceMs: 60_000, queueTimeoutMs: 0 },
      new EvaluationLog(join(dir, 'domain', 'evaluations.jsonl'), logger),
      logger,
    );
  }

  const capabilities = { tools: ['echo'], maxConcurrency: 1, version: '1' };

  it('without a secret the hub refuses every registration, with or without a key, saying why', async () => {
    const reg = registry(logDir, null);
    const rogue = new FakeLink();
    for (const secretKey of [undefined, 'any-key', '']) {
      const outcome = reg.register(rogue, {
        clientId: randomUUID(),
        secretKey,
        capabilities: { tools: ['echo'], maxConcurrency: 100, version: '1' },
      });
      expect(outcome).toEqual({ accepted: false, reason: NO_SECRET_REASON });
    }
    expect(NO_SECRET_REASON).toMatch(/AGENT_SECRET/);
    expect(reg.ready(rogue)).toBe(false);
    expect(reg.list().agents).toEqual([]);
    await expect(
      reg.evaluate({
        principal: 'key:test',
        tool: 'echo',
        input: {},
        timeout: 1000,
        model: { main_model: { api_key: MODEL_KEY } },
      }),
    ).rejects.toBeInstanceOf(AgentNotFoundError);
    expect(rogue.sent).toEqual([]);
    reg.close();
  });

  it('only the secret takes a clientId over: a newcomer with another key or none never does', () => {
    const reg = registry(logDir);
    const clientId = randomUUID();
    const first = new FakeLink();
    expect(reg.register(first, { clientId, secretKey: SECRET, capabilities }).accepted).toBe(true);
    const other = new FakeLink();
    expect(reg.register(other, { clientId, secretKey: WRONG_SECRET, capabilities })).toMatchObject({
      accepted: false,
    });
    expect(reg.register(new FakeLink(), { clientId, secretKey: undefined, capabilities }).accepted).toBe(
      false,
    );
    expect(first.closedWith).toBeUndefined();
    const same = new FakeLink();
    expect(reg.register(same, { clientId, secretKey: SECRET, capabilities })).toMatchObject({
      accepted: true,
      replaced: true,
    });
    expect(first.closedWith).toBe(CLOSE_REPLACED);
    expect(reg.list().agents).toHaveLength(1);
    reg.close();
  });

  it('LIMIT_REACHED at once with a zero queue wait, and every waiting call ends when the hub closes', async () => {
    const reg = registry(logDir);
    const link = new FakeLink();
    const clientId = randomUUID();
    reg.register(link, { clientId, secretKey: SECRET, capabilities });
    reg.ready(link);
    const running = reg.evaluate({
      principal: 'key:test',
      clientId,
      tool: 'echo',
      input: 1,
      timeout: 60_000,
    });
    await expect(
      reg.evaluate({ principal: 'key:test', clientId, tool: 'echo', input: 2, timeout: 60_000 }),
    ).rejects.toBeInstanceOf(AgentBusyError);
    reg.close();
    await expect(running).rejects.toBeInstanceOf(AgentUnavailableError);
  });

  it('validates the hub configuration, naming the variable', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return error instanceof ConfigError ? error.variable : 'not a ConfigError';
      }
      return 'accepted';
    };
    expect(bad({ AGENT_PING_INTERVAL_MS: '1000', AGENT_CONNECTION_TIMEOUT_MS: '1000' })).toBe(
      'AGENT_CONNECTION_TIMEOUT_MS',
    );
    expect(bad({ AGENT_ALLOWED_ORIGINS: 'http://ok.test:1,http://bad.test/path' })).toBe(
      'AGENT_ALLOWED_ORIGINS',
    );
    expect(bad({ AGENT_MAX_PAYLOAD_BYTES: '12' })).toBe('AGENT_MAX_PAYLOAD_BYTES');
    const config = loadConfig({ AGENT_ALLOWED_ORIGINS: 'http://a.test:8080/, https://b.test' });
    expect(config.agentAllowedOrigins).toEqual(['http://a.test:8080/', 'https://b.test']);
    expect(config.agentPingIntervalMs).toBe(30_000);
    expect(config.agentConnectionTimeoutMs).toBe(60_000);
    expect(config.agentReconnectGraceMs).toBe(30_000);
  });

  it('maps each hub error to the catalogue code the evaluation log records', () => {
    const scope = { method: 'agents.evaluate', params: {}, browserReady: true, sessionOpen: undefined };
    const errors = [
      new AgentNotFoundError(undefined, [], 'none.'),
      new UnknownToolError('t', undefined, []),
      new AgentBusyError(undefined, 1000, 'busy'),
      new EvaluationTimeoutError('c', 'e', 10, 'Evaluation e'),
      new AgentUnavailableError('c', 'e', 1000, 'gone'),
      new AgentCallError('c', 'e', -32004, 'Invalid tool', {}),
      new CdpUnavailableError(undefined, 'no CDP_URL'),
      new TabNotFoundError('T1'),
    ];
    for (const error of errors) expect(mapError(error, scope).code).toBe(errorCodeOf(error));
    const odd = mapError(new AgentCallError('c', 'e', 1234, 'odd', { x: 1 }), scope);
    expect(odd.code).toBe(-32000);
    expect(odd.data).toMatchObject({ x: 1, agentCode: 1234 });
  });
});
