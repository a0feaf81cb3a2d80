// The pure parts of the edge's refusals: the rate-limited log of refusals, and the ids a
// refused body is answered with.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RefusalLog } from '../../src/http/refusalLog.js';
import { idsOfBody, refusalBody } from '../../src/http/refusalIds.js';
import { createLogger } from '../../src/observability/logger.js';

function capture(): { lines: Record<string, unknown>[]; log: RefusalLog } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: new RefusalLog(createLogger('info', sink), 3, 1_000) };
}

const refusal = {
  reason: 'invalid' as const,
  route: '/mcp',
  path: '/mcp',
  address: '127.0.0.1',
  status: 403,
};

describe('RefusalLog', () => {
  afterEach(() => vi.useRealTimers());

  it('logs up to its max per window, then says in the next window how many it left out', () => {
    vi.useFakeTimers();
    const { lines, log } = capture();
    for (let i = 0; i < 10; i++) log.note(refusal);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ reason: 'invalid', path: '/mcp', address: '127.0.0.1', status: 403 });
    vi.advanceTimersByTime(1_000);
    log.note({ ...refusal, reason: 'missing' });
    expect(lines).toHaveLength(5);
    expect(lines[3]).toMatchObject({ suppressed: 7 });
    expect(lines[4]).toMatchObject({ reason: 'missing', msg: 'request refused: no API key' });
  });

  it('says nothing of a window that left nothing out', () => {
    vi.useFakeTimers();
    const { lines, log } = capture();
    log.note(refusal);
    vi.advanceTimersByTime(1_000);
    log.note(refusal);
    expect(lines.filter((l) => 'suppressed' in l)).toEqual([]);
  });
});

describe('refusal ids', () => {
  it('keeps a request id, and each id of a batch, notifications left out', () => {
    expect(idsOfBody({ jsonrpc: '2.0', id: 7, method: 'x' })).toEqual({ batch: false, id: 7 });
    expect(idsOfBody({ jsonrpc: '2.0', method: 'x' })).toEqual({ batch: false, id: null });
    expect(idsOfBody({ id: { not: 'an id' } })).toEqual({ batch: false, id: null });
    expect(idsOfBody('junk')).toEqual({ batch: false, id: null });
    expect(idsOfBody([{ id: 'a' }, { method: 'notify' }, { id: 2 }])).toEqual({ batch: true, ids: ['a', 2] });
  });

  it('answers a batch with one error per id, and a batch of notifications with one error', () => {
    const batch = refusalBody({ batch: true, ids: ['a', 2] }, 'LIMIT_REACHED', 'slow down', {
      retryAfterMs: 5,
    });
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 'a', error: { code: -32003, message: 'slow down', data: { retryAfterMs: 5 } } },
      { jsonrpc: '2.0', id: 2, error: { code: -32003, message: 'slow down', data: { retryAfterMs: 5 } } },
    ]);
    expect(refusalBody({ batch: true, ids: [] }, 'UNAUTHORIZED', 'no key')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32002, message: 'no key' },
    });
  });
});
