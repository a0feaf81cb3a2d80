// page.keyboard, page.mouse, page.drag and page.setViewport of issue 11 on the fixture pages of
// test/fixtures/routes/acting.ts (and the /widgets hover menu): each checked by what the page saw,
// and each rule refused with INVALID_PARAMS before anything reaches the page.
import { describe, expect, it } from 'vitest';
import { KEY_NAMES } from '../../src/methods/page/keyNames.js';
import {
  MAX_INSERT_TEXT_CHARS,
  MAX_MOUSE_STEPS,
  MAX_TYPE_CHARS,
  MAX_TYPE_DELAY_MS,
  MAX_VIEWPORT_HEIGHT_PX,
  MAX_VIEWPORT_WIDTH_PX,
  MIN_VIEWPORT_PX,
} from '../../src/methods/params.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';
import { RpcCallError, waitFor } from '../helpers/testService.js';

const suite = useServiceSuite();

async function open(path: string): Promise<BoundSession> {
  return bindSession(suite.service, await suite.open(path));
}

/** The center of an element's box, in viewport CSS pixels. */
async function centerOf(s: BoundSession, selector: string): Promise<{ x: number; y: number }> {
  return s.evaluate<{ x: number; y: number }>(
    `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
  );
}

describe('page.keyboard', () => {
  it('presses chords at page level: Control+A selects the text of the focused field, Shift+Tab moves back', async () => {
    const s = await open('/keys');
    await s.call('page.focus', { selector: '#note' });
    expect(await s.call('page.keyboard', { action: 'press', key: 'Control+A' })).toMatchObject({ ok: true });
    // selectionchange is a task the browser queues after the key: it may run after the answer.
    await waitFor(async () => (await s.text('#selection')) === '0-11', 5000, 'the selection readout');
    expect(await s.text('#keys')).toMatch(
      /keydown Control\+ctrl \| keydown [aA]\+ctrl \| keyup [aA]\+ctrl \| keyup Control/,
    );
    await s.call('page.keyboard', { action: 'press', key: 'Shift+Tab' });
    expect(await s.text('#focus')).toBe('first');
    await s.call('page.keyboard', { action: 'press', key: 'Tab' });
    await s.call('page.keyboard', { action: 'press', key: 'Tab' });
    expect(await s.text('#focus')).toBe('second');
    await s.close();
  });

  it('holds a key down across calls (Shift with a typed key), and releases it', async () => {
    const s = await open('/keys');
    await s.call('page.focus', { selector: '#second' });
    await s.call('page.keyboard', { action: 'down', key: 'Shift' });
    await s.call('page.keyboard', { action: 'press', key: 'KeyB' });
    await s.call('page.keyboard', { action: 'up', key: 'Shift' });
    await s.call('page.keyboard', { action: 'press', key: 'c', delay: 20 });
    expect(await s.evaluate("document.getElementById('second').value")).toBe('Bc');
    expect(await s.text('#keys')).toContain('keydown B+shift | keyup B+shift | keyup Shift');
    await s.close();
  });

  it('inserts text without key events, and types text key by key', async () => {
    const s = await open('/keys');
    await s.call('page.focus', { selector: '#second' });
    await s.call('page.keyboard', { action: 'insertText', text: 'héllo ✓ ' });
    expect(await s.text('#keys')).toBe('');
    await s.call('page.keyboard', { action: 'type', text: 'ab', delay: 10 });
    expect(await s.evaluate("document.getElementById('second').value")).toBe('héllo ✓ ab');
    expect(await s.text('#keys')).toBe('keydown a | keyup a | keydown b | keyup b');
    await s.close();
  });

  it('every key name it accepts is one Playwright presses', async () => {
    const s = bindSession(
      suite.service,
      (await suite.service.call<{ session_id: string }>('session.create', {})).session_id,
    );
    for (const key of KEY_NAMES) {
      await s.call('page.keyboard', { action: 'down', key });
      await s.call('page.keyboard', { action: 'up', key });
    }
    await s.call('page.keyboard', { action: 'press', key: 'ControlOrMeta+Shift++' });
    await s.close();
  });

  it('refuses an unknown key with a hint, and params that do not fit the action', async () => {
    const s = await open('/keys');
    await s.call('page.focus', { selector: '#second' });
    const ctrl = await s.fails('page.keyboard', { action: 'press', key: 'Ctrl+A' }, -32602);
    expect(ctrl.message).toContain('unknown key "Ctrl" (key 1 of "Ctrl+A"): did you mean "Control"?');
    const enter = await s.fails('page.keyboard', { action: 'press', key: 'enter' }, -32602);
    expect(enter.message).toContain('did you mean "Enter"?');
    const foo = await s.fails('page.keyboard', { action: 'press', key: 'Foo' }, -32602);
    expect(foo.message).toContain('ArrowDown');
    await s.fails('page.keyboard', { action: 'press', key: 'Control+' }, -32602);
    const chord = await s.fails('page.keyboard', { action: 'down', key: 'Control+A' }, -32602);
    expect(chord.message).toContain('not a chord');
    await s.fails('page.keyboard', { action: 'down', key: 'esc' }, -32602);
    await s.fails('page.keyboard', { action: 'press' }, -32602);
    await s.fails('page.keyboard', { action: 'press', key: 'a', text: 'a' }, -32602);
    await s.fails('page.keyboard', { action: 'type' }, -32602);
    await s.fails('page.keyboard', { action: 'insertText', text: 'a', key: 'a' }, -32602);
    await s.fails('page.keyboard', { action: 'insertText', text: 'a', delay: 5 }, -32602);
    await s.fails('page.keyboard', { action: 'up', key: 'a', delay: 5 }, -32602);
    await s.fails('page.keyboard', { action: 'hold', key: 'a' }, -32602);
    const long = await s.fails(
      'page.keyboard',
      { action: 'type', text: 'x'.repeat(MAX_TYPE_CHARS + 1) },
      -32602,
    );
    expect(long.message).toContain('insertText');
    await s.fails(
      'page.keyboard',
      { action: 'insertText', text: 'x'.repeat(MAX_INSERT_TEXT_CHARS + 1) },
      -32602,
    );
    await s.fails('page.keyboard', { action: 'type', text: 'x', delay: MAX_TYPE_DELAY_MS + 1 }, -32602);
    const slow = await s.fails(
      'page.keyboard',
      { action: 'type', text: 'x'.repeat(100), delay: 100, timeout: 5000 },
      -32602,
    );
    expect(slow.message).toContain('raise timeout or lower delay');
    expect(await s.evaluate("document.getElementById('second').value")).toBe('');
    expect(await s.text('#keys')).toBe('');
    await s.close();
  });
});

describe('page.mouse', () => {
  const lines = async (s: BoundSession) => (await s.text('#log')).split('\n');

  it('moves in steps, clicks, right-clicks and double-clicks at x,y', async () => {
    const s = await open('/pointer-pad');
    expect(await s.call('page.mouse', { action: 'move', x: 100, y: 200, steps: 5 })).toMatchObject({
      ok: true,
    });
    expect(Number(await s.text('#moves'))).toBeGreaterThanOrEqual(5);
    expect(await s.text('#last')).toBe('mousemove 100 200 0 0');
    await s.call('page.mouse', { action: 'click', x: 300, y: 400 });
    expect(await lines(s)).toEqual(['mousedown 300 400 0 1', 'mouseup 300 400 0 0', 'click 300 400 0 0']);
    await s.call('page.mouse', { action: 'click', x: 310, y: 410, button: 'right' });
    expect((await lines(s)).slice(3)).toEqual([
      'mousedown 310 410 2 2',
      'contextmenu 310 410 2 2',
      'mouseup 310 410 2 0',
      'auxclick 310 410 2 0',
    ]);
    await s.call('page.mouse', { action: 'dblclick', x: 10.5, y: 20 });
    expect((await lines(s)).at(-1)).toMatch(/^dblclick 1[01] 20 0 0$/);
    await s.close();
  });

  it('presses, moves and releases a button; turns the wheel; a held Shift reaches the click', async () => {
    const s = await open('/pointer-pad');
    await s.call('page.mouse', { action: 'down', x: 50, y: 50 });
    await s.call('page.mouse', { action: 'move', x: 150, y: 60, steps: 3 });
    expect(await s.text('#last')).toBe('mousemove 150 60 0 1');
    await s.call('page.mouse', { action: 'up' });
    // Pressed and released over the same element: the page also sees a click.
    expect(await lines(s)).toEqual(['mousedown 50 50 0 1', 'mouseup 150 60 0 0', 'click 150 60 0 0']);
    await s.call('page.mouse', { action: 'wheel', x: 200, y: 210, deltaY: 120 });
    await s.call('page.mouse', { action: 'wheel', deltaX: -40 });
    await waitFor(async () => (await lines(s)).length === 5, 5000, 'the wheel events');
    expect((await lines(s)).slice(3)).toEqual(['wheel 200 210 0 120', 'wheel 200 210 -40 0']);
    await s.call('page.keyboard', { action: 'down', key: 'Shift' });
    await s.call('page.mouse', { action: 'click', x: 5, y: 5 });
    await s.call('page.keyboard', { action: 'up', key: 'Shift' });
    expect((await lines(s)).at(-1)).toBe('click 5 5 0 0 shift');
    await s.close();
  });

  it('refuses a point outside the viewport, half a point, and params that do not fit the action', async () => {
    const s = await open('/pointer-pad');
    const outside = await s.fails('page.mouse', { action: 'click', x: 1280, y: 10 }, -32602);
    expect(outside.message).toContain('outside the viewport (1280×800 CSS pixels)');
    await s.fails('page.mouse', { action: 'move', x: 10, y: 800 }, -32602);
    await s.fails('page.mouse', { action: 'move', x: -1, y: 10 }, -32602);
    await s.fails('page.mouse', { action: 'move', x: MAX_VIEWPORT_WIDTH_PX + 1, y: 10 }, -32602);
    await s.fails('page.mouse', { action: 'click', x: 10 }, -32602);
    await s.fails('page.mouse', { action: 'click' }, -32602);
    await s.fails('page.mouse', { action: 'down', steps: 3 }, -32602);
    await s.fails('page.mouse', { action: 'move', x: 1, y: 1, steps: MAX_MOUSE_STEPS + 1 }, -32602);
    await s.fails('page.mouse', { action: 'click', x: 1, y: 1, deltaY: 10 }, -32602);
    await s.fails('page.mouse', { action: 'wheel' }, -32602);
    await s.fails('page.mouse', { action: 'tap', x: 1, y: 1 }, -32602);
    expect(await s.text('#log')).toBe('');
    expect(await s.text('#moves')).toBe('0');
    await s.close();
  });
});

describe('page.drag', () => {
  it('reorders a list driven by pointer events: onto an element by selector, by ref, and to x,y', async () => {
    const s = await open('/sortable');
    expect(
      await s.call('page.drag', { selector: '#list li[data-id=a]', targetSelector: '#list li[data-id=c]' }),
    ).toMatchObject({ ok: true });
    expect(await s.text('#order')).toBe('b,c,a,d');
    // The default steps: several pointermoves between press and release, as a hand makes.
    expect(Number(await s.text('#moves'))).toBeGreaterThanOrEqual(10);
    const { snapshot } = await s.call<{ snapshot: string }>('page.snapshot');
    const item = (name: string) => new RegExp(`listitem \\[ref=(e\\d+)\\]: ${name}`).exec(snapshot)?.[1];
    await s.call('page.drag', { ref: item('Delta'), targetRef: item('Bravo'), steps: 3 });
    expect(await s.text('#order')).toBe('d,b,c,a');
    const top = await centerOf(s, '#list li[data-id=d]');
    await s.call('page.drag', { selector: '#list li[data-id=a]', x: top.x, y: top.y - 10 });
    expect(await s.text('#order')).toBe('a,d,b,c');
    await s.close();
  });

  it('drags an HTML5 draggable element (dragstart, dragover, drop, dragend)', async () => {
    const s = await open('/draggable');
    await s.call('page.drag', { selector: 'li[data-id="1"]', targetSelector: 'li[data-id="3"]' });
    expect(await s.text('#order')).toBe('2,3,1');
    expect((await s.text('#events')).split(',').sort()).toEqual(['dragend', 'dragover', 'dragstart', 'drop']);
    const first = await centerOf(s, 'li[data-id="2"]');
    await s.call('page.drag', { selector: 'li[data-id="1"]', x: first.x, y: first.y });
    expect(await s.text('#order')).toBe('1,2,3');
    await s.close();
  });

  it('refuses a drag without a target, with two, off the viewport, and waits out a missing source', async () => {
    const s = await open('/sortable');
    const none = await s.fails('page.drag', { selector: '#list li' }, -32602);
    expect(none.message).toContain('give where to drop');
    const two = await s.fails(
      'page.drag',
      { selector: '#list li', targetSelector: '#list li', x: 5, y: 5 },
      -32602,
    );
    expect(two.message).toContain('not several');
    await s.fails('page.drag', { selector: '#list li', x: 5 }, -32602);
    await s.fails('page.drag', { selector: '#list li', x: 5, y: 900 }, -32602);
    await s.fails('page.drag', { targetSelector: '#list li' }, -32602);
    const missing = await s.fails('page.drag', { selector: '#nothing', x: 5, y: 5, timeout: 300 }, -32001);
    expect(missing.data).toMatchObject({ method: 'page.drag', timeoutMs: 300 });
    await s.fails(
      'page.drag',
      { selector: '#list li >> nth=0', targetSelector: '#nothing', timeout: 300 },
      -32001,
    );
    expect(await s.text('#order')).toBe('a,b,c,d');
    await s.close();
  });
});

describe('page.setViewport', () => {
  it('resizes the viewport mid-session: the page lays out again, the device scale factor stays', async () => {
    const s = await open('/viewport');
    expect(await s.text('#size')).toBe('1280x800');
    expect(await s.call('page.setViewport', { width: 800, height: 600 })).toEqual({
      width: 800,
      height: 600,
    });
    await waitFor(async () => (await s.text('#size')) === '800x600', 5000, 'the resize');
    expect(await s.text('#dpr')).toBe('1');
    // Mouse bounds follow the new viewport.
    const outside = await s.fails('page.mouse', { action: 'move', x: 900, y: 10 }, -32602);
    expect(outside.message).toContain('800×600');
    await s.call('page.setViewport', { width: MIN_VIEWPORT_PX, height: MAX_VIEWPORT_HEIGHT_PX });
    await waitFor(
      async () => (await s.text('#size')) === `${MIN_VIEWPORT_PX}x${MAX_VIEWPORT_HEIGHT_PX}`,
      5000,
      'the resize',
    );
    await s.close();
  });

  it('refuses a viewport too big, too small or half given', async () => {
    const s = await open('/viewport');
    await s.fails('page.setViewport', { width: MAX_VIEWPORT_WIDTH_PX + 1, height: 600 }, -32602);
    await s.fails('page.setViewport', { width: 800, height: MAX_VIEWPORT_HEIGHT_PX + 1 }, -32602);
    await s.fails('page.setViewport', { width: MIN_VIEWPORT_PX - 1, height: 600 }, -32602);
    await s.fails('page.setViewport', { width: 800 }, -32602);
    await s.fails('page.setViewport', { width: 800.5, height: 600 }, -32602);
    expect(await s.text('#size')).toBe('1280x800');
    expect(await s.text('#resizes')).toBe('0');
    await s.close();
  });
});

describe('a custom ARIA listbox, driven by the input methods', () => {
  it('opens on click and takes an option by click (on its ref)', async () => {
    const s = await open('/listbox');
    await s.call('page.click', { selector: '#fruit' });
    expect(await s.evaluate("document.getElementById('fruit').getAttribute('aria-expanded')")).toBe('true');
    await s.call('page.click', { ref: await s.ref(/option "Banana"/) });
    expect(await s.text('#chosen')).toBe('Banana');
    expect(await s.evaluate("document.getElementById('fruits').hidden")).toBe(true);
    await s.close();
  });

  it('opens with ArrowDown and takes the highlighted option with Enter', async () => {
    const s = await open('/listbox');
    await s.call('page.focus', { selector: '#fruit' });
    for (let i = 0; i < 3; i++) await s.call('page.keyboard', { action: 'press', key: 'ArrowDown' });
    await s.call('page.keyboard', { action: 'press', key: 'ArrowUp' });
    await s.call('page.keyboard', { action: 'press', key: 'Enter' });
    expect(await s.text('#chosen')).toBe('Banana');
    await s.close();
  });

  it('takes an option clicked with page.mouse at its coordinates', async () => {
    const s = await open('/listbox');
    const combo = await centerOf(s, '#fruit');
    await s.call('page.mouse', { action: 'click', ...combo });
    const cherry = await centerOf(s, '#opt-cherry');
    await s.call('page.mouse', { action: 'click', ...cherry });
    expect(await s.text('#chosen')).toBe('Cherry');
    await s.close();
  });

  it('the /widgets hover menu opens under page.mouse and closes when the mouse leaves', async () => {
    const s = await open('/widgets');
    const menu = await centerOf(s, '#menu button');
    await s.call('page.mouse', { action: 'move', ...menu, steps: 2 });
    expect(await s.text('#hover-out')).toBe('menu open');
    const shown = () => s.evaluate<string>("getComputedStyle(document.querySelector('#menu .sub')).display");
    expect(await shown()).toBe('block');
    await s.call('page.mouse', { action: 'move', x: 1200, y: 700 });
    expect(await shown()).toBe('none');
    await s.close();
  });
});

describe('a page whose main thread is busy', () => {
  it('page.keyboard and page.mouse fail with TIMEOUT, and the session takes input again after', async () => {
    const s = await open('/keys');
    await s.call('page.focus', { selector: '#second' });
    // The page's own script holds its main thread for 4 s, a moment after this call returns.
    await s.evaluate('setTimeout(() => { const end = Date.now() + 4000; while (Date.now() < end); }, 50)');
    await waitFor(
      async () =>
        s.call('page.keyboard', { action: 'press', key: 'a', timeout: 300 }).then(
          () => false,
          (error: unknown) => error instanceof RpcCallError && error.code === -32001,
        ),
      5000,
      'a TIMEOUT while the page is busy',
    );
    const mouse = await s.fails('page.mouse', { action: 'move', x: 5, y: 5, timeout: 300 }, -32001);
    expect(mouse.message).toContain('the page did not take the input');
    await waitFor(
      async () =>
        s.call('page.keyboard', { action: 'press', key: 'b', timeout: 1000 }).then(
          () => true,
          () => false,
        ),
      15_000,
      'the page to take keys again',
    );
    expect(await s.evaluate("document.getElementById('second').value")).toMatch(/b$/);
    await s.close();
  });
});
