// The OpenRPC document as a caller meets it: GET /openrpc.json answers the same document as
// rpc.discover, behind the API key, and a representative set of the published examples, run
// against the real service (real Chromium, the fixture app; the example session id and the
// example origin replaced by the real ones), answers in the example results' shape and passes each
// method's result schema, so the examples cannot rot.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_ORIGIN, EXAMPLE_SESSION } from '../../src/methods/examples/exampleValues.js';
import { allMethods } from '../../src/methods/index.js';
import { methodExamples } from '../../src/methods/examples/methodExamples.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { TEST_API_KEY, startTestService, type TestService } from '../helpers/testService.js';

let service: TestService;
let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
  await fixture.close();
});

describe('GET /openrpc.json', () => {
  it('answers the document rpc.discover answers, as JSON', async () => {
    const res = await fetch(`${service.url}/openrpc.json`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const served: unknown = await res.json();
    expect(served).toEqual(await service.call('rpc.discover', {}));
    expect(served).toMatchObject({ servers: [{ url: 'http://{host}:{port}/rpc' }] });
  });

  it('needs the API key, like rpc.discover', async () => {
    const res = await fetch(`${service.url}/openrpc.json`);
    expect(res.status).toBe(401);
  });
});

/** The example's value with the example session and origin replaced by real ones. */
function substitute(value: unknown, session: string): unknown {
  if (typeof value === 'string')
    return value.split(EXAMPLE_SESSION).join(session).split(EXAMPLE_ORIGIN).join(fixture.url);
  if (Array.isArray(value)) return value.map((v) => substitute(v, session));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, session)]));
  return value;
}

/**
 * Where the answer differs in shape from the example: every key the example shows is there with a
 * value of the same JSON type (null matches anything: those fields are nullable), arrays compare
 * their first items. Keys the example leaves out are optional ones and may be there.
 */
function shapeDifferences(example: unknown, actual: unknown, path = '$'): string[] {
  if (example === null || actual === null) return [];
  if (Array.isArray(example)) {
    if (!Array.isArray(actual)) return [`${path}: an array in the example, ${typeof actual} in the answer`];
    return example.length > 0 && actual.length > 0
      ? shapeDifferences(example[0], actual[0], `${path}[0]`)
      : [];
  }
  if (typeof example === 'object') {
    if (typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: an object in the example`];
    return Object.entries(example).flatMap(([key, value]) =>
      key in actual
        ? shapeDifferences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`)
        : [`${path}.${key}: in the example, not in the answer`],
    );
  }
  return typeof example === typeof actual
    ? []
    : [`${path}: ${typeof example} in the example, ${typeof actual}`];
}

/** 31 calls on one session, each well under a second here; a loaded CI machine gets two minutes. */
const EXAMPLES_TIMEOUT_MS = 120_000;

/** The examples run, in order, on one session; `open` is the fixture page loaded before it. */
const RUN: { method: string; example?: number; open?: string }[] = [
  { method: 'page.goto' },
  { method: 'page.reload' },
  { method: 'page.evaluate' },
  { method: 'page.content' },
  // The example reads /article as Markdown in parts of 400 characters: a cut answer, with its cursor.
  { method: 'page.text', open: '/article' },
  { method: 'session.list' },
  { method: 'page.hover', open: '/widgets' },
  { method: 'page.select' },
  { method: 'page.fill' },
  { method: 'page.focus' },
  { method: 'page.check', open: '/widgets' },
  { method: 'page.uncheck' },
  { method: 'page.scroll' },
  { method: 'page.keyboard' },
  { method: 'page.setViewport' },
  { method: 'page.snapshot', open: '/snapshot' },
  { method: 'screenshot', open: '/shots' },
  { method: 'page.back' },
  { method: 'page.forward' },
  { method: 'pages.list' },
  { method: 'dialog.setPolicy' },
  { method: 'logs.pull' },
  { method: 'network.pull' },
  { method: 'downloads.list' },
  { method: 'cookies.set', open: '/projects' },
  { method: 'cookies.clear' },
  { method: 'session.storageState' },
  { method: 'session.addInitScript' },
  { method: 'rpc.discover' },
];

describe('the published examples, run against the service', () => {
  it('the shape check can fail: another type, a missing key', () => {
    expect(shapeDifferences({ ok: true, n: 1 }, { ok: 'yes' })).toEqual([
      '$.ok: boolean in the example, string',
      '$.n: in the example, not in the answer',
    ]);
  });

  const ajv = new Ajv({ allErrors: true, strict: false });

  it(
    `${RUN.length + 2} examples answer in their example's shape and pass their result schema`,
    async () => {
      const created = methodExamples['session.create']?.[0];
      if (created === undefined) throw new Error('session.create has no example');
      const { session_id } = await service.call<{ session_id: string }>('session.create', created.params);
      try {
        const problems: string[] = [];
        const check = (method: string, example: unknown, answer: unknown) => {
          const def = allMethods.find((d) => d.name === method);
          if (def === undefined) throw new Error(`no method ${method}`);
          const validate = ajv.compile(def.result);
          if (!validate(answer)) problems.push(`${method}: ${ajv.errorsText(validate.errors)}`);
          problems.push(...shapeDifferences(example, answer).map((p) => `${method} ${p}`));
        };
        check('session.create', created.result, { session_id });
        for (const step of RUN) {
          const example = methodExamples[step.method]?.[step.example ?? 0];
          if (example === undefined) throw new Error(`${step.method} has no example ${step.example ?? 0}`);
          if (step.open !== undefined)
            await service.call('page.goto', {
              session_id,
              url: `${fixture.url}${step.open}`,
              waitUntil: 'load',
            });
          // page.check's example names a ref of the docs' page (e23); on the fixture the box is #news.
          const params =
            step.method === 'page.check'
              ? { session_id, selector: '#news' }
              : (substitute(example.params, session_id) as Record<string, unknown>);
          const answer = await service.call(step.method, params);
          check(step.method, substitute(example.result, session_id), answer);
        }
        const closing = methodExamples['session.close']?.[0];
        if (closing === undefined) throw new Error('session.close has no example');
        check(
          'session.close',
          closing.result,
          await service.call('session.close', substitute(closing.params, session_id)),
        );
        expect(problems).toEqual([]);
      } finally {
        await service.call('session.close', { session_id });
      }
    },
    EXAMPLES_TIMEOUT_MS,
  );
});
