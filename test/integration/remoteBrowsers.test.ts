// The browser tier on remote browser servers (issue 16): two `playwright-jsonrpc browser-server`
// processes on loopback and a service with BROWSER_ENDPOINTS pointing at both. Sessions land on
// both, least loaded against each #cap, and work; the allow-list holds for them (the decoy on
// 127.0.0.2 stays untouched); the egress proxy refuses requests without a live per-context login,
// and a context made on the server without the service's proxy reaches nothing; the server runs
// with the service's Chromium flags. One server killed fails only its own sessions
// (RESOURCE_UNAVAILABLE in flight, then SESSION_NOT_FOUND with reason browser-server-lost), new
// sessions go to the other, and the killed one is used again once it is back.
import http from 'node:http';
import net from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserTier } from '../../src/browser/engine/browserTier.js';
import { bindSession, rpcFailure, type BoundSession } from '../helpers/boundSession.js';
import { placementIn, startBrowserServer, type BrowserServerProcess } from '../helpers/browserServers.js';
import { cmdline } from '../../bench/lib/proc.js';
import { useFixtureAndDecoy } from '../helpers/suite.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';

const servers = useFixtureAndDecoy();
const CAP = 2;
let a: BrowserServerProcess | undefined;
let b: BrowserServerProcess | undefined;
let service: TestService | undefined;
const open: BoundSession[] = [];

function tier(): BrowserTier {
  const t = service?.running.tier;
  if (t === undefined) throw new Error('the service runs without a browser tier');
  return t;
}

function svc(): TestService {
  if (service === undefined) throw new Error('no service');
  return service;
}

/** The label (ws://host:port) of the browser server a session's context lives on. */
function endpointOf(id: string): string | undefined {
  const session = svc().running.services.sessions.get(id);
  return session === undefined ? undefined : tier().endpointOf(session.context.browser());
}

const label = (server: BrowserServerProcess | undefined): string => `ws://127.0.0.1:${server?.port ?? 0}`;

async function newSession(): Promise<BoundSession> {
  const { session_id } = await svc().call<{ session_id: string }>('session.create', {});
  const session = bindSession(svc(), session_id);
  open.push(session);
  return session;
}

async function visitStatic(session: BoundSession): Promise<void> {
  const nav = await session.call<{ title: string }>('page.goto', {
    url: `${servers.fixture.url}/static`,
    waitUntil: 'load',
  });
  expect(nav.title).toBe('Static');
  expect(await session.text('main')).toBe('Static content');
}

/** A raw request to the egress proxy, as a browser server would send it. */
function proxyRequest(target: string, headers: Record<string, string> = {}): Promise<number> {
  const proxy = new URL(tier().proxyServer);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: proxy.hostname, port: proxy.port, method: 'GET', path: target, headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT to the egress proxy without a login: the first line of its answer. */
function proxyConnect(authority: string): Promise<string> {
  const proxy = new URL(tier().proxyServer);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(proxy.port), proxy.hostname, () =>
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
    );
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  [a, b] = await Promise.all([startBrowserServer(), startBrowserServer()]);
  service = await startTestService({
    BROWSER_ENDPOINTS: `${a.endpoint}#cap=${CAP},${b.endpoint}#cap=${CAP}`,
    POOL_SIZE: '0',
  });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

describe('remote browser servers (BROWSER_ENDPOINTS)', () => {
  it('the launcher runs Chromium with the service flags and a deny-all launch proxy', () => {
    for (const server of [a, b]) {
      const browser = (server?.chromiumPids() ?? [])
        .map((pid) => cmdline(pid).join(' '))
        .find((c) => !c.includes('--type='));
      expect(browser).toBeDefined();
      expect(browser).toContain('--webrtc-ip-handling-policy=disable_non_proxied_udp');
      expect(browser).toContain('--disable-background-networking');
      expect(browser).toContain('--proxy-server=http://127.0.0.1:1');
    }
  });

  it('sessions land on both servers, least loaded first, and each one works', async () => {
    const first = await newSession();
    const second = await newSession();
    const third = await newSession();
    const fourth = await newSession();
    const placed = [first, second, third, fourth].map((s) => endpointOf(s.id));
    expect(placed.filter((e) => e === label(a))).toHaveLength(2);
    expect(placed.filter((e) => e === label(b))).toHaveLength(2);
    // The log names each session's server (what an operator reads after a loss), and only that one.
    for (const s of [first, second, third, fourth])
      expect(placementIn(svc().logs, s.id)).toBe(endpointOf(s.id));
    for (const session of [first, second, third, fourth]) await visitStatic(session);
    expect(
      tier()
        .describe()
        .map((e) => e.load),
    ).toEqual([CAP, CAP]);
  });

  it('past every server #cap, session.create answers LIMIT_REACHED naming BROWSER_ENDPOINTS', async () => {
    const refused = await rpcFailure(svc().call('session.create', {}), -32003);
    expect(refused.data).toMatchObject({ limit: 'BROWSER_ENDPOINTS', capacity: 2 * CAP });
  });

  it('the allow-list holds on remotely hosted sessions: the decoy on 127.0.0.2 is never reached', async () => {
    servers.decoy.hits.length = 0;
    for (const server of [a, b]) {
      const session = open.find((s) => endpointOf(s.id) === label(server));
      if (session === undefined) throw new Error(`no session on ${label(server)}`);
      // The redirect hop is seen only by the egress proxy: the service checked the first URL.
      const start = `${servers.fixture.url}/redirect?to=${encodeURIComponent(`${servers.decoy.url}/after-302`)}`;
      const blocked = await session.fails('page.goto', { url: start }, -32011);
      expect(blocked.data).toMatchObject({ blockedUrl: `${servers.decoy.url}/after-302` });
      await session.call('page.goto', {
        url: `${servers.fixture.url}/img?src=${encodeURIComponent(`${servers.decoy.url}/pixel`)}`,
        waitUntil: 'load',
      });
      await session.call('page.goto', {
        url: `${servers.fixture.url}/fetch?to=${encodeURIComponent(`${servers.decoy.url}/fetched`)}`,
        waitUntil: 'load',
      });
      await waitFor(async () => (await session.text('#out')) === 'fetched', 10_000, 'the fetch to end');
    }
    expect(servers.decoy.hits).toEqual([]);
  });

  it('the egress proxy refuses requests without a live per-context login (407), with or without a wrong one', async () => {
    const before = servers.fixture.hits.length;
    const target = `${servers.fixture.url}/static`;
    expect(await proxyRequest(target)).toBe(407);
    const wrong = Buffer.from('c_nobody:not-the-password').toString('base64');
    expect(await proxyRequest(target, { 'proxy-authorization': `Basic ${wrong}` })).toBe(407);
    expect(await proxyConnect(`127.0.0.1:${servers.fixture.port}`)).toMatch(/^HTTP\/1\.1 407 /);
    expect(servers.fixture.hits.length).toBe(before);
  });

  it('a context made on a browser server without the service proxy reaches nothing', async () => {
    const direct = await chromium.connect(a?.endpoint ?? '');
    try {
      const context = await direct.newContext();
      const page = await context.newPage();
      const before = servers.fixture.hits.length;
      const outcome = await page.goto(`${servers.fixture.url}/static`).then(
        () => 'loaded',
        (error: unknown) => String(error),
      );
      expect(outcome).toMatch(
        /ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED|ERR_CONNECTION_REFUSED/,
      );
      expect(servers.fixture.hits.length).toBe(before);
    } finally {
      await direct.close();
    }
  });

  it('a server killed fails only its sessions, new sessions go to the other, and it is used again when back', async () => {
    const onA = open.filter((s) => endpointOf(s.id) === label(a));
    const onB = open.filter((s) => endpointOf(s.id) === label(b));
    expect(onA).toHaveLength(CAP);
    expect(onB).toHaveLength(CAP);
    const [victim, other] = onA;
    if (victim === undefined || other === undefined || a === undefined) throw new Error('no sessions on a');
    const inFlight = svc().rpc('page.evaluate', {
      session_id: victim.id,
      expression: 'new Promise(() => {})',
      timeout: 60_000,
    });
    // Let the evaluate reach the page before the kill.
    await waitFor(
      () => svc().running.services.sessions.get(victim.id)?.busy === true,
      5000,
      'the call to run',
    );
    const { port, wsPath } = a;
    await a.kill();

    const reply = await inFlight;
    expect(reply.error?.code, JSON.stringify(reply.error)).toBe(-32005);
    expect(reply.error?.data).toMatchObject({ reason: 'browser-server-lost', session_id: victim.id });
    for (const gone of [victim, other]) {
      const after = await gone.fails('page.text', {}, -32010);
      expect(after.data).toMatchObject({ reason: 'browser-server-lost' });
      expect(after.message).toMatch(/browser server/);
    }
    await waitFor(() => tier().describe()[0]?.connected === false, 10_000, 'the tier to see the loss');
    for (const alive of onB) await visitStatic(alive);

    // B is full (#cap 2): close one of its sessions so a new one has room, and it must land on B.
    const [bFirst] = onB;
    await bFirst?.close();
    const fresh = await newSession();
    expect(endpointOf(fresh.id)).toBe(label(b));
    await visitStatic(fresh);
    const full = await rpcFailure(svc().call('session.create', {}), -32003);
    expect(full.data).toMatchObject({ capacity: CAP });

    // The same endpoint comes back: the tier reconnects with back-off and places sessions there.
    a = await startBrowserServer(['--port', String(port), '--ws-path', wsPath]);
    await waitFor(() => tier().describe()[0]?.connected === true, 60_000, 'the tier to reconnect');
    const back = await newSession();
    expect(endpointOf(back.id)).toBe(label(a));
    await visitStatic(back);
    for (const s of [fresh, back, ...onB.slice(1)]) await s.close();
  });
});
