// A clipboard per session. Chromium keeps one clipboard per browser process: a page of one session
// pasted (Control+V, Shift+Insert, a middle click) what a page of another session had copied. Pages
// cannot paste by themselves (execCommand('paste') is refused, clipboard-read is never granted), so
// every paste is a gesture the service sends: the input methods turn a paste chord into a paste of
// the session's own clipboard (a paste event, then the text inserted), and refuse the middle button.
// What the session's pages copy (copy and cut events, navigator.clipboard writes) is caught in the
// page and kept here; the browser's own clipboard is written but never read.
import type { BrowserContext, Frame, Page } from 'playwright-core';

/** The page-side name of the binding the clipboard script calls; the script removes it from window. */
const BINDING = '__pwjClipboard';

/**
 * Runs in every document of a service context, after the binding exists and before the page's own
 * scripts: copy and cut events (trusted ones, after the page's handlers had their say) and
 * navigator.clipboard writes store into the session's clipboard, cut at maxChars
 * (MAX_CLIPBOARD_CHARS); navigator.clipboard reads answer from it when the session was granted
 * clipboard-read, else fail as a browser without the grant does.
 */
export function clipboardScript(maxChars: number): string {
  if (!Number.isSafeInteger(maxChars) || maxChars < 1)
    throw new RangeError('maxChars must be a positive integer');
  return `(() => {
  const call = window.${BINDING};
  if (typeof call !== 'function') return;
  delete window.${BINDING};
  const max = ${maxChars};
  // Taken before the page's scripts can replace them: the cut happens in the page.
  const toText = String;
  const slice = String.prototype.slice;
  const cut = (text) => slice.call(toText(text), 0, max);
  // A read is answered in the top document and in frames of its origin, while the page has the focus,
  // as Chromium asks of a real clipboard read; a third-party frame is refused.
  const sameOrigin = () => {
    try {
      return window === window.top || window.top.location.origin === location.origin;
    } catch (e) {
      return false; /* the top document is of another origin */
    }
  };
  const selected = () => {
    const el = document.activeElement;
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      try {
        if (el.selectionStart !== null && el.selectionEnd !== null) return el.value.slice(el.selectionStart, el.selectionEnd);
      } catch (e) { /* an input type without a text selection (email, number): the document's selection */ }
    }
    return String(getSelection() ?? '');
  };
  const store = (text) => call('write', cut(text));
  for (const type of ['copy', 'cut']) {
    addEventListener(type, (event) => {
      if (!event.isTrusted) return;
      store(event.defaultPrevented ? (event.clipboardData ? event.clipboardData.getData('text/plain') : '') : selected());
    });
  }
  if (typeof Clipboard !== 'function') return;
  const denied = () => new DOMException('Read permission denied.', 'NotAllowedError');
  const read = () => {
    if (!sameOrigin() || !document.hasFocus()) return Promise.reject(denied());
    return call('read').then((text) => { if (typeof text !== 'string') throw denied(); return text; });
  };
  Clipboard.prototype.writeText = function (text) { return store(text).then(() => undefined); };
  Clipboard.prototype.readText = read;
  Clipboard.prototype.write = async function (items) {
    for (const item of items) {
      if (item.types.includes('text/plain')) return store(await (await item.getType('text/plain')).text()).then(() => undefined);
    }
    return store('').then(() => undefined);
  };
  Clipboard.prototype.read = () => read().then((text) => [new ClipboardItem({ 'text/plain': new Blob([text], { type: 'text/plain' }) })]);
})();`;
}

/** The clipboard of one session: what its pages copied, and whether its pages may read it. */
export class SessionClipboard {
  private content = '';
  /** Set when session.create granted clipboard-read: navigator.clipboard.readText answers. */
  readAllowed = false;

  /** maxChars: MAX_CLIPBOARD_CHARS, what the clipboard holds at most; a longer copy is cut. */
  constructor(private readonly maxChars: number) {}

  get text(): string {
    return this.content;
  }

  write(text: string): void {
    this.content = text.length > this.maxChars ? text.slice(0, this.maxChars) : text;
  }

  /** A call of the page script: a write stores, a read answers the text or null (not granted). */
  fromPage(op: unknown, text: unknown): boolean | string | null {
    if (op === 'write' && typeof text === 'string') {
      this.write(text);
      return true;
    }
    if (op === 'read') return this.readAllowed ? this.content : null;
    return null;
  }
}

const clipboards = new WeakMap<BrowserContext, SessionClipboard>();

/**
 * Gives a new service context its clipboard of at most maxChars (MAX_CLIPBOARD_CHARS): the binding,
 * then the script (before any page exists).
 */
export async function installClipboard(context: BrowserContext, maxChars: number): Promise<void> {
  const script = clipboardScript(maxChars);
  const clipboard = new SessionClipboard(maxChars);
  clipboards.set(context, clipboard);
  await context.exposeBinding(BINDING, (_source, op: unknown, text: unknown) => clipboard.fromPage(op, text));
  await context.addInitScript(script);
}

/** The context's clipboard; undefined for a context the service did not make (an attached tab). */
export function clipboardOf(context: BrowserContext): SessionClipboard | undefined {
  return clipboards.get(context);
}

const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'ControlOrMeta']);

/** Modifiers a page's keyboard holds down (page.keyboard down without its up yet). */
const held = new WeakMap<Page, Set<string>>();

/** Keeps track of the modifiers page.keyboard holds: a key pressed meanwhile is pressed with them. */
export function noteKey(page: Page, action: 'down' | 'up', key: string): void {
  if (!MODIFIERS.has(key)) return;
  const set = held.get(page) ?? new Set<string>();
  if (action === 'down') set.add(key);
  else set.delete(key);
  held.set(page, set);
}

/** The modifiers page.keyboard holds down on this page. */
export function heldOn(page: Page): ReadonlySet<string> {
  return held.get(page) ?? new Set();
}

/**
 * Whether pressing `key` (a key or a chord such as Control+V) pastes, with `down` held: V with
 * Control (with or without Shift, Alt or Meta beside it), or Insert with Shift and without Control.
 */
export function isPasteChord(key: string, down: ReadonlySet<string>): boolean {
  // "Control++" is Control with the + key: split on a + that follows something.
  const parts = key.split(/(?<=.)\+/);
  const main = parts.pop() ?? '';
  const mods = new Set([...parts, ...down]);
  const control = mods.has('Control') || mods.has('ControlOrMeta');
  if (/^(v|V|KeyV)$/.test(main)) return control;
  if (main === 'Insert') return mods.has('Shift') && !control;
  return false;
}

/** Whether typing `text` would press a paste chord (a v while Control is held down). */
export function typingPastes(text: string, down: ReadonlySet<string>): boolean {
  return /[vV]/.test(text) && isPasteChord('v', down);
}

/** The frame whose document holds the focus (the innermost, when the focus is inside an iframe). */
async function focusedFrame(page: Page): Promise<Frame> {
  const frames = page.frames();
  const focused = await Promise.all(
    frames.map((frame) =>
      frame
        .evaluate(
          () =>
            document.hasFocus() &&
            !(document.activeElement instanceof HTMLIFrameElement) &&
            !(document.activeElement instanceof HTMLFrameElement),
        )
        // A frame detached meanwhile holds no focus.
        .catch(() => false),
    ),
  );
  return frames[focused.indexOf(true)] ?? page.mainFrame();
}

/**
 * Pastes the session's clipboard where the page's focus is, as a browser would: a paste event the
 * page can cancel (carrying the text), then, unless cancelled, the text inserted as typed input.
 */
export async function pasteInto(page: Page, clipboard: SessionClipboard): Promise<void> {
  const frame = await focusedFrame(page);
  const proceed = await frame.evaluate((text) => {
    const target = document.activeElement ?? document.body;
    const data = new DataTransfer();
    data.setData('text/plain', text);
    const event = new ClipboardEvent('paste', {
      clipboardData: data,
      bubbles: true,
      cancelable: true,
      composed: true,
    });
    return target.dispatchEvent(event);
  }, clipboard.text);
  if (proceed && clipboard.text !== '') await page.keyboard.insertText(clipboard.text);
}
