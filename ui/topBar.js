// @ts-check
// The top bar every page of the console shares (index.html, runner.html): the links between the
// pages and the API key field. A pasted key is checked with the service and kept in this browser's
// localStorage (api.js); a key the service stops accepting is forgotten, on every page at once.
import { clearKey, getKey, onKeyChange, saveKeyIfValid, verifyKey } from './api.js';
import { byId } from './dom.js';
import { notify } from './state.js';

/**
 * What a page does around the key: `show` its own parts for a keyed or unkeyed page, `start` once
 * the service accepted a key, `stop` when the key is gone.
 * @typedef {{ show: (keyed: boolean) => void, start: () => void, stop: () => void }} KeyedPage
 */

/**
 * @param {KeyedPage} page
 * @param {boolean} keyed
 */
function show(page, keyed) {
  byId('key-form', HTMLFormElement).hidden = keyed;
  byId('key-state', HTMLDivElement).hidden = !keyed;
  page.show(keyed);
}

/**
 * @param {KeyedPage} page
 * @param {SubmitEvent} event
 */
async function submitKey(page, event) {
  event.preventDefault();
  const input = byId('key-input', HTMLInputElement);
  const button = /** @type {HTMLButtonElement} */ (byId('key-form', HTMLFormElement).querySelector('button'));
  button.disabled = true;
  const verdict = await saveKeyIfValid(input.value);
  button.disabled = false;
  input.value = '';
  if (verdict.ok) {
    notify(null);
    show(page, true);
    page.start();
  } else notify(verdict.message);
}

/**
 * Wires the key form and its "Forget key" button, then starts the page when the stored key is
 * still accepted.
 * @param {KeyedPage} page
 */
export async function startTopBar(page) {
  byId('key-form', HTMLFormElement).addEventListener('submit', (e) => void submitKey(page, e));
  byId('key-forget', HTMLButtonElement).addEventListener('click', () => {
    clearKey();
    notify('The key is forgotten: this browser keeps no key now.', 'info');
  });
  onKeyChange((why) => {
    if (why === 'stored') return;
    page.stop();
    show(page, false);
    if (why === 'refused')
      notify('The service no longer accepts the stored key; it was forgotten. Enter a key.');
  });
  const key = getKey();
  if (key === null) {
    show(page, false);
    return;
  }
  const verdict = await verifyKey(key);
  if (verdict.ok) {
    show(page, true);
    page.start();
  } else {
    clearKey();
    notify(verdict.message);
  }
}
