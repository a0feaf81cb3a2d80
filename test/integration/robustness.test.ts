// Limits, expiry and hostile pages (DESIGN §4, §9): the service stays answerable whatever a page does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { RpcCallError, startTestService, waitFor, type TestService } from '../helpers/testService.js';

let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
});

afterAll(async () => {
  await fixture?.close();
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

type Logs = { console: { type: string; text: string }[]; dropped: { console: number } };

/** Session-level helpers bound to one service. */
function client(svc: () => TestService) {
  return {
    async create(): Promise<string> {
      return (await svc().call<{ session_id: string }>('session.create', {})).session_id;
    },
    async ids(): Promise<string[]> {
      const { sessions } = await svc().call<{ sessions: { session_id: string }[] }>('session.list');
      return sessions.map((s) => s.session_id);
    },
    goto: (session_id: string, path: string) =>
      svc().call<{ title: string }>('page.goto', { session_id, url: `${fixture.url}${path}` }),
    async text(session_id: string, selector = 'body', timeout?: number): Promise<string> {
      return (await svc().call<{ text: string }>('page.text', { session_id, selector, timeout })).text;
    },
    async evaluate<T = unknown>(session_id: string, expression: string): Promise<T> {
      return (await svc().call<{ result: T }>('page.evaluate', { session_id, expression })).result;
    },
    close: (session_id: string) => svc().call('session.close', { session_id }),
  };
}

describe('MAX_SESSIONS', () => {
  let svc: TestService;
  const c = client(() => svc);
  beforeAll(async () => {
    svc = await startTestService({ MAX_SESSIONS: '2' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('six parallel creates never yield more than two sessions', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => c.create()));
    const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(created).toHaveLength(2);
    for (const reason of refused) {
      expect(reason).toBeInstanceOf(RpcCallError);
      expect((reason as RpcCallError).code).toBe(-32003);
    }
    expect((await c.ids()).sort()).toEqual([...created].sort());
    await Promise.all(created.map((id) => c.close(id)));
    expect(await c.ids()).toEqual([]);
  });

  it('a third create is LIMIT_REACHED with retryAfterMs; closing one frees a slot', async () => {
    const first = await c.create();
    const second = await c.create();
    const err = await rpcFailure(c.create());
    expect(err.code).toBe(-32003);
    expect(err.data).toMatchObject({ maxSessions: 2 });
    expect(typeof err.data?.retryAfterMs).toBe('number');
    expect(err.data?.retryAfterMs).toBeGreaterThan(0);
    await c.close(first);
    const third = await c.create();
    expect((await c.ids()).sort()).toEqual([second, third].sort());
    await c.close(second);
    await c.close(third);
  });
});

describe('SESSION_TTL_MS', () => {
  let svc: TestService;
  const c = client(() => svc);
  const TTL_MS = 1500;
  beforeAll(async () => {
    svc = await startTestService({ SESSION_TTL_MS: String(TTL_MS), JANITOR_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('an idle session expires and its id then says expired', async () => {
    const session_id = await c.create();
    await waitFor(async () => !(await c.ids()).includes(session_id), 10_000, 'the janitor');
    const err = await rpcFailure(svc.call('page.text', { session_id }));
    expect(err.code).toBe(-32010);
    expect(err.data?.reason).toBe('expired');
  });

  it('a call longer than the TTL is not cut short and its session survives', async () => {
    const session_id = await c.create();
    await c.goto(session_id, '/form');
    const idle = await svc.call('page.waitFor', { session_id, state: 'idleFor', ms: TTL_MS * 2 });
    expect(idle).toEqual({ state: 'idleFor' });
    expect(await c.evaluate(session_id, 'document.title')).toBe('Form');
    expect(await c.ids()).toContain(session_id);
    await c.close(session_id);
  });
});

describe('hostile pages', () => {
  let svc: TestService;
  const c = client(() => svc);
  beforeAll(async () => {
    // The page's event budget (PAGE_EVENT_BURST) is above the floods here: these tests are of the buffers.
    svc = await startTestService({ CONSOLE_BUFFER_SIZE: '100', PAGE_EVENT_BURST: '10000' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  /** Pulls logs until match finds an entry; returns every console entry pulled. */
  async function pullConsoleUntil(session_id: string, match: (text: string) => boolean, what: string) {
    const seen: Logs['console'] = [];
    await waitFor(
      async () => {
        seen.push(...(await svc.call<Logs>('logs.pull', { session_id })).console);
        return seen.some((e) => match(e.text));
      },
      10_000,
      what,
    );
    return seen;
  }

  it('a frozen page times out, closes on request, and other sessions keep answering', async () => {
    const control = await c.create();
    await c.goto(control, '/form');
    const frozen = await c.create();
    await c.goto(frozen, '/frozen');
    const click = await rpcFailure(
      svc.call('page.click', { session_id: frozen, selector: '#freeze', timeout: 1000 }),
    );
    expect([-32000, -32001]).toContain(click.code);
    const read = await rpcFailure(svc.call('page.text', { session_id: frozen, timeout: 1000 }));
    expect(read.code).toBe(-32001);
    expect(await c.text(control, 'main')).toContain('Greet');
    expect(await c.close(frozen)).toEqual({ ok: true, closed: true });
    expect(await c.ids()).not.toContain(frozen);
    expect(await c.text(control, 'main')).toContain('Greet');
    await c.close(control);
  });

  it.each([
    ['a promise that never settles', 'new Promise(() => {})'],
    ['a busy loop', '(() => { while (true) {} })()'],
  ])('page.evaluate with %s hits its deadline; the session works on', async (_name, expression) => {
    const session_id = await c.create();
    await c.goto(session_id, '/form');
    const err = await rpcFailure(svc.call('page.evaluate', { session_id, expression, timeout: 500 }));
    expect(err.code).toBe(-32001);
    expect(await c.evaluate(session_id, 'location.href')).toBe('about:blank');
    // The fresh page is the session's main page, observed once: not a popup, no doubled listeners.
    await c.evaluate(session_id, "console.log('after recycle')");
    const seen = await pullConsoleUntil(session_id, (t) => t === 'after recycle', 'the console message');
    expect(seen.filter((e) => e.text === 'after recycle')).toHaveLength(1);
    expect(seen.filter((e) => e.type === 'popup')).toEqual([]);
    expect(await c.goto(session_id, '/form')).toMatchObject({ title: 'Form' });
    expect(await c.text(session_id, 'main')).toContain('Greet');
    await c.close(session_id);
  });

  it('alert never blocks and confirm is dismissed; both are logged once', async () => {
    const session_id = await c.create();
    await c.goto(session_id, '/alert');
    expect(await c.text(session_id, '#status')).toBe('after alert');
    await svc.call('page.click', { session_id, selector: '#confirm' });
    expect(await c.text(session_id, '#confirm-result')).toBe('false');
    const seen = await pullConsoleUntil(session_id, (t) => t.startsWith('confirm:'), 'the confirm dialog');
    const dialogs = seen.filter((e) => e.type === 'dialog').map((e) => e.text);
    expect(dialogs).toEqual(['alert: fixture alert (accepted)', 'confirm: sure? (dismissed)']);
    await c.close(session_id);
  });

  it('a console flood keeps the newest CONSOLE_BUFFER_SIZE entries and counts the rest', async () => {
    const session_id = await c.create();
    await c.goto(session_id, '/console-flood?n=5000');
    expect(await c.text(session_id, '#out')).toBe('flooded 5000');
    const logs = await svc.call<Logs>('logs.pull', { session_id });
    expect(logs.console).toHaveLength(100);
    expect(logs.dropped.console).toBeGreaterThanOrEqual(4900);
    expect(logs.console[0]?.text).toBe('flood 4900');
    expect(logs.console[99]?.text).toBe('flood 4999');
    await c.close(session_id);
  });

  it('a renderer crash is reported and the next call gets a fresh page', async () => {
    const session_id = await c.create();
    await c.goto(session_id, '/form');
    // No RPC can reach chrome://crash (the allow-list refuses it): crash the page from inside.
    const session = svc.running.services.sessions.get(session_id);
    expect(session).toBeDefined();
    await session?.page.goto('chrome://crash').catch(() => undefined);
    await waitFor(() => session?.crashed === true, 10_000, 'the crash event');
    expect(await c.evaluate(session_id, 'location.href')).toBe('about:blank');
    const logs = await svc.call<Logs & { pageErrors: { message: string }[] }>('logs.pull', { session_id });
    expect(logs.pageErrors.map((e) => e.message).join('\n')).toContain('crashed');
    expect(logs.console.filter((e) => e.type === 'popup')).toEqual([]);
    expect(await c.goto(session_id, '/form')).toMatchObject({ title: 'Form' });
    await c.close(session_id);
  });

  it('two sessions navigate in parallel', async () => {
    const [a, b] = await Promise.all([c.create(), c.create()]);
    if (a === undefined || b === undefined) throw new Error('no sessions');
    const [navA, navB] = await Promise.all([c.goto(a, '/projects'), c.goto(b, '/form')]);
    expect(navA.title).toBe('Projects');
    expect(navB.title).toBe('Form');
    expect(await c.text(a, '#projects')).toContain('Apollo');
    await Promise.all([c.close(a), c.close(b)]);
  });

  it('calls on one session run one at a time', async () => {
    const session_id = await c.create();
    await c.goto(session_id, '/form');
    await c.evaluate(session_id, '(window.__order = [], 0)');
    // Each call marks its start, yields to the event loop, then marks its end: overlap would interleave.
    const step = (i: number) =>
      `(async () => { window.__order.push('start ${i}'); await new Promise((r) => setTimeout(r, 50)); window.__order.push('end ${i}'); })()`;
    await Promise.all([0, 1, 2, 3, 4].map((i) => c.evaluate(session_id, step(i))));
    const parallel = await c.evaluate<string[]>(session_id, 'window.__order');
    expect(parallel).toHaveLength(10);
    for (let k = 0; k < 10; k += 2) expect(parallel[k + 1]).toBe(parallel[k]?.replace('start', 'end'));

    // A batch reaches the lock in its own order, so the calls also run in that order.
    await c.evaluate(session_id, '(window.__order = [], 0)');
    const batch = [0, 1, 2, 3, 4].map((i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'page.evaluate',
      params: { session_id, expression: step(i) },
    }));
    const reply = await svc.post(JSON.stringify(batch));
    expect(reply.status).toBe(200);
    expect(await c.evaluate(session_id, 'window.__order')).toEqual(
      [0, 1, 2, 3, 4].flatMap((i) => [`start ${i}`, `end ${i}`]),
    );
    await c.close(session_id);
  });

  it('cookies set in one session are not visible in another', async () => {
    const [a, b] = await Promise.all([c.create(), c.create()]);
    if (a === undefined || b === undefined) throw new Error('no sessions');
    await c.goto(a, '/set-cookie?name=iso&value=from-a');
    await c.goto(a, '/show-cookie');
    expect(await c.text(a, '#cookies')).toContain('iso=from-a');
    await c.goto(b, '/show-cookie');
    expect(await c.text(b, '#cookies')).not.toContain('iso=');
    await Promise.all([c.close(a), c.close(b)]);
  });
});
