// tabs.* against a second Chromium this test starts with --remote-debugging-port (seed 000's set-up),
// and whose tabs they are: the key that opened or attached a tab, alone (and ADMIN_API_KEY).
import dgram from 'node:dgram';
import { WebSocket } from 'ws';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDecoyServer, startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startCdpChrome, type CdpChrome } from '../helpers/cdpChrome.js';
import {
  TEST_API_KEY,
  startTestService,
  waitFor,
  type JsonRpcReply,
  type RpcCallError,
  type TestService,
} from '../helpers/testService.js';

interface Tab {
  tabId: string;
  url: string;
  title: string;
  session_id: string | null;
}

/** A second tenant beside TEST_API_KEY, and the admin key that reaches both. */
const OTHER_KEY = 'tabs-other-key-0123456789';
const ADMIN_KEY = 'tabs-admin-key-0123456789';
/** A tab id of the shape Chromium gives (a target id) that names no tab. */
const UNKNOWN_TAB = '0123456789ABCDEF0123456789ABCDEF';
const ACTION_FAILED = -32000;

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

/** One call over POST /rpc with `key`: the whole JSON-RPC response. */
async function rpcAs(
  key: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<JsonRpcReply> {
  const reply = await service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'x-api-key': key,
  });
  return reply.body as JsonRpcReply;
}

async function callAs<T>(key: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const reply = await rpcAs(key, method, params);
  if (reply.error !== undefined) throw new Error(`${method} as ${key}: ${JSON.stringify(reply.error)}`);
  return reply.result as T;
}

async function tabsOf(key: string): Promise<Tab[]> {
  return (await callAs<{ tabs: Tab[] }>(key, 'tabs.list')).tabs;
}

/** A reply with `id` written as <tab>, so the answers about two tab ids can be compared whole. */
function withoutTab(reply: JsonRpcReply, id: string): unknown {
  return JSON.parse(
    JSON.stringify({ error: reply.error, result: reply.result }).replaceAll(id, '<tab>'),
  ) as unknown;
}

/**
 * Every tabs.* call that names a tab, made by `key` on `tabId`: each must fail exactly as the same
 * call on a tab that does not exist (ACTION_FAILED, same message and data but for the id).
 */
async function expectRefusedAsUnknown(key: string, tabId: string): Promise<void> {
  for (const method of ['tabs.attach', 'tabs.close']) {
    const refused = await rpcAs(key, method, { tabId });
    const unknown = await rpcAs(key, method, { tabId: UNKNOWN_TAB });
    expect(refused.error?.code, method).toBe(ACTION_FAILED);
    expect(withoutTab(refused, tabId), method).toEqual(withoutTab(unknown, UNKNOWN_TAB));
  }
}

/** A tab of the user's own: made over Chromium's own endpoint, never through the service. */
async function userTab(path: string): Promise<string> {
  const created = await fetch(`http://127.0.0.1:${cdpPort}/json/new?${fixture.url}${path}`, {
    method: 'PUT',
  });
  const { id } = (await created.json()) as { id: string };
  await waitFor(
    async () => (await chromeTabs()).some((t) => t.id === id && t.url.endsWith(path)),
    10_000,
    `the user tab on ${path}`,
  );
  return id;
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
  service = await startTestService({
    CDP_URL: `http://127.0.0.1:${cdpPort}`,
    CDP_TIMEOUT_MS: '10000',
    API_KEY: `${TEST_API_KEY},${OTHER_KEY}`,
    ADMIN_API_KEY: ADMIN_KEY,
  });
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

  it('a pending dialog the person at the browser answers: no longer listed, dialog.handle says so, the next one waits again', async () => {
    const tabId = await userTab('/confirm-delete');
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    await service.call('dialog.setPolicy', { session_id, policy: { mode: 'manual' } });
    // Another DevTools client of that browser (the person's own DevTools, open on the tab).
    const target = (await chromeTabs()).find((t) => t.id === tabId);
    const socketUrl = (
      (await (await fetch(`http://127.0.0.1:${cdpPort}/json/list`)).json()) as {
        id: string;
        webSocketDebuggerUrl: string;
      }[]
    ).find((t) => t.id === target?.id)?.webSocketDebuggerUrl;
    if (socketUrl === undefined) throw new Error('no DevTools socket for the tab');
    const devtools = new WebSocket(socketUrl);
    await new Promise<void>((resolve, reject) => {
      devtools.once('open', () => resolve());
      devtools.once('error', reject);
    });
    const replies = new Map<number, (reply: unknown) => void>();
    devtools.on('message', (raw: Buffer) => {
      const message = JSON.parse(raw.toString()) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) replies.get(message.id)?.(message.error ?? message.result);
    });
    const send = (id: number, method: string, params: Record<string, unknown> = {}) =>
      new Promise<unknown>((resolve) => {
        replies.set(id, resolve);
        devtools.send(JSON.stringify({ id, method, params }));
      });
    expect(await send(1, 'Page.enable')).toEqual({});
    const pendingClick = await service.rpc('page.click', {
      session_id,
      selector: 'button[data-name="alpha"]',
    });
    expect(pendingClick.error?.code).toBe(-32014);
    // While the click waits in the dialog, the session's calls answer DIALOG_PENDING naming it.
    const waiting = async () => (await service.rpc('pages.list', { session_id })).error;
    expect(await waiting()).toMatchObject({ code: -32014, data: { dialog: { type: 'confirm' } } });

    // The person accepts it in their DevTools.
    expect(await send(2, 'Page.handleJavaScriptDialog', { accept: true })).toEqual({});
    devtools.close();

    type Listed = { pages: { page_id: string; dialog?: { type: string } }[] };
    await waitFor(
      async () => {
        const reply = await service.rpc('pages.list', { session_id });
        return reply.error === undefined && (reply.result as Listed).pages[0]?.dialog === undefined;
      },
      10_000,
      'pages.list answering with no dialog',
    );
    const handled = await service.rpc('dialog.handle', { session_id, accept: false });
    expect(handled.error?.code).toBe(-32602);
    expect(handled.error?.message).toContain('closed outside the service');
    expect(handled.error?.data).toMatchObject({ dialog: { type: 'confirm', closedElsewhere: true } });
    // The page got the person's answer, and the event log says how it was closed.
    await waitFor(
      async () =>
        (await service.call<{ text: string }>('page.text', { session_id, selector: '#out' })).text ===
        'deleted alpha',
      10_000,
      "the person's accept to reach the page",
    );
    const lines = (
      await service.call<{ console: { type: string; text: string }[] }>('logs.pull', { session_id })
    ).console.flatMap((e) => (e.type === 'dialog' ? [e.text] : []));
    expect(lines).toContain('confirm: Delete alpha? (accepted outside the service)');

    // The next dialog on that page waits for dialog.handle again, and is answered as asked.
    const again = await service.rpc('page.click', { session_id, selector: 'button[data-name="beta"]' });
    expect(again.error?.code).toBe(-32014);
    expect(await waiting()).toMatchObject({ code: -32014, data: { dialog: { message: 'Delete beta?' } } });
    expect(await service.call('dialog.handle', { session_id, accept: false })).toMatchObject({
      outcome: 'dismissed',
    });
    expect((await service.call<{ text: string }>('page.text', { session_id, selector: '#out' })).text).toBe(
      'kept beta',
    );
    await service.call('tabs.close', { tabId });
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
});

describe('tabs belong to the API key that opened or attached them', () => {
  it("a tab one key opened is not listed to another key, and each of that key's tabs.* calls on it is answered as for a tab that does not exist", async () => {
    const tabId = await openTab(`${fixture.url}/projects?token=a-secret-token`);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    for (const attached of [true, false]) {
      const seenByOther = JSON.stringify(await tabsOf(OTHER_KEY));
      expect(seenByOther).not.toContain(tabId);
      expect(seenByOther).not.toContain('a-secret-token');
      expect(seenByOther).not.toContain(session_id);
      expect((await tabs()).find((t) => t.tabId === tabId)?.session_id).toBe(attached ? session_id : null);
      expect((await tabsOf(ADMIN_KEY)).find((t) => t.tabId === tabId)?.session_id).toBe(
        attached ? session_id : null,
      );
      await expectRefusedAsUnknown(OTHER_KEY, tabId);
      // Nothing the other key tried reached the tab or its session.
      expect((await chromeTabs()).map((t) => t.id)).toContain(tabId);
      if (attached) {
        const { text } = await service.call<{ text: string }>('page.text', { session_id });
        expect(text).toContain('Projects');
        // Detached, the tab stays its opener's: the next round asks all of it again.
        await service.call('session.close', { session_id });
      }
    }
    await service.call('tabs.close', { tabId });
  });

  it("a user's tab is every key's until one attaches it; then it is that key's alone, after detaching too, until it closes", async () => {
    const tabId = await userTab('/static');
    for (const key of [TEST_API_KEY, OTHER_KEY]) {
      expect(
        (await tabsOf(key)).find((t) => t.tabId === tabId),
        key,
      ).toMatchObject({ session_id: null });
    }
    const { session_id } = await callAs<{ session_id: string }>(OTHER_KEY, 'tabs.attach', { tabId });
    expect((await tabs()).map((t) => t.tabId)).not.toContain(tabId);
    await expectRefusedAsUnknown(TEST_API_KEY, tabId);
    // tabs.close of the other key ended nothing: the owner's session still reads the page.
    expect((await callAs<{ text: string }>(OTHER_KEY, 'page.text', { session_id })).text).toContain('Static');
    expect((await tabsOf(OTHER_KEY)).find((t) => t.tabId === tabId)?.session_id).toBe(session_id);

    await callAs(OTHER_KEY, 'session.close', { session_id });
    expect((await tabs()).map((t) => t.tabId)).not.toContain(tabId);
    await expectRefusedAsUnknown(TEST_API_KEY, tabId);
    expect((await tabsOf(OTHER_KEY)).find((t) => t.tabId === tabId)).toMatchObject({ session_id: null });
    expect(await callAs(OTHER_KEY, 'tabs.close', { tabId })).toEqual({ ok: true, tabId, status: 'closed' });
    // Closed, it is nobody's: the id is unknown to its owner as to everyone else.
    await expectRefusedAsUnknown(OTHER_KEY, tabId);
  });

  it('two keys attaching a free tab at once: one gets it, the other is answered as for a tab that does not exist', async () => {
    const tabId = await userTab('/');
    const [first, second] = await Promise.all([
      rpcAs(TEST_API_KEY, 'tabs.attach', { tabId }),
      rpcAs(OTHER_KEY, 'tabs.attach', { tabId }),
    ]);
    expect([first, second].filter((r) => r.error === undefined)).toHaveLength(1);
    const firstWon = first.error === undefined;
    const [winner, loser] = firstWon ? [TEST_API_KEY, OTHER_KEY] : [OTHER_KEY, TEST_API_KEY];
    const [won, lost] = firstWon ? [first, second] : [second, first];
    const unknown = await rpcAs(loser, 'tabs.attach', { tabId: UNKNOWN_TAB });
    expect(withoutTab(lost, tabId)).toEqual(withoutTab(unknown, UNKNOWN_TAB));
    expect((await tabsOf(loser)).map((t) => t.tabId)).not.toContain(tabId);
    const { sessions } = await callAs<{ sessions: { session_id: string }[] }>(loser, 'session.list');
    expect(sessions.map((t) => t.session_id)).not.toContain(won.result?.session_id);
    expect((await tabsOf(winner)).find((t) => t.tabId === tabId)?.session_id).toBe(won.result?.session_id);
    await callAs(winner, 'tabs.close', { tabId });
  });

  it("ADMIN_API_KEY lists every key's tabs with their sessions and may close them", async () => {
    const tabId = await openTab(`${fixture.url}/`);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const ownTab = await callAs<{ tabId: string }>(OTHER_KEY, 'tabs.open', { url: `${fixture.url}/static` });
    const seen = await tabsOf(ADMIN_KEY);
    expect(seen.find((t) => t.tabId === tabId)?.session_id).toBe(session_id);
    expect(seen.map((t) => t.tabId)).toContain(ownTab.tabId);
    expect(await callAs(ADMIN_KEY, 'tabs.attach', { tabId })).toMatchObject({ session_id });
    await callAs(ADMIN_KEY, 'tabs.close', { tabId });
    await callAs(ADMIN_KEY, 'tabs.close', { tabId: ownTab.tabId });
    expect((await chromeTabs()).map((t) => t.id)).not.toContain(tabId);
    await waitFor(
      async () => (await service.rpc('page.text', { session_id })).error?.code === -32010,
      10_000,
      'the session of the tab the admin closed to end',
    );
  });

  it('an owner is forgotten when its tab closes, however it closes: only tabs that exist have one', async () => {
    const owned = () => service.running.services.tabs.ownedTabs;
    await tabs(); // forgets the owners of tabs earlier tests closed
    const before = owned();
    const opened = [
      await openTab(`${fixture.url}/`),
      await openTab(`${fixture.url}/static`),
      await callAs<{ tabId: string }>(OTHER_KEY, 'tabs.open', { url: `${fixture.url}/` }).then(
        (t) => t.tabId,
      ),
    ];
    const attached = await userTab('/projects');
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId: attached });
    expect(owned()).toBe(before + 4);

    await service.call('tabs.close', { tabId: opened[0] });
    expect(owned()).toBe(before + 3);
    // Closed by the user (Chromium's own endpoint), not through the service: the next call forgets them.
    for (const tabId of [opened[1], opened[2], attached]) {
      const res = await fetch(`http://127.0.0.1:${cdpPort}/json/close/${String(tabId)}`);
      expect(res.ok).toBe(true);
    }
    await waitFor(
      async () => (await chromeTabs()).every((t) => !opened.includes(t.id) && t.id !== attached),
      10_000,
      'the tabs closed outside the service to be gone',
    );
    await tabsOf(OTHER_KEY);
    expect(owned()).toBe(before);
    await waitFor(
      async () => (await service.rpc('page.text', { session_id })).error?.code === -32010,
      10_000,
      'the session of the tab the user closed to end',
    );
  });
});

describe('shutdown', () => {
  it('stopping the service disconnects from the browser without closing it or its tabs', async () => {
    const tabId = await openTab(`${fixture.url}/`);
    await service.call('tabs.attach', { tabId });
    await service.close();
    const version = await fetch(`http://127.0.0.1:${cdpPort}/json/version`);
    expect(version.ok).toBe(true);
    expect((await chromeTabs()).map((t) => t.id)).toContain(tabId);
  });
});
