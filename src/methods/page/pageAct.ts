// page.act: a list of steps (any method of one session, with its params; expectations as page.waitFor
// conditions) run in order under the session's lock in one round trip, stopping at the first failure.
// Each step goes through the dispatcher like a call of its own (validation, defaults, log line,
// error mapping); the lock page.act holds is the one its steps run under (defineSessionMethod).
import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../errors/serviceError.js';
import { ERRORS } from '../../errors/catalogue.js';
import { defineSessionMethod, sessionMethodSteps } from '../defineSessionMethod.js';
import { MAX_TIMEOUT_MS } from '../params.js';

/** The most steps one page.act runs. */
export const MAX_ACT_STEPS = 50;
/** page.act's default deadline for all its steps together. */
export const ACT_TIMEOUT_MS = 60_000;
/** An expectation's default timeout: a page.act step that checks, not a long wait. */
export const EXPECT_TIMEOUT_MS = 5_000;
/** Methods that are not steps: page.act itself (no nesting) and what ends or leaves the session. */
const NOT_STEPS = new Set(['page.act', 'session.close']);

const Step = Type.Object(
  {
    method: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'A method of this session (page.click, page.fill, page.select, page.goto, page.waitFor, page.snapshot …), without session_id in its params.',
      }),
    ),
    params: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "The method's params, as for a call of its own.",
      }),
    ),
    expect: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: `An expectation, as page.waitFor's params: { "text": "Saved" }, { "url": "/done" }, { "selector": "#ok" }, { "textGone": "Loading" } (default timeout ${EXPECT_TIMEOUT_MS} ms).`,
      }),
    ),
  },
  { additionalProperties: false, description: 'Give method (with params), or expect.' },
);

const StepResult = Type.Object({
  method: Type.Optional(
    Type.String({
      description: 'Only in the entry of the step that failed: its method (page.waitFor for an expect).',
    }),
  ),
  ok: Type.Optional(
    Type.Literal(false, {
      description:
        'Only in the entry of the step that failed: false. A step that succeeded answers only its result.',
    }),
  ),
  result: Type.Optional(
    Type.Unknown({ description: 'A step that succeeded: its answer, as its method answers.' }),
  ),
  error: Type.Optional(
    Type.Object(
      { code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) },
      { description: "Why the step failed, as the method's JSON-RPC error would say." },
    ),
  ),
});

function refuse(index: number, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for page.act: step ${index}: ${message}`, {
    errors: [{ path: `/steps/${index}`, message, keyword: 'oneOf', params: {} }],
  });
}

interface Planned {
  method: string;
  params: Record<string, unknown>;
  /** The method takes a timeout: page.act caps it at what is left of its own. */
  timeout: boolean;
  /** The method's default timeout, when it has one. */
  timeoutDefault: number | undefined;
}

/** Every step's shape and method checked before the first runs: a misspelt method in step 5 must not leave steps 1–4 done. */
function plan(
  steps: readonly { method?: string; params?: Record<string, unknown>; expect?: Record<string, unknown> }[],
): Planned[] {
  return steps.map((step, i) => {
    if ((step.method === undefined) === (step.expect === undefined))
      throw refuse(i, 'give exactly one of method and expect');
    if (step.expect !== undefined) {
      if (step.params !== undefined) throw refuse(i, 'an expect step takes no params');
      return {
        method: 'page.waitFor',
        params: { timeout: EXPECT_TIMEOUT_MS, ...step.expect },
        timeout: true,
        timeoutDefault: undefined,
      };
    }
    const method = step.method ?? '';
    const known = sessionMethodSteps.get(method);
    if (known === undefined || NOT_STEPS.has(method))
      throw refuse(i, `${method} is not a method page.act can run (a method of one session, not page.act)`);
    const params = step.params ?? {};
    if ('session_id' in params) throw refuse(i, 'a step takes the session_id of page.act: leave it out');
    // A step runs under page.act's lock: waiting there on a key another call holds could deadlock.
    if ('idempotency_key' in params)
      throw refuse(i, 'a step takes no idempotency_key: give page.act its own, it covers every step');
    return { method, params, ...known };
  });
}

/**
 * A step's answer without what the agent already has. Its `ok: true`: the entry of a step that
 * succeeded says so. Its `url` when an earlier step of the run answered that same URL (a goto then a
 * snapshot of it, a new page then its pages.select), or when it is the URL a page.goto step asked
 * for and the page landed there (a redirect's target is kept).
 */
function withoutKnown(method: string, result: unknown, seen: { url: string | undefined }): unknown {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  const { ok, url, ...rest } = result as Record<string, unknown>;
  const known: Record<string, unknown> = ok === true || ok === undefined ? rest : { ok, ...rest };
  if (url === undefined) return known;
  // A request's URL is not where the page is: kept, and not remembered.
  if (NOT_PAGE_URL.has(method)) return { ...known, url };
  if (typeof url === 'string' && url === seen.url) return known;
  if (typeof url === 'string') seen.url = url;
  return { ...known, url };
}

/** Steps that take a snapshot of the whole page and answer its revision. */
const SNAPSHOT_READS = new Set(['find.byRole', 'find.byText', 'page.snapshot']);
/** Steps that search a snapshot and can be given the revision of one already taken. */
const SNAPSHOT_SEARCHES = new Set(['find.byRole', 'find.byText']);

/**
 * The revision a step's answer names when it read a snapshot (a later search right after it may
 * search the same one), else undefined.
 */
function revisionRead(method: string, result: unknown): number | undefined {
  if (!SNAPSHOT_READS.has(method) || typeof result !== 'object' || result === null) return undefined;
  const revision: unknown = Reflect.get(result, 'revision');
  return typeof revision === 'number' ? revision : undefined;
}

/** Step methods whose answer's url is not the page's (network.get: the request's URL as asked). */
const NOT_PAGE_URL = new Set(['network.get']);

export const pageAct = defineSessionMethod({
  name: 'page.act',
  summary:
    'Run several steps in one round trip: actions with their params and expectations (text present, URL …), in order, stopping at the first failure',
  description:
    "Each step is a method of this session with its params (session_id is page.act's), or an expect: page.waitFor's conditions with a short default timeout. Steps run one after another under the session's lock, each as a call of its own would (its params validated, its answer or error recorded). The first failing step stops the run: its error is in its entry and the steps after it are not run. Every step's shape and method are checked before the first runs; its params are checked when it runs, as for a call of its own (a bad one fails that step with -32602). timeout bounds the whole run: a step starting later gets what is left as its own timeout at most. A find.* step right after a find.* or page.snapshot step, with no action between, searches the snapshot that step read (its revision), as long as it is still the newest: several searches cost one snapshot.",
  params: {
    steps: Type.Array(Step, { minItems: 1, maxItems: MAX_ACT_STEPS, description: 'The steps, in order.' }),
    timeout: Type.Integer({
      minimum: 1,
      maximum: MAX_TIMEOUT_MS,
      default: ACT_TIMEOUT_MS,
      description: `Deadline in ms for all the steps (default ${ACT_TIMEOUT_MS}).`,
    }),
  },
  result: Type.Object({
    ok: Type.Boolean({ description: 'True when every step succeeded.' }),
    failedAt: Type.Optional(
      Type.Integer({
        description: 'The index of the step that failed (also how many succeeded); absent when ok.',
      }),
    ),
    steps: Type.Array(StepResult, {
      description:
        'One entry per step run, in order: { result } for a step that succeeded, without what the caller has: its ok: true (an action that only succeeded is {}), and its url when an earlier step of the run answered the same one or a page.goto step landed on the URL it asked for; { method, ok: false, error } for the one that failed (the last).',
    }),
  }),
  errors: ['INVALID_PARAMS', 'TIMEOUT'],
  readOnly: false,
  async handler(params, ctx) {
    const { session } = ctx;
    const planned = plan(params.steps);
    const deadline = Date.now() + params.timeout;
    const seen = { url: undefined as string | undefined };
    // The snapshot the step before read: a search right after it, with no action between, searches
    // it again rather than taking another (the kept snapshot is used only while still the newest).
    let lastRead: number | undefined;
    const results: {
      method?: string;
      ok?: false;
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    }[] = [];
    for (const [index, step] of planned.entries()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        results.push({
          method: step.method,
          ok: false,
          error: {
            code: ERRORS.TIMEOUT.code,
            message: `page.act's timeout (${params.timeout} ms) passed before step ${index} could start.`,
          },
        });
        return { ok: false, failedAt: index, steps: results };
      }
      // A step's timeout (its own, or its method's default) is capped at what is left of page.act's.
      const own = typeof step.params.timeout === 'number' ? step.params.timeout : step.timeoutDefault;
      const stepParams = {
        ...step.params,
        session_id: session.id,
        ...(step.timeout && own !== undefined && own > left ? { timeout: left } : {}),
        ...(lastRead !== undefined && SNAPSHOT_SEARCHES.has(step.method) && step.params.revision === undefined
          ? { revision: lastRead }
          : {}),
      };
      // A goto's own URL is known to the caller: its answer names the URL only when it landed elsewhere.
      if (step.method === 'page.goto' && typeof step.params.url === 'string') seen.url = step.params.url;
      try {
        const result = await ctx.services.call(step.method, stepParams, ctx);
        lastRead = revisionRead(step.method, result);
        // The caller knows which method each step ran: a step that succeeded answers its result alone,
        // without a page URL it already has.
        results.push({ result: withoutKnown(step.method, result, seen) });
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        results.push({
          method: step.method,
          ok: false,
          error: {
            code: error.code,
            message: error.message,
            ...(error.data === undefined ? {} : { data: error.data }),
          },
        });
        return { ok: false, failedAt: index, steps: results };
      }
    }
    return { ok: true, steps: results };
  },
});

export const pageActMethods = [pageAct];
