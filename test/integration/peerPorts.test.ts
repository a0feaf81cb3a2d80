// A page never reaches a peer replica's port (docs/deployment.md, "Topology"), even when the peer
// sits inside ALLOW_HOST_REGEX: a replica whose REPLICA_PEERS names a loopback peer, as a list and
// as a template, refuses the navigation (NAVIGATION_BLOCKED) and blocks the page's fetch; the peer
// (a plain HTTP server standing in for another replica) sees no request. Nor the balancer's address
// (BALANCER_URLS), here a decoy on 127.0.0.2. No balancer is needed: one service with the peers or
// the balancer in its configuration.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';

/** Loopback under any spelling, any port, and every *.localhost name: the peers are on the list. */
const LOOPBACK_ANY_PORT = String.raw`^https?://(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?(/|$)`;
/** The page's fetch settles (refused) well within this. */
const FETCH_SETTLE_MS = 15_000;

interface FakePeer {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP server on `host` (loopback) standing in for another replica or the balancer: it records every request. */
async function startPeer(host = '127.0.0.1'): Promise<FakePeer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method ?? ''} ${req.headers.host ?? ''}${req.url ?? ''}`);
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let fixture: FixtureServer;
beforeAll(async () => {
  fixture = await startFixtureServer();
});
afterAll(async () => {
  await fixture?.close();
});

/** Navigations to each URL are NAVIGATION_BLOCKED naming `what`; a fetch from a page to each is blocked. */
async function expectRefused(
  service: TestService,
  peer: FakePeer,
  urls: string[],
  what = /another replica \(REPLICA_PEERS\)/,
): Promise<void> {
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  for (const url of urls) {
    const reply = await service.rpc('page.goto', { session_id, url });
    expect(reply.error?.code, url).toBe(-32011);
    expect(reply.error?.message, url).toMatch(what);
  }
  for (const url of urls) {
    await service.call('page.goto', {
      session_id,
      url: `${fixture.url}/fetch?to=${encodeURIComponent(`${url}rpc`)}`,
      waitUntil: 'load',
    });
    await waitFor(
      async () =>
        (await service.call<{ text: string }>('page.text', { session_id, selector: '#out' })).text ===
        'fetched',
      FETCH_SETTLE_MS,
      `the fetch to ${url}rpc to settle`,
    );
  }
  // The list itself is untouched: the fixture app on another loopback port still opens.
  const ok = await service.call<{ title: string }>('page.goto', { session_id, url: `${fixture.url}/static` });
  expect(ok.title).toBe('Static');
  await service.call('session.close', { session_id });
  expect(peer.hits).toEqual([]);
}

describe('a listed loopback peer (REPLICA_PEERS r2=http://127.0.0.1:PORT)', () => {
  let peer: FakePeer;
  let service: TestService;
  beforeAll(async () => {
    peer = await startPeer();
    service = await startTestService({
      ALLOW_HOST_REGEX: LOOPBACK_ANY_PORT,
      REPLICA_ID: 'r1',
      REPLICA_PEERS: `r2=http://127.0.0.1:${peer.port}`,
      POOL_SIZE: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await peer?.close();
  });

  it("refuses the peer's port to navigations and fetches, under loopback's spellings", async () => {
    await expectRefused(service, peer, [
      `http://127.0.0.1:${peer.port}/`,
      `http://localhost:${peer.port}/`,
      `http://[::1]:${peer.port}/`,
    ]);
  });
});

describe('template peers (REPLICA_PEERS http://{id}.localhost:PORT)', () => {
  let peer: FakePeer;
  let service: TestService;
  beforeAll(async () => {
    peer = await startPeer();
    service = await startTestService({
      ALLOW_HOST_REGEX: LOOPBACK_ANY_PORT,
      REPLICA_ID: 'r1',
      REPLICA_PEERS: `http://{id}.localhost:${peer.port}`,
      REPLICA_IDS: 'r1,r2',
      POOL_SIZE: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await peer?.close();
  });

  it('refuses every name the template makes on the peer port to navigations and fetches', async () => {
    await expectRefused(service, peer, [
      `http://r2.localhost:${peer.port}/`,
      `http://r9.localhost:${peer.port}/`,
    ]);
  });

  it('the check can fail: the same page reaches an allowed loopback server that is not a peer', async () => {
    const other = await startPeer();
    try {
      const { session_id } = await service.call<{ session_id: string }>('session.create', {});
      await service.call('page.goto', { session_id, url: `http://127.0.0.1:${other.port}/` });
      expect(other.hits.length).toBeGreaterThan(0);
      await service.call('session.close', { session_id });
    } finally {
      await other.close();
    }
  });
});

describe("the balancer's address (BALANCER_URLS http://127.0.0.2:PORT)", () => {
  let balancer: FakePeer;
  let service: TestService;
  beforeAll(async () => {
    balancer = await startPeer('127.0.0.2');
    service = await startTestService({
      ALLOW_HOST_REGEX: LOOPBACK_ANY_PORT,
      BALANCER_URLS: `http://127.0.0.2:${balancer.port}`,
      POOL_SIZE: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await balancer?.close();
  });

  it("refuses the balancer's address to navigations and fetches, under loopback's spellings", async () => {
    await expectRefused(
      service,
      balancer,
      [`http://127.0.0.2:${balancer.port}/`, `http://localhost:${balancer.port}/`],
      /the load balancer's address \(BALANCER_URLS\)/,
    );
  });

  it('the check can fail: another port of 127.0.0.2 opens', async () => {
    const other = await startPeer('127.0.0.2');
    try {
      const { session_id } = await service.call<{ session_id: string }>('session.create', {});
      await service.call('page.goto', { session_id, url: `http://127.0.0.2:${other.port}/` });
      expect(other.hits.length).toBeGreaterThan(0);
      await service.call('session.close', { session_id });
    } finally {
      await other.close();
    }
  });
});
