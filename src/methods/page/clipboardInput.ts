// The input methods' side of the per-session clipboard (browser/engine/sessionClipboard.ts): a paste chord
// pastes the session's own clipboard instead of the browser's shared one, typing that would press
// one is refused, and so is the middle button, which pastes on Linux. A tab attached from the user's
// own browser (tabs.attach) has no service clipboard: its input goes through as it is.
import type { Session } from '../../browser/session/session.js';
import {
  clipboardOf,
  heldOn,
  isPasteChord,
  pasteInto,
  typingPastes,
} from '../../browser/engine/sessionClipboard.js';
import { ServiceError } from '../../errors/serviceError.js';

function refuse(method: string, path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for ${method}: ${message}`, {
    errors: [{ path, message, keyword: 'clipboard', params: {} }],
  });
}

/**
 * Presses `key` on the active page, or, when it is a paste chord (Control+V, Shift+Insert, V while
 * page.keyboard holds Control), pastes the session's clipboard where the focus is (`focus` first
 * moves it, as locator.press would). A paste sends no key events: the page sees the paste event and
 * the inserted text.
 */
export async function pressOrPaste(
  session: Session,
  key: string,
  press: () => Promise<void>,
  focus?: () => Promise<void>,
): Promise<void> {
  const clipboard = clipboardOf(session.context);
  if (clipboard === undefined || !isPasteChord(key, heldOn(session.page))) return press();
  if (focus !== undefined) await focus();
  await pasteInto(session.page, clipboard);
}

/** Refuses text whose keys would paste (a v typed while page.keyboard holds Control down). */
export function checkTyping(method: string, session: Session, text: string): void {
  if (clipboardOf(session.context) !== undefined && typingPastes(text, heldOn(session.page)))
    throw refuse(
      method,
      '/text',
      'typing a v while Control is held down would paste: release Control first (page.keyboard up), or press Control+V to paste the session clipboard',
    );
}

/** Refuses the middle button: on Linux it pastes the selection of the browser all sessions share. */
export function checkButton(method: string, session: Session, button: string | undefined): void {
  if (button === 'middle' && clipboardOf(session.context) !== undefined)
    throw refuse(
      method,
      '/button',
      "the middle button is not available: in Chromium on Linux it pastes the clipboard every session of the shared browser writes to. To open a link in a new page, click with modifiers ['Control']",
    );
}
