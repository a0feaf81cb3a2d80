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
 * @type {Record<string, { method: string, label: string, file: (result: Record<string, unknown>) => Promise<{ name: string, blob: Blob }> }>}
 */
const EXPORTS = {
  'export-trace': {
    method: 'replay.trace',
    label: 'Trace',
    file: async (r) => ({
      name: String(r.filename),
      blob: await fromBase64(String(r.base64), 'application/zip'),
    }),
  },
  'export-video': {
    method: 'replay.video',
    label: 'Video',
    file: async (r) => ({ name: String(r.filename), blob: await fromBase64(String(r.base64), 'video/webm') }),
  },
  'export-test': {
    method: 'session.export',
    label: 'Test',
    file: (r) =>
      Promise.resolve({ name: String(r.filename), blob: new Blob([String(r.code)], { type: 'text/plain' }) }),
  },
};

/** How long a saved file's object URL lives: a browser may read the blob after the click returns. */
export const OBJECT_URL_LIFETIME_MS = 60_000;

/**
 * The bytes of a base64 answer as a Blob (decoded here: the console's CSP admits no data: fetch).
 * @param {string} base64
 * @param {string} type
 */
function fromBase64(base64, type) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return Promise.resolve(new Blob([bytes], { type }));
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
  setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_LIFETIME_MS);
}

/** Buttons whose export is under way: they stay disabled whatever the selection does meanwhile. */
const busy = new Set(/** @type {string[]} */ ([]));

/** @param {string | null} id */
function enable(id) {
  for (const buttonId of Object.keys(EXPORTS))
    byId(buttonId, HTMLButtonElement).disabled = id === null || busy.has(buttonId);
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
      busy.add(buttonId);
      button.disabled = true;
      button.textContent = `${spec.label}…`;
      button.setAttribute('aria-busy', 'true');
      rpc(spec.method, { session_id: id })
        .then((result) => spec.file(/** @type {Record<string, unknown>} */ (result)))
        .then(({ name, blob }) => {
          save(name, blob);
          notify(`Saved ${name} (${spec.method}).`, 'info');
        })
        .catch((error) => notify(`${spec.method}: ${messageOf(error)}`))
        .finally(() => {
          busy.delete(buttonId);
          button.textContent = spec.label;
          button.removeAttribute('aria-busy');
          button.disabled = selectedSession() === null;
        });
    });
  }
  onSessionChange(enable);
}
