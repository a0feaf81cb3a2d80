import { Type } from '@sinclair/typebox';
import type { FinishedEvaluation, InFlightEvaluation } from '../hub/agentRegistry.js';
import { defineMethod } from './defineSessionMethod.js';

// hub/ is reached as types only (the layer rule), so the hub's bounds appear here by value;
// test/unit/evaluationHistory.test.ts checks these texts against the constants.

/** Entries of each list one answer carries at most: a page of a log, not a dump of it. */
export const MAX_EVALUATIONS_LISTED = 100;
/** Entries of each list when the caller gives no limit: what the console's panel shows. */
export const DEFAULT_EVALUATIONS_LISTED = 20;

const principalField = Type.Optional(
  Type.String({
    description:
      'Only in an admin key\'s answer: the principal that started it ("key:" and a digest of its API key, never the key).',
  }),
);
/** The fields both lists' entries start with (commonEntry fills them). */
const common = {
  evaluationId: Type.String({ description: "The caller's evaluationId, or the generated eval-<uuid>." }),
  tool: Type.String({ description: 'The tool it runs.' }),
  task: Type.Union([Type.String(), Type.Null()], {
    description:
      "The evaluation's name, its first 120 characters (EVALUATION_TASK_CHARS); null when the call gave none. The input is never shown.",
  }),
  startedAt: Type.String({ description: 'ISO 8601 time the call reached the hub.' }),
  clientId: Type.Union([Type.String(), Type.Null()], {
    description: 'The agent that has it (or, while queued, the one the caller named); null when none.',
  }),
};

const InFlight = Type.Object({
  ...common,
  state: Type.Union([Type.Literal('queued'), Type.Literal('running')], {
    description: 'queued: waiting for a free slot; running: sent to the agent.',
  }),
  elapsedMs: Type.Integer({ description: 'Milliseconds since it reached the hub.' }),
  principal: principalField,
});

const Finished = Type.Object({
  ...common,
  endedAt: Type.String({ description: 'ISO 8601 time it ended.' }),
  durationMs: Type.Integer({ description: 'Milliseconds from arrival to the answer (queue wait included).' }),
  outcome: Type.Union([Type.Literal('ok'), Type.Literal('error')], {
    description: 'ok: the agent returned a result (whatever its status); error: the caller got an error.',
  }),
  status: Type.String({
    description: "The agent's result status (success …), or error, timeout, unavailable, rejected.",
  }),
  errorCode: Type.Union([Type.Integer(), Type.Null()], {
    description: "The JSON-RPC error code (the agent's own for an agent error); null when ok.",
  }),
  errorMessage: Type.Union([Type.String(), Type.Null()], {
    description: 'The error message, its first 300 characters (EVALUATION_MESSAGE_CHARS); null when ok.',
  }),
  outputSize: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'Bytes of the JSON output the agent returned (the output itself is not kept); null when none.',
  }),
  principal: principalField,
});

/** The schema's `common` fields of an evaluation, in flight or finished. */
function commonEntry(e: InFlightEvaluation | FinishedEvaluation) {
  return {
    evaluationId: e.evaluationId,
    tool: e.tool,
    task: e.task,
    startedAt: new Date(e.started).toISOString(),
    clientId: e.clientId,
  };
}

/** The principal field, the last of an entry: only an admin key's answer names it. */
function principalEntry(e: InFlightEvaluation | FinishedEvaluation, admin: boolean) {
  return admin ? { principal: e.principal } : {};
}

function inFlightEntry(e: InFlightEvaluation, now: number, admin: boolean) {
  return {
    ...commonEntry(e),
    state: e.running ? ('running' as const) : ('queued' as const),
    elapsedMs: Math.max(0, now - e.started),
    ...principalEntry(e, admin),
  };
}

function finishedEntry(e: FinishedEvaluation, admin: boolean) {
  return {
    ...commonEntry(e),
    endedAt: new Date(e.ended).toISOString(),
    durationMs: e.ended - e.started,
    outcome: e.end.ok ? ('ok' as const) : ('error' as const),
    status: e.end.status,
    errorCode: e.end.errorCode,
    errorMessage: e.end.errorMessage,
    outputSize: e.end.outputSize,
    ...principalEntry(e, admin),
  };
}

export const agentsEvaluations = defineMethod({
  name: 'agents.evaluations',
  summary: "List this key's agents.evaluate calls: those in flight and the most recent finished ones",
  description:
    "Only the evaluations the calling key started; ADMIN_API_KEY sees every key's, each with its principal. Finished ones are kept in memory, the last 200 per key (EVALUATION_HISTORY_PER_PRINCIPAL; evaluations.jsonl in LOG_DIR has them all). No input, url, model settings or output is kept: an entry names the tool, the evaluation's name cut short, the agent, its timing and how it ended.",
  params: {
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_EVALUATIONS_LISTED,
      default: DEFAULT_EVALUATIONS_LISTED,
      description: `Entries of each list at most: the oldest in flight, the newest finished (default ${DEFAULT_EVALUATIONS_LISTED}, at most ${MAX_EVALUATIONS_LISTED}).`,
    }),
    clientId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Only the evaluations on this agent (its clientId as agents.list shows it).',
      }),
    ),
  },
  result: Type.Object({
    inFlight: Type.Array(InFlight, { description: 'Running or queued, the longest-running first.' }),
    finished: Type.Array(Finished, { description: 'The most recent first.' }),
    inFlightTotal: Type.Integer({ description: 'In flight and matching, listed or not.' }),
    finishedTotal: Type.Integer({ description: 'Finished, kept and matching, listed or not.' }),
  }),
  errors: [],
  readOnly: true,
  async handler(params, { services, principal }) {
    const listing = services.agents.evaluations(principal, {
      limit: params.limit,
      clientId: params.clientId,
    });
    const now = Date.now();
    return {
      inFlight: listing.inFlight.map((e) => inFlightEntry(e, now, principal.admin)),
      finished: listing.finished.map((e) => finishedEntry(e, principal.admin)),
      inFlightTotal: listing.inFlightTotal,
      finishedTotal: listing.finishedTotal,
    };
  },
});
