// Denial of service on the agent hub (issue 12): sockets that never register, answers that grow with
// every tool of every agent, and agents flooding unprompted frames. Real `ws` sockets on loopback.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, type ClientOptions } from 'ws';
import { REGISTER_TIMEOUT_MS } from '../../src/hub/agentConnection.js';
import { MAX_UNREGISTERED_PER_ADDRESS } from '../../src/hub/agentEndpoint.js';
import {
  AgentRegistry,
  MAX_LIST_BYTES,
  MAX_LISTED_TOOLS,
  type AgentLink,
} from '../../src/hub/agentRegistry.js';
import { EvaluationLog } from '../../src/hub/evaluationLog.js';
import { MAX_NAMED_TOOLS } from '../../src/hub/hubErrors.js';
import { AGENT_FRAME_BURST } from '../../src/hub/frameRateLimit.js';
import { createLogger } from '../../src/observability/logger.js';
import { agentsList } from '../../src/methods/agents.js';
import { Inbox } from '../helpers/inbox.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SECRET = 'limits-secret-2d4f6a8c0e1b3d5f';

type Msg = Record<string, unknown>;

let service: TestService;
let logDir: string;
const sockets: WebSocket[] = [];

function hubUrl(): string {
  return `${service.url.replace(/^http/, 'ws')}/agents`;
}

/** A socket on /agents with its inbox and close; resolves once open (or rejects on a refused handshake). */
async function connect(options: ClientOptions = {}): Promise<{
  ws: WebSocket;
  inbox: Inbox<Msg>;
  closed: Promise<number>;
}> {
  const ws = new WebSocket(hubUrl(), options);
  sockets.push(ws);
  const inbox = new Inbox<Msg>();
  ws.on('message', (data: Buffer) => inbox.push(JSON.parse(data.toString('utf8')) as Msg));
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, inbox, closed };
}

async function register(
  tools: string[],
  options: ClientOptions = {},
): Promise<{ ws: WebSocket; inbox: Inbox<Msg>; closed: Promise<number>; clientId: string; ack: Msg }> {
  const socket = await connect(options);
  const clientId = randomUUID();
  await socket.inbox.next((m) => m.type === 'welcome', 'welcome', 10_000);
  socket.ws.send(
    JSON.stringify({
      type: 'register',
      clientId,
      secretKey: SECRET,
      capabilities: { tools, maxConcurrency: 1, version: 'limits' },
    }),
  );
  const ack = await socket.inbox.next((m) => m.type === 'registration_ack', 'registration_ack', 10_000);
  return { ...socket, clientId, ack };
}

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'hub-limits-'));
  service = await startTestService({ LOG_DIR: logDir, AGENT_SECRET: SECRET });
});

afterEach(async () => {
  const closing = sockets.splice(0);
  await Promise.all(
    closing.map(async (ws) => {
      if (ws.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolve) => ws.once('close', resolve));
      ws.terminate();
      await closed;
    }),
  );
  await waitFor(
    async () => (await service.call<{ total: number }>('agents.list')).total === 0,
    10_000,
    'no agent left',
  );
});

afterAll(async () => {
  await service?.close();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
});

describe('sockets that never register', () => {
  it('256 of them from one address leave at most the per-address cap open, and 40 real agents all register', async () => {
    const flood: Awaited<ReturnType<typeof connect>>[] = [];
    for (let batch = 0; batch < 8; batch++) {
      const opened = await Promise.allSettled(Array.from({ length: 32 }, () => connect()));
      for (const o of opened) if (o.status === 'fulfilled') flood.push(o.value);
    }
    expect(flood.length).toBeGreaterThan(0);
    await waitFor(
      () => flood.filter((s) => s.ws.readyState === WebSocket.OPEN).length <= MAX_UNREGISTERED_PER_ADDRESS,
      // Well inside the register timeout: the cap, not the timeout, cuts them.
      REGISTER_TIMEOUT_MS / 2,
      'the flood to be cut down to the per-address cap',
    );
    const acks: Msg[] = [];
    for (let i = 0; i < 40; i++) acks.push((await register(['echo'])).ack);
    expect(acks.filter((a) => a.status === 'accepted')).toHaveLength(40);
    const { total } = await service.call<{ total: number }>('agents.list');
    expect(total).toBe(40);
    expect(service.logs.join('')).toContain('unregistered agent socket evicted for a new handshake');
  });

  it('a flood from another address does not touch an agent handshaking from this one', async () => {
    const other: Awaited<ReturnType<typeof connect>>[] = [];
    for (let i = 0; i < MAX_UNREGISTERED_PER_ADDRESS * 2; i++)
      other.push(await connect({ localAddress: '127.0.0.2' }));
    const agent = await register(['echo'], { localAddress: '127.0.0.1' });
    expect(agent.ack.status).toBe('accepted');
    await waitFor(
      () => other.filter((s) => s.ws.readyState === WebSocket.OPEN).length <= MAX_UNREGISTERED_PER_ADDRESS,
      REGISTER_TIMEOUT_MS / 2,
      'the other address held to its cap',
    );
  });
});

describe('answers that grew with every tool of every agent', () => {
  it('agents.list shows each agent with at most the listed-tools cap and its tool count; UNKNOWN_TOOL names a bounded few', async () => {
    const agents = 30;
    const perAgent = 200;
    for (let a = 0; a < agents; a++) {
      const tools = Array.from({ length: perAgent }, (_, t) => `t${a}_${t}_`.padEnd(200, 'x'));
      const agent = await register(tools);
      expect(agent.ack.status).toBe('accepted');
      agent.ws.send(JSON.stringify({ type: 'ready' }));
    }
    await waitFor(
      async () =>
        (await service.call<{ agents: Msg[] }>('agents.list')).agents.filter((a) => a.status === 'ready')
          .length === agents,
      10_000,
      'every agent ready',
    );
    const listed = await service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents.list' }));
    const body = listed.body as { result: { agents: Msg[]; total: number; truncated: boolean } };
    expect(body.result.total).toBe(agents);
    expect(body.result.truncated).toBe(false);
    for (const agent of body.result.agents) {
      const capabilities = agent.capabilities as { tools: string[]; toolCount: number };
      expect(capabilities.tools).toHaveLength(MAX_LISTED_TOOLS);
      expect(capabilities.toolCount).toBe(perAgent);
    }
    expect(JSON.stringify(listed.body).length).toBeLessThan(agents * 6000);

    const unknown = await service.post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'agents.evaluate',
        params: { tool: 'no_such_tool', input: {} },
      }),
    );
    const error = (unknown.body as { error: { code: number; message: string; data: Msg } }).error;
    expect(error.code).toBe(-32004);
    expect(error.data.tools).toHaveLength(MAX_NAMED_TOOLS);
    expect(error.data.toolCount).toBe(agents * perAgent);
    expect(error.message).toMatch(new RegExp(`and ${agents * perAgent - MAX_NAMED_TOOLS} more`));
    expect(JSON.stringify(unknown.body).length).toBeLessThan(16_384);
  });

  it('agents.list stops at its byte cap, saying how many agents there are (domain)', () => {
    const logger = createLogger('silent');
    const reg = new AgentRegistry(
      { agentSecret: SECRET, reconnectGraceMs: 1000, queueTimeoutMs: 0 },
      new EvaluationLog(join(logDir, 'domain', 'evaluations.jsonl'), logger),
      logger,
    );
    const link = (): AgentLink => ({
      remoteAddress: '127.0.0.1',
      send: () => undefined,
      close: () => undefined,
    });
    // The worst an agent can park: every string at its cap, in characters JSON escapes to six bytes.
    const worst = '\u0001';
    for (let i = 0; i < 256; i++) {
      const l = link();
      const tools = Array.from({ length: 200 }, (_, t) => `${t}`.padEnd(200, worst));
      expect(
        reg.register(l, {
          clientId: randomUUID(),
          secretKey: SECRET,
          capabilities: { tools, maxConcurrency: 1, version: worst.repeat(100) },
        }).accepted,
      ).toBe(true);
      reg.status(l, {
        evaluationId: worst.repeat(200),
        status: worst.repeat(100),
        progress: 0.5,
        message: worst.repeat(1000),
      });
    }
    // The method's description (a method may not import the hub) states the same caps.
    expect(agentsList.description).toContain(`at most ${MAX_LISTED_TOOLS} of its tools`);
    expect(agentsList.description).toContain(`${MAX_LIST_BYTES / 1_048_576} MiB`);
    const list = reg.list();
    expect(list.total).toBe(256);
    expect(list.truncated).toBe(true);
    expect(list.agents.length).toBeGreaterThan(0);
    expect(list.agents.length).toBeLessThan(256);
    expect(Buffer.byteLength(JSON.stringify(list))).toBeLessThanOrEqual(MAX_LIST_BYTES + 100);
    reg.close();
  });
});

describe('agents flooding unprompted frames', () => {
  it('drops pings past the rate, closes the flooder with 1008, and a well-behaved agent still gets its evaluation', async () => {
    const calm = await register(['calm_tool']);
    calm.ws.send(JSON.stringify({ type: 'ready' }));
    const flooder = await register(['echo']);
    const sent = AGENT_FRAME_BURST * 15;
    const ping = JSON.stringify({ type: 'ping' });
    for (let i = 0; i < sent; i++) {
      if (flooder.ws.readyState !== WebSocket.OPEN) break;
      flooder.ws.send(ping);
    }
    expect(await flooder.closed).toBe(1008);
    const pongs = flooder.inbox.received.filter((m) => m.type === 'pong').length;
    expect(pongs).toBeLessThan(sent);
    const logs = () => service.logs.join('');
    expect(logs()).toContain('agent sends frames past the rate limit; dropping them');
    expect(logs()).toContain('agent kept flooding frames past the rate limit; closing its connection');

    await waitFor(
      async () =>
        (await service.call<{ agents: Msg[] }>('agents.list')).agents.some(
          (a) => a.clientId === calm.clientId && a.status === 'ready',
        ),
      10_000,
      'the calm agent ready',
    );
    const call = service.rpc('agents.evaluate', { tool: 'calm_tool', input: 1 });
    const request = await calm.inbox.next((m) => m.method === 'evaluate', 'evaluate', 10_000);
    calm.ws.send(
      JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { status: 'success', output: 'ok' } }),
    );
    expect((await call).result?.output).toBe('ok');
  });

  it('a burst of statuses within the limit is read in full, and answers to the hub never count', async () => {
    const agent = await register(['burst_tool']);
    agent.ws.send(JSON.stringify({ type: 'ready' }));
    await waitFor(
      async () =>
        (await service.call<{ agents: Msg[] }>('agents.list')).agents.some(
          (a) => a.clientId === agent.clientId && a.status === 'ready',
        ),
      10_000,
      'the agent ready',
    );
    for (let i = 0; i < AGENT_FRAME_BURST - 10; i++)
      agent.ws.send(JSON.stringify({ type: 'status', status: 'running', progress: i / AGENT_FRAME_BURST }));
    agent.ws.send(JSON.stringify({ type: 'status', status: 'last', progress: 1 }));
    await waitFor(
      async () =>
        (await service.call<{ agents: Msg[] }>('agents.list')).agents.some(
          (a) => a.clientId === agent.clientId && (a.lastStatus as Msg | null)?.status === 'last',
        ),
      10_000,
      'the last status of the burst',
    );
    for (let i = 0; i < 20; i++) {
      const call = service.rpc('agents.evaluate', { tool: 'burst_tool', input: i });
      const request = await agent.inbox.next((m) => m.method === 'evaluate', `evaluate ${i}`, 10_000);
      agent.ws.send(
        JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { status: 'success', output: i } }),
      );
      expect((await call).result?.output).toBe(i);
    }
    expect(agent.ws.readyState).toBe(WebSocket.OPEN);
  });
});
