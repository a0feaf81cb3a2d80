// The Host header check: a DNS-rebinding page (its own name resolving to 127.0.0.1) reaches the
// service's port with its own name in Host, so every route and both WebSocket upgrades answer only
// the loopback names, HOST and ALLOWED_HOSTS.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TEST_API_KEY, startTestService, type TestService } from '../helpers/testService.js';

/** Bound on any single wait for an answer in these tests. */
const WAIT_MS = 20_000;
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list' });

let service: TestService;
let port: string;

beforeAll(async () => {
  service = await startTestService({ ALLOWED_HOSTS: 'svc.internal, Other.Example' });
  port = new URL(service.url).port;
});

afterAll(async () => service?.close());

interface Reply {
  status: number;
  text: string;
}

/** One request to the service with the given Host header (and the key). */
function requestWithHost(host: string, method: string, path: string, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        headers: {
          host,
          'x-api-key': TEST_API_KEY,
          accept: 'application/json, text/event-stream',
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A WebSocket handshake with the given Host; resolves with 101 or the refusal's status. */
function upgradeWithHost(host: string, path: string): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
    headers: { host, 'x-api-key': TEST_API_KEY },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no handshake answer in time')), WAIT_MS);
    ws.once('open', () => {
      clearTimeout(timer);
      ws.terminate();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      res.resume();
      ws.terminate();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const ROUTES: [string, string, string | undefined][] = [
  ['GET', '/healthz', undefined],
  ['GET', '/readyz', undefined],
  ['GET', '/metrics', undefined],
  ['POST', '/rpc', LIST],
  ['POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
  ['GET', '/nowhere', undefined],
];

describe('a Host that is not ours is refused everywhere', () => {
  it.each(ROUTES)('%s %s', async (method, path, body) => {
    for (const host of [
      'rebind.test',
      `rebind.test:${port}`,
      `127.0.0.1.rebind.test:${port}`,
      'localhost.',
    ]) {
      const reply = await requestWithHost(host, method, path, body);
      expect(reply.status, `${host} on ${path}`).toBe(403);
      expect(JSON.parse(reply.text)).toEqual({ error: expect.stringContaining('ALLOWED_HOSTS') as unknown });
      expect(reply.text).not.toContain('rebind');
    }
  });

  it.each(['/rpc', '/agents'])('the WebSocket upgrade on %s', async (path) => {
    expect(await upgradeWithHost(`rebind.test:${port}`, path)).toBe(403);
  });

  it('a request without a Host (HTTP/1.0) is refused too', async () => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise<void>((resolve, reject) => {
      socket.once('end', () => resolve());
      socket.once('error', reject);
    });
    socket.end('GET /healthz HTTP/1.0\r\n\r\n');
    await ended;
    expect(Buffer.concat(chunks).toString('utf8')).toMatch(/^HTTP\/1\.1 403 /);
  });
});

describe('our own names are served', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]', 'svc.internal', 'other.example', 'LOCALHOST'])(
    'Host %s, with and without the port',
    async (name) => {
      expect((await requestWithHost(name, 'GET', '/healthz')).status).toBe(200);
      expect((await requestWithHost(`${name}:${port}`, 'POST', '/rpc', LIST)).status).toBe(200);
      expect(await upgradeWithHost(`${name}:${port}`, '/rpc')).toBe(101);
    },
  );
});
