// Replay: a session created with replay keeps a JPEG after each call that changed something, named by
// its action entry (picture: true); after it closes, its timeline (the event stream from since=0)
// and its pictures stay readable by its key for REPLAY_KEEP_MS, never by another key; a session
// without replay keeps none; past REPLAY_KEEP_MS nothing is left.
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

const OTHER_KEY = 'replay-other-key-0123456789';
/** Short, so the test sees a kept session go; long enough to read it first. */
const KEEP_MS = 8_000;
const suite = useServiceSuite({ API_KEY: `${TEST_API_KEY},${OTHER_KEY}`, REPLAY_KEEP_MS: String(KEEP_MS) });

interface Entry {
  seq: number;
  kind: string;
  method?: string;
  picture?: boolean;
}

/** What GET /sessions/{id}/events?since=0 sends: its status, the entries, whether it ended. */
async function stream(
  id: string,
  key = TEST_API_KEY,
): Promise<{ status: number; entries: Entry[]; ended: boolean }> {
  const res = await fetch(`${suite.service.url}/sessions/${id}/events?since=0&kinds=action`, {
    headers: { 'x-api-key': key },
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) return { status: res.status, entries: [], ended: false };
  // A closed session's stream sends what it holds, then its end, and finishes.
  const text = await res.text();
  const entries = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Entry)
    .filter((e) => e.kind === 'action');
  return { status: res.status, entries, ended: text.includes('event: end') };
}

const picture = (id: string, seq: number, key = TEST_API_KEY) =>
  suite.service.post(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'replay.picture', params: { session_id: id, seq } }),
    {
      'x-api-key': key,
    },
  );

describe('replay', () => {
  it('keeps a picture after each call that changed something, readable after the session closed', async () => {
    const { session_id: s } = await suite.service.call<{ session_id: string }>('session.create', {
      replay: true,
    });
    await suite.service.call('page.goto', { session_id: s, url: `${suite.fixture.url}/snapshot` });
    await suite.service.call('page.fill', { session_id: s, selector: '[name=name]', value: 'Replayed' });
    await suite.service.call('page.text', { session_id: s, selector: 'h1' });
    // Open: the pictures are there already.
    const open = await suite.service.call<{ snapshot: string }>('page.snapshot', { session_id: s });
    expect(open.snapshot).toContain('Replayed');
    await suite.service.call('session.close', { session_id: s });

    const after = await stream(s);
    expect(after.ended).toBe(true);
    expect(after.entries.map((e) => e.method)).toEqual([
      'page.goto',
      'page.fill',
      'page.text',
      'page.snapshot',
    ]);
    const withPicture = after.entries.filter((e) => e.picture === true).map((e) => e.method);
    expect(withPicture).toEqual(['page.goto', 'page.fill']);
    const fill = after.entries.find((e) => e.method === 'page.fill');
    const got = (await picture(s, fill?.seq ?? 0)).body as {
      result?: { mime: string; base64: string; bytes: number };
    };
    expect(got.result?.mime).toBe('image/jpeg');
    const jpeg = Buffer.from(got.result?.base64 ?? '', 'base64');
    expect(jpeg.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(got.result?.bytes).toBe(jpeg.length);
    // A read has no picture; another key sees nothing, as for an unknown session.
    const read = after.entries.find((e) => e.method === 'page.text');
    expect(((await picture(s, read?.seq ?? 0)).body as { error?: { code: number } }).error?.code).toBe(
      -32602,
    );
    expect(
      ((await picture(s, fill?.seq ?? 0, OTHER_KEY)).body as { error?: { code: number } }).error?.code,
    ).toBe(-32010);
    expect((await stream(s, OTHER_KEY)).status).toBe(404);
    // Past REPLAY_KEEP_MS, nothing is left.
    await waitFor(async () => (await stream(s)).status === 404, KEEP_MS * 3, 'the kept session to go');
    expect(((await picture(s, fill?.seq ?? 0)).body as { error?: { code: number } }).error?.code).toBe(
      -32010,
    );
  });

  it('a session without replay takes no pictures; bad input is refused', async () => {
    const s = await suite.open('/snapshot');
    await suite.service.call('page.click', { session_id: s, selector: 'text=Greet' });
    await suite.service.call('session.close', { session_id: s });
    const after = await stream(s);
    expect(after.entries.map((e) => e.method)).toEqual(['page.goto', 'page.click']);
    expect(after.entries.some((e) => e.picture === true)).toBe(false);
    const none = (await picture(s, after.entries[1]?.seq ?? 0)).body as {
      error?: { code: number; message: string };
    };
    expect(none.error?.code).toBe(-32602);
    expect(none.error?.message).toContain('replay: true');
    for (const params of [{ session_id: s }, { session_id: s, seq: 0 }, { session_id: s, seq: 'one' }]) {
      const reply = await suite.service.rpc('replay.picture', params);
      expect(reply.error?.code, JSON.stringify(params)).toBe(-32602);
    }
  });
});
