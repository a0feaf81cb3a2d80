// Where elements are on the screen, for canvas and SVG UIs: an editor's canvas, its nodes and ports
// are acted on by position (page.mouse, page.drag), and without their boxes an agent takes
// screenshots to find them. Boxes are read on request only (page.snapshot and find.* `boxes`), one
// read per element in parallel, at most MAX_BOXES per answer.
import type { Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';

/** The most elements one answer reads the boxes of: each is one read of the page. */
export const MAX_BOXES = 200;

/** An element's box in CSS pixels of the viewport, as page.mouse and page.drag take positions. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A ref as a snapshot line holds it. */
const REF_IN_LINE = /\[ref=([a-z0-9]+)\]/;

/** The boxes of the elements Playwright's aria refs name; an element that is not rendered has none. */
export async function boxesOf(
  page: Page,
  ariaRefs: readonly string[],
  timeout: number,
): Promise<Map<string, Box>> {
  const refs = [...new Set(ariaRefs)].slice(0, MAX_BOXES);
  const boxes = await Promise.all(
    refs.map((ref) =>
      withDeadline(
        page.locator(`aria-ref=${ref}`).boundingBox({ timeout }),
        timeout,
        () => new Error('box timeout'),
      ).catch(
        // Gone from the page, or not answered in time: the element has no box to show.
        () => null,
      ),
    ),
  );
  const out = new Map<string, Box>();
  refs.forEach((ref, i) => {
    const box = boxes[i];
    if (box !== null && box !== undefined) out.set(ref, round(box));
  });
  return out;
}

function round(box: Box): Box {
  return {
    x: Math.round(box.x),
    y: Math.round(box.y),
    width: Math.round(box.width),
    height: Math.round(box.height),
  };
}

/**
 * An answer's lines with `[box=x,y,widthxheight]` after the ref of each line that names an element
 * (not the `was:` lines of a diff, which show the old state). `ariaRef` maps a ref as the answer
 * names it to Playwright's, or undefined for a ref of another page.
 */
export async function withBoxes(
  page: Page,
  text: string,
  ariaRef: (ref: string) => string | undefined,
  timeout: number,
): Promise<string> {
  const lines = text.split('\n');
  const wanted = lines.flatMap((line) => {
    if (line.trimStart().startsWith('was:')) return [];
    const ref = REF_IN_LINE.exec(line)?.[1];
    const aria = ref === undefined ? undefined : ariaRef(ref);
    return aria === undefined ? [] : [aria];
  });
  if (wanted.length === 0) return text;
  const boxes = await boxesOf(page, wanted, timeout);
  return lines
    .map((line) => {
      if (line.trimStart().startsWith('was:')) return line;
      const ref = REF_IN_LINE.exec(line)?.[1];
      const aria = ref === undefined ? undefined : ariaRef(ref);
      const box = aria === undefined ? undefined : boxes.get(aria);
      return box === undefined || ref === undefined
        ? line
        : line.replace(`[ref=${ref}]`, `[ref=${ref}] [box=${box.x},${box.y},${box.width}x${box.height}]`);
    })
    .join('\n');
}
