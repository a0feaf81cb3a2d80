// A page never reaches the service's own port nor the egress proxy's, whatever ALLOW_HOST_REGEX says
// and however it spells loopback: no request of a page reaches /rpc (it would spend the operator's
// rate limits), and none reaches the proxy as an origin server.
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cmdline } from '../../bench/lib/proc.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { browserProcesses } from '../helpers/procfs.js';
import { TEST_API_KEY, startTestService, type TestService } from '../helpers/testService.js';

/** Every loopback spelling the WHATWG parser and Chromium accept, on the list. */
const LOOPBACK_ANY_PORT = String.raw`^https?://(localhost|[a-z]+\.localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(:\d+)?(/|$)`;
/** The hostile page's attempts settle once each has been answered or refused. */
const REPORT_TIMEOUT_MS = 30_000;

let fixture: FixtureServer;
let service: TestService;
/** Requests and upgrades that reached the service without the test's key: a page's. */
const pageHits: string[] = [];
let proxyPort: number;

function countPage(req: IncomingMessage): void {
  if (req.headers['x-api-key'] !== TEST_API_KEY) pageHits.push(`${req.method ?? ''} ${req.url ?? ''}`);
}

beforeAll(async () => {
  fixture = await startFixtureServer();
  // Debug lines carry each refusal of the egress proxy, with its URL and reason.
  service = await startTestService({
    ALLOW_HOST_REGEX: LOOPBACK_ANY_PORT,
    LOG_LEVEL: 'debug',
    POOL_SIZE: '0',
  });
  service.running.server.on('request', countPage);
  service.running.server.on('upgrade', countPage);
  const browsers = browserProcesses();
  expect(browsers).toHaveLength(1);
  const proxyArg = cmdline(browsers[0]?.pid ?? -1).find((arg) => arg.startsWith('--proxy-server='));
  proxyPort = Number(new URL(proxyArg?.slice('--proxy-server='.length) ?? '').port);
  expect(proxyPort).toBeGreaterThan(0);
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
});

/** Refusals the egress proxy logged: URL and reason. */
function proxyRefusals(): { url: string; reason: string }[] {
  return service.logs
    .map((line) => JSON.parse(line) as { msg?: string; url?: string; reason?: string })
    .filter((entry) => entry.msg === 'request blocked by the allow-list')
    .map((entry) => ({ url: entry.url ?? '', reason: entry.reason ?? '' }));
}

describe('the service’s own ports', () => {
  it('page.goto to the service port or the proxy port, under any loopback spelling, is NAVIGATION_BLOCKED', async () => {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    const ports = [service.running.port, proxyPort];
    const hosts = [
      '127.0.0.1',
      'localhost',
      'api.localhost',
      '127.1.2.3',
      '0.0.0.0',
      '[::1]',
      '2130706433',
      '0x7f.1',
      '[::ffff:127.0.0.1]',
    ];
    for (const port of ports) {
      for (const host of hosts) {
        const reply = await service.rpc('page.goto', { session_id, url: `http://${host}:${port}/healthz` });
        expect(reply.error?.code, `${host}:${port}`).toBe(-32011);
        expect(reply.error?.message).toContain('own ports');
      }
    }
    // The list itself is untouched: the fixture app on another port of 127.0.0.1 still opens.
    const ok = await service.call<{ title: string }>('page.goto', {
      session_id,
      url: `${fixture.url}/static`,
    });
    expect(ok.title).toBe('Static');
    await service.call('session.close', { session_id });
    expect(pageHits).toEqual([]);
  });

  it('the machine’s interface addresses and its name count as the machine (a HOST of 0.0.0.0 listens on them)', () => {
    const policy = service.running.services.policy;
    const addresses = Object.values(networkInterfaces()).flatMap((list) =>
      (list ?? []).map((i) => i.address),
    );
    expect(addresses.length).toBeGreaterThan(0);
    for (const host of [...addresses, hostname(), '[::ffff:7f00:1]', 'localhost.']) {
      expect(policy.isOwnEndpoint(host, service.running.port), host).toBe(true);
      expect(policy.isOwnEndpoint(host, fixture.port), host).toBe(false);
    }
    // Another machine on an own port number is not the service.
    expect(policy.isOwnEndpoint('198.51.100.7', service.running.port)).toBe(false);
  });

  it('a page fetching, framing and opening WebSockets to both ports reaches neither', async () => {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    await service.call('page.goto', {
      session_id,
      url: `${fixture.url}/own-ports?ports=${service.running.port},${proxyPort}`,
      waitUntil: 'load',
    });
    const { result } = await service.call<{ result: string[] }>('page.evaluate', {
      session_id,
      expression: '() => window.ownPortsReport',
      timeout: REPORT_TIMEOUT_MS,
    });
    // 2 ports × 8 spellings × (fetch, iframe, WebSocket), every one settled; no WebSocket opened.
    expect(result).toHaveLength(48);
    expect(result).not.toContain('open');
    await service.call('session.close', { session_id });
    expect(pageHits).toEqual([]);
    const refusals = proxyRefusals();
    // Refused at the first hop for being an own port…
    for (const port of [service.running.port, proxyPort])
      expect(refusals.some((r) => r.url.includes(`:${port}`) && r.reason.includes('own ports'))).toBe(true);
    // …so no request came back into the proxy as if it were an origin server.
    expect(refusals.filter((r) => r.reason === 'not an absolute URL')).toEqual([]);
  });
});
