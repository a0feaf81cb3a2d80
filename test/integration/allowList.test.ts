// The allow-list holds for every request the page makes (DESIGN §5): each case checks the visible
// outcome AND that the decoy server outside the list (127.0.0.2) received nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDecoyServer, startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { RpcCallError, startTestService, waitFor, type TestService } from '../helpers/testService.js';

let service: TestService;
let fixture: FixtureServer;
let decoy: FixtureServer;
let session_id: string;

type Blocked = { url: string; reason: string; resourceType: string };
type Nav = { url: string; title: string; status: number | null; blocked: Blocked[] };
type NetEntry = { url: string; status: number | null; blocked?: boolean; failure?: string };

beforeAll(async () => {
  fixture = await startFixtureServer();
  decoy = await startDecoyServer();
  // debug: the egress proxy logs each refusal, the proof that a request was tried and stopped.
  service = await startTestService({ LOG_LEVEL: 'debug' });
  session_id = (await service.call<{ session_id: string }>('session.create', {})).session_id;
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
  await decoy?.close();
});

beforeEach(async () => {
  // A case that leaks must fail itself, not the ones after it.
  decoy.hits.length = 0;
  await service.call('page.goto', { session_id, url: 'about:blank' });
  await service.call('network.pull', { session_id });
  await service.call('logs.pull', { session_id });
});

/** The RpcCallError a call fails with; fails the test when the call succeeds. */
async function rpcFailure(call: Promise<unknown>): Promise<RpcCallError> {
  const outcome = await call.then(
    (result: unknown) => new Error(`expected an RPC error, got ${JSON.stringify(result)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof RpcCallError)) throw outcome;
  return outcome;
}

const goto = (url: string) => service.call<Nav>('page.goto', { session_id, url, timeout: 20_000 });
const fx = (path: string) => `${fixture.url}${path}`;
const decoyUrl = (path = '/') => `${decoy.url}${path}`;
const q = encodeURIComponent;

async function text(selector = 'body'): Promise<string> {
  return (await service.call<{ text: string }>('page.text', { session_id, selector })).text;
}

/** Pulls network entries until one satisfies match; returns everything pulled. */
async function pullNetworkUntil(match: (e: NetEntry) => boolean, what: string): Promise<NetEntry[]> {
  const seen: NetEntry[] = [];
  await waitFor(
    async () => {
      const { requests } = await service.call<{ requests: NetEntry[] }>('network.pull', { session_id });
      seen.push(...requests);
      return seen.some(match);
    },
    10_000,
    what,
  );
  return seen;
}

/** Polls until the main page has loaded a document other than `from` (or went to about:blank). */
async function waitUntilLeft(from: string): Promise<string> {
  let href = from;
  await waitFor(
    async () => {
      try {
        const { result } = await service.call<{ result: { href: string; ready: string } }>('page.evaluate', {
          session_id,
          expression: '({ href: location.href, ready: document.readyState })',
          timeout: 2000,
        });
        href = result.href;
        return result.href !== from && result.ready === 'complete';
      } catch {
        // The context is being replaced by the navigation: look again.
        return false;
      }
    },
    15_000,
    `the page to navigate away from ${from}`,
  );
  return href;
}

/** Waits until the egress proxy has logged refusing a request whose URL satisfies match. */
async function proxyRefused(match: (url: string) => boolean, what: string): Promise<void> {
  const refused = (line: string): boolean => {
    try {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      return entry.msg === 'request blocked by the allow-list' && match(entry.url ?? '');
    } catch {
      return false;
    }
  };
  await waitFor(() => service.logs.some((chunk) => chunk.split('\n').some(refused)), 10_000, what);
}

describe('page.goto refuses what the list does not allow', () => {
  it('the decoy host itself', async () => {
    const err = await rpcFailure(goto(decoyUrl('/direct')));
    expect(err.code).toBe(-32011);
    expect(err.data).toMatchObject({ url: decoyUrl('/direct') });
    expect(decoy.hits).toEqual([]);
  });

  const refused: [string, () => string][] = [
    ['file:', () => 'file:///etc/passwd'],
    ['chrome:', () => 'chrome://version'],
    ['view-source:', () => `view-source:${decoyUrl('/view-source')}`],
    ['javascript:', () => 'javascript:alert(1)'],
    ['data:', () => 'data:text/html,x'],
    ['credentials', () => `http://user:pass@127.0.0.1:${fixture.port}/form`],
  ];
  it.each(refused)('a %s URL', async (_name, build) => {
    const err = await rpcFailure(goto(build()));
    expect(err.code).toBe(-32011);
    const { sessions } = await service.call<{ sessions: { session_id: string; url: string }[] }>(
      'session.list',
    );
    expect(sessions.find((s) => s.session_id === session_id)?.url).toBe('about:blank');
    expect(decoy.hits).toEqual([]);
  });

  it('a userinfo URL is judged by its real host', async () => {
    const err = await rpcFailure(goto(`http://localhost@127.0.0.2:${decoy.port}/`));
    expect(err.code).toBe(-32011);
    expect(decoy.hits).toEqual([]);
  });
});

describe('redirects', () => {
  it('a 302 to the decoy is NAVIGATION_BLOCKED with data.blockedUrl', async () => {
    const start = fx(`/redirect?to=${q(decoyUrl('/after-302'))}`);
    const err = await rpcFailure(goto(start));
    expect(err.code).toBe(-32011);
    expect(err.data).toMatchObject({ url: start, blockedUrl: decoyUrl('/after-302') });
    expect(fixture.hits).toContain('GET /redirect');
    expect(decoy.hits).toEqual([]);
  });

  it('a 2-hop chain ending on the decoy is NAVIGATION_BLOCKED', async () => {
    const err = await rpcFailure(goto(fx(`/redirect-chain?to=${q(decoyUrl('/after-chain'))}`)));
    expect(err.code).toBe(-32011);
    expect(err.data).toMatchObject({ blockedUrl: decoyUrl('/after-chain') });
    expect(decoy.hits).toEqual([]);
  });

  it('a 302 to an https URL on the decoy is NAVIGATION_BLOCKED (the tunnel is refused)', async () => {
    const target = `https://127.0.0.2:${decoy.port}/after-https`;
    const err = await rpcFailure(goto(fx(`/redirect?to=${q(target)}`)));
    expect(err.code).toBe(-32011);
    expect(String(err.data?.blockedUrl)).toContain('127.0.0.2');
    expect(decoy.hits).toEqual([]);
  });

  it('a redirect inside the list still works', async () => {
    const nav = await goto(fx(`/redirect-chain?to=${q(fx('/form'))}`));
    expect(nav).toMatchObject({ url: fx('/form'), title: 'Form', status: 200 });
  });
});

describe('subresources and frames', () => {
  it('a frame on the decoy: the page loads, the frame is reported blocked', async () => {
    const nav = await goto(fx(`/frame?src=${q(decoyUrl('/framed'))}`));
    expect(nav.title).toBe('Frame');
    expect(nav.blocked).toContainEqual(expect.objectContaining({ url: decoyUrl('/framed') }));
    expect(await text('main')).toBe('framed page');
    const net = await pullNetworkUntil((e) => e.url === decoyUrl('/framed'), 'the blocked frame');
    expect(net.find((e) => e.url === decoyUrl('/framed'))).toMatchObject({ blocked: true });
    expect(decoy.hits).toEqual([]);
  });

  it('an img on the decoy', async () => {
    const nav = await goto(fx(`/img?src=${q(decoyUrl('/pic.png'))}`));
    expect(nav.title).toBe('Image');
    expect(nav.blocked).toContainEqual(expect.objectContaining({ url: decoyUrl('/pic.png') }));
    const net = await pullNetworkUntil((e) => e.url === decoyUrl('/pic.png'), 'the blocked image');
    expect(net.find((e) => e.url === decoyUrl('/pic.png'))).toMatchObject({ blocked: true });
    expect(decoy.hits).toEqual([]);
  });

  it('a fetch to the decoy', async () => {
    const nav = await goto(fx(`/fetch?to=${q(decoyUrl('/api'))}`));
    expect(nav.title).toBe('Fetch');
    await waitFor(async () => (await text('#out')) === 'fetched', 10_000, 'the page fetch to settle');
    const net = await pullNetworkUntil((e) => e.url === decoyUrl('/api'), 'the blocked fetch');
    expect(net.find((e) => e.url === decoyUrl('/api'))).toMatchObject({ blocked: true });
    expect(decoy.hits).toEqual([]);
  });

  it('page.evaluate fetching the decoy rejects', async () => {
    await goto(fx('/form'));
    const err = await rpcFailure(
      service.call('page.evaluate', {
        session_id,
        expression: `fetch(${JSON.stringify(decoyUrl('/from-evaluate'))}).then((r) => r.text())`,
      }),
    );
    expect(err.code).toBe(-32000);
    expect(decoy.hits).toEqual([]);
  });

  it('a page WebSocket to the decoy', async () => {
    const wsUrl = `ws://127.0.0.2:${decoy.port}/socket`;
    await goto(fx(`/ws-page?to=${q(wsUrl)}`));
    await waitFor(async () => (await text('#out')) !== 'ws connecting', 10_000, 'the WebSocket to settle');
    expect(await text('#out')).toBe('ws error');
    await proxyRefused((url) => url.includes(`127.0.0.2:${decoy.port}`), 'the proxy to refuse the socket');
    expect(decoy.hits).toEqual([]);
  });
});

describe('navigations the page starts', () => {
  it('a popup via window.open to the decoy', async () => {
    await goto(fx(`/popup?to=${q(decoyUrl('/popup'))}`));
    await service.call('page.click', { session_id, selector: '#open' });
    const seen: string[] = [];
    await waitFor(
      async () => {
        const logs = await service.call<{ console: { type: string; text: string }[] }>('logs.pull', {
          session_id,
        });
        seen.push(...logs.console.filter((c) => c.type === 'popup').map((c) => c.text));
        return seen.length > 0;
      },
      10_000,
      'the popup in logs.pull',
    );
    expect(seen[0]).toContain(decoyUrl('/popup'));
    await proxyRefused((url) => url === decoyUrl('/popup'), 'the proxy to refuse the popup document');
    expect(decoy.hits).toEqual([]);
  });

  it.each([
    ['meta refresh', '/meta-refresh'],
    ['JS location redirect', '/js-redirect'],
  ])('a %s to the decoy', async (_name, path) => {
    const start = fx(`${path}?to=${q(decoyUrl('/redirected'))}`);
    // The page may leave before or after goto settles: either the call is refused, or it returns
    // and the refused navigation follows.
    const outcome = await goto(start).catch((e: unknown) => e);
    if (outcome instanceof Error) {
      expect(outcome).toBeInstanceOf(RpcCallError);
      expect((outcome as RpcCallError).code).toBe(-32011);
    }
    const href = await waitUntilLeft(start);
    expect(['about:blank', decoyUrl('/redirected')]).toContain(href);
    expect(await text()).not.toContain('decoy');
    expect(decoy.hits).toEqual([]);
  });

  it('service worker registration is blocked', async () => {
    fixture.hits.length = 0;
    await goto(fx('/sw'));
    await waitFor(async () => (await text('#out')) !== 'sw pending', 10_000, 'the registration to settle');
    const { result } = await service.call<{ result: { registrations: number; controlled: boolean } }>(
      'page.evaluate',
      {
        session_id,
        expression: `(async () => ({
          registrations: navigator.serviceWorker ? (await navigator.serviceWorker.getRegistrations()).length : 0,
          controlled: Boolean(navigator.serviceWorker && navigator.serviceWorker.controller),
        }))()`,
      },
    );
    expect(result).toEqual({ registrations: 0, controlled: false });
    // The worker script was never fetched: nothing runs outside the session's view.
    expect(fixture.hits).not.toContain('GET /sw.js');
  });
});
