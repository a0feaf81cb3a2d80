// The page-level input: the keyboard and the mouse as a person uses them (not aimed at an
// element), dragging with real pointer events, and the viewport's size. Each is Playwright's own
// input (CDP Input.dispatch*), never an event synthesised in the page; each is bounded in time,
// since Playwright's page.keyboard, page.mouse and setViewportSize take no timeout of their own.
// Over 350 lines on purpose: four methods that share the viewport check, the deadline and the
// refusals (and the clipboard checks of clipboardInput.ts); apart, each would import them back.
import { Type } from '@sinclair/typebox';
import type { Page } from 'playwright-core';
import { DeadlineError, withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineActionMethod } from '../defineActionMethod.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { KEY_NAMES, keyProblem, suggestKey } from './keyNames.js';
import { checkButton, checkTyping, pressOrPaste } from './clipboardInput.js';
import { noteKey } from '../../browser/engine/sessionClipboard.js';
import { typeKeys } from './typeKeys.js';
import {
  ACTION_TIMEOUT_MS,
  DEFAULT_DRAG_STEPS,
  MAX_INSERT_TEXT_CHARS,
  MAX_MOUSE_STEPS,
  MAX_SCROLL_DELTA_PX,
  MAX_TYPE_CHARS,
  MAX_TYPE_DELAY_MS,
  MAX_VIEWPORT_HEIGHT_PX,
  MAX_VIEWPORT_WIDTH_PX,
  MIN_VIEWPORT_PX,
  MouseButton,
  Ok,
  Ref,
  Target,
  ViewportX,
  ViewportY,
  timeoutParam,
} from '../params.js';

const INPUT_ERRORS = ['TIMEOUT', 'ACTION_FAILED', 'INVALID_PARAMS'] as const;

/** INVALID_PARAMS for a rule between params that the schema cannot say, shaped like Ajv's. */
function refuse(method: string, path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for ${method}: ${message}`, {
    errors: [{ path, message, keyword: 'dependencies', params: {} }],
  });
}

/** Bounds browser input that has no timeout of its own: a page whose main thread is busy never acks it. */
function within<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return withDeadline(
    work,
    timeoutMs,
    () => new DeadlineError(what, timeoutMs, ': the page did not take the input (is a script holding it?)'),
  );
}

/** Refuses a point outside the page's current viewport: input there reaches no element of the page. */
function checkPoint(method: string, page: Page, x: number, y: number): void {
  // An adopted tab (tabs.attach) may have no emulated viewport: the schema's bounds are all there is.
  const viewport = page.viewportSize();
  if (viewport === null) return;
  const { width, height } = viewport;
  for (const [axis, value, limit] of [
    ['x', x, width],
    ['y', y, height],
  ] as const) {
    if (value >= limit)
      throw refuse(
        method,
        `/${axis}`,
        `${axis} ${value} is outside the viewport (${width}×${height} CSS pixels): 0 ≤ ${axis} < ${limit}; scroll the page or use page.setViewport to reach further`,
      );
  }
}

const KEY_DESCRIPTION =
  'A Playwright key name: a character (a, A, 1, /), a layout code (KeyA, Digit1), or a name such as Enter, Tab, Escape, Backspace, Delete, ArrowDown, PageUp, Home, F5, Control, Shift, Alt, Meta, ControlOrMeta. press takes a chord joined with +: Control+A, Shift+Tab, ControlOrMeta+Enter.';

export const pageKeyboard = defineActionMethod({
  name: 'page.keyboard',
  summary:
    'Use the keyboard at page level, on whatever has the focus: press a key or chord (Control+A, Shift+Tab), hold one down, release it, insert text, or type it key by key',
  description: `press: key down then up (a chord presses its modifiers around the last key; delay holds the key). down and up: one key, held until released, so a later page.mouse or page.keyboard call sees the modifier held. insertText: text as one input event, without key events (at most ${MAX_INSERT_TEXT_CHARS} characters). type: one key press per character (at most ${MAX_TYPE_CHARS}), delay ms after each, stopped at the timeout. A key name Playwright does not know is refused as INVALID_PARAMS with the name meant when it can be guessed (ctrl → Control).`,
  params: {
    action: Type.Union(
      [
        Type.Literal('press'),
        Type.Literal('down'),
        Type.Literal('up'),
        Type.Literal('insertText'),
        Type.Literal('type'),
      ],
      { description: 'What to do: press, down, up (take key), insertText, type (take text).' },
    ),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: KEY_DESCRIPTION })),
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_INSERT_TEXT_CHARS,
        description: `The text for insertText (at most ${MAX_INSERT_TEXT_CHARS} characters) and type (at most ${MAX_TYPE_CHARS}).`,
      }),
    ),
    delay: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TYPE_DELAY_MS,
        description: `press: milliseconds the key is held; type: milliseconds between keys (at most ${MAX_TYPE_DELAY_MS}).`,
      }),
    ),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the page to take the keys'),
  },
  result: Ok,
  errors: [...INPUT_ERRORS, 'RESOURCE_UNAVAILABLE'],
  readOnly: false,
  async handler(params, { session, signal, resume }) {
    const method = 'page.keyboard';
    const { action, key, text, delay, timeout } = params;
    const keyboard = session.page.keyboard;
    const what = `page.keyboard ${action}`;
    if (action === 'insertText' || action === 'type') {
      if (text === undefined) throw refuse(method, '/text', `${action} needs text`);
      if (key !== undefined)
        throw refuse(method, '/key', `${action} takes text, not key (press takes a key or chord)`);
      if (action === 'insertText') {
        if (delay !== undefined) throw refuse(method, '/delay', 'insertText takes no delay');
        await within(keyboard.insertText(text), timeout, what);
        return { ok: true };
      }
      const chars = [...text];
      checkTyping(method, session, text);
      if (chars.length > MAX_TYPE_CHARS)
        throw refuse(
          method,
          '/text',
          `type sends one key per character: at most ${MAX_TYPE_CHARS}, not ${chars.length}; insertText (or page.fill) takes longer text`,
        );
      const pause = delay ?? 0;
      if (chars.length * pause > timeout)
        throw refuse(
          method,
          '/delay',
          `${chars.length} characters with a ${pause} ms delay take longer than the timeout (${timeout} ms): raise timeout or lower delay`,
        );
      await typeKeys(keyboard, chars, { method, what, pause, timeout, signal, resume, within });
      return { ok: true };
    }
    if (key === undefined) throw refuse(method, '/key', `${action} needs key`);
    if (text !== undefined)
      throw refuse(method, '/text', `${action} takes key, not text (insertText or type take text)`);
    if (action === 'press') {
      const problem = keyProblem(key);
      if (problem !== undefined) throw refuse(method, '/key', problem);
      await within(
        pressOrPaste(session, key, () => keyboard.press(key, { delay })),
        timeout,
        what,
      );
      return { ok: true };
    }
    if (delay !== undefined) throw refuse(method, '/delay', `${action} takes no delay`);
    if (!KEY_NAMES.has(key)) {
      const meant = suggestKey(key);
      throw refuse(
        method,
        '/key',
        key.includes('+')
          ? `${action} takes one key, not a chord: ${action} each key of "${key}" in turn, or press the chord`
          : `unknown key "${key}"${meant !== undefined ? `: did you mean "${meant}"?` : ''}`,
      );
    }
    if (action === 'down')
      await within(
        pressOrPaste(session, key, () => keyboard.down(key)),
        timeout,
        what,
      );
    else await within(keyboard.up(key), timeout, what);
    noteKey(session.page, action, key);
    return { ok: true };
  },
});

const DeltaPx = (axis: string) =>
  Type.Optional(
    Type.Integer({
      minimum: -MAX_SCROLL_DELTA_PX,
      maximum: MAX_SCROLL_DELTA_PX,
      description: `wheel: pixels ${axis} (negative: the other way). Give deltaX, deltaY or both.`,
    }),
  );

const Steps = (what: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_MOUSE_STEPS,
      description: `Pointer moves ${what} (at most ${MAX_MOUSE_STEPS}): pages that track the pointer see each.`,
    }),
  );

export const pageMouse = defineActionMethod({
  name: 'page.mouse',
  summary:
    'Use the mouse at a point of the viewport (CSS pixels): move, click, dblclick, press (down) and release (up) a button, or turn the wheel',
  description:
    'move, click and dblclick take x and y; down, up and wheel act where the mouse is, or first move to x,y when given. steps spreads a move over that many pointer moves (default 1). A point outside the current viewport is refused. Modifiers held with page.keyboard down apply (Shift+click).',
  params: {
    action: Type.Union(
      [
        Type.Literal('move'),
        Type.Literal('click'),
        Type.Literal('dblclick'),
        Type.Literal('down'),
        Type.Literal('up'),
        Type.Literal('wheel'),
      ],
      { description: 'What to do.' },
    ),
    x: Type.Optional(ViewportX),
    y: Type.Optional(ViewportY),
    button: MouseButton,
    steps: Steps('on the way to x,y'),
    deltaX: DeltaPx('to the right'),
    deltaY: DeltaPx('down'),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the page to take the input'),
  },
  result: Ok,
  errors: [...INPUT_ERRORS],
  readOnly: false,
  async handler(params, { session }) {
    const method = 'page.mouse';
    const { action, x, y, button, steps, deltaX, deltaY, timeout } = params;
    const mouse = session.page.mouse;
    if ((x === undefined) !== (y === undefined)) throw refuse(method, '/', 'give both x and y, or neither');
    const point = x !== undefined && y !== undefined ? { x, y } : undefined;
    if (point === undefined && (action === 'move' || action === 'click' || action === 'dblclick'))
      throw refuse(method, '/', `${action} needs x and y`);
    if (point === undefined && steps !== undefined)
      throw refuse(method, '/steps', 'steps spreads a move to x,y: give x and y');
    const wheel = deltaX !== undefined || deltaY !== undefined;
    if (wheel && action !== 'wheel') throw refuse(method, '/', 'deltaX and deltaY are for the wheel action');
    if (!wheel && action === 'wheel') throw refuse(method, '/', 'wheel needs deltaX, deltaY or both');
    if (point !== undefined) checkPoint(method, session.page, point.x, point.y);
    if (action !== 'move' && action !== 'wheel') checkButton(method, session, button);
    const act = async () => {
      if (point !== undefined && (action !== 'click' || steps !== undefined))
        await mouse.move(point.x, point.y, { steps });
      if (action === 'click' && point !== undefined) await mouse.click(point.x, point.y, { button });
      else if (action === 'dblclick' && point !== undefined)
        await mouse.dblclick(point.x, point.y, { button });
      else if (action === 'down') await mouse.down({ button });
      else if (action === 'up') await mouse.up({ button });
      else if (action === 'wheel') await mouse.wheel(deltaX ?? 0, deltaY ?? 0);
    };
    await within(act(), timeout, `page.mouse ${action}`);
    return { ok: true };
  },
});

export const pageDrag = defineActionMethod({
  name: 'page.drag',
  summary:
    'Drag an element (selector or ref) onto another element (targetSelector or targetRef) or to a point x,y, with real pointer events',
  description:
    'Moves the mouse to the middle of the source (waiting until it is visible and stable), presses the left button, moves in steps to the middle of the target element or to x,y, and releases. Pointer-driven sortable lists and HTML5 draggable elements both see a real drag. Give exactly one target: targetSelector, targetRef, or x and y.',
  params: {
    ...Target,
    targetSelector: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 10_000,
        description: 'A Playwright selector for the element to drop on. Give this, targetRef, or x and y.',
      }),
    ),
    targetRef: Type.Optional({ ...Ref, description: 'A snapshot ref of the element to drop on.' }),
    x: Type.Optional(ViewportX),
    y: Type.Optional(ViewportY),
    steps: {
      ...Steps('between press and release'),
      default: DEFAULT_DRAG_STEPS,
      description: `Pointer moves between press and release (default ${DEFAULT_DRAG_STEPS}, at most ${MAX_MOUSE_STEPS}): a sortable list often starts a drag only past a few pixels.`,
    },
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the source and the target to be actionable'),
  },
  result: Ok,
  errors: ['TIMEOUT', 'ACTION_FAILED', 'STALE_REF', 'INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const method = 'page.drag';
    const { targetSelector, targetRef, x, y, steps, timeout } = params;
    if ((x === undefined) !== (y === undefined)) throw refuse(method, '/', 'give both x and y, or neither');
    const targets = [targetSelector, targetRef, x].filter((t) => t !== undefined).length;
    if (targets !== 1)
      throw refuse(
        method,
        '/',
        targets === 0
          ? 'give where to drop: targetSelector, targetRef, or x and y'
          : 'give one place to drop: targetSelector, targetRef, or x and y, not several',
      );
    const source = await session.target(params.selector, params.ref);
    if (x === undefined || y === undefined) {
      const target = await session.target(targetSelector, targetRef);
      await source.dragTo(target, { steps, timeout });
      return { ok: true };
    }
    checkPoint(method, session.page, x, y);
    const deadline = Date.now() + timeout;
    await source.hover({ timeout });
    const mouse = session.page.mouse;
    const drag = async () => {
      await mouse.down();
      await mouse.move(x, y, { steps });
      await mouse.up();
    };
    await within(drag(), Math.max(1, deadline - Date.now()), 'page.drag');
    return { ok: true };
  },
});

export const pageSetViewport = defineSessionMethod({
  name: 'page.setViewport',
  summary: "Resize the page's viewport (CSS pixels); the device scale factor stays as it is",
  description:
    'The page lays out again at the new size (resize fires, media queries re-evaluate). It holds for this page; a page that replaces it after a crash or an evaluate past its deadline starts at the size of session.create.',
  params: {
    width: Type.Integer({
      minimum: MIN_VIEWPORT_PX,
      maximum: MAX_VIEWPORT_WIDTH_PX,
      description: `Viewport width in CSS pixels (${MIN_VIEWPORT_PX} to ${MAX_VIEWPORT_WIDTH_PX}).`,
    }),
    height: Type.Integer({
      minimum: MIN_VIEWPORT_PX,
      maximum: MAX_VIEWPORT_HEIGHT_PX,
      description: `Viewport height in CSS pixels (${MIN_VIEWPORT_PX} to ${MAX_VIEWPORT_HEIGHT_PX}).`,
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the resize'),
  },
  result: Type.Object({
    width: Type.Integer({ description: 'The viewport width now.' }),
    height: Type.Integer({ description: 'The viewport height now.' }),
  }),
  errors: [...INPUT_ERRORS],
  readOnly: false,
  async handler(params, { session }) {
    const { width, height, timeout } = params;
    await within(session.page.setViewportSize({ width, height }), timeout, 'page.setViewport');
    return session.page.viewportSize() ?? { width, height };
  },
});

export const pageInputMethods = [pageKeyboard, pageMouse, pageDrag, pageSetViewport];
