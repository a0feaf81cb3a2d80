// @ts-check
// The live view: GET /sessions/{id}/screencast, JPEG frames of the session's active page as
// Server-Sent Events, shown in an <img>. The service bounds the rate (SCREENCAST_MAX_FPS).
import { ApiError, openStream, readSse } from './api.js';
import { byId, messageOf, parseJson } from './dom.js';
import { onSessionChange, selectedSession } from './state.js';

/** @type {AbortController | undefined} */
let current;

/** @param {string} text */
function status(text) {
  byId('live-status', HTMLSpanElement).textContent = text;
}

/** @param {string | null} id */
async function watch(id) {
  current?.abort();
  const img = byId('live-frame', HTMLImageElement);
  img.hidden = true;
  img.removeAttribute('src');
  delete img.dataset.seq;
  if (id === null) {
    status('Select a session.');
    return;
  }
  const controller = new AbortController();
  current = controller;
  status('Connecting…');
  try {
    const response = await openStream(`/sessions/${encodeURIComponent(id)}/screencast`, {
      signal: controller.signal,
    });
    if (response.status === 404) {
      status('The session is gone, or the live view is not available on this service.');
      return;
    }
    if (!response.ok) {
      status(`The live view answered HTTP ${response.status}.`);
      return;
    }
    status('Live');
    for await (const message of readSse(response)) {
      if (controller.signal.aborted) return;
      if (message.event === 'frame') {
        const frame = /** @type {{ data: string, width: number, height: number, seq: number }} */ (
          parseJson(message.data)
        );
        img.src = `data:image/jpeg;base64,${frame.data}`;
        img.dataset.seq = String(frame.seq);
        img.hidden = false;
        status(`Live · frame ${frame.seq}${frame.width ? ` · ${frame.width}×${frame.height}` : ''}`);
      } else if (message.event === 'end') {
        status('The session ended.');
        return;
      }
    }
    if (!controller.signal.aborted) status('The live view stopped.');
  } catch (error) {
    if (controller.signal.aborted) return;
    status(error instanceof ApiError ? error.message : `The live view failed: ${messageOf(error)}`);
  }
}

let wired = false;

export function startLiveView() {
  void watch(selectedSession());
  if (wired) return;
  wired = true;
  onSessionChange((id) => void watch(id));
}

export function stopLiveView() {
  current?.abort();
  current = undefined;
}
