// The seed's five acceptance criteria (§11), against the real service, Chromium and fixture app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDecoyServer, startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { RpcCallError, startTestService, waitFor, type TestService } from '../helpers/testService.js';

let service: TestService;
let fixture: FixtureServer;
let decoy: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
  decoy = await startDecoyServer();
  service = await startTestService({ SESSION_TTL_MS: '1500', JANITOR_INTERVAL_MS: '100' });
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
  await decoy?.close();
});

async function newSession(): Promise<string> {
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  return session_id;
}

describe('seed acceptance criteria', () => {
  it('1. renders JS pages: networkidle on /projects, then page.text has a project name', async () => {
    const session_id = await newSession();
    const nav = await service.call<{ url: string; title: string }>('page.goto', {
      session_id,
      url: `${fixture.url}/projects`,
      waitUntil: 'networkidle',
    });
    expect(nav.title).toBe('Projects');
    const { text } = await service.call<{ text: string }>('page.text', { session_id, selector: 'main' });
    expect(text).toContain('Apollo');
    await service.call('session.close', { session_id });
  });

  it('2. interactivity: click reveals an input, fill updates it, page.text reflects it', async () => {
    const session_id = await newSession();
    await service.call('page.goto', { session_id, url: `${fixture.url}/projects` });
    await service.call('page.click', { session_id, selector: "role=button[name='New Project']" });
    await service.call('page.fill', { session_id, selector: '#new-project-name', value: 'Zephyr' });
    const { text } = await service.call<{ text: string }>('page.text', { session_id, selector: 'main' });
    expect(text).toContain('Typed: Zephyr');
    await service.call('session.close', { session_id });
  });

  it('3. signals: logs.pull has a console message, network.pull has the /api/fail 500', async () => {
    const session_id = await newSession();
    await service.call('page.goto', { session_id, url: `${fixture.url}/projects` });
    const logs = await service.call<{ console: { type: string; text: string }[] }>('logs.pull', {
      session_id,
    });
    expect(logs.console.map((c) => c.text)).toContain('projects page loaded');
    const net = await service.call<{ requests: { url: string; status: number }[] }>('network.pull', {
      session_id,
      onlyErrors: true,
    });
    expect(net.requests).toContainEqual(
      expect.objectContaining({ url: `${fixture.url}/api/fail`, status: 500 }),
    );
    await service.call('session.close', { session_id });
  });

  it('4. safety: a disallowed host is an error and reaches nothing; no key is 401', async () => {
    const session_id = await newSession();
    const reply = await service.rpc('page.goto', { session_id, url: `${decoy.url}/` });
    expect(reply.error?.code).toBe(-32011);
    expect(decoy.hits).toEqual([]);
    const noKey = await service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list' }), {
      'x-api-key': '',
    });
    expect(noKey.status).toBe(401);
    await service.call('session.close', { session_id });
  });

  it('5. hygiene: an idle session is closed by the janitor and its id then fails', async () => {
    const session_id = await newSession();
    await waitFor(
      async () => {
        const { sessions } = await service.call<{ sessions: { session_id: string }[] }>('session.list');
        return !sessions.some((s) => s.session_id === session_id);
      },
      10_000,
      'the janitor to close the idle session',
    );
    const err = await service.call('page.text', { session_id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcCallError);
    expect((err as RpcCallError).code).toBe(-32010);
    expect((err as RpcCallError).data?.reason).toBe('expired');
  });
});
