// TRUSTED_PROXIES (issue 16): behind a balancer every per-address budget counts the client the
// balancer names in X-Forwarded-For, and nobody else can choose that name. Two real services:
// one trusting nothing (the default), one trusting 127.0.0.1, the balancer's address here. Every
// connection is loopback; the X-Forwarded-For values are header text only, nothing goes there.
// Each test speaks from its own loopback address or claims its own client addresses, so the
// budgets of one test never meet another's.
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PER_IP } from '../../src/http/rateLimits.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';
import { wsHandshake } from '../helpers/wsHandshake.js';

const KEY = 'trusted-proxies-key-0123456789';
const WRONG = 'trusted-proxies-wrong-key';
const LIMIT = 4;
/** Bound on any single wait for an answer or a handshake. */
const WAIT_MS = 20_000;
/** The balancer's address in these tests: the only one the trusting service trusts. */
const BALANCER = '127.0.0.1';

let plain: TestService;
let behind: TestService;
const sockets: WebSocket[] = [];

const settings = {
  API_KEY: KEY,
  RATE_LIMIT_MAX: String(LIMIT),
  // Long enough that no window ends during the file.
  RATE_LIMIT_WINDOW_MS: '600000',
};

beforeAll(async () => {
  [plain, behind] = await Promise.all([
    startTestService(settings),
    startTestService({ ...settings, TRUSTED_PROXIES: BALANCER }),
  ]);
});

afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
});

afterAll(async () => {
  await Promise.all([plain?.close(), behind?.close()]);
});

interface Reply {
  status: number;
  body: unknown;
}

/** POST /rpc (session.list) from `from`, with the key and the X-Forwarded-For given. */
function post(service: TestService, from: string, key: string, forwardedFor?: string): Promise<Reply> {
  const url = new URL(`${service.url}/rpc`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/rpc',
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-api-key': key,
          ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A /rpc WebSocket handshake from `from`: the open socket, or the status it was refused with. */
function handshake(
  service: TestService,
  from: string,
  headers: Record<string, string>,
  path = '/rpc',
): Promise<WebSocket | number> {
  const url = `${service.url.replace(/^http/, 'ws')}${path}`;
  return wsHandshake(url, { localAddress: from, headers }, sockets, WAIT_MS);
}

const withKey = (key: string, forwardedFor?: string): Record<string, string> => ({
  'x-api-key': key,
  ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
});

/** Sends one call on an open socket and waits for its answer. */
function ask(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer in time')), WAIT_MS);
    ws.once('message', (data: Buffer) => {
      clearTimeout(timer);
      resolve(JSON.parse(data.toString('utf8')) as unknown);
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'session.list' }));
  });
}

/** Sends LIMIT + 1 wrong keys, `forwardedFor(i)` on the i-th; expects LIMIT 401s, then the lockout. */
async function spendWrongKeys(
  service: TestService,
  from: string,
  forwardedFor: (i: number) => string | undefined,
): Promise<void> {
  const statuses: number[] = [];
  for (let i = 0; i <= LIMIT; i++) statuses.push((await post(service, from, WRONG, forwardedFor(i))).status);
  expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), 429]);
}

/** The same over WebSocket handshakes. */
async function spendWrongHandshakes(
  service: TestService,
  from: string,
  forwardedFor: (i: number) => string | undefined,
): Promise<void> {
  const answers: (WebSocket | number)[] = [];
  for (let i = 0; i <= LIMIT; i++)
    answers.push(await handshake(service, from, withKey(WRONG, forwardedFor(i))));
  expect(answers).toEqual([...Array<number>(LIMIT).fill(401), 429]);
}

const lockedOut = { error: { code: -32003, data: { limit: PER_IP } } };

/** The key-refusal log lines' addresses (KeyRefusalLog: reason, path, address, never the key). */
function refusedAddresses(service: TestService): unknown[] {
  return service.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('request refused'))
    .map((line) => (JSON.parse(line) as { address?: unknown }).address);
}

describe('TRUSTED_PROXIES unset (the default): X-Forwarded-For is never read', () => {
  it('HTTP: wrong keys under forged addresses, a new one each time, still lock out their real peer', async () => {
    await spendWrongKeys(plain, '127.0.0.61', (i) => `10.9.9.${i}`);
    // The right key from the same peer, claiming yet another address: the same lockout.
    const right = await post(plain, '127.0.0.61', KEY, '10.9.9.200');
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject(lockedOut);
    // Another peer is not locked out, whatever it claims to be.
    expect((await post(plain, '127.0.0.62', KEY, '10.9.9.0')).status).toBe(200);
    const logged = refusedAddresses(plain);
    expect(logged).toContain('127.0.0.61');
    expect(logged.filter((a) => String(a).startsWith('10.9.9.'))).toEqual([]);
  });

  it('WebSocket /rpc: forged addresses on handshakes do not escape the peer budget either', async () => {
    await spendWrongHandshakes(plain, '127.0.0.63', (i) => `10.8.8.${i}`);
    expect(await handshake(plain, '127.0.0.63', withKey(KEY, '10.8.8.200'))).toBe(429);
    const ws = await handshake(plain, '127.0.0.64', withKey(KEY, '10.8.8.0'));
    expect(ws).toBeInstanceOf(WebSocket);
  });

  it('the /agents and /rpc handshake logs name the peer, not the header', async () => {
    const origin = { origin: 'http://page.example', 'x-forwarded-for': '10.7.7.7' };
    expect(await handshake(plain, '127.0.0.65', origin, '/agents')).toBe(403);
    expect(await handshake(plain, '127.0.0.65', origin)).toBe(403);
    const refused = (): string[] =>
      plain.logs.filter(
        (l) => l.includes('handshake refused: browser origin') || l.includes('rpc socket refused'),
      );
    await waitFor(() => refused().length >= 2, WAIT_MS, 'both refusals logged');
    for (const line of refused()) {
      expect(line).toContain('"remoteAddress":"127.0.0.65"');
      expect(line).not.toContain('10.7.7.7');
    }
  });
});

describe('TRUSTED_PROXIES=127.0.0.1: clients behind the balancer have budgets of their own', () => {
  it('HTTP: one client locked out by wrong keys, another behind the same balancer still served', async () => {
    await spendWrongKeys(behind, BALANCER, () => '10.0.0.1');
    const locked = await post(behind, BALANCER, KEY, '10.0.0.1');
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject(lockedOut);
    const other = await post(behind, BALANCER, KEY, '10.0.0.2');
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ id: 1, result: {} });
    expect(refusedAddresses(behind)).toContain('10.0.0.1');
  });

  it('HTTP: a peer that is not the balancer is counted as itself, whatever it claims', async () => {
    await spendWrongKeys(behind, '127.0.0.71', (i) => `10.0.1.${i}`);
    expect((await post(behind, '127.0.0.71', KEY, '10.0.1.200')).status).toBe(429);
    // Its claims named nobody: those addresses are not locked out behind the balancer.
    expect((await post(behind, BALANCER, KEY, '10.0.1.0')).status).toBe(200);
  });

  it('HTTP: a chain resolves to the hop the balancer names; what that hop claims is not believed', async () => {
    // Only the balancer is trusted: "6.6.6.6, 10.1.1.1" is 10.1.1.1, whatever comes before it.
    await spendWrongKeys(behind, BALANCER, (i) => `6.6.6.${i}, 10.1.1.1`);
    expect((await post(behind, BALANCER, KEY, '10.1.1.1')).body).toMatchObject(lockedOut);
    expect((await post(behind, BALANCER, KEY, '6.6.6.6, 10.1.1.1')).status).toBe(429);
    // The addresses on its left were never charged.
    expect((await post(behind, BALANCER, KEY, '6.6.6.0')).status).toBe(200);
    expect((await post(behind, BALANCER, KEY, '10.1.1.2')).status).toBe(200);
  });

  it('WebSocket /rpc: the same two clients, the same separate budgets', async () => {
    await spendWrongHandshakes(behind, BALANCER, () => '10.0.0.3');
    expect(await handshake(behind, BALANCER, withKey(KEY, '10.0.0.3'))).toBe(429);
    const ws = await handshake(behind, BALANCER, withKey(KEY, '10.0.0.4'));
    if (typeof ws === 'number') throw new Error(`the other client's handshake was refused with ${ws}`);
    expect(await ask(ws)).toMatchObject({ id: 7, result: {} });
  });

  it('WebSocket /rpc: a chain resolves to the hop the balancer names', async () => {
    await spendWrongHandshakes(behind, BALANCER, (i) => `6.6.7.${i}, 10.1.1.3`);
    expect(await handshake(behind, BALANCER, withKey(KEY, '10.1.1.3'))).toBe(429);
    expect(await handshake(behind, BALANCER, withKey(KEY, '6.6.7.0'))).toBeInstanceOf(WebSocket);
  });

  it('the /agents and /rpc handshake logs name the client the balancer names', async () => {
    const origin = { origin: 'http://page.example', 'x-forwarded-for': '6.6.6.6, 10.7.7.8' };
    expect(await handshake(behind, BALANCER, origin, '/agents')).toBe(403);
    expect(await handshake(behind, BALANCER, origin)).toBe(403);
    const refused = (): string[] =>
      behind.logs.filter(
        (l) => l.includes('handshake refused: browser origin') || l.includes('rpc socket refused'),
      );
    await waitFor(() => refused().length >= 2, WAIT_MS, 'both refusals logged');
    for (const line of refused()) expect(line).toContain('"remoteAddress":"10.7.7.8"');
  });
});
