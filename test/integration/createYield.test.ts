// A create that must open a context waits, at most CREATE_YIELD_MAX_MS, while another key's session
// calls run: opening a context costs Chromium's browser process what dozens of calls cost, so a key
// creating sessions back to back slows its own creates, not the other keys' calls. A key's own calls
// never hold its creates back. Checked by the order in which answers arrive, not by durations.
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';

const KEY_A = 'yield-a-key-0123456789';
const KEY_B = 'yield-b-key-0123456789';
// No warm pool: every create opens its context, the path that yields.
const suite = useServiceSuite({ API_KEY: `${KEY_A},${KEY_B}`, POOL_SIZE: '0' });

type Params = Record<string, unknown>;

async function callAs<T = Params>(key: string, method: string, params: Params = {}): Promise<T> {
  const reply = await suite.service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'x-api-key': key,
  });
  const body = reply.body as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** A call of `session` that holds it busy for about `ms` (a wait for text that never appears). */
function busyFor(key: string, session: string, ms: number): Promise<unknown> {
  return callAs(key, 'page.waitFor', { session_id: session, text: 'never on this page', timeout: ms }).catch(
    (error: unknown) => error,
  );
}

describe('a create beside another key’s calls', () => {
  it("waits for another key's running call before it opens its context", async () => {
    const { session_id: a } = await callAs<{ session_id: string }>(KEY_A, 'session.create');
    const order: string[] = [];
    const busy = busyFor(KEY_A, a, 600).then(() => order.push('A call ended'));
    // The call is running before B asks.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const created = callAs<{ session_id: string }>(KEY_B, 'session.create').then((r) => {
      order.push('B created');
      return r.session_id;
    });
    const [, b] = await Promise.all([busy, created]);
    expect(order).toEqual(['A call ended', 'B created']);
    await callAs(KEY_A, 'session.close', { session_id: a });
    await callAs(KEY_B, 'session.close', { session_id: b });
  });

  it("is not held back by the same key's own calls", async () => {
    const { session_id: a } = await callAs<{ session_id: string }>(KEY_A, 'session.create');
    const order: string[] = [];
    const busy = busyFor(KEY_A, a, 5_000).then(() => order.push('A call ended'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const created = callAs<{ session_id: string }>(KEY_A, 'session.create').then((r) => {
      order.push('A created');
      return r.session_id;
    });
    const [, second] = await Promise.all([busy, created]);
    expect(order).toEqual(['A created', 'A call ended']);
    await callAs(KEY_A, 'session.close', { session_id: a });
    await callAs(KEY_A, 'session.close', { session_id: second });
  });

  it("a close waits for another key's running call before the browser tears its context down", async () => {
    const { session_id: a } = await callAs<{ session_id: string }>(KEY_A, 'session.create');
    const { session_id: b } = await callAs<{ session_id: string }>(KEY_B, 'session.create');
    const order: string[] = [];
    const busy = busyFor(KEY_A, a, 600).then(() => order.push('A call ended'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = callAs(KEY_B, 'session.close', { session_id: b }).then(() => order.push('B closed'));
    // The session is gone at once: a call on it fails while its close waits.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(callAs(KEY_B, 'page.text', { session_id: b })).rejects.toThrow(/closed/);
    await Promise.all([busy, closed]);
    expect(order).toEqual(['A call ended', 'B closed']);
    await callAs(KEY_A, 'session.close', { session_id: a });
  });
});
