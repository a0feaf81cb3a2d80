// The browser tier's pure parts: BROWSER_ENDPOINTS parsing (caps, bad entries), the egress proxy's
// bind rule, least-loaded placement against each cap, the rule that a remote context is never made
// without the proxy and its login, and the per-context logins the proxy checks.
import type http from 'node:http';
import net from 'node:net';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { assertProxied, pickEndpoint } from '../../src/browser/engine/browserTier.js';
import { ProxyCredentials } from '../../src/browser/engine/proxyCredentials.js';
import { endpointError, endpointLabel } from '../../src/browser/engine/remoteBrowsers.js';
import { loadConfig } from '../../src/config/config.js';
import { MAX_ENDPOINT_CAPACITY } from '../../src/config/configBrowserTier.js';

const base = { API_KEY: 'k-0123456789abcdef' };

describe('BROWSER_ENDPOINTS', () => {
  it('is empty by default: the local browser', () => {
    expect(loadConfig(base).browserEndpoints).toEqual([]);
  });

  it('parses ws:// entries with an optional #cap; the cap defaults to MAX_SESSIONS', () => {
    const config = loadConfig({
      ...base,
      MAX_SESSIONS: '30',
      BROWSER_ENDPOINTS: 'ws://10.0.0.5:4100/abc#cap=40, wss://b.example:443/def',
    });
    expect(config.browserEndpoints).toEqual([
      { url: 'ws://10.0.0.5:4100/abc', capacity: 40 },
      { url: 'wss://b.example/def', capacity: 30 },
    ]);
  });

  it.each([
    ['http://h:1/p', /ws:\/\/ or wss:\/\//],
    ['ws://h:1/p#cap=0', /#cap=N/],
    [`ws://h:1/p#cap=${MAX_ENDPOINT_CAPACITY + 1}`, /#cap=N/],
    ['ws://h:1/p#capacity=3', /#cap=N/],
    ['ws://h:1/p,ws://h:1/p#cap=2', /listed twice/],
  ])('refuses %s', (value, message) => {
    expect(() => loadConfig({ ...base, BROWSER_ENDPOINTS: value })).toThrow(message);
  });

  it('an error never prints an entry path (it may be the server secret)', () => {
    expect(() => loadConfig({ ...base, BROWSER_ENDPOINTS: 'http://h:1/secret-path' })).toThrow(
      /^((?!secret-path).)*$/,
    );
    expect(endpointLabel('ws://h:1/secret-path')).toBe('ws://h:1');
  });
});

describe('EGRESS_PROXY_HOST', () => {
  it('may leave loopback only with BROWSER_ENDPOINTS', () => {
    expect(() => loadConfig({ ...base, EGRESS_PROXY_HOST: '0.0.0.0' })).toThrow(/EGRESS_PROXY_HOST/);
    const remote = loadConfig({ ...base, EGRESS_PROXY_HOST: '0.0.0.0', BROWSER_ENDPOINTS: 'ws://h:1/p' });
    expect(remote.egressProxyHost).toBe('0.0.0.0');
    expect(remote.egressProxyAdvertisedHost).toBe('127.0.0.1');
    const named = loadConfig({
      ...base,
      EGRESS_PROXY_HOST: '10.0.0.2',
      EGRESS_PROXY_ADVERTISED_HOST: 'svc.internal',
      BROWSER_ENDPOINTS: 'ws://h:1/p',
    });
    expect(named.egressProxyAdvertisedHost).toBe('svc.internal');
  });

  it('EGRESS_PROXY_PORT is a port', () => {
    expect(loadConfig(base).egressProxyPort).toBe(0);
    expect(() => loadConfig({ ...base, EGRESS_PROXY_PORT: '70000' })).toThrow(/EGRESS_PROXY_PORT/);
    expect(() => loadConfig({ ...base, EGRESS_PROXY_PORT: 'x' })).toThrow(/EGRESS_PROXY_PORT/);
  });
});

describe('placement', () => {
  const e = (name: string, load: number, capacity: number, connected = true) => ({
    name,
    load,
    connected,
    spec: { url: `ws://${name}:1/`, capacity },
  });

  it('picks the least loaded against its cap, skipping full and disconnected servers', () => {
    expect(pickEndpoint([e('a', 2, 4), e('b', 1, 4)])?.name).toBe('b');
    expect(pickEndpoint([e('a', 2, 10), e('b', 1, 2)])?.name).toBe('a');
    expect(pickEndpoint([e('a', 0, 4, false), e('b', 3, 4)])?.name).toBe('b');
    expect(pickEndpoint([e('a', 4, 4), e('b', 2, 2)])).toBeUndefined();
    expect(pickEndpoint([e('a', 0, 4, false)])).toBeUndefined();
  });
});

describe('a remote context is never made without the egress proxy', () => {
  const server = 'http://127.0.0.1:3338';
  it('passes only the proxy with a login and no bypass', () => {
    const ok = { proxy: { server, username: 'u', password: 'p' } };
    expect(assertProxied(ok, server)).toBe(ok);
    for (const bad of [
      {},
      { proxy: { server } },
      { proxy: { server: 'http://elsewhere:1', username: 'u', password: 'p' } },
      { proxy: { server, username: 'u', password: '' } },
      { proxy: { server, username: 'u', password: 'p', bypass: '127.0.0.1' } },
    ])
      expect(() => assertProxied(bad, server)).toThrow(/without the egress proxy/);
  });
});

describe('per-context proxy logins', () => {
  const request = (header?: string) =>
    ({ headers: header === undefined ? {} : { 'proxy-authorization': header } }) as http.IncomingMessage;
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  it('accepts a live login, names its context, and refuses anything else', () => {
    const logins = new ProxyCredentials();
    const login = logins.issue('context');
    logins.relabel(login.username, 's_1');
    expect(logins.check(request(basic(login.username, login.password)))).toBe('s_1');
    expect(logins.check(request())).toBeUndefined();
    expect(logins.check(request(basic(login.username, `${login.password}x`)))).toBeUndefined();
    expect(logins.check(request(basic('c_other', login.password)))).toBeUndefined();
    expect(logins.check(request(`Bearer ${login.password}`))).toBeUndefined();
    logins.revoke(login.username);
    expect(logins.check(request(basic(login.username, login.password)))).toBeUndefined();
    expect(logins.size).toBe(0);
  });

  it('gives every context its own random login', () => {
    const logins = new ProxyCredentials();
    const a = logins.issue('a');
    const b = logins.issue('b');
    expect(a.username).not.toBe(b.username);
    expect(a.password).not.toBe(b.password);
    expect(a.password.length).toBeGreaterThanOrEqual(32);
  });
});

describe('an endpoint error in a log line', () => {
  it("never carries the endpoint's path, which Playwright's own message repeats", async () => {
    // A free loopback port nothing listens on: the connect fails at once.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `ws://127.0.0.1:${port}/secret-path-4f2a`;
    const error: unknown = await chromium.connect(url, { timeout: 5000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('secret-path-4f2a');
    const logged = endpointError(error, url);
    expect(JSON.stringify(logged)).not.toContain('secret-path-4f2a');
    expect(logged.message).toContain(`127.0.0.1:${port}`);
  });
});
