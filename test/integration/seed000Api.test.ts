// Seed 000's REST endpoints (/clients, /clients/{id}/tabs, /tabs/open, /tabs/close, /page/content,
// /page/screenshot), projected onto agents.*, tabs.* and page.*: the seed's curl workflow against a
// second Chromium with --remote-debugging-port (CDP_URL), and a reference agent listed as a client.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceAgent } from '../../client/agent/referenceAgent.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startCdpChrome, type CdpChrome } from '../helpers/cdpChrome.js';
import { TEST_API_KEY, startTestService, waitFor, type TestService } from '../helpers/testService.js';

const SECRET = 'seed000-agent-secret-0123456789';
const OTHER_KEY = 'seed000-other-key-0123456789';
const PNG_SIGNATURE = '89504e470d0a1a0a';
const INVALID_PARAMS = -32602;
const AGENT_NOT_FOUND = -32012;
const NAVIGATION_BLOCKED = -32011;

let chrome: CdpChrome | undefined;
let service: TestService;
let noCdp: TestService;
let fixture: FixtureServer;
let agent: ReferenceAgent | undefined;
const agentId = randomUUID();

interface Reply {
  status: number;
  body: Record<string, unknown> & { error?: { code: number; message: string } };
  list: unknown[];
}

async function rest(
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; on?: TestService; type?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? TEST_API_KEY : options.key;
  if (key !== null) headers['x-api-key'] = key;
  if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json';
  const res = await fetch(`${(options.on ?? service).url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const parsed: unknown = JSON.parse(await res.text());
  return {
    status: res.status,
    body: Array.isArray(parsed) ? {} : (parsed as Reply['body']),
    list: Array.isArray(parsed) ? parsed : [],
  };
}

interface SeedTab {
  tabId: string;
  compositeClientId: string;
  connected: boolean;
  ready: boolean;
  url: string;
}

beforeAll(async () => {
  fixture = await startFixtureServer();
  chrome = await startCdpChrome();
  service = await startTestService({
    API_KEY: `${TEST_API_KEY},${OTHER_KEY}`,
    CDP_URL: chrome.url,
    CDP_TIMEOUT_MS: '10000',
    AGENT_SECRET: SECRET,
  });
  noCdp = await startTestService();
  agent = new ReferenceAgent({
    hubUrl: `${service.url.replace(/^http/, 'ws')}/agents`,
    clientId: agentId,
    secretKey: SECRET,
    apiKey: TEST_API_KEY,
    log: () => undefined,
  });
  agent.start();
  await waitFor(
    async () => {
      const { agents } = await service.call<{ agents: { clientId: string; status: string }[] }>(
        'agents.list',
      );
      return agents.some((a) => a.clientId === agentId && a.status === 'ready');
    },
    15_000,
    'the reference agent to be ready',
  );
});

afterAll(async () => {
  await agent?.stop();
  await service?.close();
  await noCdp?.close();
  await chrome?.stop();
  await fixture?.close();
});

describe('seed 000 REST endpoints', () => {
  it("the seed's workflow: clients, open a tab, its HTML and text, a screenshot, close it", async () => {
    // 1. Get list of clients: the CDP browser (with its tabs) and the agent.
    const clients = await rest('GET', '/clients');
    expect(clients.status).toBe(200);
    const cdp = clients.list.find((c) => (c as { id: string }).id === 'cdp') as
      { tabCount: number; tabs: SeedTab[] } | undefined;
    expect(cdp?.tabCount).toBe(cdp?.tabs.length);
    expect(cdp?.tabs[0]?.compositeClientId).toBe(`cdp:${String(cdp?.tabs[0]?.tabId)}`);
    const listedAgent = clients.list.find((c) => (c as { id: string }).id === agentId);
    expect(listedAgent).toMatchObject({ tabCount: 0, tabs: [], status: 'ready', ready: true });

    // 2. Open a new tab.
    const url = `${fixture.url}/projects`;
    const opened = await rest('POST', '/tabs/open', { body: { clientId: 'cdp', url } });
    expect(opened.status).toBe(200);
    const tabId = String(opened.body.tabId);
    expect(opened.body).toEqual({
      clientId: 'cdp',
      tabId,
      compositeClientId: `cdp:${tabId}`,
      url,
      status: 'opened',
    });
    const tabs = await rest('GET', '/clients/cdp/tabs');
    expect((tabs.body.tabs as SeedTab[]).map((t) => t.tabId)).toContain(tabId);
    await waitFor(
      async () => {
        const text = await rest('POST', '/page/content', {
          body: { clientId: 'cdp', tabId, format: 'text' },
        });
        return String(text.body.content).includes('Apollo');
      },
      15_000,
      'the projects list to load in the tab',
    );

    // 3. Get page HTML content (clientId as the composite id).
    const html = await rest('POST', '/page/content', { body: { clientId: `cdp:${tabId}`, format: 'html' } });
    expect(html.status).toBe(200);
    expect(html.body).toMatchObject({ clientId: `cdp:${tabId}`, tabId, format: 'html' });
    expect(String(html.body.content)).toMatch(/^<!DOCTYPE html>|^<html/i);
    expect(html.body.length).toBe(String(html.body.content).length);
    expect(typeof html.body.timestamp).toBe('number');

    // 4. Get page text content.
    const text = await rest('POST', '/page/content', { body: { clientId: 'cdp', tabId, format: 'text' } });
    expect(text.body).toMatchObject({ format: 'text' });
    expect(String(text.body.content)).toContain('Projects');
    expect(String(text.body.content)).not.toContain('<');

    // 5. Capture screenshot.
    const shot = await rest('POST', '/page/screenshot', {
      body: { clientId: 'cdp', tabId, fullPage: false },
    });
    expect(shot.status).toBe(200);
    expect(shot.body).toMatchObject({ clientId: 'cdp', tabId, format: 'png', fullPage: false });
    const imageData = String(shot.body.imageData);
    expect(imageData.startsWith('data:image/png;base64,')).toBe(true);
    const png = Buffer.from(imageData.slice('data:image/png;base64,'.length), 'base64');
    expect(png.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);

    // The reads attached and detached: the tab has no session left, and the key none either.
    const after = (await rest('GET', '/clients/cdp/tabs')).body.tabs as (SeedTab & {
      session_id: string | null;
    })[];
    expect(after.find((t) => t.tabId === tabId)?.session_id).toBeNull();
    expect((await service.call<{ sessions: unknown[] }>('session.list')).sessions).toEqual([]);

    // 6. Close the tab.
    const closed = await rest('POST', '/tabs/close', { body: { clientId: 'cdp', tabId } });
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ clientId: 'cdp', tabId, status: 'closed', success: true });
    const gone = (await rest('GET', '/clients/cdp/tabs')).body.tabs as SeedTab[];
    expect(gone.map((t) => t.tabId)).not.toContain(tabId);
  });

  it('a tab attached before keeps its session after a read', async () => {
    const opened = await rest('POST', '/tabs/open', { body: { clientId: 'cdp', url: `${fixture.url}/` } });
    const tabId = String(opened.body.tabId);
    const { session_id } = await service.call<{ session_id: string }>('tabs.attach', { tabId });
    const text = await rest('POST', '/page/content', { body: { clientId: `cdp:${tabId}`, format: 'text' } });
    expect(String(text.body.content)).toContain('Fixture Home');
    const listed = await service.call<{ sessions: { session_id: string }[] }>('session.list');
    expect(listed.sessions.map((s) => s.session_id)).toContain(session_id);
    await rest('POST', '/tabs/close', { body: { clientId: `cdp:${tabId}` } });
  });

  it("an agent's client id has no tabs here, and an unknown client id is 404", async () => {
    const agentTabs = await rest('GET', `/clients/${agentId}/tabs`);
    expect(agentTabs.body).toEqual({ clientId: agentId, tabCount: 0, tabs: [] });
    const open = await rest('POST', '/tabs/open', { body: { clientId: agentId, url: `${fixture.url}/` } });
    expect(open.status).toBe(400);
    expect(open.body.error?.message).toContain('evaluation agent');
    const nobody = randomUUID();
    expect((await rest('GET', `/clients/${nobody}/tabs`)).status).toBe(404);
    const shot = await rest('POST', '/page/screenshot', { body: { clientId: nobody, tabId: 'X' } });
    expect(shot.status).toBe(404);
    expect(shot.body.error?.code).toBe(AGENT_NOT_FOUND);
  });

  it('bad bodies are refused: no tabId, a bad format, a blocked URL, no key, not JSON', async () => {
    const noTab = await rest('POST', '/page/content', { body: { clientId: 'cdp', format: 'html' } });
    expect(noTab.status).toBe(400);
    expect(noTab.body.error?.code).toBe(INVALID_PARAMS);
    const format = await rest('POST', '/page/content', {
      body: { clientId: 'cdp', tabId: 'X', format: 'pdf' },
    });
    expect(format.status).toBe(400);
    const blocked = await rest('POST', '/tabs/open', {
      body: { clientId: 'cdp', url: 'http://example.com/' },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error?.code).toBe(NAVIGATION_BLOCKED);
    expect((await rest('GET', '/clients', { key: null })).status).toBe(401);
    const plain = await rest('POST', '/tabs/open', {
      body: { clientId: 'cdp', url: `${fixture.url}/` },
      type: 'text/plain',
    });
    expect(plain.status).toBe(415);
    const noUrl = await rest('POST', '/tabs/open', { body: { clientId: 'cdp' } });
    expect(noUrl.status).toBe(400);
  });

  it("another key's tab is, on every tab route, what a tab that does not exist is, and no listing shows it", async () => {
    const opened = await rest('POST', '/tabs/open', {
      body: { clientId: 'cdp', url: `${fixture.url}/?token=seed-secret` },
    });
    const tabId = String(opened.body.tabId);
    const unknown = 'FEDCBA9876543210FEDCBA9876543210';
    /** The answer with the tab id written as <tab>, so answers about two ids compare whole. */
    const withoutTab = (reply: Reply, id: string): unknown =>
      JSON.parse(
        JSON.stringify({ status: reply.status, body: reply.body }).replaceAll(id, '<tab>'),
      ) as unknown;
    const routes: [string, Record<string, unknown>][] = [
      ['/page/content', { format: 'html' }],
      ['/page/content', { format: 'text' }],
      ['/page/screenshot', { fullPage: false }],
      ['/tabs/close', {}],
    ];
    // Opened only, then attached: the other key is refused the same either way.
    let sessionId: string | undefined;
    for (const attach of [false, true]) {
      if (attach)
        sessionId = (await service.call<{ session_id: string }>('tabs.attach', { tabId })).session_id;
      for (const [path, body] of routes) {
        const refused = await rest('POST', path, {
          body: { clientId: `cdp:${tabId}`, ...body },
          key: OTHER_KEY,
        });
        const never = await rest('POST', path, {
          body: { clientId: `cdp:${unknown}`, ...body },
          key: OTHER_KEY,
        });
        expect(refused.status, path).toBe(422);
        expect(withoutTab(refused, tabId), path).toEqual(withoutTab(never, unknown));
      }
      for (const path of ['/clients', '/clients/cdp/tabs']) {
        const res = await fetch(`${service.url}${path}`, { headers: { 'x-api-key': OTHER_KEY } });
        const text = await res.text();
        expect(text, path).not.toContain(tabId);
        expect(text, path).not.toContain('seed-secret');
        if (sessionId !== undefined) expect(text, path).not.toContain(sessionId);
      }
    }
    // Nothing the other key tried reached the tab or its session.
    const owners = (await rest('GET', '/clients/cdp/tabs')).body.tabs as (SeedTab & { session_id: string })[];
    expect(owners.find((t) => t.tabId === tabId)?.session_id).toBe(sessionId);
    const text = await rest('POST', '/page/content', { body: { clientId: `cdp:${tabId}`, format: 'text' } });
    expect(String(text.body.content)).toContain('Fixture Home');
    expect((await rest('POST', '/tabs/close', { body: { clientId: `cdp:${tabId}` } })).status).toBe(200);
  });

  it('without CDP_URL /clients lists no browser and the tab routes say CDP_URL is needed', async () => {
    const clients = await rest('GET', '/clients', { on: noCdp });
    expect(clients.status).toBe(200);
    expect(clients.list).toEqual([]);
    const open = await rest('POST', '/tabs/open', {
      on: noCdp,
      body: { clientId: 'cdp', url: 'about:blank' },
    });
    expect(open.status).toBe(503);
    expect(open.body.error?.message).toContain('CDP_URL');
  });
});
