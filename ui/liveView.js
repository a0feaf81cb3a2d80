// @ts-check
// The live view: GET /sessions/{id}/screencast, JPEG frames of the session's active page as
// Server-Sent Events, shown in an <img>, with the page's URL above it. Zoom and full screen ask the
// service for full-size frames (?size=full); the small box keeps the default size, so bandwidth
// grows only for a person who reads closely. Take-over sends what the person does on the frame as
// the key's own calls (LiveInput below). One file past ~300 lines on purpose: the view and its
// input share the frame's geometry and the session, and the console's files are shared by others.
import { ApiError, openStream, readSse, rpc } from './api.js';
import { byId, messageOf, parseJson } from './dom.js';
import { onSessionChange, selectedSession } from './state.js';

/** Inputs waiting to be sent while one call runs; past it the oldest are dropped (and said so). */
const MAX_QUEUED_INPUTS = 50;
/** Typed characters merged into one page.keyboard type call (the method takes at most 2000). */
const MAX_TYPE_BATCH_CHARS = 200;
/** Wheel turns merged into one page.mouse wheel call stop here: a queued flick does not fling the page to its end. */
const MAX_WHEEL_DELTA_PX = 5000;
/** A wheel event in lines or pages (deltaMode 1 and 2) is this many pixels per unit. */
const WHEEL_LINE_PX = 40;
const WHEEL_PAGE_PX = 800;
/** Keys that only modify others: sent as part of a chord, never alone. */
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock']);

/**
 * @typedef {{ method: 'page.mouse', params: { action: 'click' | 'dblclick', x: number, y: number, button: 'left' | 'middle' | 'right' } }
 *   | { method: 'page.mouse', params: { action: 'wheel', x: number, y: number, deltaX: number, deltaY: number } }
 *   | { method: 'page.keyboard', params: { action: 'press', key: string } }
 *   | { method: 'page.keyboard', params: { action: 'type', text: string } }} Input
 */
/** @typedef {{ rect: DOMRect, width: number, height: number }} Geometry */

/**
 * Take-over: what the person does on the frame becomes page.mouse and page.keyboard calls of the
 * selected session, through the console's one door (rpc), one at a time and in order, so each is an
 * action of the session's timeline like any call. Off, nothing is listened to or sent.
 */
class LiveInput {
  /**
   * @param {{ geometry: () => Geometry | undefined, status: (text: string) => void }} deps
   */
  constructor(deps) {
    this.deps = deps;
    this.driving = false;
    /** @type {string | null} */
    this.session = null;
    /** @type {Input[]} */
    this.queue = [];
    this.sending = false;
    this.sent = 0;
  }

  /** @param {string | null} id */
  setSession(id) {
    if (id !== this.session) this.stop(id === null ? '' : 'Another session is selected.');
    this.session = id;
    this.syncButton();
  }

  /** Driving ends (a session closed, another selected): what was not sent yet never is. @param {string} why */
  stop(why) {
    const was = this.driving;
    this.driving = false;
    this.queue = [];
    this.syncButton();
    if (was && why !== '') this.deps.status(`${why} You are no longer driving.`);
  }

  toggle() {
    if (this.driving) this.stop('');
    else if (this.session !== null) {
      this.driving = true;
      this.syncButton();
      byId('live-screen', HTMLDivElement).focus();
    }
  }

  syncButton() {
    const button = byId('live-drive', HTMLButtonElement);
    button.setAttribute('aria-pressed', String(this.driving));
    button.textContent = this.driving ? 'Stop driving' : 'Take over';
    button.disabled = this.session === null;
    byId('live-driving', HTMLParagraphElement).hidden = !this.driving;
    const screen = byId('live-screen', HTMLDivElement);
    screen.classList.toggle('driving', this.driving);
    screen.tabIndex = this.driving ? 0 : -1;
  }

  /**
   * The point of the page (CSS pixels of its viewport) under a pointer event, or undefined outside
   * the image: the image shows the whole viewport, so the fraction of its displayed box is the
   * fraction of the viewport, whatever the JPEG's own size and the zoom.
   * @param {MouseEvent} event
   */
  pointOf(event) {
    const geometry = this.deps.geometry();
    if (geometry === undefined || geometry.rect.width === 0 || geometry.rect.height === 0) return undefined;
    const fx = (event.clientX - geometry.rect.left) / geometry.rect.width;
    const fy = (event.clientY - geometry.rect.top) / geometry.rect.height;
    if (fx < 0 || fx >= 1 || fy < 0 || fy >= 1) return undefined;
    return {
      x: Math.round(fx * geometry.width * 100) / 100,
      y: Math.round(fy * geometry.height * 100) / 100,
    };
  }

  /** @param {MouseEvent} event */
  onClick(event) {
    if (!this.driving) return;
    event.preventDefault();
    const point = this.pointOf(event);
    if (point === undefined) return;
    const button = event.button === 1 ? 'middle' : event.button === 2 ? 'right' : 'left';
    // The second click of a double click is sent as one dblclick in place of the first's repeat:
    // the page sees click, click, dblclick, as it would from a person.
    if (event.detail === 2) this.replaceLastClick({ action: 'dblclick', ...point, button });
    else if (event.detail <= 1)
      this.push({ method: 'page.mouse', params: { action: 'click', ...point, button } });
  }

  /** @param {{ action: 'dblclick', x: number, y: number, button: 'left' | 'middle' | 'right' }} params */
  replaceLastClick(params) {
    const last = this.queue.at(-1);
    if (last !== undefined && last.method === 'page.mouse' && last.params.action === 'click')
      this.queue.pop();
    this.push({ method: 'page.mouse', params });
  }

  /** @param {WheelEvent} event */
  onWheel(event) {
    if (!this.driving) return;
    event.preventDefault();
    const point = this.pointOf(event);
    if (point === undefined) return;
    const unit = event.deltaMode === 1 ? WHEEL_LINE_PX : event.deltaMode === 2 ? WHEEL_PAGE_PX : 1;
    const deltaX = Math.round(event.deltaX * unit);
    const deltaY = Math.round(event.deltaY * unit);
    if (deltaX === 0 && deltaY === 0) return;
    const last = this.queue.at(-1);
    if (last !== undefined && last.method === 'page.mouse' && last.params.action === 'wheel') {
      last.params.deltaX = clampDelta(last.params.deltaX + deltaX);
      last.params.deltaY = clampDelta(last.params.deltaY + deltaY);
      return;
    }
    this.push({
      method: 'page.mouse',
      params: { action: 'wheel', ...point, deltaX: clampDelta(deltaX), deltaY: clampDelta(deltaY) },
    });
  }

  /** @param {KeyboardEvent} event */
  onKey(event) {
    // Tab leaves the frame as everywhere else, so the keyboard is never trapped in it.
    if (!this.driving || event.key === 'Tab' || event.isComposing) return;
    if (MODIFIER_KEYS.has(event.key) || event.key === 'Unidentified' || event.key === 'Dead') return;
    event.preventDefault();
    const chord = event.ctrlKey || event.metaKey || event.altKey;
    if (event.key.length === 1 && !chord) {
      const last = this.queue.at(-1);
      if (
        last !== undefined &&
        last.method === 'page.keyboard' &&
        last.params.action === 'type' &&
        last.params.text.length < MAX_TYPE_BATCH_CHARS
      ) {
        last.params.text += event.key;
        return;
      }
      this.push({ method: 'page.keyboard', params: { action: 'type', text: event.key } });
      return;
    }
    const modifiers = [
      event.ctrlKey ? 'Control+' : '',
      event.altKey ? 'Alt+' : '',
      event.metaKey ? 'Meta+' : '',
      event.shiftKey && event.key.length > 1 ? 'Shift+' : '',
    ].join('');
    const key = event.key === ' ' ? 'Space' : event.key;
    this.push({ method: 'page.keyboard', params: { action: 'press', key: `${modifiers}${key}` } });
  }

  /** @param {Input} input */
  push(input) {
    if (this.queue.length >= MAX_QUEUED_INPUTS) {
      this.queue.shift();
      this.deps.status('The page takes input slower than it comes: the oldest waiting input was dropped.');
    }
    this.queue.push(input);
    void this.pump();
  }

  async pump() {
    if (this.sending) return;
    this.sending = true;
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        const session = this.session;
        if (!this.driving || session === null) return;
        try {
          await rpc(next.method, { session_id: session, ...next.params });
          this.sent++;
          byId('live-screen', HTMLDivElement).dataset.sent = String(this.sent);
        } catch (error) {
          this.deps.status(`${next.method} ${next.params.action} failed: ${messageOf(error)}`);
        }
      }
    } finally {
      this.sending = false;
    }
  }

  /** @param {HTMLDivElement} screen @param {HTMLImageElement} img */
  wire(screen, img) {
    img.addEventListener('click', (event) => this.onClick(event));
    img.addEventListener('auxclick', (event) => this.onClick(event));
    img.addEventListener('contextmenu', (event) => {
      if (this.driving) event.preventDefault();
    });
    // The browser's own drag of an image would eat the press; a page's drag is page.drag's.
    img.addEventListener('dragstart', (event) => event.preventDefault());
    screen.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
    screen.addEventListener('keydown', (event) => this.onKey(event));
    byId('live-drive', HTMLButtonElement).addEventListener('click', () => this.toggle());
  }
}

/** @param {number} delta */
function clampDelta(delta) {
  return Math.max(-MAX_WHEEL_DELTA_PX, Math.min(MAX_WHEEL_DELTA_PX, delta));
}

/** The zoom levels of the view: fit the box, or the page's CSS pixels times this. */
const ZOOMS = /** @type {const} */ (['fit', '1', '1.5']);
/** @typedef {(typeof ZOOMS)[number]} Zoom */

/** @typedef {{ data: string, width: number, height: number, seq: number, url?: string }} Frame */

/** @type {AbortController | undefined} */
let current;
/** @type {'fit' | 'full'} */
let streamSize = 'fit';
/** @type {Zoom} */
let zoom = 'fit';
/** The last frame's page size in CSS pixels (what a click on the frame maps to). */
let pageSize = { width: 0, height: 0 };
/** What this view last wrote into the address bar: a value the person typed is left alone. */
let filledUrl = '';

/** @param {string} text */
function status(text) {
  byId('live-status', HTMLSpanElement).textContent = text;
}

function section() {
  return byId('live-section', HTMLElement);
}

/** Whether the view is full screen, by the Fullscreen API or by the overlay that stands in for it. */
function isFullScreen() {
  return document.fullscreenElement === section() || section().classList.contains('overlay');
}

/** The frame size the view needs now: the page's own when zoomed or full screen. */
function wantedSize() {
  return zoom !== 'fit' || isFullScreen() ? 'full' : 'fit';
}

/** @param {string} url */
function showUrl(url) {
  const out = byId('live-url', HTMLOutputElement);
  // about:blank, an error page or a URL the service could not read: shown as it is, or a dash.
  out.value = url === '' ? '—' : url;
  out.title = url;
  const input = byId('goto-url', HTMLInputElement);
  if (document.activeElement !== input && (input.value === '' || input.value === filledUrl)) {
    input.value = url;
    filledUrl = url;
  }
}

/** @param {Frame} frame */
function showFrame(frame) {
  const img = byId('live-frame', HTMLImageElement);
  img.src = `data:image/jpeg;base64,${frame.data}`;
  img.dataset.seq = String(frame.seq);
  img.dataset.pageWidth = String(frame.width);
  img.dataset.pageHeight = String(frame.height);
  img.hidden = false;
  pageSize = { width: frame.width, height: frame.height };
  applyZoom();
  if (typeof frame.url === 'string') showUrl(frame.url);
  status(`Live · frame ${frame.seq}${frame.width ? ` · ${frame.width}×${frame.height}` : ''}`);
}

/** Sizes the image for the zoom: `fit` by the stylesheet, 100 % and 150 % in the page's CSS pixels. */
function applyZoom() {
  const img = byId('live-frame', HTMLImageElement);
  const screen = byId('live-screen', HTMLDivElement);
  screen.dataset.zoom = zoom;
  if (zoom === 'fit' || pageSize.width === 0) img.style.removeProperty('width');
  else img.style.width = `${Math.round(pageSize.width * Number(zoom))}px`;
  for (const button of section().querySelectorAll('button[data-zoom]'))
    button.setAttribute('aria-pressed', String(button.getAttribute('data-zoom') === zoom));
}

/** @param {string | null} id */
async function watch(id) {
  current?.abort();
  const img = byId('live-frame', HTMLImageElement);
  img.hidden = true;
  img.removeAttribute('src');
  delete img.dataset.seq;
  pageSize = { width: 0, height: 0 };
  showUrl('');
  if (id === null) {
    status('Select a session.');
    return;
  }
  const controller = new AbortController();
  current = controller;
  streamSize = wantedSize();
  section().dataset.size = streamSize;
  status('Connecting…');
  try {
    const response = await openStream(
      `/sessions/${encodeURIComponent(id)}/screencast${streamSize === 'full' ? '?size=full' : ''}`,
      { signal: controller.signal },
    );
    if (response.status === 404) {
      status('The session is gone, or the live view is not available on this service.');
      input.stop('The session is gone.');
      return;
    }
    if (!response.ok) {
      status(`The live view answered HTTP ${response.status}.`);
      return;
    }
    status('Live');
    for await (const message of readSse(response)) {
      if (controller.signal.aborted) return;
      if (message.event === 'frame') showFrame(/** @type {Frame} */ (parseJson(message.data)));
      else if (message.event === 'location') {
        const location = /** @type {{ url?: unknown }} */ (parseJson(message.data));
        showUrl(typeof location.url === 'string' ? location.url : '');
      } else if (message.event === 'end') {
        status('The session ended.');
        input.stop('The session ended.');
        return;
      }
    }
    if (!controller.signal.aborted) status('The live view stopped.');
  } catch (error) {
    if (controller.signal.aborted) return;
    status(error instanceof ApiError ? error.message : `The live view failed: ${messageOf(error)}`);
  }
}

/** Opens the stream again when the size the view needs changed (zoom or full screen). */
function resizeStream() {
  applyZoom();
  if (wantedSize() !== streamSize) void watch(selectedSession());
}

/** @param {Zoom} next */
function setZoom(next) {
  zoom = next;
  resizeStream();
}

function syncFullScreenButton() {
  const on = isFullScreen();
  const button = byId('live-fullscreen', HTMLButtonElement);
  button.setAttribute('aria-pressed', String(on));
  button.textContent = on ? 'Exit full screen' : 'Full screen';
}

/** Full screen by the Fullscreen API; where it is refused (an iframe, a policy), a fixed overlay. */
async function toggleFullScreen() {
  const live = section();
  if (document.fullscreenElement === live) await document.exitFullscreen();
  else if (live.classList.contains('overlay')) live.classList.remove('overlay');
  else if (document.fullscreenEnabled) {
    try {
      await live.requestFullscreen();
    } catch (error) {
      live.classList.add('overlay');
      status(`Full screen refused (${messageOf(error)}): shown over the console instead.`);
    }
  } else live.classList.add('overlay');
  syncFullScreenButton();
  resizeStream();
}

/** The frame's displayed box, and the page size it shows (for the mapping to CSS pixels). */
function frameGeometry() {
  const img = byId('live-frame', HTMLImageElement);
  if (img.hidden || pageSize.width === 0) return undefined;
  return { rect: img.getBoundingClientRect(), width: pageSize.width, height: pageSize.height };
}

const input = new LiveInput({ geometry: frameGeometry, status });

let wired = false;

function wire() {
  for (const button of section().querySelectorAll('button[data-zoom]'))
    button.addEventListener('click', () => {
      const value = ZOOMS.find((z) => z === button.getAttribute('data-zoom'));
      if (value !== undefined) setZoom(value);
    });
  byId('live-fullscreen', HTMLButtonElement).addEventListener('click', () => {
    toggleFullScreen().catch((error) => status(`Full screen failed: ${messageOf(error)}`));
  });
  document.addEventListener('fullscreenchange', () => {
    syncFullScreenButton();
    resizeStream();
  });
  // The overlay has no browser-provided way out: Escape leaves it, unless the page is being driven.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !input.driving && section().classList.contains('overlay')) {
      section().classList.remove('overlay');
      syncFullScreenButton();
      resizeStream();
    }
  });
  input.wire(byId('live-screen', HTMLDivElement), byId('live-frame', HTMLImageElement));
}

export function startLiveView() {
  void watch(selectedSession());
  if (wired) return;
  wired = true;
  wire();
  onSessionChange((id) => {
    input.setSession(id);
    void watch(id);
  });
  input.setSession(selectedSession());
}

export function stopLiveView() {
  current?.abort();
  current = undefined;
  input.stop('');
}
