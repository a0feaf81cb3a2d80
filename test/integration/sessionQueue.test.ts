// The bound on one session's queue (MAX_QUEUED_CALLS_PER_SESSION, lowered to 2 here): calls on a
// session run one at a time, and past the bound a call is refused at once with LIMIT_REACHED
// instead of waiting; the refusal is not kept by its idempotency_key, so the retry runs. A click
// that waits at a gate the test opens (fixtures/routes/idempotency.ts) holds the lock meanwhile, so
// no step depends on timing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { waitFor } from '../helpers/testService.js';

const MAX_QUEUED = 2;
const WAIT_MS = 20_000;
const LIMIT_REACHED = -32003;

// The click's settle waits for the gate's request until the test opens it.
const suite = useServiceSuite({
  MAX_QUEUED_CALLS_PER_SESSION: String(MAX_QUEUED),
  ACTION_SETTLE_MS: '60000',
});

const gateHits = (): number => suite.fixture.hits.filter((h) => h === 'GET /idem/gate').length;

async function openGate(gate: string): Promise<void> {
  const res = await fetch(`${suite.fixture.url}/idem/open?token=${gate}`);
  expect(await res.text()).toBe('1');
}

const count = async (session_id: string): Promise<unknown> =>
  (
    await suite.service.call<{ result: unknown }>('page.evaluate', {
      session_id,
      expression: "document.getElementById('count').textContent",
    })
  ).result;

describe('MAX_QUEUED_CALLS_PER_SESSION', () => {
  it('past the bound a call is refused at once (LIMIT_REACHED, session-queue-full), never run; the keyed retry runs; other sessions are not held', async () => {
    const gate = randomUUID();
    const id = await suite.open(`/idem/counter?gate=${gate}`);
    const other = await suite.open('/idem/counter');
    const session = suite.service.running.services.sessions.get(id);
    const before = gateHits();
    // Holds the lock: its settle waits at the gate.
    const first = suite.service.rpc('page.click', { session_id: id, selector: '#inc' });
    await waitFor(() => gateHits() > before, WAIT_MS, 'the first click to reach the gate');
    const queued = [1, 2].map(() =>
      suite.service.rpc('page.evaluate', {
        session_id: id,
        expression: "document.getElementById('count').textContent",
      }),
    );
    await waitFor(() => session?.calls === 1 + MAX_QUEUED, WAIT_MS, 'two calls queued behind the click');

    const key = `queue-${gate}`;
    const refused = await suite.service.rpc('page.click', {
      session_id: id,
      selector: '#inc',
      idempotency_key: key,
    });
    expect(refused.error?.code).toBe(LIMIT_REACHED);
    expect(refused.error?.message).toMatch(/MAX_QUEUED_CALLS_PER_SESSION/);
    expect(refused.error?.data).toMatchObject({
      reason: 'session-queue-full',
      limit: 'MAX_QUEUED_CALLS_PER_SESSION',
      maxQueuedCalls: MAX_QUEUED,
      retryAfterMs: expect.any(Number) as unknown,
    });
    // Refused, not queued: the queue is as it was.
    expect(session?.calls).toBe(1 + MAX_QUEUED);
    // The bound is per session: another session of the same key answers meanwhile.
    expect(await count(other)).toBe('0');

    await openGate(gate);
    expect((await first).error).toBeUndefined();
    for (const answer of await Promise.all(queued)) expect(answer.result).toMatchObject({ result: '1' });
    // The refused click never ran.
    expect(await count(id)).toBe('1');

    // The retry with the key runs (the refusal was not kept as the key's answer).
    const hits = gateHits();
    const retry = suite.service.rpc('page.click', { session_id: id, selector: '#inc', idempotency_key: key });
    await waitFor(() => gateHits() > hits, WAIT_MS, 'the retried click to reach the gate');
    await openGate(gate);
    const retried = await retry;
    expect(retried.error).toBeUndefined();
    expect(retried.result).toMatchObject({ ok: true });
    expect(await count(id)).toBe('2');
    await suite.service.call('session.close', { session_id: id });
    await suite.service.call('session.close', { session_id: other });
  });
});
