// A double click at a person's pace. Playwright's dblclick sends both clicks in the same
// millisecond; an app that measures the interval between them (an editor telling a double click
// from two clicks, a canvas that drops a zero-interval pair) ignores that. This one waits for the
// element as Playwright's click would (visible, stable, enabled, hit by the pointer), then clicks
// twice at its centre DOUBLE_CLICK_GAP_MS apart, the second with click count 2, so the page sees
// click, click and dblclick as it does from a mouse.
import type { Locator, Page } from 'playwright-core';

/** The pause between the two clicks: a quick person's, well inside every system's double-click time. */
export const DOUBLE_CLICK_GAP_MS = 80;

export interface DoubleClickOptions {
  button?: 'left' | 'right' | 'middle';
  modifiers?: ('Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift')[];
  timeout: number;
}

export async function doubleClick(page: Page, element: Locator, options: DoubleClickOptions): Promise<void> {
  // A trial click waits for actionability and scrolls the element into view, and clicks nothing.
  await element.click({ trial: true, timeout: options.timeout });
  const box = await element.boundingBox({ timeout: options.timeout });
  if (box === null) {
    // Gone between the check and now: Playwright's own double click says why.
    await element.dblclick({ ...options });
    return;
  }
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const button = options.button ?? 'left';
  const modifiers = options.modifiers ?? [];
  for (const key of modifiers) await page.keyboard.down(key);
  try {
    await page.mouse.move(x, y);
    await page.mouse.down({ button, clickCount: 1 });
    await page.mouse.up({ button, clickCount: 1 });
    await new Promise((resolve) => setTimeout(resolve, DOUBLE_CLICK_GAP_MS));
    await page.mouse.down({ button, clickCount: 2 });
    await page.mouse.up({ button, clickCount: 2 });
  } finally {
    for (const key of [...modifiers].reverse()) await page.keyboard.up(key);
  }
}
