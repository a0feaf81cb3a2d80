// @ts-check
// The sessions of this key (session.list), created, closed and navigated from here.
import { rpc } from './api.js';
import { byId, h, messageOf } from './dom.js';
import { notify, onSessionChange, selectSession, selectedSession } from './state.js';

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

/** @type {ReturnType<typeof setInterval> | undefined} */
let timer;

export async function refreshSessions() {
  /** @type {{ sessions: SessionRow[] }} */
  let listed;
  try {
    listed = /** @type {{ sessions: SessionRow[] }} */ (await rpc('session.list'));
  } catch (error) {
    notify(`session.list failed: ${messageOf(error)}`);
    return;
  }
  const list = byId('session-list', HTMLUListElement);
  const current = selectedSession();
  const now = Date.now();
  list.replaceChildren(
    ...listed.sessions.map((s) => {
      const row = h('li', { class: 'session', 'data-session-id': s.session_id }, [
        h('button', { type: 'button', class: 'pick', title: s.session_id }, [
          h('span', { class: 'sid', text: s.session_id.slice(0, 10) + '…' }),
          h('span', { class: 'title', text: s.title || '(no title)' }),
          h('span', { class: 'url', text: s.url }),
          h('span', {
            class: 'times',
            text: timesOf(s, now),
            title: `created ${s.createdAt}, last call ${s.lastUsedAt}`,
          }),
        ]),
        h(
          'button',
          { type: 'button', class: 'close', title: 'session.close', 'aria-label': 'Close session' },
          ['×'],
        ),
      ]);
      if (s.session_id === current) row.classList.add('selected');
      return row;
    }),
  );
  byId('sessions-empty', HTMLParagraphElement).hidden = listed.sessions.length > 0;
  if (current !== null && !listed.sessions.some((s) => s.session_id === current)) selectSession(null);
  if (selectedSession() === null && listed.sessions[0] !== undefined)
    selectSession(listed.sessions[0].session_id);
}

async function createSession() {
  const button = byId('session-new', HTMLButtonElement);
  button.disabled = true;
  try {
    const created = /** @type {{ session_id: string }} */ (await rpc('session.create', {}));
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
    await rpc('session.close', { session_id: id });
    if (selectedSession() === id) selectSession(null);
  } catch (error) {
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
    if (target?.closest('button.close')) void closeSession(id);
    else selectSession(id);
  });
  onSessionChange((id) => {
    for (const row of byId('session-list', HTMLUListElement).querySelectorAll('li.session'))
      row.classList.toggle('selected', row instanceof HTMLElement && row.dataset.sessionId === id);
  });
}

export function stopSessions() {
  clearInterval(timer);
  timer = undefined;
}
