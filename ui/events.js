// @ts-check
// The event stream of the selected session: GET /sessions/{id}/events (Server-Sent Events, read
// with fetch so the key travels in a header), resumed with Last-Event-ID after a dropped connection.
import { ApiError, openStream, readSse } from './api.js';
import { byId, h, messageOf, parseJson } from './dom.js';
import { onSessionChange, selectedSession } from './state.js';

/** Rows the panel keeps; older ones go (the service's own buffer is bounded too). */
export const MAX_EVENT_ROWS = 300;
/** A stream that broke (not ended) is opened again after this, from the last seq seen. */
export const EVENTS_RETRY_MS = 2000;
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

/** @param {unknown} value */
function shown(value) {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  return /^https?:\/\//.test(value) ? value.replace(/^https?:\/\//, '') : value;
}

/** Whether an event reports something that went wrong (shown in red). @param {Record<string, unknown>} event */
function isBad(event) {
  const kind = typeof event.kind === 'string' ? event.kind : '';
  if (/error|fail|crash/i.test(kind)) return true;
  if (event.level === 'error' || event.type === 'error') return true;
  return typeof event.status === 'number' && event.status >= 400;
}

/** @type {AbortController | undefined} */
let current;

/** @param {string} text */
function status(text) {
  byId('events-status', HTMLSpanElement).textContent = text;
}

/** @param {HTMLLIElement} row */
function append(row) {
  const list = byId('event-list', HTMLOListElement);
  list.append(row);
  while (list.childElementCount > MAX_EVENT_ROWS) list.firstElementChild?.remove();
  list.scrollTop = list.scrollHeight;
}

/** @param {Record<string, unknown>} event */
function eventRow(event) {
  const kind = typeof event.kind === 'string' ? event.kind : 'event';
  const parts = [];
  for (const field of SUMMARY_FIELDS) {
    const value = shown(event[field]);
    if (value !== undefined && value !== '') parts.push(value);
  }
  const time = typeof event.timestamp === 'string' ? event.timestamp.slice(11, 23) : '';
  return h(
    'li',
    {
      class: `event${isBad(event) ? ' bad' : ''}`,
      'data-kind': kind,
      title: JSON.stringify(event),
    },
    [
      h('span', { class: 'seq', text: typeof event.seq === 'number' ? String(event.seq) : '' }),
      h('span', { class: 'time', text: time }),
      h('span', { class: 'kind', text: kind }),
      h('span', { class: 'summary', text: parts.join(' ') }),
    ],
  );
}

/** @param {string} text */
function noteRow(text) {
  return h('li', { class: 'event note' }, [h('span', { class: 'summary', text })]);
}

/** @param {string | null} id */
async function follow(id) {
  current?.abort();
  byId('event-list', HTMLOListElement).replaceChildren();
  if (id === null) {
    status('Select a session.');
    return;
  }
  const controller = new AbortController();
  current = controller;
  /** @type {string | undefined} */
  let lastEventId;
  while (!controller.signal.aborted) {
    status(lastEventId === undefined ? 'Connecting…' : 'Reconnecting…');
    try {
      const response = await openStream(`/sessions/${encodeURIComponent(id)}/events`, {
        signal: controller.signal,
        ...(lastEventId === undefined ? {} : { lastEventId }),
      });
      if (response.status === 404) {
        const body = await response.text();
        status(
          body.includes('"routes"')
            ? 'This service has no event stream (GET /sessions/{id}/events answers 404).'
            : 'The session is gone.',
        );
        byId('events-status', HTMLSpanElement).dataset.state = 'unavailable';
        return;
      }
      if (!response.ok) {
        status(`The event stream answered HTTP ${response.status}.`);
        return;
      }
      status('Following');
      byId('events-status', HTMLSpanElement).dataset.state = 'following';
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
          status('Ended');
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

let wired = false;

export function startEvents() {
  void follow(selectedSession());
  if (wired) return;
  wired = true;
  onSessionChange((id) => void follow(id));
}

export function stopEvents() {
  current?.abort();
  current = undefined;
}
