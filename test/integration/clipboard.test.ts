// A clipboard per session. Chromium has one clipboard per browser process: before this, a session
// pasted (Control+V, Shift+Insert, a middle click) what another caller's session had copied. Now a
// paste chord pastes the session's own clipboard, the middle button is refused, and the page's
// navigator.clipboard reads and writes the session's clipboard (reads only with clipboard-read).
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS } from '../../src/config/configKeys.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite, type ServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
/** The default of the config key; the suite above runs with it. */
const MAX_CLIPBOARD_CHARS = Number(CONFIG_DEFAULTS.MAX_CLIPBOARD_CHARS);

async function session(
  params: Record<string, unknown> = {},
  on: ServiceSuite = suite,
): Promise<BoundSession> {
  const { session_id } = await on.service.call<{ session_id: string }>('session.create', params);
  const s = bindSession(on.service, session_id);
  await s.call('page.goto', { url: `${on.fixture.url}/state/clipboard`, waitUntil: 'load' });
  return s;
}

const value = (s: BoundSession, id: string) => s.evaluate<string>(`document.getElementById('${id}').value`);

/** Selects all of #src and copies it with the keyboard. */
async function copySource(s: BoundSession): Promise<void> {
  await s.call('page.focus', { selector: '#src' });
  await s.call('page.keyboard', { action: 'press', key: 'Control+A' });
  await s.call('page.keyboard', { action: 'press', key: 'Control+C' });
}

describe('a clipboard per session', () => {
  it("a paste never reaches another session's copy, and pastes the session's own", async () => {
    const a = await session();
    const b = await session();
    try {
      await copySource(a);
      // B pastes: it copied nothing, so nothing comes, although A's copy is in the browser's clipboard.
      await b.call('page.focus', { selector: '#dst' });
      for (const key of ['Control+V', 'Shift+Insert', 'Control+Shift+V'])
        await b.call('page.keyboard', { action: 'press', key });
      await b.call('page.press', { selector: '#dst', key: 'Control+v' });
      expect(await value(b, 'dst')).toBe('');
      // A pastes its own copy, with a paste event carrying the text.
      await a.call('page.press', { selector: '#dst', key: 'Control+V' });
      expect(await value(a, 'dst')).toBe('secret-of-this-session');
      expect(await a.text('#pasted')).toBe('secret-of-this-session');
      await a.call('page.keyboard', { action: 'press', key: 'Shift+Insert' });
      expect(await value(a, 'dst')).toBe('secret-of-this-sessionsecret-of-this-session');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('copy and cut from the keyboard, a copy button, Control held down, and a paste into an iframe', async () => {
    const s = await session();
    try {
      await s.call('page.focus', { selector: '#src' });
      await s.call('page.keyboard', { action: 'press', key: 'Control+A' });
      await s.call('page.keyboard', { action: 'press', key: 'Control+X' });
      expect(await value(s, 'src')).toBe('');
      // V pressed while page.keyboard holds Control down is a paste too.
      await s.call('page.focus', { selector: '#dst' });
      await s.call('page.keyboard', { action: 'down', key: 'Control' });
      await s.call('page.keyboard', { action: 'press', key: 'v' });
      await s.call('page.keyboard', { action: 'up', key: 'Control' });
      expect(await value(s, 'dst')).toBe('secret-of-this-session');
      // A button that writes navigator.clipboard writes the session's clipboard.
      await s.call('page.click', { selector: '#copy' });
      await s.evaluate(
        "(document.getElementById('frame').contentDocument.getElementById('inner').focus(), true)",
      );
      await s.call('page.keyboard', { action: 'press', key: 'Control+V' });
      expect(
        await s.evaluate<string>(
          "document.getElementById('frame').contentDocument.getElementById('inner').value",
        ),
      ).toBe('from-the-button');
    } finally {
      await s.close();
    }
  });

  it('navigator.clipboard.readText answers only with clipboard-read, and only the session’s own text', async () => {
    const other = await session();
    const reader = await session({ permissions: ['clipboard-read', 'clipboard-write'] });
    const plain = await session();
    try {
      await copySource(other);
      await reader.call('page.click', { selector: '#read' });
      expect(await reader.text('#out')).toBe('read:');
      await copySource(reader);
      await reader.call('page.click', { selector: '#read' });
      expect(await reader.text('#out')).toBe('read: secret-of-this-session');
      await copySource(plain);
      await plain.call('page.click', { selector: '#read' });
      expect(await plain.text('#out')).toBe('refused: NotAllowedError');
      // A frame of another origin (localhost under 127.0.0.1) is refused, even with the grant.
      const thirdParty = suite.fixture.url.replace('127.0.0.1', 'localhost');
      await reader.evaluate(
        `new Promise((done) => { const f = document.createElement('iframe'); f.id = 'third'; f.onload = done; f.src = '${thirdParty}/state/clipboard'; document.body.append(f); })`,
      );
      const inFrame = '#third >> internal:control=enter-frame >> ';
      await reader.call('page.click', { selector: `${inFrame}#read` });
      expect(await reader.text(`${inFrame}#out`)).toBe('refused: NotAllowedError');
    } finally {
      await other.close();
      await reader.close();
      await plain.close();
    }
  });

  it('keeps at most MAX_CLIPBOARD_CHARS of a copy', async () => {
    const s = await session();
    try {
      await s.evaluate(`navigator.clipboard.writeText('x'.repeat(${MAX_CLIPBOARD_CHARS + 10}))`);
      await s.call('page.press', { selector: '#dst', key: 'Control+V' });
      expect(await s.evaluate('document.getElementById("dst").value.length')).toBe(MAX_CLIPBOARD_CHARS);
    } finally {
      await s.close();
    }
  });

  it('refuses the middle button (it pastes on Linux) and typing a v while Control is held', async () => {
    const s = await session();
    try {
      for (const [method, params] of [
        ['page.click', { selector: '#dst', button: 'middle' }],
        ['page.dblclick', { selector: '#dst', button: 'middle' }],
        ['page.mouse', { action: 'click', x: 10, y: 10, button: 'middle' }],
        ['page.mouse', { action: 'down', button: 'middle' }],
      ] as const) {
        const refused = await s.fails(method, params, -32602);
        expect(refused.message, method).toContain('middle button is not available');
      }
      await s.call('page.keyboard', { action: 'down', key: 'Control' });
      const typing = await s.fails('page.type', { selector: '#dst', text: 'move' }, -32602);
      expect(typing.message).toContain('release Control first');
      await s.fails('page.keyboard', { action: 'type', text: 'v' }, -32602);
      await s.call('page.keyboard', { action: 'up', key: 'Control' });
      await s.call('page.type', { selector: '#dst', text: 'move' });
      expect(await value(s, 'dst')).toBe('move');
      // The right button and a left click with Control still work.
      await s.call('page.click', { selector: '#dst', button: 'right' });
      await s.call('page.click', { selector: '#dst', modifiers: ['Control'] });
    } finally {
      await s.close();
    }
  });
});

describe('MAX_CLIPBOARD_CHARS set lower', () => {
  const lowered = useServiceSuite({ MAX_CLIPBOARD_CHARS: '100' });

  it('cuts a copy at the configured size, pooled context or not', async () => {
    // The first session takes a pooled context, the one with a permission a new one: both are cut.
    for (const params of [{}, { permissions: ['clipboard-read'] }]) {
      const s = await session(params, lowered);
      try {
        await s.evaluate(`navigator.clipboard.writeText('x'.repeat(150))`);
        await s.call('page.press', { selector: '#dst', key: 'Control+V' });
        expect(await value(s, 'dst')).toBe('x'.repeat(100));
        // A keyboard copy of a longer selection too.
        await s.evaluate(`(document.getElementById('src').value = 'y'.repeat(150), true)`);
        await s.evaluate(`(document.getElementById('dst').value = '', true)`);
        await copySource(s);
        await s.call('page.press', { selector: '#dst', key: 'Control+V' });
        expect(await value(s, 'dst')).toBe('y'.repeat(100));
      } finally {
        await s.close();
      }
    }
  });
});
