// JSON-RPC 2.0 conformance of POST /rpc, including every example of the specification's §7 that
// applies (with this service's methods in place of subtract/sum).
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMethods } from '../../src/methods/index.js';
import { ERRORS } from '../../src/errors/catalogue.js';
import { startTestService, waitFor, type RpcReply, type TestService } from '../helpers/testService.js';

const BATCH_MAX = 8;
const OPENRPC_FILE = new URL('../../openrpc.json', import.meta.url);
const NO_SESSION = 's_00000000-0000-4000-8000-000000000000';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ BATCH_MAX: String(BATCH_MAX) });
});

afterAll(async () => {
  await service?.close();
});

/** POSTs a raw string, or a value as JSON. */
function send(body: unknown): Promise<RpcReply> {
  return service.post(typeof body === 'string' ? body : JSON.stringify(body));
}

// Asymmetric matchers are typed any; held as unknown so no any leaks into the expectations.
const ANY_STRING: unknown = expect.any(String);
const ANY_ARRAY: unknown = expect.any(Array);
const OPENRPC_DOC: unknown = expect.objectContaining({ openrpc: '1.2.6' });

/** The exact shape of an error response: no result member, the id echoed. */
function errorReply(id: unknown, code: number): unknown {
  const error: unknown = expect.objectContaining({ code, message: ANY_STRING });
  return { jsonrpc: '2.0', id, error };
}

function call(method: string, id: unknown, params?: unknown): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', method, id } : { jsonrpc: '2.0', method, params, id };
}

async function sessionCount(): Promise<number> {
  const { sessions } = await service.call<{ sessions: unknown[] }>('session.list');
  return sessions.length;
}

/** An array nested `depth` levels deep, as JSON text: [[[…]]]. */
const nestedJson = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('parse errors (-32700, id null)', () => {
  it('spec: a body that is not JSON', async () => {
    const reply = await send('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual(errorReply(null, -32700));
  });

  it('spec: a batch that is not JSON answers one error object, not an array', async () => {
    const reply = await send(
      '[{"jsonrpc": "2.0", "method": "session.list", "id": "1"},{"jsonrpc": "2.0", "method"]',
    );
    expect(reply.body).toEqual(errorReply(null, -32700));
  });

  it.each([[''], ['   '], ['{"jsonrpc":"2.0",'], ['{"a":1} trailing']])('the body %j', async (body) => {
    const reply = await send(body);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(errorReply(null, -32700));
  });
});

describe('invalid request objects (-32600)', () => {
  it.each([
    ['jsonrpc missing', { method: 'session.list', id: 1 }, 1],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', method: 'session.list', id: 2 }, 2],
    ['jsonrpc as a number', { jsonrpc: 2.0, method: 'session.list', id: 3 }, 3],
    ['method a number', { jsonrpc: '2.0', method: 1, id: 4 }, 4],
    ['method null', { jsonrpc: '2.0', method: null, id: 5 }, 5],
    ['method missing', { jsonrpc: '2.0', id: 6 }, 6],
    ['method an empty string', { jsonrpc: '2.0', method: '', id: 7 }, 7],
    ['params a string', { jsonrpc: '2.0', method: 'session.list', params: 'bar', id: 8 }, 8],
    ['params a number', { jsonrpc: '2.0', method: 'session.list', params: 42, id: 9 }, 9],
    ['params null', { jsonrpc: '2.0', method: 'session.list', params: null, id: 10 }, 10],
    ['id an object', { jsonrpc: '2.0', method: 'session.list', id: { a: 1 } }, null],
    ['id a boolean', { jsonrpc: '2.0', method: 'session.list', id: true }, null],
    ['id an array', { jsonrpc: '2.0', method: 'session.list', id: [1] }, null],
  ])('%s', async (_what, body, id) => {
    const reply = await send(body);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(errorReply(id, -32600));
  });

  it('spec: {"method": 1, "params": "bar"} without an id is still answered', async () => {
    const reply = await send('{"jsonrpc": "2.0", "method": 1, "params": "bar"}');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(errorReply(null, -32600));
  });

  it.each(['"hello"', '42', 'null', 'true'])('a bare JSON value %s', async (body) => {
    expect((await send(body)).body).toEqual(errorReply(null, -32600));
  });
});

describe('unknown methods (-32601)', () => {
  it.each([
    'foobar',
    'session.nope',
    'Session.list',
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
    'valueOf',
    'rpc.',
  ])('%s', async (method) => {
    const reply = await service.rpc(method, {}, 'x');
    expect(reply).toEqual(errorReply('x', -32601));
    expect(reply.error?.data).toMatchObject({ method });
  });
});

describe('invalid params (-32602)', () => {
  it('a missing required param, checked before the session is looked up', async () => {
    const reply = await service.rpc('page.goto', { session_id: NO_SESSION }, 1);
    expect(reply).toEqual(errorReply(1, -32602));
    expect(reply.error?.message).toContain('missing required argument url');
    expect(reply.error?.data?.errors).toContainEqual(
      expect.objectContaining({ keyword: 'required', params: { missingProperty: 'url' } }),
    );
  });

  it('a param of the wrong type', async () => {
    const reply = await service.rpc('page.goto', { session_id: NO_SESSION, url: 5 }, 2);
    expect(reply).toEqual(errorReply(2, -32602));
    expect(reply.error?.data?.errors).toContainEqual(
      expect.objectContaining({ path: '/url', keyword: 'type' }),
    );
  });

  it('an unknown extra param: the message names it and lists the expected ones', async () => {
    const reply = await service.rpc('session.create', { headles: true }, 3);
    expect(reply).toEqual(errorReply(3, -32602));
    expect(reply.error?.message).toContain('headles');
    for (const name of ['headless', 'viewport', 'userAgent', 'storageState'])
      expect(reply.error?.message).toContain(name);
    expect(Array.isArray(reply.error?.data?.errors)).toBe(true);
  });

  it('params as an empty array work for a method without params', async () => {
    const reply = await service.rpc('session.list', [], 4);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 4, result: { sessions: ANY_ARRAY } });
  });

  it('spec: positional params are refused (every method takes named params)', async () => {
    const list = await service.rpc('session.list', [1], 5);
    expect(list).toEqual(errorReply(5, -32602));
    expect(Array.isArray(list.error?.data?.errors)).toBe(true);
    const goto = await service.rpc('page.goto', [NO_SESSION, 'http://localhost/'], 6);
    expect(goto).toEqual(errorReply(6, -32602));
  });
});

describe('ids', () => {
  it.each([['abc'], [''], [0], [-7], [1.5], [9007199254740991], [null]])('echoes %j exactly', async (id) => {
    const reply = await send(call('session.list', id));
    expect(reply.body).toStrictEqual({ jsonrpc: '2.0', id, result: { sessions: ANY_ARRAY } });
  });

  it('echoes the id on an error response too', async () => {
    expect((await send(call('nope', 2.25))).body).toEqual(errorReply(2.25, -32601));
  });
});

describe('notifications (no id): HTTP 204, empty body', () => {
  it('spec: a notification gets no answer', async () => {
    const reply = await send({ jsonrpc: '2.0', method: 'session.list' });
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
  });

  it('a failing notification gets no answer either', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'foobar' },
      { jsonrpc: '2.0', method: 'page.goto', params: { session_id: NO_SESSION } },
    ]) {
      const reply = await send(body);
      expect(reply.status).toBe(204);
      expect(reply.body).toBeUndefined();
    }
  });

  it('a notification is executed all the same', async () => {
    const before = await sessionCount();
    const reply = await send({ jsonrpc: '2.0', method: 'session.create', params: {} });
    expect(reply.status).toBe(204);
    await waitFor(async () => (await sessionCount()) === before + 1, 10_000, 'the notified session.create');
    const { sessions } = await service.call<{ sessions: { session_id: string }[] }>('session.list');
    for (const s of sessions) await service.call('session.close', { session_id: s.session_id });
  });
});

describe('batches', () => {
  it('a one-element batch answers an array', async () => {
    const reply = await send([call('session.list', 1)]);
    expect(reply.body).toEqual([{ jsonrpc: '2.0', id: 1, result: { sessions: ANY_ARRAY } }]);
  });

  it('spec: an empty batch answers one -32600 object', async () => {
    const reply = await send([]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(errorReply(null, -32600));
  });

  it('spec: [1] answers an array of one -32600', async () => {
    expect((await send([1])).body).toEqual([errorReply(null, -32600)]);
  });

  it('spec: [1,2,3] answers an array of three -32600', async () => {
    const error = errorReply(null, -32600);
    expect((await send([1, 2, 3])).body).toEqual([error, error, error]);
  });

  it('a nested batch is an invalid element', async () => {
    expect((await send([[call('session.list', 1)]])).body).toEqual([errorReply(null, -32600)]);
  });

  it('spec: a mixed batch answers every call in order and leaves out the notifications', async () => {
    const reply = await send([
      call('session.list', '1'),
      { jsonrpc: '2.0', method: 'session.list' },
      call('page.goto', '2', { session_id: NO_SESSION }),
      { foo: 'boo' },
      call('foo.get', '5', { name: 'myself' }),
      call('rpc.discover', '9'),
      { jsonrpc: '2.0', method: 'foobar' },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { jsonrpc: '2.0', id: '1', result: { sessions: ANY_ARRAY } },
      errorReply('2', -32602),
      errorReply(null, -32600),
      errorReply('5', -32601),
      { jsonrpc: '2.0', id: '9', result: OPENRPC_DOC },
    ]);
  });

  it('spec: a batch of only notifications answers HTTP 204 with an empty body', async () => {
    const reply = await send([
      { jsonrpc: '2.0', method: 'session.list' },
      { jsonrpc: '2.0', method: 'rpc.discover', params: {} },
    ]);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
  });

  it(`a batch of exactly BATCH_MAX (${BATCH_MAX}) calls is answered`, async () => {
    const batch = Array.from({ length: BATCH_MAX }, (_, i) => call('session.list', i));
    const reply = await send(batch);
    expect(Array.isArray(reply.body)).toBe(true);
    expect((reply.body as { id: number }[]).map((r) => r.id)).toEqual(batch.map((c) => c.id));
  });

  it('a batch over BATCH_MAX is refused whole: -32600 and nothing in it runs', async () => {
    const before = await sessionCount();
    const batch = [
      { jsonrpc: '2.0', method: 'session.create', params: {} },
      ...Array.from({ length: BATCH_MAX }, (_, i) => call('session.list', i)),
    ];
    const reply = await send(batch);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(errorReply(null, -32600));
    expect((reply.body as { error: { data: unknown } }).error.data).toMatchObject({ batchMax: BATCH_MAX });
    expect(await sessionCount()).toBe(before);
  });
});

describe('rpc.discover', () => {
  it('answers an OpenRPC document naming exactly the methods of the table', async () => {
    const doc = await service.call<{
      openrpc: string;
      methods: { name: string; errors: { $ref: string }[] }[];
      components: { errors: Record<string, { code: number }> };
    }>('rpc.discover', []);
    expect(doc.openrpc).toBe('1.2.6');
    const names = doc.methods.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(names)).toEqual(new Set(allMethods.map((m) => m.name)));
    expect(names).toEqual(expect.arrayContaining(['session.create', 'page.goto', 'rpc.discover']));
    for (const [name, entry] of Object.entries(ERRORS))
      expect(doc.components.errors[name]?.code).toBe(entry.code);
    for (const m of doc.methods)
      for (const { $ref } of m.errors)
        expect(doc.components.errors).toHaveProperty($ref.split('/').pop() ?? '');
  });

  it.skipIf(!existsSync(OPENRPC_FILE))('equals the committed openrpc.json', async () => {
    const committed = JSON.parse(readFileSync(OPENRPC_FILE, 'utf8')) as unknown;
    expect(await service.call('rpc.discover')).toEqual(committed);
  });
});

describe('deeply nested params', () => {
  it('5,000 nested arrays as an unknown param: an error, and the service still answers', async () => {
    const reply = await send(
      `{"jsonrpc":"2.0","id":"deep","method":"session.list","params":{"x":${nestedJson(5000)}}}`,
    );
    expect(reply.body).toEqual(errorReply('deep', -32602));
    expect((await service.rpc('session.list', {}, 'after')).result).toHaveProperty('sessions');
  });

  it('5,000 nested arrays in the arg of page.evaluate on a live session', async () => {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    for (const depth of [5000, 100_000]) {
      const reply = await send(
        `{"jsonrpc":"2.0","id":${depth},"method":"page.evaluate","params":{"session_id":"${session_id}","expression":"(a) => 1","arg":${nestedJson(depth)}}}`,
      );
      expect(reply.body).toEqual(errorReply(depth, -32602));
    }
    const ok = await service.call<{ result: unknown }>('page.evaluate', {
      session_id,
      expression: '(a) => a.length',
      arg: [[[1]], 2],
    });
    expect(ok.result).toBe(2);
    await service.call('session.close', { session_id });
  });

  it('a deeply nested id is an invalid request, not a crash', async () => {
    const reply = await send(`{"jsonrpc":"2.0","id":${nestedJson(5000)},"method":"session.list"}`);
    expect(reply.body).toEqual(errorReply(null, -32600));
    expect((await service.rpc('session.list', {}, 'after')).result).toHaveProperty('sessions');
  });
});
