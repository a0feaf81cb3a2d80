// How page.text reads a page: its visible text (form controls' values, open shadow roots) or its
// main content as Markdown, of the page, one element or every frame, within MAX_READ_CHARS, and the
// stored read a cursor continues. Over 350 lines on purpose: the text and Markdown reads share the
// element, frame and budget handling here, and the function that runs in the page must stay whole.
import type { Frame, Locator, Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { scrubText, scrubUrl } from '../../observability/scrub.js';
import { htmlToMarkdown, markdownBudget, type MarkdownBudget } from './pageMarkdown.js';
import type { StoredSnapshot } from './pageSnapshot.js';

/**
 * The service keeps the last read of each session so a cursor can continue it; a page of any size
 * must not hold more than this per session (page.text's maxChars ceiling, so one answer could hold it).
 */
export const MAX_READ_CHARS = 2_000_000;
/** frames:true reads this many frames at most, in document order: a page of ad slots has dozens. */
const MAX_READ_FRAMES = 50;
/** A frame's read that failed is said in one line, this long at most. */
const MAX_REASON_CHARS = 200;
/** An attribute value of the element read as Markdown is cut here (a data: URL can be megabytes). */
const MAX_ATTRIBUTE_CHARS = 2000;

export type ReadFormat = 'text' | 'markdown';

/** What shaped a read's text: a cursor continues only a read asked for the same way. */
export interface ReadShape {
  format: ReadFormat;
  frames: boolean;
  normalize: boolean;
  selector: string | undefined;
  ref: string | undefined;
}

/** The last page.text of a session: what a cursor continues. */
export interface StoredRead extends StoredSnapshot {
  shape: ReadShape;
  /** Characters of the whole text, before it was cut at MAX_READ_CHARS. */
  length: number;
}

export interface ReadOptions {
  format: ReadFormat;
  /** Append every iframe's text (the whole page only), each under a header line. */
  frames: boolean;
  /** Each read (the page's, each frame's) is bounded by this. */
  timeout: number;
  /** The most HTML read from the page for Markdown (MAX_HTML_CHARS). */
  maxHtmlChars: number;
}

/** The read to keep for the session: the next revision, its text cut at MAX_READ_CHARS. */
export function storeRead(
  previous: StoredRead | undefined,
  text: string,
  shape: ReadShape,
  document: number,
): StoredRead {
  return {
    revision: (previous?.revision ?? 0) + 1,
    text: text.length > MAX_READ_CHARS ? text.slice(0, MAX_READ_CHARS) : text,
    length: text.length,
    shape,
    document,
  };
}

/**
 * The visible text (innerText) or the Markdown of the page, or of one element; with frames, every
 * iframe's after it. A frame that cannot be read is said in a line, never fails the read.
 */
export async function readPage(
  page: Page,
  target: Locator | undefined,
  options: ReadOptions,
  /** The selector `target` was made of, when it was one (not a ref): read directly first. */
  selector?: string,
): Promise<string> {
  const { timeout } = options;
  if (options.format === 'text') {
    const main = await visibleText(
      target ?? page.locator('body').first(),
      timeout,
      target === undefined
        ? { frame: page.mainFrame(), selector: 'body' }
        : selector === undefined
          ? undefined
          : { frame: page.mainFrame(), selector },
    );
    if (!options.frames) return main;
    const frames = await frameSections(
      page,
      timeout,
      (frame) => visibleText(frame.locator(':root'), timeout, { frame, selector: ':root' }),
      async (text) => text,
    );
    return [main, ...frames].join('\n\n');
  }
  const budget = markdownBudget();
  const main =
    target === undefined
      ? await htmlToMarkdown(await contentOf(page.mainFrame(), timeout), {
          source: 'article',
          url: page.url(),
          maxHtmlChars: options.maxHtmlChars,
          budget,
        })
      : await elementMarkdown(target, options, budget);
  if (!options.frames) return main;
  const frames = await frameSections(
    page,
    timeout,
    (frame) => contentOf(frame, timeout),
    (html, frame) =>
      htmlToMarkdown(html, {
        source: 'document',
        url: frame.url(),
        maxHtmlChars: options.maxHtmlChars,
        budget,
      }),
  );
  return [main, ...frames].join('\n\n');
}

/**
 * The text an element shows: a form control's current value (a textarea's lines, an input's text, a
 * select's chosen options; a password field's never), an element's innerText, and the textContent of
 * one without (SVG, XML). Runs in the page's main world, given the element or a CSS selector (read
 * with the document's querySelector: null when it is no CSS the browser knows or matches nothing).
 */
const readVisible = (of: Element | string): string | null => {
  let el: Element | null;
  if (typeof of === 'string') {
    try {
      el = document.querySelector(of);
    } catch {
      // Playwright's own selector syntax (text=, role=, :has-text(), >>): its locator reads it.
      return null;
    }
    if (el === null) return null;
  } else el = of;
  if (el instanceof HTMLTextAreaElement) return el.value;
  if (el instanceof HTMLInputElement)
    return ['password', 'hidden', 'file', 'checkbox', 'radio'].includes(el.type) ? '' : el.value;
  if (el instanceof HTMLSelectElement) return Array.from(el.selectedOptions, (o) => o.text).join('\n');
  if (!(el instanceof HTMLElement)) return el.textContent ?? '';
  // innerText follows the DOM, not what is rendered: an open shadow root's text (a web
  // component's) is left out. Only where there is one below is the rendered tree walked.
  const hosts = [el, ...Array.from(el.querySelectorAll('*'))].filter((e) => e.shadowRoot !== null);
  if (hosts.length === 0) return el.innerText;
  const out: string[] = [];
  const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
  const visit = (node: Node): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      out.push((node.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (!(node instanceof Element) || SKIPPED.has(node.localName)) return;
    const style = getComputedStyle(node);
    if (style.display === 'none' || style.visibility === 'hidden') return;
    const block = !style.display.startsWith('inline');
    if (block) out.push('\n');
    const assigned = node instanceof HTMLSlotElement ? node.assignedNodes({ flatten: true }) : [];
    const children = assigned.length > 0 ? assigned : Array.from((node.shadowRoot ?? node).childNodes);
    for (const child of children) visit(child);
    if (node.localName === 'br' || block) out.push('\n');
  };
  visit(el);
  return out
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
};

/**
 * readVisible of the element `element` names. With `direct` (the same element as a selector of a
 * frame), first in one evaluation with the document's querySelector (the first match of a CSS
 * selector outside shadow roots is Playwright's first match too); the locator's way (which waits for
 * the element, within `timeout`, finds it in Playwright's isolated world and adopts it into the page's:
 * several more round trips to the browser) when that finds nothing.
 */
async function visibleText(
  element: Locator,
  timeout: number,
  direct?: { frame: Frame; selector: string },
): Promise<string> {
  if (direct !== undefined) {
    const now = await withDeadline(
      direct.frame.evaluate(readVisible, direct.selector).catch(
        // A document replaced mid-read: the locator's way waits for the next one, and says why it fails.
        () => null,
      ),
      timeout,
      () => new ServiceError('TIMEOUT', `Reading ${direct.selector} took longer than ${timeout} ms.`),
    );
    if (now !== null) return now;
  }
  return (await element.evaluate(readVisible, undefined, { timeout })) ?? '';
}

/** A document's HTML as the browser serialises it (Playwright reads it in its own isolated world). */
function contentOf(frame: Frame, timeout: number): Promise<string> {
  return withDeadline(
    frame.content(),
    timeout,
    () =>
      new ServiceError(
        'TIMEOUT',
        `The page's HTML did not come within ${timeout} ms: the page may be frozen or navigating.`,
        { timeoutMs: timeout },
      ),
  );
}

/**
 * One element as Markdown: its children as the browser serialises them (innerHTML, read in
 * Playwright's isolated world, which the page's scripts cannot alter), inside its own start tag
 * rebuilt from its name and attributes, so a table, a list or a link keeps what it is.
 */
async function elementMarkdown(
  element: Locator,
  options: ReadOptions,
  budget: MarkdownBudget,
): Promise<string> {
  const { timeout } = options;
  const [shell, inner] = await Promise.all([
    element.evaluate(
      (el, max) => ({
        name: el.localName,
        attributes: Array.from(el.attributes, (a) => [a.name, a.value.slice(0, max)]),
        base: el.baseURI,
      }),
      MAX_ATTRIBUTE_CHARS,
      { timeout },
    ),
    element.innerHTML({ timeout }),
  ]);
  const { start, end, base } = startTag(shell);
  return htmlToMarkdown(`${start}${inner}${end}`, {
    source: 'element',
    url: base ?? element.page().url(),
    maxHtmlChars: options.maxHtmlChars,
    budget,
  });
}

/** Tags that have no end tag. */
const VOID_ELEMENTS = new Set(['area', 'br', 'col', 'embed', 'hr', 'img', 'input', 'source', 'track', 'wbr']);
/** The attributes Markdown keeps something of; the rest only cost parsing. */
const KEPT_ATTRIBUTES = new Set([
  'href',
  'src',
  'alt',
  'title',
  'start',
  'colspan',
  'align',
  'type',
  'checked',
]);

/**
 * The element's start and end tag, from what the page reported of it. That came from the page's own
 * world, where its scripts could have altered anything: only a plain name and the attributes that
 * matter are taken, and every value is escaped.
 */
function startTag(shell: unknown): { start: string; end: string; base: string | undefined } {
  const field = (key: string): unknown =>
    typeof shell === 'object' && shell !== null ? (shell as Record<string, unknown>)[key] : undefined;
  const [name, attributes, base] = [field('name'), field('attributes'), field('base')];
  const tag = typeof name === 'string' && /^[a-z][a-z0-9-]{0,63}$/.test(name) ? name : 'div';
  const kept = (Array.isArray(attributes) ? attributes : [])
    .filter(
      (pair): pair is [string, string] =>
        Array.isArray(pair) &&
        typeof pair[0] === 'string' &&
        typeof pair[1] === 'string' &&
        KEPT_ATTRIBUTES.has(pair[0]),
    )
    .map(([key, value]) => ` ${key}="${escapeAttribute(value.slice(0, MAX_ATTRIBUTE_CHARS))}"`)
    .join('');
  return {
    start: `<${tag}${kept}>`,
    end: VOID_ELEMENTS.has(tag) ? '' : `</${tag}>`,
    base: typeof base === 'string' && URL.canParse(base) ? base : undefined,
  };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Every iframe of the page, nested ones too, in document order, each under a header line
 * `--- frame "title or name" (url) ---`. Each is fetched within the timeout, all at once; then
 * rendered one after the other (Markdown shares one budget). A frame that is detached, crashed or
 * too slow is a note line instead.
 */
async function frameSections<T>(
  page: Page,
  timeout: number,
  fetch: (frame: Frame) => Promise<T>,
  render: (fetched: T, frame: Frame) => Promise<string>,
): Promise<string[]> {
  const every = descendants(page.mainFrame());
  // A frame no one sees (display: none, no size, or inside one of those) is not the page's text.
  const seen = await Promise.all(every.map((frame) => frameShown(frame, timeout)));
  const hidden = new Set(every.filter((_, i) => seen[i] === false));
  const inHidden = (frame: Frame): boolean => {
    for (let at: Frame | null = frame; at !== null; at = at.parentFrame()) if (hidden.has(at)) return true;
    return false;
  };
  const all = every.filter((frame) => !inHidden(frame));
  const frames = all.slice(0, MAX_READ_FRAMES);
  const fetched = await Promise.all(
    frames.map((frame) =>
      Promise.all([frameTitle(frame, timeout), fetch(frame)]).then(
        ([title, value]) => ({ frame, title, value, error: undefined }),
        (error: unknown) => ({ frame, title: frame.name(), value: undefined, error }),
      ),
    ),
  );
  const sections: string[] = [];
  for (const { frame, title, value, error } of fetched) {
    const header = `--- frame ${JSON.stringify(title)} (${scrubUrl(frame.url())}) ---`;
    const body =
      error === undefined && value !== undefined
        ? await render(value, frame).catch((e: unknown) => notRead(frame, e))
        : notRead(frame, error);
    sections.push(`${header}\n${body}`);
  }
  if (all.length > frames.length)
    sections.push(`--- ${all.length - frames.length} more frames not read (at most ${MAX_READ_FRAMES}) ---`);
  const unseen = every.length - all.length;
  if (unseen > 0) sections.push(`--- ${unseen} hidden frame${unseen === 1 ? '' : 's'} not read ---`);
  return sections;
}

/** Whether the frame's element is visible in its parent; true when that cannot be told. */
async function frameShown(frame: Frame, timeout: number): Promise<boolean> {
  const element = await withDeadline(
    frame.frameElement(),
    timeout,
    () => new Error('frame element timeout'),
  ).catch(
    // Detached, or its parent did not answer: read it, and say so if that fails.
    () => undefined,
  );
  if (element === undefined) return true;
  try {
    return await withDeadline(element.isVisible(), timeout, () => new Error('visibility timeout'));
  } catch {
    // Gone meanwhile or not answered in time: read it, and the read says what it found.
    return true;
  } finally {
    // The handle only pins the element; a page that went has released it already.
    await element.dispose().catch(() => undefined);
  }
}

/** The frame's document title, or its name when it has none; bounded like the read. */
async function frameTitle(frame: Frame, timeout: number): Promise<string> {
  const title = await withDeadline(
    frame.title(),
    timeout,
    () =>
      new ServiceError('TIMEOUT', `the frame did not answer within ${timeout} ms (frozen, or navigating)`),
  );
  return title.trim() === '' ? frame.name() : title.trim();
}

function notRead(frame: Frame, error: unknown): string {
  if (frame.isDetached()) return '[not read: the frame was detached]';
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return `[not read: ${scrubText(message, MAX_REASON_CHARS)}]`;
}

/** The frames under `root`, depth first in document order, without recursion. */
function descendants(root: Frame): Frame[] {
  const found: Frame[] = [];
  const stack = [...root.childFrames()].reverse();
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    found.push(frame);
    stack.push(...[...frame.childFrames()].reverse());
  }
  return found;
}
