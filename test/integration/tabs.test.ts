// tabs.* against a second Chromium this test starts with --remote-debugging-port (seed 000's set-up).
import dgram from 'node:dgram';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDecoyServer, startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startCdpChrome, type CdpChrome } from '../helpers/cdpChrome.js';
import { startTestService, waitFor, type RpcCallError, type TestService } from '../helpers/testService.js';

interface Tab {
  tabId: string;
  url: string;
  title: string;
  session_id: string | null;
}

let chrome: CdpChrome | undefined;
let cdpPort: number;
let service: TestService;
let fixture: FixtureServer;
let decoy: FixtureServer;
/** A UDP socket on 127.0.0.2 keeping every datagram WebRTC sends it. */
let udpDecoy: dgram.Socket;
const datagrams: Buffer[] = [];

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The tabs Chromium itself reports over its HTTP endpoint, independent of the service. */
async function chromeTabs(): Promise<{ id: string; url: string; type: string }[]> {
  const res = await fetch(`http://127.0.0.1:${cdpPort}/json/list`);
  const all = (await res.json()) as { id: string; url: string; type: string }[];
  return all.filter((t) => t.type === 'page');
}

async function tabs(): Promise<Tab[]> {
  return (await service.call<{ tabs: Tab[] }>('tabs.list')).tabs;
}

async function openTab(url: string, background = false): Promise<string> {
  const opened = await service.call<{ tabId: string; url: string; status: string }>('tabs.open', {
    url,
    background,
  });
  expect(opened.status).toBe('opened');
  return opened.tabId;
}

beforeAll(async () => {
  fixture = await startFixtureServer();
  decoy = await startDecoyServer();
  udpDecoy = dgram.createSocket('udp4');
  udpDecoy.on('message', (message) => datagrams.push(message));
  await new Promise<void>((resolve, reject) => {
    udpDecoy.once('error', reject);
    udpDecoy.bind(0, '127.0.0.2', () => resolve());
  });
  chrome = await startCdpChrome();
  cdpPort = Number(new URL(chrome.url).port);
  service = await startTestService({ CDP_URL: `http://127.0.0.1:${cdpPort}`, CDP_TIMEOUT_MS: '10000' });
});

afterAll(async () => {
  await service?.close();
  await chrome?.stop();
  await fixture?.close();
  await decoy?.close();
  if (udpDecoy) await new Promise<void>((resolve) => udpDecoy.close(() => resolve()));
});

describe('tabs.* over CDP_URL', () => {
  it('tabs.list shows the tabs the browser has', async () => {
    const listed = await tabs();
    const own = await chromeTabs();
    expect(listed.map((t) => t.tabId).sort()).toEqual(own.map((t) => t.id).sort());
    expect(listed.length).toBeGreaterThan(0);
    for (const tab of listed) expect(tab.session_id).toBeNull();
  });

  it('tabs.open opens a tab on an allowed URL (seed 000: Target.createTarget timed out; here it answers)', async () => {
    const tabId = await openTab(`${fixture.url}/projects`);
    await waitFor(
      async () => (await tabs()).some((t) => t.tabId === tabId && t.url.endsWith('/projects')),
      10_000,
      'the new tab in tabs.list',
    );
    expect((await chromeTabs()).map((t) => t.id)).toContain(tabId);
    const background = await openTab(`${fixture.url}/`, true);
    expect((await chromeTabs()).map((t) => t.id)).toContain(background);
    await service.call('tabs.close', { tabId: background });
    // tabs.close answers once the tab is gone, not when Chromium merely accepted the request.
    expect((await chromeTabs()).map((t) => t.id)).not.toContain(background);
    expect((await tabs()).map((t) => t.tabId)).not.toContain(background);
  });

  it('tabs.open refuses a URL outside the allow-list and opens nothing', async () => {
    const before = (await chromeTabs()).length;
    for (const url of [`${decoy.url}/`, 'file:///etc/passwd', 'chrome://settings']) {
      const reply = await service.rpc('tabs.open', { url });
      expect(reply.error?.code).toBe(-32011);
    }
    expect((await chromeTabs()).length).toBe(before);
    expect(decoy.hits).toEqual([]);
  });

  it('tabs.attach makes the tab a session on which page.*, screenshot, logs.* and network.pull work', async () => {
    const tabId = await openTab(`${fixture.url}/projects`);
    const { session_id, tabId: attachedId } = await service.call<{ session_id: string; tabId: string }>(
      'tabs.attach',
      { tabId },
    );
    expect(session_id).toMatch(/^s_/);
    expect(attachedId).toBe(tabId);
    const again = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    expect(again.session_id).toBe(session_id);
    expect((await tabs()).find((t) => t.tabId === tabId)?.session_id).toBe(session_id);

    const nav = await service.call<{ title: string }>('page.reload', { session_id });
    expect(nav.title).toBe('Projects');
    // /projects fills its list by fetch after load: wait for it rather than race it.
    await waitFor(
      async () =>
        (await service.call<{ text: string }>('page.text', { session_id, selector: 'main' })).text.includes(
          'Apollo',
        ),
      10_000,
      'the project list of the attached tab',
    );
    await service.call('page.click', { session_id, selector: "role=button[name='New Project']" });
    await service.call('page.fill', { session_id, selector: '#new-project-name', value: 'Zephyr' });
    const typed = await service.call<{ text: string }>('page.text', { session_id, selector: 'main' });
    expect(typed.text).toContain('Typed: Zephyr');

    const shot = await service.call<{ base64: string; bytes: number }>('screenshot', { session_id });
    expect(shot.bytes).toBeGreaterThan(100);
    expect(Buffer.from(shot.base64, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');

    const logs = await service.call<{ console: { text: string }[] }>('logs.pull', { session_id });
    expect(logs.console.map((c) => c.text)).toContain('projects page loaded');
    const net = await service.call<{ requests: { url: string; status: number }[] }>('network.pull', {
      session_id,
    });
    expect(net.requests).toContainEqual(
      expect.objectContaining({ url: `${fixture.url}/api/fail`, status: 500 }),
    );
    // network.get and network.har read an attached tab's requests as any session's. The one that
    // answered 500: the list may also hold a /api/fail of the document before the reload, cut off
    // by it without a status.
    const fail = (net.requests as { id?: string; url: string; status: number | null }[]).find(
      (r) => r.url === `${fixture.url}/api/fail` && r.status === 500,
    );
    const detail = await service.call<{ status: number; responseHeaders: object }>('network.get', {
      session_id,
      request_id: fail?.id,
    });
    expect(detail).toMatchObject({ status: 500, responseHeaders: expect.any(Object) as object });
    const har = await service.call<{ entries: number }>('network.har', { session_id });
    expect(har.entries).toBeGreaterThan(0);

    const sessions = await service.call<{ sessions: { session_id: string }[] }>('session.list');
    expect(sessions.sessions.map((s) => s.session_id)).toContain(session_id);
  });

  it('the allow-list holds on an attached tab: page.goto outside it is blocked and reaches nothing', async () => {
    const tabId = await openTab(`${fixture.url}/`);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const reply = await service.rpc('page.goto', { session_id, url: `${decoy.url}/` });
    expect(reply.error?.code).toBe(-32011);
    const viaPage = await service.call<{ result: string }>('page.evaluate', {
      session_id,
      expression: `(u) => fetch(u).then(() => 'fetched', () => 'refused')`,
      arg: `${decoy.url}/`,
    });
    expect(viaPage.result).toBe('refused');
    expect(decoy.hits).toEqual([]);
    await service.call('session.close', { session_id });
  });

  it("an attached tab's cookies and storage stay the user's: every state method is refused and nothing changes", async () => {
    const tabId = await openTab(`${fixture.url}/state/login`);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const before = await service.call<{ result: string }>('page.evaluate', {
      session_id,
      expression: 'document.cookie',
    });
    expect(before.result).toContain('theme=');
    const refused: [string, Record<string, unknown>][] = [
      ['cookies.get', {}],
      ['cookies.set', { cookies: [{ name: 'theme', value: 'stolen', url: fixture.url }] }],
      ['cookies.clear', {}],
      ['session.storageState', {}],
      ['session.setStorageState', { storageState: { cookies: [], origins: [] } }],
      ['session.addInitScript', { script: 'window.__injected = 1' }],
    ];
    for (const [method, params] of refused) {
      const reply = await service.rpc(method, { session_id, ...params });
      expect(reply.error?.code, method).toBe(-32602);
      expect(reply.error?.message, method).toContain('not available on an attached tab');
    }
    await service.call('page.reload', { session_id });
    const after = await service.call<{ result: string }>('page.evaluate', {
      session_id,
      expression: '[document.cookie, String(window.__injected)]',
    });
    expect(after.result).toEqual([before.result, 'undefined']);
    await service.call('session.close', { session_id });
  });

  it('tabs.open holds the allow-list from the first request: a page reaching for the decoy on load gets nothing', async () => {
    const tabId = await openTab(`${fixture.url}/leaks?target=${encodeURIComponent(decoy.url)}`);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const { result } = await service.call<{ result: { fetch: string; webSocket: string; webrtc: string } }>(
      'page.evaluate',
      { session_id, expression: '() => window.leaksReport' },
    );
    // The fetch and the WebSocket were refused before the tab was attached; WebRTC never existed.
    expect(result.fetch).toBe('failed');
    expect(result.webSocket).not.toBe('open');
    expect(result.webrtc).toBe('undefined');
    expect(decoy.hits).toEqual([]);
    await service.call('tabs.close', { tabId });
  });

  it('a tab the service did not open: on attach, WebSockets outside the list and WebRTC are blocked in the current and next documents', async () => {
    // A user's tab: made over Chromium's own endpoint, never through tabs.open.
    const created = await fetch(`http://127.0.0.1:${cdpPort}/json/new?${fixture.url}/static`, {
      method: 'PUT',
    });
    const { id: tabId } = (await created.json()) as { id: string };
    await waitFor(
      async () => (await chromeTabs()).some((t) => t.id === tabId && t.url.endsWith('/static')),
      10_000,
      'the user tab on /static',
    );
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const socket = await service.call<{ result: string }>('page.evaluate', {
      session_id,
      expression: `(u) => new Promise((resolve) => {
        const ws = new WebSocket(u);
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('failed');
        ws.onclose = () => resolve('closed');
      })`,
      arg: `${decoy.url.replace(/^http/, 'ws')}/attached-ws`,
    });
    expect(socket.result).not.toBe('open');
    expect(decoy.hits).toEqual([]);
    const current = await service.call<{ result: string }>('page.evaluate', {
      session_id,
      expression: 'typeof RTCPeerConnection',
    });
    expect(current.result).toBe('undefined');

    const port = (udpDecoy.address() as { port: number }).port;
    await service.call('page.goto', {
      session_id,
      url: `${fixture.url}/webrtc?vector=host&host=127.0.0.2&port=${port}`,
      waitUntil: 'load',
    });
    const next = await service.call<{ result: { supported: boolean; candidates: string[] } }>(
      'page.evaluate',
      {
        session_id,
        expression: '() => window.webrtcReport',
      },
    );
    expect(next.result).toEqual({ supported: false, candidates: [] });
    expect(datagrams).toEqual([]);
    expect(decoy.hits).toEqual([]);
    await service.call('tabs.close', { tabId });
  });

  it('session.close detaches without closing the tab; tabs.close closes it and ends its session', async () => {
    const tabId = await openTab(`${fixture.url}/projects`);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    expect(await service.call('session.close', { session_id })).toEqual({ ok: true, closed: true });
    expect((await chromeTabs()).map((t) => t.id)).toContain(tabId);
    expect((await tabs()).find((t) => t.tabId === tabId)?.session_id).toBeNull();
    const gone = await service.call('page.text', { session_id }).catch((e: unknown) => e);
    expect((gone as RpcCallError).code).toBe(-32010);

    const reattached = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    expect(reattached.session_id).not.toBe(session_id);
    expect(await service.call('tabs.close', { tabId })).toEqual({ ok: true, tabId, status: 'closed' });
    await waitFor(
      async () => !(await chromeTabs()).some((t) => t.id === tabId),
      10_000,
      'the tab gone from the browser',
    );
    await waitFor(
      async () => {
        const r = await service.rpc('page.text', { session_id: reattached.session_id });
        return r.error?.code === -32010;
      },
      10_000,
      'the session of the closed tab to end',
    );
    expect((await tabs()).some((t) => t.tabId === tabId)).toBe(false);
  });

  it('tabs.close and tabs.attach of an unknown tab fail with ACTION_FAILED', async () => {
    for (const method of ['tabs.close', 'tabs.attach']) {
      const reply = await service.rpc(method, { tabId: 'NO-SUCH-TARGET' });
      expect(reply.error?.code).toBe(-32000);
      expect(reply.error?.message).toMatch(/tabs\.list/);
    }
  });

  it('an unreachable CDP_URL is RESOURCE_UNAVAILABLE, not a hang', async () => {
    const port = await closedPort();
    const other = await startTestService({ CDP_URL: `http://127.0.0.1:${port}`, CDP_TIMEOUT_MS: '3000' });
    try {
      const reply = await other.rpc('tabs.open', { url: `${fixture.url}/` });
      expect(reply.error?.code).toBe(-32005);
      expect(reply.error?.message).toContain(`http://127.0.0.1:${port}`);
    } finally {
      await other.close();
    }
  });

  it('stopping the service disconnects from the browser without closing it or its tabs', async () => {
    const tabId = await openTab(`${fixture.url}/`);
    await service.call('tabs.attach', { tabId });
    await service.close();
    const version = await fetch(`http://127.0.0.1:${cdpPort}/json/version`);
    expect(version.ok).toBe(true);
    expect((await chromeTabs()).map((t) => t.id)).toContain(tabId);
  });
});
