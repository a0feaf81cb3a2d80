// Replicas (docs/deployment.md): session ids that name their replica, the REPLICA_* keys, the
// capacity agent's answer, and the dispatcher that forwards a call to the replica owning it (against
// a fake peer on loopback). test/integration/replicas.test.ts runs the real thing behind HAProxy.
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { ServiceError } from '../../src/errors/serviceError.js';
import { principalFor } from '../../src/http/auth.js';
import { createLogger } from '../../src/observability/logger.js';
import {
  AGENT_REPLY_TIMEOUT_MS,
  agentReply,
  startCapacityAgent,
  type CapacityReading,
} from '../../src/replicas/capacityAgent.js';
import { FORWARDED_BY_HEADER } from '../../src/replicas/forward.js';
import { replicaAware } from '../../src/replicas/replicaEdge.js';
import { replicaOfSessionId, sessionIdPrefix } from '../../src/replicas/sessionIds.js';
import type { CallContext, RpcDispatcher } from '../../src/rpc/dispatch.js';

const KEY = 'replica-unit-key-0123456789';
const logger = createLogger('silent');

describe('session ids on replicas', () => {
  it('carry the replica id, and only a well-formed one is read back', () => {
    expect(sessionIdPrefix(undefined)).toBe('s_');
    expect(sessionIdPrefix('r1')).toBe('s_r1.');
    expect(replicaOfSessionId('s_r1.6e5decff-dba7-492d-98a8-81a092668d98')).toBe('r1');
    expect(replicaOfSessionId('s_pwj-12.6e5decff-dba7-492d-98a8-81a092668d98')).toBe('pwj-12');
    for (const id of [
      's_6e5decff-dba7-492d-98a8-81a092668d98',
      's_R1.x',
      's_-r.x',
      'r1.x',
      's_.x',
      's_a_b.x',
    ])
      expect(replicaOfSessionId(id), id).toBeUndefined();
  });
});

describe('REPLICA_* keys', () => {
  const base = { API_KEY: KEY };
  it('read a replica, its peers (a list or a template) and its hub', () => {
    const c = loadConfig({
      ...base,
      REPLICA_ID: 'r1',
      REPLICA_PEERS: 'r2=http://127.0.0.1:4002, r3=http://10.0.0.3:3337',
      HUB_REPLICA: 'r2',
      REPLICA_AGENT_PORT: '3338',
    });
    expect(c.replicaId).toBe('r1');
    expect(c.replicaPeers.addressOf('r2')).toBe('http://127.0.0.1:4002');
    expect(c.replicaPeers.addressOf('r4')).toBeUndefined();
    expect(c.hubReplica).toBe('r2');
    expect(c.replicaAgentPort).toBe(3338);
    const t = loadConfig({
      ...base,
      REPLICA_ID: 'pwj-0',
      REPLICA_PEERS: 'http://{id}.pwj.ns.svc:3337',
      REPLICA_IDS: 'pwj-0, pwj-1,pwj-3',
    });
    expect(t.replicaPeers.addressOf('pwj-3')).toBe('http://pwj-3.pwj.ns.svc:3337');
    // A template is filled with the listed ids only.
    for (const id of ['pwj-2', 'localhost', 'kube-dns', 'BAD/../x'])
      expect(t.replicaPeers.addressOf(id), id).toBeUndefined();
    expect(loadConfig(base).replicaId).toBeUndefined();
  });

  it.each([
    [{ REPLICA_ID: 'R1' }, 'REPLICA_ID'],
    [{ REPLICA_ID: 'r1.x' }, 'REPLICA_ID'],
    [{ REPLICA_PEERS: 'r2=http://h:1' }, 'REPLICA_PEERS'],
    [{ HUB_REPLICA: 'r1' }, 'HUB_REPLICA'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'r1=http://h:1' }, 'REPLICA_PEERS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'r2=http://h:1,r2=http://h:2' }, 'REPLICA_PEERS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'r2=ftp://h:1' }, 'REPLICA_PEERS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'r2=http://h:1/rpc' }, 'REPLICA_PEERS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'http://h:1' }, 'REPLICA_PEERS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'http://{id}:1,r2=http://h:1' }, 'REPLICA_PEERS'],
    [{ REPLICA_ID: 'r1', HUB_REPLICA: 'r2' }, 'HUB_REPLICA'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'http://{id}:1' }, 'REPLICA_IDS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'http://{id}:1', REPLICA_IDS: 'r2,r3' }, 'REPLICA_IDS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'http://{id}:1', REPLICA_IDS: 'r1,r2,r1' }, 'REPLICA_IDS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'http://{id}:1', REPLICA_IDS: 'r1,evil.test' }, 'REPLICA_IDS'],
    [{ REPLICA_ID: 'r1', REPLICA_PEERS: 'r2=http://h:1', REPLICA_IDS: 'r1,r2' }, 'REPLICA_IDS'],
    [{ REPLICA_ID: 'r1', REPLICA_IDS: 'r1,r2' }, 'REPLICA_IDS'],
    [{ REPLICA_IDS: 'r1' }, 'REPLICA_IDS'],
    [
      { REPLICA_ID: 'r1', REPLICA_PEERS: 'http://{id}:1', REPLICA_IDS: 'r1,r2', HUB_REPLICA: 'r3' },
      'HUB_REPLICA',
    ],
    [{ REPLICA_ID: 'r1', REPLICA_AGENT_PORT: '70000' }, 'REPLICA_AGENT_PORT'],
    [{ REPLICA_ID: 'r1', REPLICA_FORWARD_TIMEOUT_MS: '0' }, 'REPLICA_FORWARD_TIMEOUT_MS'],
  ])('refuse %o, naming %s', (vars, key) => {
    expect(() => loadConfig({ ...base, ...vars })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...vars })).toThrow(new RegExp(`^${key}:`));
  });
});

/** A reading with `sessions` of `maxSessions` open and no pooled context. */
function reading(ready: boolean, sessions: number, maxSessions: number): CapacityReading {
  return { ready, capacity: { sessions, maxSessions, free: maxSessions - sessions, pool: 0 } };
}

describe('capacity agent', () => {
  it('answers HAProxy with the free share, drain when full, down without a browser', () => {
    expect(agentReply(reading(true, 0, 8))).toBe('up 100%\n');
    expect(agentReply(reading(true, 6, 8))).toBe('up 25%\n');
    expect(agentReply(reading(true, 999, 1000))).toBe('up 1%\n');
    expect(agentReply(reading(true, 8, 8))).toBe('drain\n');
    expect(agentReply(reading(false, 0, 8))).toBe('down\n');
  });

  it('answers one line per connection, and cuts a client that keeps it open (AGENT_REPLY_TIMEOUT_MS)', async () => {
    const agent = await startCapacityAgent(0, '127.0.0.1', () => reading(true, 2, 8), logger);
    try {
      // allowHalfOpen: the client does not close its side after the answer, as a stuck peer would not.
      const socket = connect({ port: agent.port, host: '127.0.0.1', allowHalfOpen: true });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      await new Promise<void>((resolve) => socket.once('end', () => resolve()));
      expect(text).toBe('up 75%\n');
      // Past the timeout the server has dropped its side: writing then fails (without the cut, the
      // server would keep the half-open socket and take the bytes).
      await new Promise((r) => setTimeout(r, AGENT_REPLY_TIMEOUT_MS + 500));
      const failed = new Promise<boolean>((resolve) => {
        socket.once('error', () => resolve(true));
        socket.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 3000).unref();
      });
      socket.write('x');
      setTimeout(() => socket.write('y'), 200).unref();
      expect(await failed).toBe(true);
      socket.destroy();
    } finally {
      await agent.close();
    }
  });
});

/** A fake peer: answers POST /rpc with `reply(body, headers)`. */
async function fakePeer(
  reply: (
    body: { method: string; params: Record<string, unknown> },
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ) => void,
): Promise<{ origin: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () =>
      reply(JSON.parse(text) as { method: string; params: Record<string, unknown> }, req, res),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('ReplicaDispatcher', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });
  const local: string[] = [];
  const inner: RpcDispatcher = {
    call: (method) => {
      local.push(method);
      return Promise.resolve({ ran: 'here' });
    },
    methods: () => [],
  };
  const principal = principalFor(KEY, undefined);
  const ctx = (extra: Partial<CallContext> = {}): CallContext => ({
    requestId: 'req-1',
    origin: 'test',
    log: logger,
    principal,
    ...extra,
  });
  const routed = (peers: string, extra: Record<string, string> = {}): RpcDispatcher =>
    replicaAware(
      inner,
      loadConfig({ API_KEY: KEY, REPLICA_ID: 'r1', REPLICA_PEERS: peers, ...extra }),
      logger,
    );
  const failure = async (p: Promise<unknown>): Promise<ServiceError> => {
    const error: unknown = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  };

  it('runs its own sessions and calls without one here, and forwards the others with the caller’s key', async () => {
    const seen: { method: string; key: unknown; by: unknown; params: unknown }[] = [];
    const peer = await fakePeer((body, req, res) => {
      seen.push({
        method: body.method,
        key: req.headers['x-api-key'],
        by: req.headers[FORWARDED_BY_HEADER],
        params: body.params,
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ran: 'r2' } }));
    });
    servers.push(peer.server);
    const d = routed(`r2=${peer.origin}`);
    local.length = 0;
    expect(await d.call('page.text', { session_id: 's_r1.a' }, ctx())).toEqual({ ran: 'here' });
    expect(await d.call('session.create', {}, ctx())).toEqual({ ran: 'here' });
    expect(await d.call('page.text', { session_id: 's_0000' }, ctx())).toEqual({ ran: 'here' });
    const params = { session_id: 's_r2.b', idempotency_key: 'k1' };
    expect(await d.call('page.text', params, ctx())).toEqual({ ran: 'r2' });
    expect(local).toEqual(['page.text', 'session.create', 'page.text']);
    expect(seen).toEqual([{ method: 'page.text', key: KEY, by: 'r1', params }]);
  });

  it("answers the owner's error as it came", async () => {
    const peer = await fakePeer((_body, _req, res) => {
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32010,
            message: 'Session s_r2.b not found: the session was closed.',
            data: { session_id: 's_r2.b', reason: 'closed' },
          },
        }),
      );
    });
    servers.push(peer.server);
    const e = await failure(routed(`r2=${peer.origin}`).call('page.text', { session_id: 's_r2.b' }, ctx()));
    expect(e.errorName).toBe('SESSION_NOT_FOUND');
    expect(e.message).toMatch(/was closed/);
    expect(e.data).toEqual({ session_id: 's_r2.b', reason: 'closed' });
  });

  it('refuses a session of a replica it has no address for, naming it', async () => {
    const e = await failure(routed('').call('page.text', { session_id: 's_r7.b' }, ctx()));
    expect(e.errorName).toBe('SESSION_NOT_FOUND');
    expect(e.data).toEqual({ session_id: 's_r7.b', replica: 'r7', reason: 'other-replica' });
  });

  it('a template forwards to the ids REPLICA_IDS lists only: another id, host-like or not, gets no connection', async () => {
    let connections = 0;
    const peer = await fakePeer((_body, _req, res) => {
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ran: 'peer' } }));
    });
    peer.server.on('connection', () => (connections += 1));
    servers.push(peer.server);
    const port = new URL(peer.origin).port;
    // `http://{id}:PORT`: filled with any id, `s_localhost.…` would reach the listener on 127.0.0.1.
    const d = replicaAware(
      inner,
      loadConfig({
        API_KEY: KEY,
        REPLICA_ID: 'r1',
        REPLICA_PEERS: `http://{id}:${port}`,
        REPLICA_IDS: 'r1,r2',
      }),
      logger,
    );
    for (const [sid, replica] of [
      ['s_localhost.6e5decff-dba7-492d-98a8-81a092668d98', 'localhost'],
      ['s_127.0.0.1.6e5decff-dba7-492d-98a8-81a092668d98', '127'],
      ['s_r9.6e5decff-dba7-492d-98a8-81a092668d98', 'r9'],
    ]) {
      const e = await failure(d.call('page.text', { session_id: sid }, ctx()));
      expect(e.errorName, sid).toBe('SESSION_NOT_FOUND');
      expect(e.data).toEqual({ session_id: sid, replica, reason: 'other-replica' });
    }
    expect(connections).toBe(0);
    // The check can fail: with localhost among the ids, the same call reaches the listener.
    const listed = replicaAware(
      inner,
      loadConfig({
        API_KEY: KEY,
        REPLICA_ID: 'r1',
        REPLICA_PEERS: `http://{id}:${port}`,
        REPLICA_IDS: 'r1,localhost',
      }),
      logger,
    );
    expect(
      await listed.call(
        'page.text',
        { session_id: 's_localhost.6e5decff-dba7-492d-98a8-81a092668d98' },
        ctx(),
      ),
    ).toEqual({ ran: 'peer' });
    expect(connections).toBeGreaterThan(0);
  });

  it('never forwards a call another replica forwarded here (no bounce between replicas that disagree)', async () => {
    let reached = 0;
    const peer = await fakePeer((_body, _req, res) => {
      reached += 1;
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ran: 'r2' } }));
    });
    servers.push(peer.server);
    const d = routed(`r2=${peer.origin}`, { HUB_REPLICA: 'r2' });
    const e = await failure(d.call('page.text', { session_id: 's_r2.b' }, ctx({ forwardedBy: 'r2' })));
    expect(e.errorName).toBe('SESSION_NOT_FOUND');
    expect(e.message).toMatch(/not forwarded again/);
    const hub = await failure(d.call('agents.list', {}, ctx({ forwardedBy: 'r2' })));
    expect(hub.errorName).toBe('RESOURCE_UNAVAILABLE');
    expect(hub.message).toMatch(/not forwarded again/);
    // Its own sessions still run here when forwarded.
    expect(await d.call('page.text', { session_id: 's_r1.a' }, ctx({ forwardedBy: 'r2' }))).toEqual({
      ran: 'here',
    });
    expect(reached).toBe(0);
  });

  it('refuses to forward for a caller whose key it does not know, saying so', async () => {
    const d = routed('r2=http://127.0.0.1:9');
    const e = await failure(
      d.call(
        'page.text',
        { session_id: 's_r2.b' },
        ctx({ principal: principalFor('some-other-key', undefined) }),
      ),
    );
    expect(e.errorName).toBe('SESSION_NOT_FOUND');
    expect(e.message).toMatch(/configured API keys/);
  });

  it('a replica that cannot be reached: its session is gone (SESSION_NOT_FOUND replica-unreachable)', async () => {
    const peer = await fakePeer(() => undefined);
    const origin = peer.origin;
    await new Promise<void>((resolve) => peer.server.close(() => resolve()));
    const e = await failure(routed(`r2=${origin}`).call('page.text', { session_id: 's_r2.b' }, ctx()));
    expect(e.errorName).toBe('SESSION_NOT_FOUND');
    expect(e.data).toEqual({ session_id: 's_r2.b', replica: 'r2', reason: 'replica-unreachable' });
  });

  it('a peer that does not answer within REPLICA_FORWARD_TIMEOUT_MS: RESOURCE_UNAVAILABLE replica-timeout', async () => {
    const peer = await fakePeer(() => undefined);
    servers.push(peer.server);
    const d = routed(`r2=${peer.origin}`, { REPLICA_FORWARD_TIMEOUT_MS: '200' });
    const e = await failure(d.call('page.text', { session_id: 's_r2.b' }, ctx()));
    expect(e.errorName).toBe('RESOURCE_UNAVAILABLE');
    expect(e.data).toMatchObject({ replica: 'r2', reason: 'replica-timeout' });
  });

  it('a peer that answers without JSON-RPC: RESOURCE_UNAVAILABLE replica-refused', async () => {
    const peer = await fakePeer((_body, _req, res) => {
      res.statusCode = 502;
      res.end('<html>bad gateway</html>');
    });
    servers.push(peer.server);
    const e = await failure(routed(`r2=${peer.origin}`).call('page.text', { session_id: 's_r2.b' }, ctx()));
    expect(e.errorName).toBe('RESOURCE_UNAVAILABLE');
    expect(e.data).toMatchObject({ replica: 'r2', reason: 'replica-refused' });
  });

  it('sends agents.* and tabs.* to HUB_REPLICA, and refuses to forward a subscription bound to its socket', async () => {
    const methods: string[] = [];
    const peer = await fakePeer((body, _req, res) => {
      methods.push(body.method);
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { agents: [] } }));
    });
    servers.push(peer.server);
    const d = routed(`r2=${peer.origin}`, { HUB_REPLICA: 'r2' });
    expect(await d.call('agents.list', {}, ctx())).toEqual({ agents: [] });
    expect(await d.call('tabs.list', {}, ctx())).toEqual({ agents: [] });
    expect(methods).toEqual(['agents.list', 'tabs.list']);
    const push = { notify: () => true, whenWritable: () => () => undefined };
    const e = await failure(
      d.call(
        'session.subscribe',
        { session_id: 's_r2.b' },
        ctx({ push: push as unknown as CallContext['push'] }),
      ),
    );
    expect(e.errorName).toBe('SESSION_NOT_FOUND');
    expect(e.data).toMatchObject({ replica: 'r2', reason: 'other-replica' });
    expect(e.message).toMatch(/x-replica: r2/);
  });

  it('a single service (no REPLICA_ID) is the engine itself', () => {
    expect(replicaAware(inner, loadConfig({ API_KEY: KEY }), logger)).toBe(inner);
  });
});
