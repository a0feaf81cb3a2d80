// @ts-check
// The sessions of this key (session.list), created, closed and navigated from here; sessions that
// closed elsewhere (an agent's session.close, expiry) stay as closed rows, to read their timeline and
// replay pictures while the service keeps them.
import { rpc } from './api.js';
import { byId, h, messageOf } from './dom.js';
import { notify, onSessionChange, onSessionGone, selectSession, selectedSession } from './state.js';

/** How often the list is read again while the console is open. */
export const SESSIONS_REFRESH_MS = 3000;

/**
 * A duration as a person reads it at a glance: 42 s, 3 min, 2 h 5 min.
 * @param {number} ms
 */
export function shortDuration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/**
 * Age, idle time, time left before it expires and page count of a session, from session.list (the
 * service's clock; the console runs beside it).
 * @param {SessionRow} s
 * @param {number} now
 */
function timesOf(s, now) {
  const created = Date.parse(s.createdAt);
  const used = Date.parse(s.lastUsedAt);
  const expires = Date.parse(s.expiresAt ?? '');
  return [
    Number.isNaN(created) ? undefined : `age ${shortDuration(now - created)}`,
    Number.isNaN(used) ? undefined : `idle ${shortDuration(now - used)}`,
    Number.isNaN(expires) ? undefined : `closes in ${shortDuration(expires - now)}`,
    typeof s.pages === 'number' ? `${s.pages} page${s.pages === 1 ? '' : 's'}` : undefined,
  ]
    .filter((p) => p !== undefined)
    .join(' · ');
}

/** @typedef {{ session_id: string, url: string, title: string, createdAt: string, lastUsedAt: string, expiresAt?: string, pages?: number }} SessionRow */

/**
 * Closed sessions the console remembers, newest last: the service keeps at most MAX_KEPT_SESSIONS
 * (20 by default) closed sessions of all keys, so more rows than that would mostly be gone ones.
 */
export const MAX_CLOSED_SESSION_ROWS = 20;

/** @type {ReturnType<typeof setInterval> | undefined} */
let timer;
/** The sessions of the last session.list, by id: one missing from the next list has closed. */
let lastListed = new Map(/** @type {[string, SessionRow][]} */ ([]));
/**
 * Sessions that left session.list while listed here, with when they were seen gone. They stay until
 * their event stream answers 404 (the service let them go, REPLAY_KEEP_MS), the × forgets them, or
 * the page reloads: the console cannot know how long the service keeps them.
 * @type {Map<string, { row: SessionRow, closedAt: number }>}
 */
const closed = new Map();
/** Sessions closed with their row's ×: the person dismissed them, they do not stay as closed rows. */
const dismissed = new Set(/** @type {string[]} */ ([]));

/** @param {SessionRow} s @param {number} now @param {number | undefined} closedAt */
function sessionRow(s, now, closedAt) {
  const times = closedAt === undefined ? timesOf(s, now) : `closed ${shortDuration(now - closedAt)} ago`;
  return h(
    'li',
    { class: `session${closedAt === undefined ? '' : ' closed'}`, 'data-session-id': s.session_id },
    [
      h('button', { type: 'button', class: 'pick', title: s.session_id }, [
        h('span', { class: 'sid' }, [
          s.session_id.slice(0, 10) + '…',
          closedAt === undefined ? null : h('span', { class: 'badge closed-badge', text: 'closed' }),
        ]),
        h('span', { class: 'title', text: s.title || '(no title)' }),
        h('span', { class: 'url', text: s.url }),
        h('span', {
          class: 'times',
          text: times,
          title: `created ${s.createdAt}, last call ${s.lastUsedAt}`,
        }),
      ]),
      closedAt === undefined
        ? h(
            'button',
            { type: 'button', class: 'close', title: 'session.close', 'aria-label': 'Close session' },
            ['×'],
          )
        : h(
            'button',
            {
              type: 'button',
              class: 'close forget',
              title: 'Remove the closed session from this list',
              'aria-label': 'Remove the closed session from the list',
            },
            ['×'],
          ),
    ],
  );
}

/** Rows of the open sessions, then the closed ones, newest closed first. @param {SessionRow[]} open */
function render(open) {
  const list = byId('session-list', HTMLUListElement);
  const current = selectedSession();
  const now = Date.now();
  const closedRows = [...closed.values()].reverse().map((c) => sessionRow(c.row, now, c.closedAt));
  list.replaceChildren(...open.map((s) => sessionRow(s, now, undefined)), ...closedRows);
  for (const row of list.querySelectorAll('li.session'))
    row.classList.toggle('selected', row instanceof HTMLElement && row.dataset.sessionId === current);
  byId('sessions-empty', HTMLParagraphElement).hidden = open.length > 0 || closed.size > 0;
  showClosedLiveView(current);
}

/** The live view of a closed session is only a line saying so. @param {string | null} id */
function showClosedLiveView(id) {
  const isClosed = id !== null && closed.has(id);
  const section = byId('live-section', HTMLElement);
  if (isClosed) section.dataset.closed = 'true';
  else delete section.dataset.closed;
  byId('live-closed', HTMLParagraphElement).hidden = !isClosed;
}

/** @param {SessionRow[]} open */
function rememberClosed(open) {
  const listed = new Map(open.map((s) => [s.session_id, s]));
  const now = Date.now();
  for (const [id, row] of lastListed)
    if (!listed.has(id) && !dismissed.has(id)) closed.set(id, { row, closedAt: now });
  for (const id of listed.keys()) closed.delete(id);
  for (const id of dismissed) if (!listed.has(id)) dismissed.delete(id);
  for (const id of closed.keys()) {
    if (closed.size <= MAX_CLOSED_SESSION_ROWS) break;
    closed.delete(id);
  }
  lastListed = listed;
}

/** Reads of session.list started, and the newest one applied: an older answer arriving late is stale. */
let readsStarted = 0;
let readApplied = 0;

export async function refreshSessions() {
  const read = ++readsStarted;
  /** @type {{ sessions: SessionRow[] }} */
  let listed;
  try {
    listed = /** @type {{ sessions: SessionRow[] }} */ (await rpc('session.list'));
  } catch (error) {
    notify(`session.list failed: ${messageOf(error)}`);
    return;
  }
  // A list read before a newer one answered would bring back a session that has closed since.
  if (read < readApplied) return;
  readApplied = read;
  rememberClosed(listed.sessions);
  const current = selectedSession();
  if (current !== null && !lastListed.has(current) && !closed.has(current)) selectSession(null);
  if (selectedSession() === null && listed.sessions[0] !== undefined)
    selectSession(listed.sessions[0].session_id);
  render(listed.sessions);
}

/** Drops a closed session's row (forgotten, or no longer kept by the service). @param {string} id */
function forgetClosed(id) {
  if (!closed.delete(id)) return;
  if (selectedSession() === id) selectSession(null);
  render([...lastListed.values()]);
}

async function createSession() {
  const button = byId('session-new', HTMLButtonElement);
  button.disabled = true;
  try {
    const replay = byId('session-replay', HTMLInputElement).checked;
    const created = /** @type {{ session_id: string }} */ (
      await rpc('session.create', replay ? { replay: true } : {})
    );
    selectSession(created.session_id);
    notify(null);
  } catch (error) {
    notify(`session.create failed: ${messageOf(error)}`);
  } finally {
    button.disabled = false;
    await refreshSessions();
  }
}

/** @param {string} id */
async function closeSession(id) {
  try {
    // Closed by the person here: dismissed, so it does not stay as a closed row.
    dismissed.add(id);
    await rpc('session.close', { session_id: id });
    if (selectedSession() === id) selectSession(null);
  } catch (error) {
    dismissed.delete(id);
    notify(`session.close failed: ${messageOf(error)}`);
  }
  await refreshSessions();
}

/** @param {SubmitEvent} event */
async function navigate(event) {
  event.preventDefault();
  const id = selectedSession();
  const input = byId('goto-url', HTMLInputElement);
  if (id === null) {
    notify('Select or create a session first.');
    return;
  }
  const button = /** @type {HTMLButtonElement} */ (
    byId('goto-form', HTMLFormElement).querySelector('button')
  );
  button.disabled = true;
  try {
    await rpc('page.goto', { session_id: id, url: input.value });
    notify(null);
  } catch (error) {
    notify(`page.goto failed: ${messageOf(error)}`);
  } finally {
    button.disabled = false;
  }
  await refreshSessions();
}

let wired = false;

export function startSessions() {
  stopSessions();
  void refreshSessions();
  // A hidden tab does not poll: it reads the list again when shown.
  timer = setInterval(() => {
    if (!document.hidden) void refreshSessions();
  }, SESSIONS_REFRESH_MS);
  if (wired) return;
  wired = true;
  byId('session-new', HTMLButtonElement).addEventListener('click', () => void createSession());
  byId('goto-form', HTMLFormElement).addEventListener('submit', (e) => void navigate(e));
  byId('session-list', HTMLUListElement).addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const row = target?.closest('li.session');
    const id = row instanceof HTMLElement ? row.dataset.sessionId : undefined;
    if (id === undefined) return;
    if (target?.closest('button.forget')) forgetClosed(id);
    else if (target?.closest('button.close')) void closeSession(id);
    else selectSession(id);
  });
  onSessionChange((id) => {
    for (const row of byId('session-list', HTMLUListElement).querySelectorAll('li.session'))
      row.classList.toggle('selected', row instanceof HTMLElement && row.dataset.sessionId === id);
    showClosedLiveView(id);
  });
  onSessionGone((id) => {
    if (!closed.has(id)) return;
    forgetClosed(id);
    notify(
      `The closed session ${id.slice(0, 10)}… is no longer kept by the service (REPLAY_KEEP_MS): its row is gone.`,
      'info',
    );
  });
}

export function stopSessions() {
  clearInterval(timer);
  timer = undefined;
}
