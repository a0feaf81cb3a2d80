// The dispatcher and a call cut short because its callers left (stoppedPartWay): with an
// idempotency_key the key keeps how far it got, and the retry's handler gets it as ctx.resume; the
// progress of another method (a step inside page.act) is never taken as the outer call's.
import { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ServiceError, stoppedPartWay, type PartWay } from '../../src/errors/serviceError.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { methodDefiner } from '../../src/rpc/defineMethod.js';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { IdempotencyStore } from '../../src/rpc/idempotencyStore.js';
import { MethodTable } from '../../src/rpc/methodTable.js';
import { ParamsValidator } from '../../src/rpc/validate.js';

const defineMethod = methodDefiner<{ resumes: (PartWay | undefined)[] }>();

const cut = (method: string, done: number) =>
  stoppedPartWay(new ServiceError('RESOURCE_UNAVAILABLE', 'stopped part way', { reason: 'caller-gone' }), {
    method,
    done,
  });

function setUp() {
  const resumes: (PartWay | undefined)[] = [];
  const type = defineMethod({
    name: 'thing.type',
    summary: 'Types',
    params: { text: Type.String({ description: 'Text.' }) },
    result: Type.Object({ from: Type.Integer() }),
    errors: [],
    readOnly: false,
    handler: (_params, ctx) => {
      resumes.push(ctx.resume);
      // The first run is cut short after 2 characters; the next goes on from where it stopped.
      if (ctx.resume === undefined) return Promise.reject(cut('thing.type', 2));
      return Promise.resolve({ from: ctx.resume.done });
    },
  });
  const wrap = defineMethod({
    name: 'thing.wrap',
    summary: 'Runs a step that is cut short',
    params: {},
    result: Type.Object({}),
    errors: [],
    readOnly: false,
    handler: (_params, ctx) => {
      resumes.push(ctx.resume);
      return Promise.reject(cut('thing.type', 1));
    },
  });
  const table = new MethodTable([type, wrap]);
  const log = createLogger(
    'info',
    new Writable({
      write(_chunk: Buffer, _enc, done) {
        done();
      },
    }),
  );
  const dispatcher = new Dispatcher({
    table,
    validator: new ParamsValidator(table.list()),
    services: { resumes },
    mapError: (error) => (error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR')),
    metrics: new Metrics({ defaultMetrics: false }),
    idempotency: new IdempotencyStore({
      ttlMs: 60_000,
      maxKeys: 100,
      maxAnswerBytes: 10_000,
      maxBytes: 100_000,
    }),
  });
  const ctx = { requestId: 'r1', origin: 'test', log };
  return {
    resumes,
    call: (method: string, params: Record<string, unknown>) => dispatcher.call(method, params, ctx),
  };
}

describe('Dispatcher: a keyed call cut short as its callers left', () => {
  it('keeps how far it got, not the error: the retry goes on from there, then its answer is replayed', async () => {
    const t = setUp();
    const params = { text: 'abcd', idempotency_key: 'k' };
    await expect(t.call('thing.type', params)).rejects.toMatchObject({ errorName: 'RESOURCE_UNAVAILABLE' });
    expect(await t.call('thing.type', params)).toEqual({ from: 2 });
    expect(await t.call('thing.type', params)).toEqual({ from: 2 });
    expect(t.resumes).toEqual([undefined, { method: 'thing.type', done: 2 }]);
  });

  it('without a key nothing is resumed: every call starts from the beginning', async () => {
    const t = setUp();
    await expect(t.call('thing.type', { text: 'abcd' })).rejects.toMatchObject({
      errorName: 'RESOURCE_UNAVAILABLE',
    });
    await expect(t.call('thing.type', { text: 'abcd' })).rejects.toMatchObject({
      errorName: 'RESOURCE_UNAVAILABLE',
    });
    expect(t.resumes).toEqual([undefined, undefined]);
  });

  it("another method's progress (a step's) is the outer call's error, kept and replayed, never resumed", async () => {
    const t = setUp();
    const params = { idempotency_key: 'w' };
    await expect(t.call('thing.wrap', params)).rejects.toMatchObject({ errorName: 'RESOURCE_UNAVAILABLE' });
    await expect(t.call('thing.wrap', params)).rejects.toMatchObject({ errorName: 'RESOURCE_UNAVAILABLE' });
    // The repeat was the stored error: the handler ran once.
    expect(t.resumes).toEqual([undefined]);
  });
});
