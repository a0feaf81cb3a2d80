// The dispatcher with its idempotency store, without a browser: the handler never sees the key, a
// call refused before it ran is not kept, read-only methods ignore the key, and the log line says
// which answers were replayed.
import { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { refusedBeforeRun, ServiceError } from '../../src/errors/serviceError.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { methodDefiner } from '../../src/rpc/defineMethod.js';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { IdempotencyStore } from '../../src/rpc/idempotencyStore.js';
import { MethodTable } from '../../src/rpc/methodTable.js';
import { ParamsValidator } from '../../src/rpc/validate.js';

const defineMethod = methodDefiner<{ seen: Record<string, unknown>[] }>();

function setUp() {
  const seen: Record<string, unknown>[] = [];
  const act = defineMethod({
    name: 'thing.act',
    summary: 'Acts',
    params: { n: Type.Integer({ description: 'A number.' }) },
    result: Type.Object({ run: Type.Integer() }),
    errors: [],
    readOnly: false,
    handler: (params, ctx) => {
      if (params.n < 0)
        // Refused before anything was done (as MAX_SESSIONS or a waiting dialog refuse a call).
        return Promise.reject(
          refusedBeforeRun(new ServiceError('LIMIT_REACHED', 'full', { retryAfterMs: 10 })),
        );
      if (params.n === 0) return Promise.reject(new ServiceError('ACTION_FAILED', 'did part of it'));
      ctx.services.seen.push({ ...params });
      return Promise.resolve({ run: ctx.services.seen.length });
    },
  });
  const read = defineMethod({
    name: 'thing.read',
    summary: 'Reads',
    params: {},
    result: Type.Object({ run: Type.Integer() }),
    errors: [],
    readOnly: true,
    handler: (_params, ctx) => {
      ctx.services.seen.push({});
      return Promise.resolve({ run: ctx.services.seen.length });
    },
  });
  const table = new MethodTable([act, read]);
  let refuse = false;
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const dispatcher = new Dispatcher({
    table,
    validator: new ParamsValidator(table.list()),
    services: { seen },
    mapError: (error) => (error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR')),
    metrics: new Metrics({ defaultMetrics: false }),
    admit: () =>
      refuse ? new ServiceError('RESOURCE_UNAVAILABLE', 'busy', { reason: 'memory' }) : undefined,
    idempotency: new IdempotencyStore({
      ttlMs: 60_000,
      maxKeys: 100,
      maxAnswerBytes: 10_000,
      maxBytes: 100_000,
    }),
  });
  const ctx = { requestId: 'r1', origin: 'test', log };
  return {
    seen,
    lines,
    call: (method: string, params: Record<string, unknown>) => dispatcher.call(method, params, ctx),
    refuse: (on: boolean) => (refuse = on),
  };
}

describe('Dispatcher with idempotency_key', () => {
  it('does not keep a refusal before the call ran (a retry runs it); keeps any other error', async () => {
    const t = setUp();
    const refused = { n: -1, idempotency_key: 'refused' };
    await expect(t.call('thing.act', refused)).rejects.toMatchObject({ errorName: 'LIMIT_REACHED' });
    await expect(t.call('thing.act', refused)).rejects.toMatchObject({ errorName: 'LIMIT_REACHED' });
    expect(t.lines.filter((l) => l.includes('"replayed":true'))).toHaveLength(0);
    const failed = { n: 0, idempotency_key: 'failed' };
    await expect(t.call('thing.act', failed)).rejects.toMatchObject({ errorName: 'ACTION_FAILED' });
    await expect(t.call('thing.act', failed)).rejects.toMatchObject({ errorName: 'ACTION_FAILED' });
    expect(t.lines.filter((l) => l.includes('"replayed":true'))).toHaveLength(1);
  });

  it('strips the key before the handler and replays the answer of a repeat', async () => {
    const d = setUp();
    const first = await d.call('thing.act', { n: 1, idempotency_key: 'k1' });
    const again = await d.call('thing.act', { n: 1, idempotency_key: 'k1' });
    expect(first).toEqual({ run: 1 });
    expect(again).toEqual({ run: 1 });
    expect(d.seen).toEqual([{ n: 1 }]);
    const keyed = d.lines.filter((l) => l.includes('"idempotencyKey":"k1"'));
    expect(keyed.map((l) => (JSON.parse(l) as { replayed: boolean }).replayed)).toEqual([false, true]);
  });

  it('does not keep a call refused before its handler ran: the retry runs it', async () => {
    const d = setUp();
    d.refuse(true);
    await expect(d.call('thing.act', { n: 1, idempotency_key: 'k2' })).rejects.toMatchObject({
      errorName: 'RESOURCE_UNAVAILABLE',
    });
    d.refuse(false);
    expect(await d.call('thing.act', { n: 1, idempotency_key: 'k2' })).toEqual({ run: 1 });
    expect(d.seen).toHaveLength(1);
  });

  it('does not keep a call with invalid params: the corrected call with the key runs', async () => {
    const d = setUp();
    await expect(d.call('thing.act', { n: 'one', idempotency_key: 'k3' })).rejects.toMatchObject({
      errorName: 'INVALID_PARAMS',
    });
    expect(await d.call('thing.act', { n: 1, idempotency_key: 'k3' })).toEqual({ run: 1 });
  });

  it('an in-process caller may pass the key as undefined: no key', async () => {
    const d = setUp();
    expect(await d.call('thing.act', { n: 1, idempotency_key: undefined })).toEqual({ run: 1 });
    expect(await d.call('thing.act', { n: 1, idempotency_key: undefined })).toEqual({ run: 2 });
  });

  it('a read-only method takes the key and runs every time', async () => {
    const d = setUp();
    expect(await d.call('thing.read', { idempotency_key: 'k4' })).toEqual({ run: 1 });
    expect(await d.call('thing.read', { idempotency_key: 'k4' })).toEqual({ run: 2 });
  });

  it('refuses a malformed key, naming it, and lists the method its own params only', async () => {
    const d = setUp();
    await expect(d.call('thing.act', { n: 1, idempotency_key: 'two words' })).rejects.toMatchObject({
      errorName: 'INVALID_PARAMS',
      message: expect.stringContaining('idempotency_key') as string,
    });
    await expect(d.call('thing.act', { n: 1, extra: true })).rejects.toMatchObject({
      message: 'Invalid params for thing.act: unknown argument(s) extra; thing.act takes n',
    });
    expect(d.seen).toHaveLength(0);
  });
});
