import { describe, expect, it } from 'vitest';
import {
  EVALUATION_HISTORY_PER_PRINCIPAL,
  EVALUATION_MESSAGE_CHARS,
  EVALUATION_TASK_CHARS,
  EvaluationHistory,
  type EvaluationEnd,
} from '../../src/hub/evaluationHistory.js';
import { agentsEvaluations } from '../../src/methods/agentsEvaluations.js';

const A = { id: 'key:aaaaaaaaaaaaaaaa', admin: false };
const B = { id: 'key:bbbbbbbbbbbbbbbb', admin: false };
const ADMIN = { id: 'key:cccccccccccccccc', admin: true };
const OK: EvaluationEnd = { ok: true, status: 'success', errorCode: null, errorMessage: null, outputSize: 2 };
const ALL = { limit: 1000, clientId: undefined };

function run(history: EvaluationHistory, principal: string, n: number, clientId = 'agent-1'): void {
  const entry = history.start({
    evaluationId: `e${n}`,
    principal,
    tool: 'echo',
    name: undefined,
    clientId: null,
    started: n,
  });
  history.assign(entry, clientId);
  history.finish(entry, clientId, OK, n + 1);
}

describe('EvaluationHistory', () => {
  it('refuses a capacity that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new EvaluationHistory(bad)).toThrow(RangeError);
    expect(new EvaluationHistory().capacity).toBe(EVALUATION_HISTORY_PER_PRINCIPAL);
  });

  it('keeps at most its capacity of finished evaluations per principal, dropping the oldest', () => {
    const history = new EvaluationHistory(3);
    for (let n = 1; n <= 5; n++) run(history, A.id, n);
    const listed = history.list(A, ALL);
    expect(listed.finished.map((e) => e.evaluationId)).toEqual(['e5', 'e4', 'e3']);
    expect(listed.finishedTotal).toBe(3);
  });

  it("one principal's flood never drops another's entries", () => {
    const history = new EvaluationHistory(3);
    run(history, B.id, 0);
    for (let n = 1; n <= 50; n++) run(history, A.id, n);
    expect(history.list(B, ALL).finished.map((e) => e.evaluationId)).toEqual(['e0']);
  });

  it('shows a principal its own evaluations only; an admin every one', () => {
    const history = new EvaluationHistory(10);
    run(history, A.id, 1);
    run(history, B.id, 2);
    const running = history.start({
      evaluationId: 'live',
      principal: B.id,
      tool: 'echo',
      name: 'n',
      clientId: null,
      started: 3,
    });
    expect(history.list(A, ALL).finished.map((e) => e.evaluationId)).toEqual(['e1']);
    expect(history.list(A, ALL).inFlight).toEqual([]);
    expect(history.list(B, ALL).inFlight.map((e) => e.evaluationId)).toEqual(['live']);
    expect(running.running).toBe(false);
    const all = history.list(ADMIN, ALL);
    expect(all.finished.map((e) => e.evaluationId)).toEqual(['e2', 'e1']);
    expect(all.inFlight.map((e) => e.principal)).toEqual([B.id]);
  });

  it('applies limit to each list and filters by clientId, counting what matched', () => {
    const history = new EvaluationHistory(10);
    for (let n = 1; n <= 4; n++) run(history, A.id, n, n % 2 === 0 ? 'even' : 'odd');
    const limited = history.list(A, { limit: 1, clientId: undefined });
    expect(limited.finished.map((e) => e.evaluationId)).toEqual(['e4']);
    expect(limited.finishedTotal).toBe(4);
    const odd = history.list(A, { limit: 10, clientId: 'odd' });
    expect(odd.finished.map((e) => e.evaluationId)).toEqual(['e3', 'e1']);
  });

  it('cuts the task and the error message, and finishes an evaluation once', () => {
    const history = new EvaluationHistory(10);
    const entry = history.start({
      evaluationId: 'long',
      principal: A.id,
      tool: 'echo',
      name: 'n'.repeat(EVALUATION_TASK_CHARS + 50),
      clientId: null,
      started: 1,
    });
    const error = {
      ok: false,
      status: 'error',
      errorCode: -32000,
      errorMessage: 'm'.repeat(5000),
      outputSize: null,
    };
    history.finish(entry, null, error, 2);
    history.finish(entry, null, error, 3);
    const [kept, ...rest] = history.list(A, ALL).finished;
    expect(rest).toEqual([]);
    expect(kept?.task).toBe(`${'n'.repeat(EVALUATION_TASK_CHARS)}…`);
    expect(kept?.end.errorMessage).toBe(`${'m'.repeat(EVALUATION_MESSAGE_CHARS)}…`);
    expect(history.list(A, ALL).inFlight).toEqual([]);
  });

  it("agents.evaluations' texts state the hub's bounds as they are", () => {
    const text = JSON.stringify(agentsEvaluations.result) + (agentsEvaluations.description ?? '');
    expect(text).toContain(`the last ${EVALUATION_HISTORY_PER_PRINCIPAL} per key`);
    expect(text).toContain(`first ${EVALUATION_TASK_CHARS} characters`);
    expect(text).toContain(`first ${EVALUATION_MESSAGE_CHARS} characters`);
  });
});
