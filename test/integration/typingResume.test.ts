// A keyed page.keyboard type whose caller leaves mid-typing (issue 13 leftovers): the typing stops
// at the next character, the idempotency_key keeps how far it got instead of an answer, and the
// retry with the key types the rest, so the field holds the text once. The field is read through
// the service's own Playwright page (no session call, which would queue behind the typing).
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

const WAIT_MS = 30_000;
const TEXT = 'abcdefghijklmnopqrstuvwxyz';

const suite = useServiceSuite();

describe('page.keyboard type with an idempotency_key, its caller gone part way', () => {
  it('stops part way, keeps no answer, and the retry types only the rest; a later repeat is replayed', async () => {
    const id = await suite.open('/form');
    await suite.service.call('page.click', { session_id: id, selector: '#name' });
    const session = suite.service.running.services.sessions.get(id);
    if (session === undefined) throw new Error('no session');
    const typed = () => session.page.inputValue('#name');
    const params = {
      session_id: id,
      action: 'type',
      text: TEXT,
      delay: 150,
      timeout: 60_000,
      idempotency_key: `type-${id}`,
    };
    const impatient = new AbortController();
    const first = fetch(`${suite.service.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'page.keyboard', params }),
      signal: impatient.signal,
    }).catch((error: unknown) => error);
    await waitFor(async () => (await typed()).length >= 3, WAIT_MS, 'a few characters typed');
    impatient.abort();
    expect(await first).toBeInstanceOf(Error);
    // The typing stops at the next character: the session's lock is free again, the text half typed.
    await waitFor(() => session.calls === 0, WAIT_MS, 'the typing to stop');
    const part = await typed();
    expect(part.length).toBeGreaterThanOrEqual(3);
    expect(part.length).toBeLessThan(TEXT.length);
    expect(TEXT.startsWith(part)).toBe(true);
    // Still half typed a moment later: nothing typed on without a caller.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await typed()).toBe(part);

    // The retry is not answered "stopped part way": it types the rest, once.
    const retry = await suite.service.rpc('page.keyboard', params);
    expect(retry.error).toBeUndefined();
    expect(retry.result).toMatchObject({ ok: true });
    expect(await typed()).toBe(TEXT);
    // The key's answer is now the finished call's: a repeat is replayed, nothing typed again.
    const repeat = await suite.service.rpc('page.keyboard', params);
    expect(repeat.result).toEqual(retry.result);
    expect(await typed()).toBe(TEXT);
    expect(
      suite.service.logs.some(
        (l) => l.includes(`"idempotencyKey":"type-${id}"`) && l.includes('"replayed":true'),
      ),
    ).toBe(true);

    // Without a key there is nothing to continue: a new call types its whole text.
    await suite.service.call('page.keyboard', { session_id: id, action: 'type', text: 'xy' });
    expect(await typed()).toBe(`${TEXT}xy`);
    await suite.service.call('session.close', { session_id: id });
  });
});
