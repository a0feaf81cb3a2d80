// @ts-check
// The replay viewer: the picture the service kept after an action of a session recorded for replay
// (replay.picture), with the action's method, target and outcome, stepped with Previous and Next (or
// ← and →) through the session's actions that have one, in order. A modal <dialog>: the keyboard
// stays in it, Esc closes it, and focus goes back to the control that opened it.
import { RpcError, rpc } from './api.js';
import { byId, messageOf } from './dom.js';
import { onSessionChange } from './state.js';

/** The service's "no such session" (an unknown one, or a closed one past REPLAY_KEEP_MS). */
const SESSION_NOT_FOUND = -32010;
/** The service's answer for a seq without a picture (let go past MAX_REPLAY_BYTES, or no replay). */
const INVALID_PARAMS = -32602;
/** One picture is a JPEG of tens of kB: past this the service is stuck, and the viewer says so. */
const PICTURE_TIMEOUT_MS = 15_000;

/** @typedef {{ seq: number, method: string, target: string, outcome: string, ok: boolean }} PicturedAction */

/**
 * What the viewer shows: the session, its actions with a picture (read again at each step, so
 * actions that arrive while it is open can be stepped to), and the one shown.
 * @type {{ session: string, actions: () => PicturedAction[], seq: number } | undefined}
 */
let shown;
/** @type {AbortController | undefined} */
let loading;
/** @type {HTMLElement | null} */
let opener = null;
let wired = false;

/** @param {string} message */
function say(message) {
  byId('replay-message', HTMLParagraphElement).textContent = message;
}

/** What to tell the person when the picture cannot be read. @param {unknown} error */
function goneMessage(error) {
  if (error instanceof RpcError && error.code === SESSION_NOT_FOUND)
    return `The session's pictures are gone: the service keeps a closed session for REPLAY_KEEP_MS (10 min by default). ${error.message}`;
  if (error instanceof RpcError && error.code === INVALID_PARAMS)
    return `This picture is gone: a session keeps MAX_REPLAY_BYTES of pictures, the oldest let go first. ${error.message}`;
  if (error instanceof DOMException && error.name === 'TimeoutError')
    return `The picture did not come within ${PICTURE_TIMEOUT_MS / 1000} s.`;
  return `replay.picture failed: ${messageOf(error)}`;
}

/** @param {PicturedAction} action */
async function load(action) {
  if (shown === undefined) return;
  loading?.abort();
  const controller = new AbortController();
  loading = controller;
  const image = byId('replay-image', HTMLImageElement);
  const dialog = byId('replay', HTMLDialogElement);
  dialog.dataset.state = 'loading';
  say('Loading the picture…');
  try {
    const picture = /** @type {{ mime: string, base64: string }} */ (
      await rpc(
        'replay.picture',
        { session_id: shown.session, seq: action.seq },
        { signal: AbortSignal.any([controller.signal, AbortSignal.timeout(PICTURE_TIMEOUT_MS)]) },
      )
    );
    if (controller.signal.aborted) return;
    image.src = `data:${picture.mime};base64,${picture.base64}`;
    image.alt = `The page after ${action.method} (seq ${action.seq})`;
    image.hidden = false;
    dialog.dataset.state = 'shown';
    say('');
  } catch (error) {
    if (controller.signal.aborted) return;
    image.hidden = true;
    image.removeAttribute('src');
    dialog.dataset.state = 'gone';
    say(goneMessage(error));
  }
}

/** Shows the action of `shown.seq`: its line, its place among the pictured actions, its picture. */
function render() {
  if (shown === undefined) return;
  const actions = shown.actions();
  const seq = shown.seq;
  const index = actions.findIndex((a) => a.seq === seq);
  const action = actions[index];
  if (action === undefined) return;
  const dialog = byId('replay', HTMLDialogElement);
  dialog.dataset.seq = String(action.seq);
  byId('replay-seq', HTMLSpanElement).textContent = `#${action.seq}`;
  byId('replay-method', HTMLSpanElement).textContent = action.method;
  byId('replay-target', HTMLSpanElement).textContent = action.target;
  const outcome = byId('replay-outcome', HTMLSpanElement);
  outcome.textContent = action.outcome;
  outcome.classList.toggle('bad', !action.ok);
  byId('replay-position', HTMLSpanElement).textContent = `picture ${index + 1} of ${actions.length}`;
  const prev = byId('replay-prev', HTMLButtonElement);
  const next = byId('replay-next', HTMLButtonElement);
  prev.disabled = index <= 0;
  next.disabled = index >= actions.length - 1;
  // A button disabled under the focus would drop it to the page: it moves to the other one.
  const active = document.activeElement;
  if (!dialog.contains(active) || (active instanceof HTMLButtonElement && active.disabled)) focusInside();
  void load(action);
}

/** One step back (-1) or forward (+1) among the actions with a picture. @param {-1 | 1} by */
function step(by) {
  if (shown === undefined) return;
  const actions = shown.actions();
  const current = shown.seq;
  const next = actions[actions.findIndex((a) => a.seq === current) + by];
  if (next === undefined) return;
  shown.seq = next.seq;
  render();
}

/** Focus on the first step button that can be used, or on Close. */
function focusInside() {
  const target = [byId('replay-next', HTMLButtonElement), byId('replay-prev', HTMLButtonElement)].find(
    (b) => !b.disabled,
  );
  (target ?? byId('replay-close', HTMLButtonElement)).focus();
}

function close() {
  const dialog = byId('replay', HTMLDialogElement);
  if (dialog.open) dialog.close();
}

function wire() {
  if (wired) return;
  wired = true;
  const dialog = byId('replay', HTMLDialogElement);
  byId('replay-prev', HTMLButtonElement).addEventListener('click', () => step(-1));
  byId('replay-next', HTMLButtonElement).addEventListener('click', () => step(1));
  byId('replay-close', HTMLButtonElement).addEventListener('click', close);
  // On the document, not the dialog: a key pressed with the focus nowhere still steps.
  document.addEventListener('keydown', (event) => {
    if (!dialog.open || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      step(event.key === 'ArrowLeft' ? -1 : 1);
    }
  });
  dialog.addEventListener('close', () => {
    loading?.abort();
    loading = undefined;
    shown = undefined;
    if (opener?.isConnected) opener.focus();
    opener = null;
  });
  // Another session selected: this one's pictures are no longer what the console looks at.
  onSessionChange(close);
}

/**
 * Opens the viewer on one action of a session.
 * @param {string} session
 * @param {() => PicturedAction[]} actions the session's actions with a picture, in order
 * @param {number} seq the action to show first
 * @param {HTMLElement | null} from the control that opened it, focused again on close
 */
export function openReplay(session, actions, seq, from) {
  wire();
  shown = { session, actions, seq };
  opener = from;
  const dialog = byId('replay', HTMLDialogElement);
  if (!dialog.open) dialog.showModal();
  render();
  focusInside();
}
