// @ts-check
// What the panels share: the selected session, and the console's notice line.
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
