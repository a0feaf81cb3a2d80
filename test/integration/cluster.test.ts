// Issue 16's combined test: Debian's HAProxy, two service replicas and two browser servers on
// loopback, every replica listing both servers (BROWSER_ENDPOINTS with #cap). Sessions are created
// through the balancer until every pairing of a replica and a server holds one; flows over POST
// /rpc, a batch, one WebSocket /rpc and /mcp each reach their own session (each session navigates
// to a page of its own and reads it back); the allow-list keeps remotely hosted sessions from the
// decoy on 127.0.0.2; a killed browser server fails only the sessions on it, on both replicas
// (RESOURCE_UNAVAILABLE in flight, then SESSION_NOT_FOUND browser-server-lost), and a killed
// replica only its own (SESSION_NOT_FOUND replica-unreachable), while the rest keep working through
// the balancer. Where a session runs is read where an operator reads it: the replica's log line
// "session placed on a browser server". Only the processes started here are signalled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lossLogged,
  placementIn,
  startBrowserServer,
  type BrowserServerProcess,
} from '../helpers/browserServers.js';
import {
  haproxyInstalled,
  startReplicaCluster,
  type ReplicaCluster,
  type RpcAnswer,
} from '../helpers/replicaCluster.js';
import { useFixtureAndDecoy } from '../helpers/suite.js';
import { waitFor } from '../helpers/testService.js';

const HAVE_HAPROXY = haproxyInstalled();

/** Whether a fetch failed because the peer closed the kept-alive socket it was written to. */
function closedSocket(error: unknown): boolean {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === 'UND_ERR_SOCKET';
}
if (!HAVE_HAPROXY)
  console.warn('cluster.test.ts skipped: /usr/sbin/haproxy is not installed (apt-get install -y haproxy)');

/** Sessions each replica may put on each server: 2 × 4 is the helper's MAX_SESSIONS (8) per replica. */
const CAP = 4;
/** Creates through the balancer at most while filling every pairing of replica and server. */
const MAX_CREATES = 12;
/** How long a replica's log line may take to arrive through its stdout pipe after its answer. */
const LOG_WAIT_MS = 10_000;
/** Two browser servers and two replicas (tsx compiling each) on a busy 2-core machine. */
const SETUP_TIMEOUT_MS = 300_000;
const CASE_TIMEOUT_MS = 120_000;
/** How long a page's own work may take to show (its fetch settling, a call reaching its page). */
const PAGE_WAIT_MS = 10_000;
/** The bound of the call left running on the server that is killed (it is answered at the kill). */
const IN_FLIGHT_TIMEOUT_MS = 60_000;

const RESOURCE_UNAVAILABLE = -32005;
const SESSION_NOT_FOUND = -32010;
const URL_NOT_ALLOWED = -32011;

type ServerName = 'a' | 'b';

interface Held {
  id: string;
  /** The replica its id names. */
  replica: string;
  /** The browser server its replica's log says it was placed on. */
  server: ServerName;
  /** Names its own pages: /frame-child?name=<tag>… shows "Child <tag>…". */
  tag: string;
}

describe.skipIf(!HAVE_HAPROXY)('a cluster: HAProxy, two replicas, two browser servers', () => {
  const sites = useFixtureAndDecoy();
  const servers: Partial<Record<ServerName, BrowserServerProcess>> = {};
  let started: ReplicaCluster | undefined;
  const held: Held[] = [];
  /** Every answer of session.create, as text: none may say where the session runs. */
  const createAnswers: string[] = [];

  const cluster = (): ReplicaCluster => {
    if (started === undefined) throw new Error('the cluster is used before beforeAll started it');
    return started;
  };
  /**
   * Posts read-only calls through the balancer, once more on a new connection when the kept-alive
   * one they were written to was closed under them (a replica killed a moment before): reads are
   * safe to send again, and the answers checked are those of the call that got through.
   */
  const postReads = async (body: unknown): Promise<unknown> => {
    try {
      return await cluster().post(body);
    } catch (error) {
      if (!closedSocket(error)) throw error;
      return cluster().post(body);
    }
  };
  const replicaOf = (sid: string): string => /^s_([a-z0-9-]+)\./.exec(sid)?.[1] ?? 'none';
  const logsOf = (replica: string): string[] => cluster().replicas.find((r) => r.id === replica)?.logs ?? [];
  const on = (filter: { replica?: string; server?: ServerName }): Held[] =>
    held.filter(
      (h) =>
        (filter.replica === undefined || h.replica === filter.replica) &&
        (filter.server === undefined || h.server === filter.server),
    );
  const pageUrl = (tag: string): string => `${sites.fixture.url}/frame-child?name=${tag}`;
  const pageText = (tag: string): string => `Inside the ${tag} frame`;

  async function serverOf(sid: string): Promise<ServerName> {
    let placed: string | undefined;
    await waitFor(
      () => (placed = placementIn(logsOf(replicaOf(sid)), sid)) !== undefined,
      LOG_WAIT_MS,
      `the placement of ${sid} in its replica's log`,
    );
    if (placed === servers.a?.label) return 'a';
    if (placed === servers.b?.label) return 'b';
    throw new Error(`${sid} was placed on ${String(placed)}, neither server`);
  }

  async function create(): Promise<RpcAnswer> {
    const answer = await cluster().rpc('session.create', {});
    createAnswers.push(JSON.stringify(answer));
    return answer;
  }

  /** Over POST /rpc through the balancer: the session opens its own page and reads it back. */
  async function visit(h: Held, tag: string): Promise<void> {
    const nav = await cluster().rpc('page.goto', { session_id: h.id, url: pageUrl(tag), waitUntil: 'load' });
    expect(nav.error, `${h.id} page.goto`).toBeUndefined();
    expect(nav.result?.title).toBe(`Child ${tag}`);
    const read = await cluster().rpc('page.text', { session_id: h.id, selector: 'p' });
    expect(read.result?.text).toBe(pageText(tag));
  }

  async function lostServerLogged(replica: string, label: string): Promise<void> {
    await waitFor(
      () => lossLogged(logsOf(replica), label),
      LOG_WAIT_MS,
      `${replica} to log the loss of ${label}`,
    );
  }

  beforeAll(async () => {
    const [a, b] = await Promise.all([startBrowserServer(), startBrowserServer()]);
    servers.a = a;
    servers.b = b;
    started = await startReplicaCluster(['r1', 'r2'], {
      BROWSER_ENDPOINTS: `${a.endpoint}#cap=${CAP},${b.endpoint}#cap=${CAP}`,
    });
    const pairings = (): number => new Set(held.map((h) => `${h.replica}/${h.server}`)).size;
    for (let i = 0; i < MAX_CREATES && pairings() < 4; i++) {
      const created = await create();
      const id = created.result?.session_id;
      if (typeof id !== 'string') throw new Error(`session.create failed: ${JSON.stringify(created.error)}`);
      held.push({ id, replica: replicaOf(id), server: await serverOf(id), tag: `s${i}` });
    }
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await started?.stop();
    await Promise.all([servers.a?.stop(), servers.b?.stop()]);
  });

  it('sessions land on both replicas and both browser servers, in every pairing', () => {
    for (const h of held) expect(h.id).toMatch(/^s_r[12]\.[0-9a-f-]{36}$/);
    for (const replica of ['r1', 'r2'])
      for (const server of ['a', 'b'] as const)
        expect(on({ replica, server }).length, `${replica} on ${server}`).toBeGreaterThanOrEqual(1);
    // Where a session runs is the operator's to know (the log), not the caller's.
    for (const answer of createAnswers) {
      expect(answer).not.toContain('ws://');
      for (const server of [servers.a, servers.b]) expect(answer).not.toContain(server?.wsPath ?? 'none');
    }
  });

  it('POST /rpc through the balancer: each session opens its own page and reads it back', async () => {
    await Promise.all(held.map((h) => visit(h, h.tag)));
  });

  it('a batch mixing both replicas’ sessions: each navigation and read reaches its own session', async () => {
    expect(new Set(held.map((h) => h.replica)).size).toBe(2);
    const navs = (await cluster().post(
      held.map((h, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'page.goto',
        params: { session_id: h.id, url: pageUrl(`${h.tag}b`), waitUntil: 'load' },
      })),
    )) as RpcAnswer[];
    expect(navs.map((n) => n.result?.title)).toEqual(held.map((h) => `Child ${h.tag}b`));
    const reads = (await cluster().post(
      held.map((h, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'page.text',
        params: { session_id: h.id, selector: 'p' },
      })),
    )) as RpcAnswer[];
    expect(reads.map((r) => r.result?.text)).toEqual(held.map((h) => pageText(`${h.tag}b`)));
  });

  it('one WebSocket /rpc through the balancer reaches every session, on both replicas', async () => {
    const navs = await cluster().socketCalls(
      held.map((h) => ({
        method: 'page.goto',
        params: { session_id: h.id, url: pageUrl(`${h.tag}w`), waitUntil: 'load' },
      })),
    );
    expect(navs.map((n) => n.result?.title)).toEqual(held.map((h) => `Child ${h.tag}w`));
    const reads = await cluster().socketCalls(
      held.map((h) => ({ method: 'page.text', params: { session_id: h.id, selector: 'p' } })),
    );
    expect(reads.map((r) => r.result?.text)).toEqual(held.map((h) => pageText(`${h.tag}w`)));
  });

  it('/mcp tools/call through the balancer reaches the session its arguments name', async () => {
    const tool = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const answer = (await cluster().post(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        '/mcp',
      )) as { result?: { structuredContent?: Record<string, unknown>; isError?: boolean } };
      expect(answer.result?.isError, JSON.stringify(answer)).not.toBe(true);
      return answer.result?.structuredContent ?? {};
    };
    for (const h of held) {
      const tag = `${h.tag}m`;
      const nav = await tool('page_goto', { session_id: h.id, url: pageUrl(tag), waitUntil: 'load' });
      expect(nav.title).toBe(`Child ${tag}`);
      expect((await tool('page_text', { session_id: h.id, selector: 'p' })).text).toBe(pageText(tag));
    }
  });

  it(
    'the allow-list keeps remotely hosted sessions from the decoy on 127.0.0.2',
    async () => {
      // The decoy answers whoever reaches it: its empty log below means nothing got through.
      expect((await fetch(`${sites.decoy.url}/control`)).status).toBe(200);
      expect(sites.decoy.hits).toEqual(['GET /control']);
      sites.decoy.hits.length = 0;
      const decoy = sites.decoy.url;
      await Promise.all(
        held.map(async (h) => {
          // The redirect hop is seen only by the replica's egress proxy: the first URL passed.
          const start = `${sites.fixture.url}/redirect?to=${encodeURIComponent(`${decoy}/after-302`)}`;
          const blocked = await cluster().rpc('page.goto', { session_id: h.id, url: start });
          expect(blocked.error?.code).toBe(URL_NOT_ALLOWED);
          expect(blocked.error?.data).toMatchObject({ blockedUrl: `${decoy}/after-302` });
          const img = `${sites.fixture.url}/img?src=${encodeURIComponent(`${decoy}/pixel`)}`;
          expect(
            (await cluster().rpc('page.goto', { session_id: h.id, url: img, waitUntil: 'load' })).error,
          ).toBeUndefined();
          const fetched = `${sites.fixture.url}/fetch?to=${encodeURIComponent(`${decoy}/fetched`)}`;
          expect(
            (await cluster().rpc('page.goto', { session_id: h.id, url: fetched, waitUntil: 'load' })).error,
          ).toBeUndefined();
          await waitFor(
            async () =>
              (await cluster().rpc('page.text', { session_id: h.id, selector: '#out' })).result?.text ===
              'fetched',
            PAGE_WAIT_MS,
            `${h.id}'s fetch to end`,
          );
        }),
      );
      expect(sites.decoy.hits).toEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a killed browser server fails only the sessions on it, on both replicas; the others keep working',
    async () => {
      const a = servers.a;
      if (a === undefined) throw new Error('no server a');
      const onA = on({ server: 'a' });
      const onB = on({ server: 'b' });
      const [victim] = onA;
      if (victim === undefined) throw new Error('no session on server a');
      // A call left running on the server: the fixture sees its request once the page runs it.
      const gateHits = (): number => sites.fixture.hits.filter((hit) => hit === 'GET /idem/gate').length;
      const before = gateHits();
      const inFlight = cluster().rpc('page.evaluate', {
        session_id: victim.id,
        expression: "new Promise(() => { fetch('/idem/gate?token=cluster-in-flight'); })",
        timeout: IN_FLIGHT_TIMEOUT_MS,
      });
      await waitFor(() => gateHits() > before, PAGE_WAIT_MS, 'the in-flight call to reach its page');
      await a.kill();

      const reply = await inFlight;
      expect(reply.error?.code, JSON.stringify(reply.error)).toBe(RESOURCE_UNAVAILABLE);
      expect(reply.error?.data).toMatchObject({ reason: 'browser-server-lost', session_id: victim.id });
      // Each replica holds sessions on a: once its log says a is gone, they are not found, saying why.
      await Promise.all(['r1', 'r2'].map((replica) => lostServerLogged(replica, a.label)));
      for (const h of onA) {
        const after = await cluster().rpc('page.text', { session_id: h.id, selector: 'p' });
        expect(after.error?.code, JSON.stringify(after.error)).toBe(SESSION_NOT_FOUND);
        expect(after.error?.data).toMatchObject({ session_id: h.id, reason: 'browser-server-lost' });
        expect(after.error?.message).toMatch(/browser server/);
      }
      await Promise.all(onB.map((h) => visit(h, `${h.tag}k`)));
      // A new session goes to the server left, whichever replica takes it.
      const created = await create();
      const id = String(created.result?.session_id);
      expect(await serverOf(id)).toBe('b');
      expect((await cluster().rpc('session.close', { session_id: id })).result).toMatchObject({
        closed: true,
      });
      held.splice(0, held.length, ...onB);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a killed replica fails only its own sessions; the survivor’s keep working through the balancer',
    async () => {
      const survivors = on({ replica: 'r1' });
      const lost = on({ replica: 'r2' });
      expect(survivors.length).toBeGreaterThanOrEqual(1);
      expect(lost.length).toBeGreaterThanOrEqual(1);
      await cluster().kill('r2');
      // One batch, r2's first (HAProxy may not have marked r2 down yet): each member answered alone.
      const mixed = [...lost, ...survivors];
      const batch = mixed.map((h, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'page.text',
        params: { session_id: h.id, selector: 'p' },
      }));
      const answers = (await postReads(batch)) as RpcAnswer[];
      mixed.forEach((h, i) => {
        const answer = answers[i];
        if (h.replica === 'r1') {
          expect(answer?.result?.text, JSON.stringify(answer?.error)).toBe(pageText(`${h.tag}k`));
          return;
        }
        expect(answer?.error?.code, JSON.stringify(answer)).toBe(SESSION_NOT_FOUND);
        expect(answer?.error?.data).toMatchObject({
          session_id: h.id,
          replica: 'r2',
          reason: 'replica-unreachable',
        });
      });
      for (const h of lost) {
        const answer = await cluster().rpc('page.text', { session_id: h.id, selector: 'p' });
        expect(answer.error?.code).toBe(SESSION_NOT_FOUND);
        expect(answer.error?.data).toMatchObject({ replica: 'r2', reason: 'replica-unreachable' });
      }
      for (const h of survivors) await visit(h, `${h.tag}r`);
      const reads = await cluster().socketCalls(
        survivors.map((h) => ({ method: 'page.text', params: { session_id: h.id, selector: 'p' } })),
      );
      expect(reads.map((r) => r.result?.text)).toEqual(survivors.map((h) => pageText(`${h.tag}r`)));
      for (const h of survivors)
        expect((await cluster().rpc('session.close', { session_id: h.id })).result).toMatchObject({
          closed: true,
        });
    },
    CASE_TIMEOUT_MS,
  );
});
