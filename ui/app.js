// @ts-check
// The console's entry: the key form, then the panels once the service accepts the key.
import { clearKey, getKey, onKeyChange, saveKeyIfValid, verifyKey } from './api.js';
import { startAgents, stopAgents } from './agents.js';
import { byId, messageOf } from './dom.js';
import { startEvents, stopEvents } from './events.js';
import { startLiveView, stopLiveView } from './liveView.js';
import { startMethods } from './methods.js';
import { startSessions, stopSessions } from './sessions.js';
import { notify, selectSession } from './state.js';

/** @param {boolean} keyed */
function show(keyed) {
  byId('console', HTMLElement).hidden = !keyed;
  byId('welcome', HTMLElement).hidden = keyed;
  byId('key-form', HTMLFormElement).hidden = keyed;
  byId('key-state', HTMLDivElement).hidden = !keyed;
}

function start() {
  show(true);
  startSessions();
  startLiveView();
  startEvents();
  startAgents();
  startMethods().catch((error) =>
    notify(`Could not read the methods (GET /openrpc.json): ${messageOf(error)}`),
  );
}

function stop() {
  stopSessions();
  stopLiveView();
  stopEvents();
  stopAgents();
  selectSession(null);
  show(false);
}

/** @param {SubmitEvent} event */
async function submitKey(event) {
  event.preventDefault();
  const input = byId('key-input', HTMLInputElement);
  const button = /** @type {HTMLButtonElement} */ (byId('key-form', HTMLFormElement).querySelector('button'));
  button.disabled = true;
  const verdict = await saveKeyIfValid(input.value);
  button.disabled = false;
  input.value = '';
  if (verdict.ok) {
    notify(null);
    start();
  } else notify(verdict.message);
}

async function boot() {
  byId('key-form', HTMLFormElement).addEventListener('submit', (e) => void submitKey(e));
  byId('key-forget', HTMLButtonElement).addEventListener('click', () => {
    clearKey();
    notify('The key is forgotten: this browser keeps no key now.', 'info');
  });
  onKeyChange((why) => {
    if (why === 'stored') return;
    stop();
    if (why === 'refused')
      notify('The service no longer accepts the stored key; it was forgotten. Enter a key.');
  });
  const key = getKey();
  if (key === null) {
    show(false);
    return;
  }
  const verdict = await verifyKey(key);
  if (verdict.ok) start();
  else {
    clearKey();
    notify(verdict.message);
  }
}

void boot();
