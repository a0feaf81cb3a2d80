// Which key presses paste (browser/engine/sessionClipboard.ts): those become a paste of the session's own
// clipboard instead of the browser's shared one, so a chord missed here would leak between sessions.
import { describe, expect, it } from 'vitest';
import { isPasteChord, typingPastes } from '../../src/browser/engine/sessionClipboard.js';

const none = new Set<string>();

describe('isPasteChord', () => {
  it('is true for the chords Chromium pastes on (seen here: Control+V, Control+Shift+V, Shift+Insert), and for V with Control and any other modifier', () => {
    for (const key of [
      'Control+V',
      'Control+v',
      'Control+KeyV',
      'Control+Shift+V',
      'Shift+Control+v',
      'ControlOrMeta+V',
      'Shift+Insert',
      'Control+Alt+V',
    ])
      expect(isPasteChord(key, none), key).toBe(true);
  });

  it('counts the modifiers page.keyboard holds down', () => {
    expect(isPasteChord('v', new Set(['Control']))).toBe(true);
    expect(isPasteChord('KeyV', new Set(['ControlOrMeta']))).toBe(true);
    expect(isPasteChord('Insert', new Set(['Shift']))).toBe(true);
    expect(isPasteChord('Shift+Insert', new Set(['Control']))).toBe(false);
  });

  it('is false for copy, cut, select-all and plain keys', () => {
    for (const key of [
      'v',
      'V',
      'Control+C',
      'Control+X',
      'Control+A',
      'Control+Insert',
      'Insert',
      'Meta+V',
      'Alt+V',
      'Control++',
      '+',
      'Enter',
    ])
      expect(isPasteChord(key, none), key).toBe(false);
  });
});

describe('typingPastes', () => {
  it('is true only for a v typed while Control is held', () => {
    expect(typingPastes('move', new Set(['Control']))).toBe(true);
    expect(typingPastes('move', none)).toBe(false);
    expect(typingPastes('abc', new Set(['Control']))).toBe(false);
  });
});
