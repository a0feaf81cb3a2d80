// @ts-check
// What the panels share: the selected session, word that a session is no longer kept by the
// service, and the console's notice line.
import { byId } from './dom.js';

/** @type {string | null} */
let selected = null;
/** @type {Set<(id: string | null) => void>} */
const listeners = new Set();

/** @returns {string | null} */
export function selectedSession() {
  return selected;
}

/** @param {string | null} id */
export function selectSession(id) {
  if (id === selected) return;
  selected = id;
  for (const listener of listeners) listener(id);
}

/** @param {(id: string | null) => void} listener */
export function onSessionChange(listener) {
  listeners.add(listener);
}

/** @type {Set<(id: string) => void>} */
const goneListeners = new Set();

/**
 * Says that the service no longer has this session at all (its event stream answered 404): a closed
 * session past the service's REPLAY_KEEP_MS, or one that never was this key's.
 * @param {string} id
 */
export function sessionGone(id) {
  for (const listener of goneListeners) listener(id);
}

/** @param {(id: string) => void} listener */
export function onSessionGone(listener) {
  goneListeners.add(listener);
}

/**
 * Shows a message in the notice line (an error unless `kind` says otherwise); null hides it.
 * @param {string | null} text
 * @param {'error' | 'info'} [kind]
 */
export function notify(text, kind = 'error') {
  const notice = byId('notice', HTMLParagraphElement);
  notice.hidden = text === null;
  notice.textContent = text ?? '';
  notice.dataset.kind = kind;
}
