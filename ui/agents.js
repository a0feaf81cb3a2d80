// @ts-check
// The agent hub: the agents connected on /agents (agents.list), their tools and load, and the
// key's evaluation log (evaluations.js), read together.
import { rpc } from './api.js';
import { byId, h, messageOf } from './dom.js';
import { refreshEvaluations } from './evaluations.js';

/** How often the hub is read again while the console is open. */
export const AGENTS_REFRESH_MS = 3000;

/**
 * @typedef {{ clientId: string, status: string, capabilities: { tools: string[], toolCount: number, maxConcurrency: number, version: string },
 *   inFlight: number, connectedAt: string, remoteAddress: string,
 *   lastStatus: { evaluationId: string | null, status: string, progress: number | null, message: string | null, receivedAt: string } | null }} Agent
 */

/** @type {ReturnType<typeof setInterval> | undefined} */
let timer;

async function refresh() {
  await Promise.all([refreshAgents(), refreshEvaluations()]);
}

async function refreshAgents() {
  const label = byId('agents-status', HTMLSpanElement);
  /** @typedef {{ agents: Agent[], total: number, truncated: boolean }} AgentList */
  /** @type {AgentList} */
  let listed;
  try {
    listed = /** @type {AgentList} */ (await rpc('agents.list'));
  } catch (error) {
    label.textContent = `agents.list failed: ${messageOf(error)}`;
    return;
  }
  const inFlight = listed.agents.reduce((n, a) => n + a.inFlight, 0);
  label.textContent = `${listed.total} connected · ${inFlight} evaluation(s) in flight${listed.truncated ? ' · list truncated' : ''}`;
  byId('agent-rows', HTMLTableSectionElement).replaceChildren(
    ...listed.agents.map((a) =>
      h('tr', { 'data-client-id': a.clientId }, [
        h(
          'td',
          {
            title: `${a.clientId} · ${a.remoteAddress} · since ${a.connectedAt} · v${a.capabilities.version}`,
          },
          [h('code', { text: a.clientId.length > 13 ? `${a.clientId.slice(0, 12)}…` : a.clientId })],
        ),
        h('td', {}, [h('span', { class: `badge ${a.status}`, text: a.status })]),
        h('td', {
          text:
            a.capabilities.tools.join(', ') +
            (a.capabilities.toolCount > a.capabilities.tools.length
              ? ` (+${a.capabilities.toolCount - a.capabilities.tools.length})`
              : ''),
        }),
        h('td', { text: `${a.inFlight} / ${a.capabilities.maxConcurrency}` }),
        h('td', {
          text:
            a.lastStatus === null
              ? '—'
              : `${a.lastStatus.status}${a.lastStatus.progress === null ? '' : ` ${Math.round(a.lastStatus.progress * 100)}%`}${a.lastStatus.message ? ` · ${a.lastStatus.message}` : ''}`,
        }),
      ]),
    ),
  );
  byId('agents-empty', HTMLParagraphElement).hidden = listed.agents.length > 0;
}

export function startAgents() {
  stopAgents();
  void refresh();
  timer = setInterval(() => {
    if (!document.hidden) void refresh();
  }, AGENTS_REFRESH_MS);
}

export function stopAgents() {
  clearInterval(timer);
  timer = undefined;
}
