// A context on a remote browser server that the service abandons keeps neither its proxy login nor a
// slot of its endpoint's #cap (src/browser/engine/browserTier.ts, closeContext). Against a real browser
// server frozen with SIGSTOP (it keeps its connection and answers nothing):
// - a session whose close cannot finish (SESSION_CLOSE_TIMEOUT_MS passes, the context is abandoned):
//   its login is refused at once (407) and the endpoint's count is back;
// - a context the server never finishes making (the tier's creation deadline): same;
// - a server that dies: its sessions fail and their logins are refused.
// test/unit/remoteContextCleanup.test.ts checks that every abandon path goes through closeContext.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserTier } from '../../src/browser/engine/browserTier.js';
import { ProxyCredentials, type ProxyLogin } from '../../src/browser/engine/proxyCredentials.js';
import { createLogger } from '../../src/observability/logger.js';
import { startBrowserServer, type BrowserServerProcess } from '../helpers/browserServers.js';
import { useFixtureAndDecoy } from '../helpers/suite.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';

const servers = useFixtureAndDecoy();
/** Short, so the abandon comes quickly; the frozen server answers nothing in any time. */
const CLOSE_TIMEOUT_MS = 1500;
const CAP = 3;
let a: BrowserServerProcess | undefined;
let b: BrowserServerProcess | undefined;
let service: TestService | undefined;

function svc(): TestService {
  if (service === undefined) throw new Error('no service');
  return service;
}
function tier(): BrowserTier {
  const t = svc().running.tier;
  if (t === undefined) throw new Error('the service runs without a browser tier');
  return t;
}
const loadOf = (t: BrowserTier, server: BrowserServerProcess | undefined): number | undefined =>
  t.describe().find((e) => e.endpoint === `ws://127.0.0.1:${server?.port ?? 0}`)?.load;

/** A GET of the fixture app through the egress proxy with a context's login: the status. */
function throughProxy(proxyServer: string, login: ProxyLogin): Promise<number> {
  const proxy = new URL(proxyServer);
  const auth = Buffer.from(`${login.username}:${login.password}`).toString('base64');
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: proxy.hostname,
        port: proxy.port,
        method: 'GET',
        path: `${servers.fixture.url}/static`,
        headers: { 'proxy-authorization': `Basic ${auth}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Runs `work` with the browser server frozen (SIGSTOP), and thaws it whatever happens. */
async function frozen<T>(server: BrowserServerProcess | undefined, work: () => Promise<T>): Promise<T> {
  if (server === undefined) throw new Error('no browser server');
  process.kill(server.pid, 'SIGSTOP');
  try {
    return await work();
  } finally {
    process.kill(server.pid, 'SIGCONT');
  }
}

/** A new session on the service, its context and login. */
async function newSession(): Promise<{ id: string; login: ProxyLogin }> {
  const { session_id } = await svc().call<{ session_id: string }>('session.create', {});
  const session = svc().running.services.sessions.get(session_id);
  const login = session === undefined ? undefined : tier().loginOf(session.context);
  if (login === undefined) throw new Error(`session ${session_id} has no proxy login`);
  return { id: session_id, login };
}

beforeAll(async () => {
  [a, b] = await Promise.all([startBrowserServer(), startBrowserServer()]);
  service = await startTestService({
    BROWSER_ENDPOINTS: `${a.endpoint}#cap=${CAP}`,
    POOL_SIZE: '0',
    SESSION_CLOSE_TIMEOUT_MS: String(CLOSE_TIMEOUT_MS),
  });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await Promise.all([a?.stop(), b?.kill()]);
});

describe('an abandoned remote context lets go of its login and its slot', () => {
  it('a session whose close never finishes: 407 for its login, the endpoint count back', async () => {
    const kept = await newSession();
    const victim = await newSession();
    expect(await throughProxy(tier().proxyServer, victim.login)).toBe(200);
    expect(loadOf(tier(), a)).toBe(2);
    await frozen(a, async () => {
      const closed = await svc().call<{ closed: boolean }>('session.close', { session_id: victim.id });
      expect(closed.closed).toBe(true);
      expect(svc().logs.join('')).toContain('its context is abandoned');
      expect(await throughProxy(tier().proxyServer, victim.login)).toBe(407);
      expect(loadOf(tier(), a)).toBe(1);
    });
    // The other session's login still works, and once the server answers again the count stays right.
    expect(await throughProxy(tier().proxyServer, kept.login)).toBe(200);
    expect(loadOf(tier(), a)).toBe(1);
    await svc().call('session.close', { session_id: kept.id });
    expect(await throughProxy(tier().proxyServer, kept.login)).toBe(407);
    expect(loadOf(tier(), a)).toBe(0);
  });

  it('a context the server never finishes making: its login revoked, the count back, the late one closed', async () => {
    const credentials = new ProxyCredentials();
    const own = new BrowserTier({
      endpoints: [{ url: a?.endpoint ?? '', capacity: CAP }],
      proxyServer: tier().proxyServer,
      credentials,
      connectTimeoutMs: 30_000,
      launchArgs: [],
      logger: createLogger('silent'),
      openTimeoutMs: CLOSE_TIMEOUT_MS,
    });
    await own.start();
    try {
      const refused = await frozen(a, async () => {
        const making = own.newContext({}).then(
          () => undefined,
          (error: unknown) => error,
        );
        await waitFor(() => loadOf(own, a) === 1, 5000, 'the creation to count');
        expect(credentials.size).toBe(1);
        return making;
      });
      expect(String(refused)).toMatch(/ran past its 1500 ms deadline/);
      expect(credentials.size).toBe(0);
      expect(loadOf(own, a)).toBe(0);
      // Thawed, the server finishes the context; the tier closes it and never counts it.
      await waitFor(
        async () => (await countServerContexts(own)) === 0,
        15_000,
        'the late context to be closed',
      );
      expect(loadOf(own, a)).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('a server that dies: its sessions fail and their logins are refused', async () => {
    const second = await startTestService({
      BROWSER_ENDPOINTS: `${b?.endpoint ?? ''}#cap=${CAP}`,
      POOL_SIZE: '0',
    });
    try {
      const { session_id } = await second.call<{ session_id: string }>('session.create', {});
      const session = second.running.services.sessions.get(session_id);
      const t = second.running.tier;
      const login = session === undefined ? undefined : t?.loginOf(session.context);
      if (login === undefined || t === undefined) throw new Error('no login');
      expect(await throughProxy(t.proxyServer, login)).toBe(200);
      await b?.kill();
      await waitFor(() => t.describe()[0]?.connected === false, 10_000, 'the tier to see the loss');
      const after = await second.rpc('page.text', { session_id });
      expect(after.error?.data).toMatchObject({ reason: 'browser-server-lost' });
      expect(await throughProxy(t.proxyServer, login)).toBe(407);
      expect(t.describe()[0]?.load).toBe(0);
    } finally {
      await second.close();
    }
  });
});

/** How many contexts the tier's browser holds on the server (released ones included). */
async function countServerContexts(t: BrowserTier): Promise<number> {
  const probe = await t.newContext({}).catch(() => undefined);
  // newContext proves the server answers again; the probe itself is closed through the tier.
  if (probe !== undefined) {
    const count = probe.browser()?.contexts().length ?? 0;
    await t.closeContext(probe);
    return count - 1;
  }
  return -1;
}
