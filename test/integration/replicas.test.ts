// Two service replicas behind Debian's HAProxy on loopback (issue 16, docs/deployment.md): sessions
// land on both; every call reaches its own session over POST /rpc, batches, WebSocket /rpc and
// /mcp, through the balancer or forwarded by the replica it reached; a replica that dies fails its
// own sessions only, with SESSION_NOT_FOUND naming it, and the other keeps working. The browser
// tier (BROWSER_ENDPOINTS) adds its servers through startReplicaCluster's `env`.
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  haproxyInstalled,
  startReplicaCluster,
  type ReplicaCluster,
  type RpcAnswer,
} from '../helpers/replicaCluster.js';
import { waitFor } from '../helpers/testService.js';

/** How long a replica's log line may take to arrive through its stdout pipe after its answer. */
const LOG_WAIT_MS = 10_000;

const CASE_TIMEOUT_MS = 120_000;
const HAVE_HAPROXY = haproxyInstalled();
if (!HAVE_HAPROXY)
  console.warn('replicas.test.ts skipped: /usr/sbin/haproxy is not installed (apt-get install -y haproxy)');

const SESSION_NOT_FOUND = -32010;
/** Bound on a call left running in its page (it never settles by itself). */
const IN_FLIGHT_TIMEOUT_MS = 60_000;
/** Up to a page's fetch reaching the listener (a busy machine). */
const PAGE_WAIT_MS = 30_000;

/** A loopback HTTP listener a page tells it runs, by fetching it; counts the requests. */
async function startListener(): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  const listener = { url: '', hits: 0, close: () => Promise.resolve() };
  const server = http.createServer((_req, res) => {
    listener.hits += 1;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  listener.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  listener.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return listener;
}

describe.skipIf(!HAVE_HAPROXY)('replicas behind HAProxy', () => {
  let cluster: ReplicaCluster;
  /** Sessions by the replica their id names. */
  const held = new Map<string, string[]>([
    ['r1', []],
    ['r2', []],
  ]);

  const post = (url: string, body: unknown, path = '/rpc'): Promise<unknown> => cluster.post(body, path, url);
  const rpc = (method: string, params: Record<string, unknown>, url = cluster.url): Promise<RpcAnswer> =>
    cluster.rpc(method, params, url);
  const mark = (sid: string): string => `window.__mark = ${JSON.stringify(sid)}`;
  const readMark = { expression: 'window.__mark' };
  const replicaOf = (sid: string): string => /^s_([a-z0-9-]+)\./.exec(sid)?.[1] ?? 'none';

  beforeAll(async () => {
    cluster = await startReplicaCluster(['r1', 'r2']);
    // New sessions go by free capacity and connections: create until both replicas hold two.
    for (let i = 0; i < 12 && ![...held.values()].every((l) => l.length >= 2); i++) {
      const created = await rpc('session.create', {});
      const sid = String(created.result?.session_id);
      held.get(replicaOf(sid))?.push(sid);
      // Each session is told its own id, so every later read shows which session a call reached.
      expect((await rpc('page.evaluate', { session_id: sid, expression: mark(sid) })).error).toBeUndefined();
    }
  }, 4 * CASE_TIMEOUT_MS);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('spreads new sessions over both replicas, each id naming its replica', () => {
    expect(held.get('r1')?.length).toBeGreaterThanOrEqual(2);
    expect(held.get('r2')?.length).toBeGreaterThanOrEqual(2);
    for (const sid of [...(held.get('r1') ?? []), ...(held.get('r2') ?? [])])
      expect(sid).toMatch(/^s_r[12]\.[0-9a-f-]{36}$/);
  });

  it('the capacity agent answers HAProxy with the free share as a weight', async () => {
    const r1 = cluster.replicas[0];
    const line = await new Promise<string>((resolve, reject) => {
      const socket = connect(r1?.agentPort ?? 0, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    // MAX_SESSIONS 8 with at least 2 open: at most 75% free.
    expect(line).toMatch(/^up (\d+)%\n$/);
    expect(Number(/\d+/.exec(line)?.[0])).toBeLessThanOrEqual(75);
  });

  it('routes POST /rpc by params.session_id: each call reaches its own session', async () => {
    for (const sid of [...(held.get('r1') ?? []), ...(held.get('r2') ?? [])])
      expect((await rpc('page.evaluate', { session_id: sid, ...readMark })).result).toEqual({ result: sid });
  });

  it('a batch with sessions on both replicas: the other replica’s members are forwarded', async () => {
    const sids = [held.get('r1')?.[0], held.get('r2')?.[0], held.get('r1')?.[1], held.get('r2')?.[1]];
    const batch = sids.map((sid, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'page.evaluate',
      params: { session_id: sid, ...readMark },
    }));
    const answers = (await post(cluster.url, batch)) as RpcAnswer[];
    expect(answers.map((a) => a.result)).toEqual(sids.map((sid) => ({ result: sid })));
  });

  it('a call sent straight to the wrong replica is forwarded to the owner', async () => {
    const r1 = cluster.replicas.find((r) => r.id === 'r1');
    const sid = held.get('r2')?.[0] ?? '';
    expect((await rpc('page.evaluate', { session_id: sid, ...readMark }, r1?.url)).result).toEqual({
      result: sid,
    });
    // The replica's log reaches this process through its stdout pipe, after the answer: wait for it.
    await expect
      .poll(() => r1?.logs.join(''), { timeout: LOG_WAIT_MS })
      .toMatch(/"forwardedTo":"r2"[^\n]*"outcome":"ok"[^\n]*rpc call forwarded/);
  });

  it('a WebSocket on one replica reaches sessions on both', async () => {
    const sids = [...(held.get('r1') ?? []), ...(held.get('r2') ?? [])];
    const answers = await cluster.socketCalls(
      sids.map((sid) => ({ method: 'page.evaluate', params: { session_id: sid, ...readMark } })),
    );
    expect(answers.map((a) => a.result)).toEqual(sids.map((sid) => ({ result: sid })));
  });

  it('/mcp tools/call reaches the session its arguments name', async () => {
    for (const sid of [held.get('r1')?.[0], held.get('r2')?.[0]]) {
      const answer = (await post(
        cluster.url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'page_evaluate', arguments: { session_id: sid, ...readMark } },
        },
        // page_evaluate is in the inspect group of tools.
        '/mcp?groups=inspect',
      )) as { result?: { structuredContent?: unknown; isError?: boolean } };
      expect(answer.result?.isError).not.toBe(true);
      expect(answer.result?.structuredContent).toEqual({ result: sid });
    }
  });

  it('agents.* on a replica that is not the hub are answered by the hub (HUB_REPLICA r1)', async () => {
    const r2 = cluster.replicas.find((r) => r.id === 'r2');
    const answer = await rpc('agents.list', {}, r2?.url);
    expect(answer.error).toBeUndefined();
    await expect
      .poll(() => r2?.logs.join(''), { timeout: LOG_WAIT_MS })
      .toMatch(/"method":"agents.list"[^\n]*"forwardedTo":"r1"/);
  });

  it('a session of a replica no one knows is refused naming it, not answered as unknown here', async () => {
    const sid = 's_r9.00000000-0000-4000-8000-000000000000';
    const answer = await rpc('page.evaluate', { session_id: sid, ...readMark });
    expect(answer.error?.code).toBe(SESSION_NOT_FOUND);
    expect(answer.error?.data).toMatchObject({ session_id: sid, replica: 'r9', reason: 'other-replica' });
    // The session streams are not forwarded: refused with the same naming.
    const r1 = cluster.replicas.find((r) => r.id === 'r1');
    const stream = await fetch(`${r1?.url}/sessions/${held.get('r2')?.[0]}/events`, {
      headers: { 'x-api-key': cluster.apiKey },
    });
    expect(stream.status).toBe(404);
    expect(((await stream.json()) as RpcAnswer).error?.data).toMatchObject({
      replica: 'r2',
      reason: 'other-replica',
    });
  });

  it(
    'a replica that dies fails only its own sessions, with SESSION_NOT_FOUND naming it, in JSON-RPC even mid-call',
    async () => {
      // Calls left running on r2 when it dies: each page has told the listener it runs. HAProxy gets
      // no byte of answer to them (retry-on empty-response), so it sends each to r1, which forwards
      // it to r2: a JSON-RPC error naming r2, never HAProxy's 502 page or a dropped connection.
      // Whether r1's forward is refused (replica-unreachable) or reaches r2's socket as it closes
      // (replica-lost: the call may have run, as it did) depends on how far r2's exit has got.
      const started = await startListener();
      const r2Sessions = held.get('r2') ?? [];
      const inFlight = r2Sessions.map((sid) => ({
        sid,
        answer: rpc('page.evaluate', {
          session_id: sid,
          expression: `new Promise(() => { fetch('${started.url}/started', { mode: 'no-cors' }); })`,
          timeout: IN_FLIGHT_TIMEOUT_MS,
        }),
      }));
      try {
        await waitFor(
          () => started.hits >= r2Sessions.length,
          PAGE_WAIT_MS,
          'the in-flight calls to reach their pages',
        );
        await cluster.kill('r2');
        // And calls sent at once, before HAProxy's checks mark r2 down: r1's and r2's sessions.
        const rightAfter = [...(held.get('r1') ?? []), ...r2Sessions].map((sid) => ({
          sid,
          answer: rpc('page.evaluate', { session_id: sid, ...readMark }),
        }));
        for (const { sid, answer } of inFlight) {
          const got = await answer;
          expect(got.error?.data, JSON.stringify(got)).toMatchObject({ session_id: sid, replica: 'r2' });
          expect(['replica-unreachable', 'replica-lost']).toContain(got.error?.data?.reason);
        }
        // r2 has exited: its port refuses, so r1 finds it unreachable.
        for (const { sid, answer } of rightAfter) {
          const got = await answer;
          if (replicaOf(sid) === 'r1') expect(got.result).toEqual({ result: sid });
          else
            expect(got.error?.data, JSON.stringify(got)).toMatchObject({
              session_id: sid,
              replica: 'r2',
              reason: 'replica-unreachable',
            });
        }
      } finally {
        await started.close();
      }
      // r1's sessions keep working, over HTTP and batches.
      for (const sid of held.get('r1') ?? [])
        expect((await rpc('page.evaluate', { session_id: sid, ...readMark })).result).toEqual({
          result: sid,
        });
      // r2's sessions: refused, naming r2 (whether HAProxy already marked it down or not).
      for (const sid of held.get('r2') ?? []) {
        const answer = await rpc('page.evaluate', { session_id: sid, ...readMark });
        expect(answer.error?.code).toBe(SESSION_NOT_FOUND);
        expect(answer.error?.data).toMatchObject({
          session_id: sid,
          replica: 'r2',
          reason: 'replica-unreachable',
        });
      }
      // New sessions go to the replica left.
      const created = await rpc('session.create', {});
      const sid = String(created.result?.session_id);
      expect(replicaOf(sid)).toBe('r1');
      expect((await rpc('session.close', { session_id: sid })).error).toBeUndefined();
    },
    CASE_TIMEOUT_MS,
  );

  it('closes the surviving replica’s sessions through the balancer', async () => {
    for (const sid of held.get('r1') ?? [])
      expect((await rpc('session.close', { session_id: sid })).result).toMatchObject({ closed: true });
  });
});
