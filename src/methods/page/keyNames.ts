// The key names Playwright's keyboard accepts (its US layout, playwright-core 1.65), so a bad key is
// refused before the browser sees it, with a hint, instead of failing as an ACTION_FAILED.
// test/integration/input.test.ts presses every name listed here through the service.

/** Layout codes Playwright takes as key names: KeyA, Digit1, Enter, ArrowDown, F1 … */
const CODES = [
  'Escape',
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  'Backquote',
  ...Array.from({ length: 10 }, (_, i) => `Digit${i}`),
  'Minus',
  'Equal',
  'Backslash',
  'Backspace',
  'Tab',
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').map((c) => `Key${c}`),
  'BracketLeft',
  'BracketRight',
  'CapsLock',
  'Semicolon',
  'Quote',
  'Enter',
  'ShiftLeft',
  'Comma',
  'Period',
  'Slash',
  'ShiftRight',
  'ControlLeft',
  'MetaLeft',
  'AltLeft',
  'Space',
  'AltRight',
  'AltGraph',
  'MetaRight',
  'ContextMenu',
  'ControlRight',
  'PrintScreen',
  'ScrollLock',
  'Pause',
  'PageUp',
  'PageDown',
  'Insert',
  'Delete',
  'Home',
  'End',
  'ArrowLeft',
  'ArrowUp',
  'ArrowRight',
  'ArrowDown',
  'AudioVolumeMute',
  'AudioVolumeDown',
  'AudioVolumeUp',
  'MediaTrackNext',
  'MediaTrackPrevious',
  'MediaPlayPause',
  'NumLock',
  'NumpadDivide',
  'NumpadMultiply',
  'NumpadSubtract',
  ...Array.from({ length: 10 }, (_, i) => `Numpad${i}`),
  'NumpadAdd',
  'NumpadDecimal',
  'NumpadEnter',
];

/** Modifier names (ControlOrMeta is Control here, Meta on macOS). */
export const MODIFIER_KEYS = ['Shift', 'Control', 'Alt', 'Meta', 'ControlOrMeta'] as const;

/** Single characters of the US layout, unshifted and shifted, plus the newline aliases of Enter. */
const CHARACTERS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split(''),
  ...'`~!@#$%^&*()-_=+\\|[]{};:\'",<.>/? '.split(''),
  '\n',
  '\r',
];

/** Every key name page.keyboard accepts, alone or as the last key of a chord. */
export const KEY_NAMES: ReadonlySet<string> = new Set([...CODES, ...MODIFIER_KEYS, ...CHARACTERS]);

/** Names people (and models) write for keys, with Playwright's name for each. */
const ALIASES: Record<string, string> = {
  ctrl: 'Control',
  control: 'Control',
  cmd: 'Meta',
  command: 'Meta',
  win: 'Meta',
  super: 'Meta',
  option: 'Alt',
  opt: 'Alt',
  esc: 'Escape',
  return: 'Enter',
  del: 'Delete',
  ins: 'Insert',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  pgup: 'PageUp',
  pgdn: 'PageDown',
  pagedown: 'PageDown',
  pageup: 'PageUp',
  spacebar: 'Space',
  plus: '+',
};

const BY_LOWER_CASE = new Map([...CODES, ...MODIFIER_KEYS].map((name) => [name.toLowerCase(), name]));

/** Splits a chord as Playwright does: on +, except a + that is a key itself (Shift++, +). */
export function splitChord(chord: string): string[] {
  const keys: string[] = [];
  let building = '';
  for (const char of chord) {
    if (char === '+' && building !== '') {
      keys.push(building);
      building = '';
    } else building += char;
  }
  keys.push(building);
  return keys;
}

/** Playwright's name for a key someone wrote another way (ctrl, esc, enter …), if there is one. */
export function suggestKey(name: string): string | undefined {
  const lower = name.toLowerCase();
  return ALIASES[lower] ?? BY_LOWER_CASE.get(lower);
}

/**
 * Why a key or chord (Control+A, Shift+Tab, a) is not one Playwright can press, or undefined when
 * it is: an unknown name (with the name meant, when it can be guessed), an empty key, or a modifier
 * that is not a modifier.
 */
export function keyProblem(chord: string): string | undefined {
  const keys = splitChord(chord);
  for (const [i, key] of keys.entries()) {
    if (key === '') return `"${chord}" has an empty key: write chords as Control+A, Shift+Tab`;
    if (KEY_NAMES.has(key)) continue;
    const meant = suggestKey(key);
    const hint =
      meant !== undefined
        ? `did you mean "${meant}"?`
        : 'use a single character or a name such as Enter, Tab, Escape, Backspace, ArrowDown, PageUp, F5, Control, Shift, Alt, Meta, KeyA, Digit1';
    return `unknown key "${key}"${keys.length > 1 ? ` (key ${i + 1} of "${chord}")` : ''}: ${hint}`;
  }
  return undefined;
}
