// DNS rebinding: a name on the allow-list that resolves to a loopback, private or link-local
// address reaches it only when the list names that address too. The egress proxy's resolver is
// the test's: made-up names answer loopback addresses, no real DNS is asked. The decoy on
// 127.0.0.2 (not on the list) must see no connection at all; ok.test leads to 127.0.0.1, which the
// list names, and is reached.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy, type BlockedRequest } from '../../src/browser/network/egressProxy.js';
import type { HostLookup } from '../../src/browser/network/resolveUpstream.js';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, type TestService } from '../helpers/testService.js';

/** The names on the list and 127.0.0.1 (ok.test's address), not 127.0.0.2 (app.test's). */
const ALLOW = String.raw`^https?://(app\.test|ok\.test|flip\.test|own\.test|nowhere\.test|127\.0\.0\.1)(:\d+)?(/|$)`;
/** A refused tunnel or request is answered well within this. */
const ANSWER_TIMEOUT_MS = 5_000;

interface Decoy {
  port: number;
  /** Connections accepted: a refusal must leave it at 0. */
  connections: number;
  /** Requests received, as `Host path`. */
  hits: string[];
  close(): Promise<void>;
}

/** A plain HTTP server on `host` that counts every connection, whatever comes over it. */
async function startDecoy(host: string): Promise<Decoy> {
  const server = http.createServer((req, res) => {
    decoy.hits.push(`${req.headers.host ?? ''} ${req.url ?? ''}`);
    res.end(`decoy on ${host}`);
  });
  const decoy: Decoy = {
    port: 0,
    connections: 0,
    hits: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => (decoy.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  decoy.port = (server.address() as AddressInfo).port;
  return decoy;
}

const lookups: string[] = [];
/** flip.test answers 127.0.0.1 (listed) once, then 127.0.0.2: a second look-up would reach the decoy. */
let flips = 0;

const testLookup: HostLookup = (name) => {
  lookups.push(name);
  const v4 = (address: string): LookupAddress[] => [{ address, family: 4 }];
  if (name === 'app.test') return Promise.resolve(v4('127.0.0.2'));
  if (name === 'ok.test' || name === 'own.test') return Promise.resolve(v4('127.0.0.1'));
  if (name === 'flip.test') return Promise.resolve(v4(flips++ === 0 ? '127.0.0.1' : '127.0.0.2'));
  return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' }));
};

let decoy: Decoy;
let target: Decoy;

beforeAll(async () => {
  decoy = await startDecoy('127.0.0.2');
  target = await startDecoy('127.0.0.1');
});

afterAll(async () => {
  await decoy?.close();
  await target?.close();
});

describe('the egress proxy, driven directly', () => {
  let proxy: EgressProxy;
  let proxyPort: number;
  const blocked: BlockedRequest[] = [];

  beforeAll(async () => {
    proxy = new EgressProxy(new UrlPolicy(new RegExp(ALLOW)), (b) => blocked.push(b), {
      host: '127.0.0.1',
      port: 0,
      advertisedHost: '127.0.0.1',
      lookup: testLookup,
    });
    proxyPort = Number(new URL(await proxy.start()).port);
  });

  afterAll(async () => {
    await proxy?.close();
  });

  /** A plain request through the proxy: status, the blocked marker, the body. */
  function viaProxy(url: string): Promise<{ status: number; blocked: boolean; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: proxyPort, path: url, headers: { host: new URL(url).host }, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              blocked: res.headers['x-playwright-jsonrpc-blocked'] === '1',
              body,
            }),
          );
        },
      );
      req.setTimeout(ANSWER_TIMEOUT_MS, () => req.destroy(new Error(`no answer for ${url}`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** A CONNECT through the proxy: its status line, and the socket when it was established. */
  function connect(authority: string): Promise<{ status: string; socket: net.Socket }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(proxyPort, '127.0.0.1', () =>
        socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
      );
      socket.setTimeout(ANSWER_TIMEOUT_MS, () =>
        socket.destroy(new Error(`no answer for CONNECT ${authority}`)),
      );
      socket.once('data', (chunk: Buffer) =>
        resolve({ status: chunk.toString('latin1').split('\r\n')[0] ?? '', socket }),
      );
      socket.on('error', reject);
    });
  }

  it('refuses a plain request to a listed name that resolves to an unlisted loopback address', async () => {
    blocked.length = 0;
    const url = `http://app.test:${decoy.port}/secret`;
    const answer = await viaProxy(url);
    expect(answer).toMatchObject({ status: 403, blocked: true });
    expect(answer.body).toContain(
      'app.test resolves to 127.0.0.2, a loopback address the allow-list does not name',
    );
    expect(blocked).toEqual([
      { url, reason: expect.stringContaining('127.0.0.2, a loopback address') as unknown },
    ]);
    expect(decoy.connections).toBe(0);
  });

  it('refuses a CONNECT tunnel to it the same way', async () => {
    blocked.length = 0;
    const { status, socket } = await connect(`app.test:${decoy.port}`);
    socket.destroy();
    expect(status).toBe('HTTP/1.1 403 Forbidden');
    expect(blocked).toEqual([
      {
        url: expect.stringContaining('app.test') as unknown,
        reason: expect.stringContaining('a loopback address') as unknown,
      },
    ]);
    expect(decoy.connections).toBe(0);
  });

  it('refuses a WebSocket upgrade to it', async () => {
    blocked.length = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port: proxyPort,
        path: `http://app.test:${decoy.port}/ws`,
        headers: {
          host: `app.test:${decoy.port}`,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
        agent: false,
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('upgrade', () => reject(new Error('the upgrade went through')));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    expect(blocked).toEqual([
      {
        url: expect.stringContaining('/ws') as unknown,
        reason: expect.stringContaining('a loopback address') as unknown,
      },
    ]);
    expect(decoy.connections).toBe(0);
  });

  it('lets a request and a tunnel through when the list names the address (ok.test → 127.0.0.1)', async () => {
    const answer = await viaProxy(`http://ok.test:${target.port}/hello`);
    expect(answer).toEqual({ status: 200, blocked: false, body: 'decoy on 127.0.0.1' });
    expect(target.hits).toContain(`ok.test:${target.port} /hello`);
    const { status, socket } = await connect(`ok.test:${target.port}`);
    expect(status).toBe('HTTP/1.1 200 Connection Established');
    const reply = await new Promise<string>((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
      socket.write(`GET /tunnelled HTTP/1.1\r\nHost: ok.test\r\nConnection: close\r\n\r\n`);
    });
    socket.destroy();
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(target.hits).toContain('ok.test /tunnelled');
    expect(decoy.connections).toBe(0);
  });

  it('connects to the address it checked: one look-up per request, never a second that could answer otherwise', async () => {
    lookups.length = 0;
    flips = 0;
    const answer = await viaProxy(`http://flip.test:${target.port}/first`);
    expect(answer.status).toBe(200);
    expect(target.hits).toContain(`flip.test:${target.port} /first`);
    expect(lookups).toEqual(['flip.test']);
    // The name now answers the decoy: refused, for the tunnel too.
    expect((await viaProxy(`http://flip.test:${target.port}/second`)).status).toBe(403);
    const { status, socket } = await connect(`flip.test:${target.port}`);
    socket.destroy();
    expect(status).toBe('HTTP/1.1 403 Forbidden');
    expect(lookups).toEqual(['flip.test', 'flip.test', 'flip.test']);
    expect(decoy.connections).toBe(0);
  });

  it('refuses a name that resolves to the proxy’s own port, with a 403 (was a 502)', async () => {
    blocked.length = 0;
    const answer = await viaProxy(`http://own.test:${proxyPort}/`);
    expect(answer).toMatchObject({ status: 403, blocked: true });
    expect(blocked[0]?.reason).toContain(
      `own.test resolves to 127.0.0.1:${proxyPort}, a port no page may reach`,
    );
  });

  it('a name that does not resolve is a 502, not a refusal', async () => {
    blocked.length = 0;
    const answer = await viaProxy('http://nowhere.test/');
    expect(answer.status).toBe(502);
    expect(answer.body).toContain('ENOTFOUND');
    expect(blocked).toEqual([]);
    const { status, socket } = await connect('nowhere.test:443');
    socket.destroy();
    expect(status).toBe('HTTP/1.1 502 Bad Gateway');
  });
});

describe('the service: navigations and page requests', () => {
  let service: TestService;
  let fixture: FixtureServer;
  let session_id: string;

  beforeAll(async () => {
    fixture = await startFixtureServer();
    service = await startTestService(
      { ALLOW_HOST_REGEX: ALLOW, POOL_SIZE: '0' },
      { egressLookup: testLookup },
    );
    session_id = (await service.call<{ session_id: string }>('session.create', {})).session_id;
  });

  afterAll(async () => {
    await service?.close();
    await fixture?.close();
  });

  it.each(['http', 'https'])(
    'page.goto %s://app.test (→ 127.0.0.2) is NAVIGATION_BLOCKED, naming the address class',
    async (scheme) => {
      const url = `${scheme}://app.test:${decoy.port}/`;
      const reply = await service.rpc('page.goto', { session_id, url, timeout: 20_000 });
      expect(reply.error?.code).toBe(-32011);
      expect(reply.error?.data).toMatchObject({
        reason: expect.stringContaining('app.test resolves to 127.0.0.2, a loopback address') as unknown,
      });
      expect(decoy.connections).toBe(0);
    },
  );

  it('a page’s image from app.test is a blocked entry with that reason', async () => {
    const src = `http://app.test:${decoy.port}/pic.png`;
    const nav = await service.call<{ title: string; blocked?: { url: string; reason: string }[] }>(
      'page.goto',
      {
        session_id,
        url: `${fixture.url}/img?src=${encodeURIComponent(src)}`,
        waitUntil: 'load',
      },
    );
    expect(nav.title).toBe('Image');
    expect(nav.blocked).toContainEqual(
      expect.objectContaining({ url: src, reason: expect.stringContaining('a loopback address') as unknown }),
    );
    expect(decoy.connections).toBe(0);
  });

  it('ok.test, whose address the list names, opens', async () => {
    const nav = await service.call<{ title: string; status: number }>('page.goto', {
      session_id,
      url: `http://ok.test:${fixture.port}/form`,
    });
    expect(nav).toMatchObject({ title: 'Form', status: 200 });
    expect(fixture.hits).toContain('GET /form');
    expect(decoy.connections).toBe(0);
  });
});
