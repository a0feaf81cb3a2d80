// The warm pool under churn and /readyz's capacity (issue 15): creates made back to back, with no
// idle gap, are served from a pool that refills while they arrive (counted by
// browser_pool_takes_total, never timed); /readyz reports sessions, MAX_SESSIONS, free slots and
// ready contexts, answers 503 when no slot is free, and says the same as HAProxy's agent-check line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RpcCallError,
  TEST_API_KEY,
  startTestService,
  waitFor,
  type TestService,
} from '../helpers/testService.js';
import { startFixtureServer } from '../fixtures/fixtureServer.js';

async function poolTakes(service: TestService): Promise<{ hit: number; miss: number }> {
  const text = await (
    await fetch(`${service.url}/metrics`, { headers: { 'x-api-key': TEST_API_KEY } })
  ).text();
  const read = (outcome: string): number => {
    const m = new RegExp(`^browser_pool_takes_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { hit: read('hit'), miss: read('miss') };
}

async function readyz(
  service: TestService,
  query = '',
): Promise<{ status: number; body: string; free: string | null }> {
  const res = await fetch(`${service.url}/readyz${query}`);
  return { status: res.status, body: await res.text(), free: res.headers.get('x-free-sessions') };
}

const create = async (service: TestService, params: Record<string, unknown> = {}): Promise<string> =>
  (await service.call<{ session_id: string }>('session.create', params)).session_id;

describe("the pool's refill after a create", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ POOL_SIZE: '1', POOL_MAX_SIZE: '1' });
  });
  afterAll(async () => service?.close());

  it("waits for the new session's first call to end before it opens a context", async () => {
    const poolOf = async () => (JSON.parse((await readyz(service)).body) as { pool: number }).pool;
    await waitFor(async () => (await poolOf()) === 1, 20_000, 'the pool is full');
    const fixture = await startFixtureServer();
    try {
      // Two creates in a row: demand the pool answers at once, as soon as calls leave it a gap.
      await service.call('session.close', { session_id: await create(service) });
      await waitFor(async () => (await poolOf()) === 1, 20_000, 'the pool is full again');
      const session_id = await create(service);
      // The session's first call, sent at once, runs for 1.5 s: the pool stays empty all along.
      const goto = service.call('page.goto', { session_id, url: `${fixture.url}/slow?ms=1500` });
      const seen: number[] = [];
      let done = false;
      void goto.finally(() => {
        done = true;
      });
      while (!done) {
        seen.push(await poolOf());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await goto;
      expect(seen.length).toBeGreaterThan(5);
      expect(seen.slice(0, -1)).toEqual(seen.slice(0, -1).map(() => 0));
      // Once the call ended, the refill runs.
      await waitFor(async () => (await poolOf()) === 1, 20_000, 'the pool refilled');
      await service.call('session.close', { session_id });
    } finally {
      await fixture.close();
    }
  });
});

describe('the pool under churn', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ POOL_SIZE: '2', POOL_MAX_SIZE: '6', MAX_SESSIONS: '12' });
  });
  afterAll(async () => service?.close());

  it('back-to-back creates are served from a pool that refills while they arrive', async () => {
    await waitFor(
      async () => (JSON.parse((await readyz(service)).body) as { pool: number }).pool === 2,
      30_000,
      'the pool to fill',
    );
    const before = await poolTakes(service);
    // No gap: each create right after the previous close. The old pool refilled only after
    // POOL_REFILL_IDLE_MS without a create, so only its first POOL_SIZE (2) creates were hits.
    for (let i = 0; i < 12; i++) {
      const id = await create(service);
      await service.call('session.close', { session_id: id });
    }
    const after = await poolTakes(service);
    expect(after.hit + after.miss - before.hit - before.miss).toBe(12);
    expect(after.hit - before.hit).toBeGreaterThan(2);
  }, 300_000);

  it('a create with custom options is no pool take; the pool never holds more than MAX_SESSIONS allows', async () => {
    const before = await poolTakes(service);
    const custom = await create(service, { userAgent: 'pool-test' });
    expect(await poolTakes(service)).toEqual(before);
    // Fill every slot: open sessions plus pooled contexts never pass MAX_SESSIONS (12).
    const ids = [custom];
    for (let i = 0; i < 11; i++) ids.push(await create(service));
    const full = JSON.parse((await readyz(service)).body) as Record<string, number>;
    expect(full).toMatchObject({ sessions: 12, maxSessions: 12, free: 0, pool: 0 });
    await expect(create(service)).rejects.toBeInstanceOf(RpcCallError);
    await Promise.all(ids.map((id) => service.call('session.close', { session_id: id })));
  }, 300_000);
});

describe('/readyz capacity', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ POOL_SIZE: '0', MAX_SESSIONS: '2' });
  });
  afterAll(async () => service?.close());

  it('reports counts without a key, 503 when full, and the agent-check line of each state', async () => {
    const empty = await readyz(service);
    expect(empty.status).toBe(200);
    // Counts only: exactly these fields, nothing of any tenant or session.
    expect(JSON.parse(empty.body)).toEqual({
      status: 'ready',
      ready: true,
      browser: 'connected',
      sessions: 0,
      maxSessions: 2,
      free: 2,
      pool: 0,
    });
    expect(empty.free).toBe('2');
    expect(await readyz(service, '?format=agent')).toMatchObject({ status: 200, body: 'up 100%\n' });

    const a = await create(service);
    expect(await readyz(service, '?format=agent')).toMatchObject({ body: 'up 50%\n', free: '1' });
    const b = await create(service);
    const full = await readyz(service);
    expect(full.status).toBe(503);
    expect(JSON.parse(full.body)).toMatchObject({ status: 'full', ready: false, sessions: 2, free: 0 });
    expect(full.body).not.toContain(a);
    expect(full.free).toBe('0');
    expect(await readyz(service, '?format=agent')).toMatchObject({ status: 200, body: 'drain\n' });

    await service.call('session.close', { session_id: b });
    expect((await readyz(service)).status).toBe(200);
    await service.call('session.close', { session_id: a });
  }, 120_000);

  it('refuses an unknown format', async () => {
    const bad = await readyz(service, '?format=xml');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('format must be json or agent');
  });
});
