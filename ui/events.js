// @ts-check
// The event log of the selected session as a timeline: GET /sessions/{id}/events (Server-Sent
// Events, read with fetch so the key travels in a header), replayed from the session's start
// (?since=0) and resumed with Last-Event-ID after a dropped connection. Every call on the session is
// an `action` row beside what its pages did; a filter by kind; each row opens to show its fields, and
// an action with a replay picture opens it in the replay viewer.
import { ApiError, openStream, readSse } from './api.js';
import { byId, h, messageOf, parseJson, pretty } from './dom.js';
import { openReplay } from './replay.js';
import { onSessionChange, selectedSession, sessionGone } from './state.js';

/** @typedef {import('./replay.js').PicturedAction} PicturedAction */

/** Rows the panel keeps; older ones go (the service's own log is bounded too). */
export const MAX_EVENT_ROWS = 300;
/** A stream that broke (not ended) is opened again after this, from the last seq seen. */
export const EVENTS_RETRY_MS = 2000;
/** Actions with a picture the viewer can step through: the service's log keeps 1000 entries by default. */
export const MAX_PICTURED_ACTIONS = 1000;
/** Fields shown after the kind, in this order, when present (a URL without its scheme). */
const SUMMARY_FIELDS = [
  'method',
  'status',
  'level',
  'type',
  'url',
  'text',
  'message',
  'failure',
  'name',
  'state',
];

/**
 * The filter's groups: each kind of the log belongs to one (docs/behaviour.md, "Event streams");
 * "errors" is every row shown in red, whatever its kind. The filter itself is a data attribute of
 * the list, read by console.css, so it holds for the rows shown and for those still to come.
 * @type {Record<string, string>}
 */
const KIND_GROUPS = {
  action: 'actions',
  console: 'console',
  pageerror: 'console',
  request: 'network',
  response: 'network',
  requestfailed: 'network',
  navigation: 'pages',
  page: 'pages',
  pageclosed: 'pages',
  crash: 'pages',
  dialog: 'pages',
  download: 'pages',
};

/** @param {unknown} value */
function shown(value) {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  return /^https?:\/\//.test(value) ? value.replace(/^https?:\/\//, '') : value;
}

/** @param {Record<string, unknown>} event @param {string} field */
function text(event, field) {
  const value = event[field];
  return typeof value === 'string' ? value : undefined;
}

/** Whether an event reports something that went wrong (shown in red). @param {Record<string, unknown>} event */
function isBad(event) {
  const kind = text(event, 'kind') ?? '';
  if (kind === 'action') return event.ok === false;
  if (/error|fail|crash/i.test(kind)) return true;
  if (event.level === 'error' || event.type === 'error') return true;
  return typeof event.status === 'number' && event.status >= 400;
}

/** What an action acted on: a ref's snapshot line, its selector, or its URL. @param {Record<string, unknown>} event */
function actionTarget(event) {
  return text(event, 'target') ?? text(event, 'selector') ?? shown(event.url);
}

/** ✓, or ✗ with the error code and message. @param {Record<string, unknown>} event */
function actionOutcome(event) {
  const code = typeof event.code === 'number' ? String(event.code) : 'error';
  const error = text(event, 'error');
  return event.ok === false ? `✗ ${code}${error === undefined ? '' : ` ${error}`}` : '✓';
}

/** An action's line: method, what it acted on, how long it took, ✓ or its error code. @param {Record<string, unknown>} event */
function actionSummary(event) {
  const took = typeof event.durationMs === 'number' ? `${event.durationMs} ms` : undefined;
  return [text(event, 'method'), actionTarget(event), took, actionOutcome(event)]
    .filter((p) => p !== undefined && p !== '')
    .join('  ');
}

/** @param {Record<string, unknown>} event */
function otherSummary(event) {
  const parts = [];
  for (const field of SUMMARY_FIELDS) {
    const value = shown(event[field]);
    if (value !== undefined && value !== '') parts.push(value);
  }
  return parts.join(' ');
}

/** The entry as shown when its row is open: every field, an action's params parsed. @param {Record<string, unknown>} event */
function detailOf(event) {
  const params = text(event, 'params');
  if (params === undefined) return pretty(event);
  try {
    return pretty({ ...event, params: parseJson(params) });
  } catch {
    // Params cut at the service's cap are no longer JSON: shown as the text they are.
    return pretty(event);
  }
}

/** @type {AbortController | undefined} */
let current;
/** The followed session, and its actions that have a replay picture, in order (the viewer steps through them). */
let followed = '';
/** @type {PicturedAction[]} */
let pictured = [];

/** @param {string} message @param {string} [state] */
function status(message, state) {
  const el = byId('events-status', HTMLSpanElement);
  el.textContent = message;
  if (state === undefined) delete el.dataset.state;
  else el.dataset.state = state;
}

/** @param {HTMLLIElement} row */
function append(row) {
  const list = byId('event-list', HTMLOListElement);
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(row);
  while (list.childElementCount > MAX_EVENT_ROWS) list.firstElementChild?.remove();
  // Someone reading an older row (scrolled up, or a row open) is not pulled down by new ones.
  if (atEnd) list.scrollTop = list.scrollHeight;
}

/** @param {Record<string, unknown>} event */
function eventRow(event) {
  const kind = text(event, 'kind') ?? 'event';
  const time = text(event, 'timestamp')?.slice(11, 23) ?? '';
  const seq = typeof event.seq === 'number' ? String(event.seq) : '';
  const detailId = `event-detail-${seq || Math.random().toString(36).slice(2)}`;
  const head = h(
    'button',
    { type: 'button', class: 'event-head', 'aria-expanded': 'false', 'aria-controls': detailId },
    [
      h('span', { class: 'seq', text: seq }),
      h('span', { class: 'time', text: time }),
      h('span', { class: 'kind', text: kind }),
      h('span', { class: 'summary', text: kind === 'action' ? actionSummary(event) : otherSummary(event) }),
    ],
  );
  const detail = h('pre', { class: 'event-detail', id: detailId, hidden: true });
  const picture = kind === 'action' && event.picture === true ? pictureControl(event) : null;
  head.addEventListener('click', () => {
    const open = head.getAttribute('aria-expanded') !== 'true';
    // Built on first open: most rows are never opened.
    if (open && detail.textContent === '') detail.textContent = detailOf(event);
    head.setAttribute('aria-expanded', String(open));
    detail.hidden = !open;
  });
  return h(
    'li',
    {
      class: `event${isBad(event) ? ' bad' : ''}`,
      'data-kind': kind,
      'data-group': KIND_GROUPS[kind] ?? 'other',
      title: JSON.stringify(event),
    },
    [h('div', { class: 'event-line' }, [head, picture]), detail],
  );
}

/**
 * The control that opens the replay viewer on an action with a picture; the action joins the list
 * the viewer steps through.
 * @param {Record<string, unknown>} event
 */
function pictureControl(event) {
  if (typeof event.seq !== 'number') return null;
  const action = {
    seq: event.seq,
    method: text(event, 'method') ?? 'action',
    target: actionTarget(event) ?? '',
    outcome: actionOutcome(event),
    ok: event.ok !== false,
  };
  pictured.push(action);
  if (pictured.length > MAX_PICTURED_ACTIONS) pictured.shift();
  const session = followed;
  const button = h('button', {
    type: 'button',
    class: 'event-picture',
    text: 'picture',
    'aria-label': `Picture after ${action.method} (seq ${action.seq})`,
    'aria-haspopup': 'dialog',
  });
  const list = pictured;
  button.addEventListener('click', () => openReplay(session, () => list, action.seq, button));
  return button;
}

/** @param {string} message */
function noteRow(message) {
  return h('li', { class: 'event note' }, [h('span', { class: 'summary', text: message })]);
}

/** The stream's path: from the session's start, unless a dropped connection resumes after a seq. @param {string} id @param {string | undefined} lastEventId */
function streamPath(id, lastEventId) {
  const base = `/sessions/${encodeURIComponent(id)}/events`;
  return lastEventId === undefined ? `${base}?since=0` : base;
}

/** @param {string | null} id */
async function follow(id) {
  current?.abort();
  byId('event-list', HTMLOListElement).replaceChildren();
  followed = id ?? '';
  pictured = [];
  if (id === null) {
    status('Select a session.');
    return;
  }
  const controller = new AbortController();
  current = controller;
  /** @type {string | undefined} */
  let lastEventId;
  let opened = false;
  while (!controller.signal.aborted) {
    status(opened ? 'Reconnecting…' : 'Connecting…');
    try {
      const response = await openStream(streamPath(id, lastEventId), {
        signal: controller.signal,
        ...(lastEventId === undefined ? {} : { lastEventId }),
      });
      if (response.status === 404) {
        const body = await response.text();
        const noRoute = body.includes('"routes"');
        status(
          noRoute
            ? 'This service has no event stream (GET /sessions/{id}/events answers 404).'
            : 'The session is gone.',
          'unavailable',
        );
        if (!noRoute) sessionGone(id);
        return;
      }
      if (!response.ok) {
        status(`The event stream answered HTTP ${response.status}.`);
        return;
      }
      opened = true;
      status('Following', 'following');
      for await (const message of readSse(response)) {
        if (controller.signal.aborted) return;
        if (message.id !== undefined) lastEventId = message.id;
        if (message.event === 'session.event')
          append(eventRow(/** @type {Record<string, unknown>} */ (parseJson(message.data))));
        else if (message.event === 'dropped') {
          const { dropped } = /** @type {{ dropped: number }} */ (parseJson(message.data));
          append(noteRow(`${dropped} event(s) dropped: the stream fell behind the session's buffer.`));
        } else if (message.event === 'end') {
          const end = /** @type {{ reason?: string }} */ (parseJson(message.data));
          append(noteRow(`The stream ended (${end.reason ?? 'end'}).`));
          status('Ended', 'ended');
          return;
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof ApiError && error.status !== 0) {
        status(error.message);
        return;
      }
      status(`The event stream broke: ${messageOf(error)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, EVENTS_RETRY_MS));
  }
}

/** Shows the rows of one group ("all" for every row); notes always show. @param {string} group */
function applyFilter(group) {
  byId('event-list', HTMLOListElement).dataset.filter = group;
}

let wired = false;

export function startEvents() {
  void follow(selectedSession());
  if (wired) return;
  wired = true;
  const filter = byId('event-filter', HTMLSelectElement);
  applyFilter(filter.value);
  filter.addEventListener('change', () => applyFilter(filter.value));
  onSessionChange((id) => void follow(id));
}

export function stopEvents() {
  current?.abort();
  current = undefined;
}
