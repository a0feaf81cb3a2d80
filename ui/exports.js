// @ts-check
// Exports of the selected session, from the Events panel: its timeline as a Playwright trace
// (replay.trace), its replay pictures as a video (replay.video, where the service has ffmpeg), and
// what was done as a Playwright test (session.export, while the session is open). Each answer is
// saved as a file by the browser; a refusal (no ffmpeg, no pictures, a closed session's test) is
// said in the notice line with the service's own words.
import { rpc } from './api.js';
import { byId, messageOf } from './dom.js';
import { notify, onSessionChange, selectedSession } from './state.js';

/**
 * What each button asks, and how its answer becomes a file.
 * @type {Record<string, { method: string, label: string, file: (result: Record<string, unknown>) => { name: string, blob: Blob } }>}
 */
const EXPORTS = {
  'export-trace': {
    method: 'replay.trace',
    label: 'Trace',
    file: (r) => ({ name: String(r.filename), blob: fromBase64(String(r.base64), 'application/zip') }),
  },
  'export-video': {
    method: 'replay.video',
    label: 'Video',
    file: (r) => ({ name: String(r.filename), blob: fromBase64(String(r.base64), 'video/webm') }),
  },
  'export-test': {
    method: 'session.export',
    label: 'Test',
    file: (r) => ({ name: String(r.filename), blob: new Blob([String(r.code)], { type: 'text/plain' }) }),
  },
};

/**
 * @param {string} base64
 * @param {string} type
 */
function fromBase64(base64, type) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type });
}

/**
 * Saves a file through a link the browser downloads.
 * @param {string} name
 * @param {Blob} blob
 */
function save(name, blob) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the blob by the next task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** @param {string | null} id */
function enable(id) {
  for (const buttonId of Object.keys(EXPORTS)) byId(buttonId, HTMLButtonElement).disabled = id === null;
}

let wired = false;

/** Wires the buttons once (the console starts again after a new key), and enables them for a session. */
export function startExports() {
  enable(selectedSession());
  if (wired) return;
  wired = true;
  for (const [buttonId, spec] of Object.entries(EXPORTS)) {
    const button = byId(buttonId, HTMLButtonElement);
    button.addEventListener('click', () => {
      const id = selectedSession();
      if (id === null) return;
      button.disabled = true;
      button.textContent = `${spec.label}…`;
      button.setAttribute('aria-busy', 'true');
      rpc(spec.method, { session_id: id })
        .then((result) => {
          const { name, blob } = spec.file(/** @type {Record<string, unknown>} */ (result));
          save(name, blob);
          notify(`Saved ${name} (${spec.method}).`, 'info');
        })
        .catch((error) => notify(`${spec.method}: ${messageOf(error)}`))
        .finally(() => {
          button.textContent = spec.label;
          button.removeAttribute('aria-busy');
          button.disabled = selectedSession() === null;
        });
    });
  }
  onSessionChange(enable);
}
