import { clip } from './clip.js';

/**
 * Finished evaluations kept in memory per principal for agents.evaluations: the most recent ones
 * only (evaluations.jsonl holds them all). Per principal, so one key's flood of evaluations never
 * pushes another key's history out; principals are the configured keys, so the total is bounded too.
 */
export const EVALUATION_HISTORY_PER_PRINCIPAL = 200;
/** The task an entry shows is the evaluation's name cut to this: enough to recognise it in a list. */
export const EVALUATION_TASK_CHARS = 120;
/** An error message an entry shows is cut to this: the caller had the whole one in its answer. */
export const EVALUATION_MESSAGE_CHARS = 300;

/** Who asks: the principal's id (a digest of its key, never the key) and whether it sees every key's. */
export interface EvaluationCaller {
  readonly id: string;
  readonly admin: boolean;
}

/** What the hub knows of an evaluation when it arrives: never its input, url or model (keys). */
export interface EvaluationStart {
  evaluationId: string;
  principal: string;
  tool: string;
  /** The evaluation's human-readable name, if it has one. */
  name: string | undefined;
  /** The agent the caller named, if any; the one that takes it is set by `assign`. */
  clientId: string | null;
  /** Epoch ms the call reached the hub. */
  started: number;
}

/** How an evaluation ended, as the accounting classified it. */
export interface EvaluationEnd {
  ok: boolean;
  /** The agent's result status (success …), or error, timeout, unavailable, rejected. */
  status: string;
  errorCode: number | null;
  errorMessage: string | null;
  outputSize: number | null;
}

/** An evaluation the hub is running or queueing; `assign` and `finish` take it back. */
export interface InFlightEvaluation {
  readonly evaluationId: string;
  readonly principal: string;
  readonly tool: string;
  readonly task: string | null;
  readonly started: number;
  clientId: string | null;
  /** False while it waits for a free slot; true once an agent has it. */
  running: boolean;
}

export interface FinishedEvaluation {
  readonly evaluationId: string;
  readonly principal: string;
  readonly tool: string;
  readonly task: string | null;
  readonly started: number;
  readonly ended: number;
  readonly clientId: string | null;
  readonly end: EvaluationEnd;
}

export interface EvaluationFilter {
  /** Entries of each list at most. */
  limit: number;
  /** Only evaluations on (or, queued, for) this agent. */
  clientId: string | undefined;
}

export interface EvaluationListing {
  /** Oldest first: the longest-running at the top. */
  inFlight: InFlightEvaluation[];
  /** Most recent first. */
  finished: FinishedEvaluation[];
  /** How many matched in all, before `limit`. */
  inFlightTotal: number;
  finishedTotal: number;
}

/**
 * The evaluations in flight and the most recent finished ones, by principal, for agents.evaluations.
 * Holds what the evaluation log holds (ids, tool, timing, outcome) plus the caller's principal and
 * the evaluation's name, cut; inputs, urls and model settings never enter it.
 */
export class EvaluationHistory {
  private readonly running = new Set<InFlightEvaluation>();
  /** Per principal, oldest first, at most `capacity` each. */
  private readonly finishedBy = new Map<string, FinishedEvaluation[]>();

  constructor(readonly capacity: number = EVALUATION_HISTORY_PER_PRINCIPAL) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`evaluation history capacity must be a positive integer, got ${capacity}`);
  }

  start(start: EvaluationStart): InFlightEvaluation {
    const entry: InFlightEvaluation = {
      evaluationId: start.evaluationId,
      principal: start.principal,
      tool: start.tool,
      task: start.name === undefined ? null : clip(start.name, EVALUATION_TASK_CHARS),
      started: start.started,
      clientId: start.clientId,
      running: false,
    };
    this.running.add(entry);
    return entry;
  }

  /** An agent took the evaluation. */
  assign(entry: InFlightEvaluation, clientId: string): void {
    entry.clientId = clientId;
    entry.running = true;
  }

  /** The evaluation ended: it leaves the in-flight set and becomes its principal's newest entry. */
  finish(entry: InFlightEvaluation, clientId: string | null, end: EvaluationEnd, ended: number): void {
    if (!this.running.delete(entry)) return;
    const finished: FinishedEvaluation = {
      evaluationId: entry.evaluationId,
      principal: entry.principal,
      tool: entry.tool,
      task: entry.task,
      started: entry.started,
      ended,
      clientId,
      end: {
        ...end,
        errorMessage: end.errorMessage === null ? null : clip(end.errorMessage, EVALUATION_MESSAGE_CHARS),
      },
    };
    let kept = this.finishedBy.get(entry.principal);
    if (kept === undefined) this.finishedBy.set(entry.principal, (kept = []));
    kept.push(finished);
    if (kept.length > this.capacity) kept.splice(0, kept.length - this.capacity);
  }

  /** What `caller` may see: its own evaluations, or every principal's for an admin. */
  list(caller: EvaluationCaller, filter: EvaluationFilter): EvaluationListing {
    const visible = (principal: string) => caller.admin || principal === caller.id;
    const matches = (clientId: string | null) =>
      filter.clientId === undefined || clientId === filter.clientId;
    const inFlight = [...this.running]
      .filter((e) => visible(e.principal) && matches(e.clientId))
      .sort((a, b) => a.started - b.started);
    const finished: FinishedEvaluation[] = [];
    for (const [principal, kept] of this.finishedBy)
      if (visible(principal)) finished.push(...kept.filter((e) => matches(e.clientId)));
    // Newest first; equal end times keep the order they were recorded in (a stable sort of a reversed list).
    finished.reverse().sort((a, b) => b.ended - a.ended);
    return {
      inFlight: inFlight.slice(0, filter.limit),
      finished: finished.slice(0, filter.limit),
      inFlightTotal: inFlight.length,
      finishedTotal: finished.length,
    };
  }
}
