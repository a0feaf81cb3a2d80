// Element boxes on request: page.snapshot and find.* answer where elements are (CSS pixels of the
// viewport), so an agent can act on a canvas or an SVG by position with page.mouse, without a
// screenshot. Without boxes: true, answers carry none.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const open = useBoundSessions(suite);

const BOX = /\[box=(-?\d+),(-?\d+),(\d+)x(\d+)\]/;

describe('element boxes', () => {
  it('page.snapshot boxes: true puts a box after each ref; a click at its centre hits the element', async () => {
    const s = await open('/canvas-node');
    const plain = await s.call<{ snapshot: string }>('page.snapshot', { interactive: true });
    expect(plain.snapshot).not.toContain('[box=');
    const { snapshot } = await s.call<{ snapshot: string }>('page.snapshot', {
      interactive: true,
      boxes: true,
    });
    const node = /button "inject" \[ref=e\d+\] (\[box=[^\]]+\])/.exec(snapshot)?.[1] ?? '';
    const [, , , w, h] = BOX.exec(node) ?? [];
    expect([Number(w), Number(h)]).toEqual([120, 40]);
    const port = BOX.exec(/button "Output port" \[ref=e\d+\] (\[box=[^\]]+\])/.exec(snapshot)?.[1] ?? '');
    expect(port).not.toBeNull();
    const [, x, y, pw, ph] = (port ?? []).map(Number);
    expect([pw, ph]).toEqual([20, 20]);
    await s.call('page.mouse', { action: 'click', x: (x ?? 0) + (pw ?? 0) / 2, y: (y ?? 0) + (ph ?? 0) / 2 });
    expect(await s.text('#out')).toBe('port');
  });

  it('find.byRole boxes: true answers each match with its box', async () => {
    const s = await open('/canvas-node');
    const found = await s.call<{
      matches: { ref: string; box?: { x: number; y: number; width: number; height: number } }[];
    }>('find.byRole', { role: 'button', name: 'inject', boxes: true });
    expect(found.matches[0]?.box).toMatchObject({ width: 120, height: 40 });
    const without = await s.call<{ matches: { box?: unknown }[] }>('find.byRole', {
      role: 'button',
      name: 'inject',
    });
    expect(without.matches[0]?.box).toBeUndefined();
    const text = await s.call<{ matches: { box?: { width: number } }[] }>('find.byText', {
      text: 'Locked',
      boxes: true,
    });
    expect(text.matches[0]?.box?.width).toBeGreaterThan(0);
  });
});
