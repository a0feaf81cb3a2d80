// HAProxy's own failures reach a JSON-RPC caller as JSON-RPC (docs/deployment.md, "What fails when
// something stops"): Debian's HAProxy with the generator's configuration in front of two plain HTTP
// servers on loopback standing in for replicas, one of which takes a call and drops the connection
// without a byte of answer, as a replica killed mid-call does. A single call is tried again on the
// other replica (retry-on empty-response); a batch is not (its members may have run elsewhere) and
// gets a 502 whose body is a JSON-RPC error; with no replica up, a 503 likewise. No service or
// browser runs: test/integration/replicas.test.ts kills a real replica.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BALANCER_ERRORS } from '../../scripts/haproxyConfig.js';
import { ERRORS } from '../../src/errors/catalogue.js';
import { haproxyInstalled, startBalancer, type Balancer } from '../helpers/replicaCluster.js';
import { freePort } from '../helpers/ports.js';

const HAVE_HAPROXY = haproxyInstalled();
if (!HAVE_HAPROXY)
  console.warn(
    'balancerErrors.test.ts skipped: /usr/sbin/haproxy is not installed (apt-get install -y haproxy)',
  );

/** A stand-in replica: answers its health checks, and each POST as `mode` says; counts the POSTs. */
interface FakeReplica {
  id: string;
  port: number;
  posts: number;
  close(): Promise<void>;
}

async function startFake(id: string, mode: 'answers' | 'drops'): Promise<FakeReplica> {
  const fake: FakeReplica = { id, port: 0, posts: 0, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.end('ok');
      return;
    }
    fake.posts += 1;
    req.resume();
    req.on('end', () => {
      // The whole request arrived and not a byte goes back: what HAProxy sees of a replica that died.
      if (mode === 'drops') req.socket.destroy();
      else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ran: id } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.port = (server.address() as AddressInfo).port;
  fake.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

/** What a POST got back: the status and the parsed body, or the connection closed without an answer. */
type Posted = { status: number; body: unknown } | { closed: true };

/**
 * POSTs `body` to the balancer's /rpc on `agent`'s connection (a kept-alive one is reused), or on a
 * connection of its own; a body that is not JSON throws.
 */
function post(url: string, body: unknown, agent: http.Agent | false = false): Promise<Posted> {
  return new Promise<Posted>((resolve, reject) => {
    const req = http.request(
      `${url}/rpc`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
          } catch {
            reject(new Error(`HTTP ${res.statusCode ?? 0}, not JSON: ${text.slice(0, 300)}`));
          }
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The balancer closed the connection before any byte of answer.
      if (error.code === 'ECONNRESET') resolve({ closed: true });
      else reject(error);
    });
    req.end(JSON.stringify(body));
  });
}

/** A session of the replica that drops every call. */
const ON_R2 = 's_r2.6e5decff-dba7-492d-98a8-81a092668d98';

const call = (sessionId: string): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'page.text',
  params: { session_id: sessionId },
});

describe.skipIf(!HAVE_HAPROXY)('the balancer’s failures, as JSON-RPC', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pwj-balancer-'));
  let r1: FakeReplica;
  let r2: FakeReplica;
  let balancer: Balancer;

  beforeAll(async () => {
    r1 = await startFake('r1', 'answers');
    r2 = await startFake('r2', 'drops');
    balancer = await startBalancer(
      {
        replicas: [r1, r2].map((r) => ({ id: r.id, address: `127.0.0.1:${r.port}` })),
        checkIntervalMs: 1000,
      },
      dir,
    );
  }, 60_000);

  afterAll(async () => {
    await balancer?.stop();
    await r1?.close();
    await r2?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a call whose replica drops it without answering is tried again on another replica', async () => {
    const before = { r1: r1.posts, r2: r2.posts };
    const answer = await post(balancer.url, call(ON_R2));
    expect(answer, balancer.logs.join('').slice(-2000)).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, result: { ran: 'r1' } },
    });
    // It went to its own replica first (routed by the session id), then once to the other.
    expect(r2.posts - before.r2).toBe(1);
    expect(r1.posts - before.r1).toBe(1);
  });

  it('so does each call on one kept-alive connection, however many came before it', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++)
        expect(await post(balancer.url, call(ON_R2), agent)).toEqual({
          status: 200,
          body: { jsonrpc: '2.0', id: 1, result: { ran: 'r1' } },
        });
    } finally {
      agent.destroy();
    }
  });

  it('a batch is not sent again (its members may have run): 502 with a JSON-RPC error body', async () => {
    const before = { r1: r1.posts, r2: r2.posts };
    const answer = await post(balancer.url, [call(ON_R2)]);
    expect(answer).toEqual({ status: 502, body: BALANCER_ERRORS[502] });
    expect(answer).toMatchObject({
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: ERRORS.RESOURCE_UNAVAILABLE.code, data: { reason: 'replica-lost' } },
      },
    });
    expect(r2.posts - before.r2).toBe(1);
    expect(r1.posts - before.r1).toBe(0);
  });

  it('a batch that is not the first request of its connection: closed without an answer (HAProxy)', async () => {
    // HAProxy's rule for a request after the first on a kept-alive connection whose server closed
    // without answering: it closes the client connection without a status, as an idle connection's
    // close looks, and logs nothing. Pinned here because docs/deployment.md says so.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(
        await post(balancer.url, call('s_r1.6e5decff-dba7-492d-98a8-81a092668d98'), agent),
      ).toMatchObject({
        status: 200,
      });
      expect(await post(balancer.url, [call(ON_R2)], agent)).toEqual({ closed: true });
    } finally {
      agent.destroy();
    }
  });

  it('with no replica listening: 503 with a JSON-RPC error body', async () => {
    const down = mkdtempSync(join(tmpdir(), 'pwj-balancer-down-'));
    // Ports nothing listens on: every connection is refused.
    const ports = [await freePort(), await freePort()];
    const empty = await startBalancer(
      { replicas: ports.map((port, i) => ({ id: `r${i + 1}`, address: `127.0.0.1:${port}` })) },
      down,
      async (url) => (await fetch(`${url}/healthz`).catch(() => undefined)) !== undefined,
    );
    try {
      expect(await post(empty.url, call('s_r1.6e5decff-dba7-492d-98a8-81a092668d98'))).toEqual({
        status: 503,
        body: BALANCER_ERRORS[503],
      });
      expect(await post(empty.url, { jsonrpc: '2.0', id: 2, method: 'session.create' })).toEqual({
        status: 503,
        body: BALANCER_ERRORS[503],
      });
    } finally {
      await empty.stop();
      rmSync(down, { recursive: true, force: true });
    }
  });

  it('every error body the balancer can send is a JSON-RPC error of the catalogue', () => {
    const codes = new Set<number>(Object.values(ERRORS).map((e) => e.code));
    for (const [status, body] of Object.entries(BALANCER_ERRORS)) {
      expect(body.id, status).toBeNull();
      expect('error' in body && codes.has(body.error.code), status).toBe(true);
    }
  });
});
