// The trace replay.trace writes: a zip whose entries read back (deflated and stored), and the events a session's log becomes (actions with their duration and error,
// a picture as a screencast frame and an After snapshot, console, page errors, requests).
import { describe, expect, it } from 'vitest';
import { replayTrace } from '../../src/browser/artifacts/replayTrace.js';
import { ReplayPictures } from '../../src/browser/artifacts/replayPictures.js';
import { zipOf } from '../../src/browser/artifacts/zipFile.js';
import type { LogEvent } from '../../src/browser/events/sessionLog.js';
import { jpegHeader } from '../helpers/imageHeaders.js';
import { unzip } from '../helpers/unzip.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 6, 0, 0, ms)).toISOString();
const entry = (fields: Record<string, string | number | boolean>): LogEvent => fields as unknown as LogEvent;

describe('zipOf', () => {
  it('writes entries that read back, deflated or stored, with UTF-8 names', async () => {
    const text = Buffer.from('line\n'.repeat(500));
    const zip = await zipOf([
      { name: 'trace.trace', data: text },
      { name: 'resources/é.bin', data: Buffer.from([1, 2, 3]), stored: true },
      { name: 'empty', data: Buffer.alloc(0) },
    ]);
    const files = unzip(zip);
    expect(files.get('trace.trace')?.equals(text)).toBe(true);
    expect(files.get('resources/é.bin')?.equals(Buffer.from([1, 2, 3]))).toBe(true);
    expect(files.get('empty')?.length).toBe(0);
    // Deflated: the repeated text is much smaller in the zip than as it is.
    expect(zip.length).toBeLessThan(text.length / 4);
  });
});

describe('replayTrace', () => {
  it('turns a session log into a version 8 trace with its actions, picture, console, errors and requests', async () => {
    const pictures = new ReplayPictures(1_000_000);
    const picture = jpegHeader(640, 400);
    pictures.keep(4, picture);
    const log = [
      entry({
        seq: 1,
        kind: 'request',
        timestamp: at(100),
        request_id: 'r1',
        url: 'http://127.0.0.1:9/a',
        method: 'GET',
        page_id: 'p1',
      }),
      entry({ seq: 2, kind: 'navigation', timestamp: at(150), url: 'http://127.0.0.1:9/a', page_id: 'p1' }),
      entry({ seq: 3, kind: 'response', timestamp: at(180), request_id: 'r1', status: 200, page_id: 'p1' }),
      entry({
        seq: 4,
        kind: 'action',
        timestamp: at(300),
        method: 'page.goto',
        params: '{"url":"http://127.0.0.1:9/a"}',
        page_id: 'p1',
        durationMs: 250,
        ok: true,
        navigated: true,
        picture: true,
      }),
      entry({ seq: 5, kind: 'console', timestamp: at(320), level: 'error', text: 'boom', page_id: 'p1' }),
      entry({ seq: 6, kind: 'pageerror', timestamp: at(330), message: 'uncaught', page_id: 'p1' }),
      entry({
        seq: 7,
        kind: 'request',
        timestamp: at(340),
        request_id: 'r2',
        url: 'http://127.0.0.1:9/slow',
        method: 'GET',
        page_id: 'p1',
      }),
      entry({
        seq: 8,
        kind: 'action',
        timestamp: at(500),
        method: 'page.fill',
        params: '{"ref":"e3","value":"<5 chars>"}',
        target: 'textbox "Name" [ref=e3]',
        page_id: 'p1',
        durationMs: 40,
        ok: false,
        code: 'ELEMENT_NOT_FOUND',
        error: 'No element for ref e3',
      }),
      entry({
        seq: 9,
        kind: 'action',
        timestamp: at(600),
        method: 'page.type',
        params: '{"text":"cut…',
        page_id: 'p1',
        durationMs: 10,
        ok: true,
      }),
    ];
    const trace = await replayTrace('k1', 's_x', log, pictures);
    expect(trace).toMatchObject({ actions: 3, pictures: 1, requests: 2 });
    const files = unzip(trace.zip);
    const events = (files.get('trace.trace')?.toString() ?? '')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events[0]).toMatchObject({
      type: 'context-options',
      version: 8,
      options: { viewport: { width: 640, height: 400 } },
    });
    const before = events.filter((e) => e.type === 'before');
    expect(before.map((e) => e.title)).toEqual([
      'page.goto',
      'page.fill textbox "Name" [ref=e3]',
      'page.type',
    ]);
    // Trace times are ms from the first call's start: the goto began 250 ms before it was logged.
    expect(before[0]).toMatchObject({ startTime: 0, params: { url: 'http://127.0.0.1:9/a' } });
    // Params cut in the timeline stay readable as their text.
    expect(before[2]?.params).toEqual({ params: '{"text":"cut…' });
    const after = events.filter((e) => e.type === 'after');
    expect(after[0]).toMatchObject({
      endTime: 250,
      result: { navigated: true },
      afterSnapshot: 'after@call@4',
    });
    expect(after[1]).toMatchObject({
      error: { name: 'ELEMENT_NOT_FOUND', message: 'No element for ref e3' },
    });
    const frame = events.find((e) => e.type === 'screencast-frame');
    expect(frame).toMatchObject({ width: 640, height: 400, timestamp: 250 });
    expect(files.get(`resources/${String(frame?.sha1)}`)?.equals(picture)).toBe(true);
    const snapshot = events.find((e) => e.type === 'frame-snapshot')?.snapshot as Record<string, unknown>;
    // The picture's page is where the navigation before it went.
    expect(snapshot).toMatchObject({ snapshotName: 'after@call@4', frameUrl: 'http://127.0.0.1:9/a' });
    expect(events.find((e) => e.type === 'console')).toMatchObject({ messageType: 'error', text: 'boom' });
    expect(events.find((e) => e.type === 'event')).toMatchObject({ method: 'pageError' });
    const network = (files.get('trace.network')?.toString() ?? '')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { snapshot: { request: { url: string }; response: { status: number } } });
    expect(network.map((n) => [n.snapshot.request.url, n.snapshot.response.status])).toEqual([
      ['http://127.0.0.1:9/a', 200],
      // Still loading when the log ended: no status.
      ['http://127.0.0.1:9/slow', 0],
    ]);
  });

  it('an empty log is a trace of nothing; the same picture twice is stored once', async () => {
    expect(await replayTrace('k2', 's_x', [], undefined)).toMatchObject({
      actions: 0,
      pictures: 0,
      requests: 0,
    });
    const pictures = new ReplayPictures(1_000_000);
    const picture = jpegHeader(10, 10);
    pictures.keep(1, picture);
    pictures.keep(2, picture);
    const calls = [1, 2].map((seq) =>
      entry({
        seq,
        kind: 'action',
        timestamp: at(seq * 100),
        method: 'page.click',
        page_id: 'p1',
        durationMs: 5,
        ok: true,
        picture: true,
      }),
    );
    const trace = await replayTrace('k3', 's_x', calls, pictures);
    expect(trace.pictures).toBe(2);
    expect([...unzip(trace.zip).keys()].filter((n) => n.startsWith('resources/'))).toHaveLength(1);
  });

  it('refuses a trace past its byte cap, builds one at a time, and one a key per interval', async () => {
    const big = [
      entry({
        seq: 1,
        kind: 'console',
        timestamp: at(0),
        level: 'log',
        text: 'x'.repeat(4000),
        page_id: 'p1',
      }),
    ];
    await expect(replayTrace('k4', 's_x', big, undefined, 1000)).rejects.toMatchObject({
      errorName: 'LIMIT_REACHED',
      data: { limit: 'MAX_TRACE_EXPORT_BYTES', max: 1000 },
    });
    // Two at once: the second is refused with a retry hint, the first completes.
    const first = replayTrace('key', 's_x', big, undefined);
    await expect(replayTrace('key', 's_x', big, undefined)).rejects.toMatchObject({
      errorName: 'LIMIT_REACHED',
      data: { retryAfterMs: expect.any(Number) as number },
    });
    expect((await first).zip.length).toBeGreaterThan(0);
    // The same key again at once: refused until its interval has passed; another key builds.
    await expect(replayTrace('key', 's_x', big, undefined)).rejects.toMatchObject({
      errorName: 'LIMIT_REACHED',
      data: { limit: 'trace exports per key' },
    });
    expect((await replayTrace('other key', 's_x', big, undefined)).zip.length).toBeGreaterThan(0);
  });
});
