// @ts-check
// The agent hub's evaluation log: this key's evaluations (agents.evaluations), those in flight first
// (the longest-running at the top), then the most recent finished ones. Read with the agent list.
import { rpc } from './api.js';
import { byId, h, messageOf } from './dom.js';

/** Entries of each list the panel asks for (the method's default). */
export const EVALUATIONS_SHOWN = 20;

/**
 * @typedef {{ evaluationId: string, tool: string, task: string | null, startedAt: string, clientId: string | null,
 *   principal?: string }} EvaluationBase
 * @typedef {EvaluationBase & { state: 'queued' | 'running', elapsedMs: number }} InFlightEvaluation
 * @typedef {EvaluationBase & { endedAt: string, durationMs: number, outcome: 'ok' | 'error', status: string,
 *   errorCode: number | null, errorMessage: string | null, outputSize: number | null }} FinishedEvaluation
 * @typedef {{ inFlight: InFlightEvaluation[], finished: FinishedEvaluation[], inFlightTotal: number, finishedTotal: number }} Listing
 */

/** @param {number} ms */
function seconds(ms) {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Local time of day, HH:MM:SS. @param {string} iso */
function clock(iso) {
  return new Date(iso).toTimeString().slice(0, 8);
}

/** @param {string | null} clientId */
function agentCell(clientId) {
  if (clientId === null) return h('td', { class: 'muted', text: '—' });
  return h('td', { title: clientId }, [
    h('code', { text: clientId.length > 13 ? `${clientId.slice(0, 12)}…` : clientId }),
  ]);
}

/** The evaluation's name (or its tool), with its id, tool and, for an admin, its principal on hover. @param {EvaluationBase} e */
function nameCell(e) {
  const title = [e.evaluationId, `tool ${e.tool}`, e.principal === undefined ? '' : `by ${e.principal}`]
    .filter((s) => s !== '')
    .join(' · ');
  return h('td', { title }, [
    e.task === null ? h('code', { text: e.tool }) : h('span', { text: e.task }),
    e.principal === undefined ? null : h('div', { class: 'muted small', text: e.principal }),
  ]);
}

/** @param {InFlightEvaluation} e */
function inFlightRow(e) {
  return h('tr', { 'data-evaluation-id': e.evaluationId, 'data-state': e.state }, [
    nameCell(e),
    agentCell(e.clientId),
    h('td', { class: 'nowrap' }, [
      h('span', { class: `badge ${e.state === 'running' ? 'busy' : ''}`, text: e.state }),
    ]),
    h('td', { class: 'nowrap', text: seconds(e.elapsedMs) }),
    h('td', { class: 'muted nowrap', title: `started ${e.startedAt}`, text: clock(e.startedAt) }),
  ]);
}

/** @param {FinishedEvaluation} e */
function finishedRow(e) {
  const outcome = e.outcome === 'ok' ? e.status : `${e.status} ${e.errorCode ?? ''}`.trim();
  return h('tr', { 'data-evaluation-id': e.evaluationId, 'data-state': e.outcome }, [
    nameCell(e),
    agentCell(e.clientId),
    h('td', { class: 'nowrap', title: e.errorMessage ?? '' }, [
      h('span', { class: `badge ${e.outcome === 'ok' ? 'ready' : 'failed'}`, text: outcome }),
    ]),
    h('td', { class: 'nowrap', text: seconds(e.durationMs) }),
    h('td', { class: 'muted nowrap', title: `ended ${e.endedAt}`, text: clock(e.endedAt) }),
  ]);
}

/** Reads agents.evaluations and redraws the log; a failure is said in the log's status line. */
export async function refreshEvaluations() {
  const label = byId('evaluations-status', HTMLSpanElement);
  /** @type {Listing} */
  let listed;
  try {
    listed = /** @type {Listing} */ (await rpc('agents.evaluations', { limit: EVALUATIONS_SHOWN }));
  } catch (error) {
    label.textContent = `agents.evaluations failed: ${messageOf(error)}`;
    return;
  }
  label.textContent = `${listed.inFlightTotal} in flight · ${listed.finishedTotal} finished kept`;
  byId('evaluation-rows', HTMLTableSectionElement).replaceChildren(
    ...listed.inFlight.map(inFlightRow),
    ...listed.finished.map(finishedRow),
  );
  byId('evaluations-empty', HTMLParagraphElement).hidden =
    listed.inFlight.length + listed.finished.length > 0;
}
