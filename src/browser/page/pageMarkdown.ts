import { setImmediate as nextTurn } from 'node:timers/promises';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/**
 * Parsing, Readability and Turndown run on the service's event loop, about 5 ms of CPU per kB of
 * HTML (a 100 kB article: ~470 ms in steps of at most ~220 ms; 2 MB uncut took 9 s): past this much
 * HTML, once scripts and styles are out, the rest is not converted (and the Markdown says so).
 */
export const MAX_MARKDOWN_HTML_CHARS = 100_000;
/**
 * Deep nesting is what makes HTML slow to handle: the parser's stack, Readability's ancestor walks and
 * Turndown's recursion all cost per level (Readability did not finish a 5000-deep page; the parse
 * alone took 6 s on a 66 000-deep one). Tags deeper than this are dropped, their text kept; real
 * pages nest a few dozen deep.
 */
const MAX_MARKDOWN_DEPTH = 100;
/** Readability scores elements over several passes; past this many the body is converted whole. */
const MAX_READABILITY_ELEMENTS = 10_000;
/**
 * What a page runs, styles or draws with, never what it says, and the elements whose content the
 * serialiser writes raw (so a `<` inside them is no tag): all dropped before the HTML is parsed.
 */
const NOISE_TAGS = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'noembed',
  'noframes',
  'xmp',
  'plaintext',
] as const;
const NOISE = NOISE_TAGS.join(', ');
/** A comment, or the start tag of a noise element, in the HTML text. */
const NOISE_START = new RegExp(`<(?:!--|(${NOISE_TAGS.join('|')})(?=[\\s/>]))`, 'gi');
const NOISE_END = Object.fromEntries(NOISE_TAGS.map((tag) => [tag, new RegExp(`</${tag}[\\s/>]`, 'gi')]));
/** A start or end tag in the HTML text. */
const TAG = /<(\/?)([a-zA-Z][^\s/>]*)/g;
/** Elements without an end tag: they never nest anything. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Links an agent can follow; any other scheme (javascript:, data:) keeps its text and loses its target. */
const FOLLOWABLE = new Set(['http:', 'https:', 'mailto:']);

/**
 * What the HTML is: a whole page whose main content Readability picks (the body when it finds no
 * article), a whole document converted as it is (an iframe's), or one element's HTML.
 */
export type MarkdownSource = 'article' | 'document' | 'element';

/** What is left of the HTML one call may convert (the page's and its frames' together). */
export interface MarkdownBudget {
  chars: number;
}

export function markdownBudget(): MarkdownBudget {
  return { chars: MAX_MARKDOWN_HTML_CHARS };
}

export interface MarkdownOptions {
  source: MarkdownSource;
  /** The document URL: relative links and images become absolute against it (or its <base href>). */
  url: string;
  /** The most HTML to read (MAX_HTML_CHARS); of it, without noise, the budget's worth is converted. */
  maxHtmlChars: number;
  budget: MarkdownBudget;
}

const turndown = new TurndownService({
  headingStyle: 'atx',
  bulletListMarker: '-',
  codeBlockStyle: 'fenced',
});
turndown.use(gfm);

/**
 * HTML as Markdown that keeps headings, lists, GFM tables and absolute links. It must be the browser's
 * own serialisation (page.content(), innerHTML: every element closed, `<` escaped in text and
 * attributes), which the linear passes below rely on. The page is hostile: noise goes, deep nesting is
 * dropped and the rest cut before anything is parsed, and each step yields to the event loop so other
 * sessions are served in between.
 */
export async function htmlToMarkdown(html: string, options: MarkdownOptions): Promise<string> {
  const read = html.slice(0, options.maxHtmlChars);
  const clean = shallow(withoutNoise(read));
  const allowed = Math.min(clean.length, options.budget.chars);
  options.budget.chars -= allowed;
  const source = clean.slice(0, allowed);
  const note =
    html.length > read.length || clean.length > allowed
      ? `\n\n[Converted ${allowed} of ${clean.length}${html.length > read.length ? '+' : ''} characters of HTML (without scripts and styles; one call converts at most ${MAX_MARKDOWN_HTML_CHARS}): read a part of the page with selector or ref for the rest.]`
      : '';
  if (source === '') return note.trimStart();
  await nextTurn();
  let document = parse(source, options);
  await nextTurn();
  if (options.source === 'article' && count(document) <= MAX_READABILITY_ELEMENTS) {
    const article = new Readability(document).parse();
    await nextTurn();
    if (typeof article?.content === 'string') {
      const title = article.title?.trim() ?? '';
      const body = turndown.turndown(article.content);
      return `${title === '' ? '' : `# ${turndown.escape(title)}\n\n`}${body}${note}`;
    }
    // Readability rewrites the document it reads, even when it finds no article in it.
    document = parse(source, options);
  }
  const root = document.body ?? document.documentElement;
  return `${root === null ? '' : turndown.turndown(root.innerHTML)}${note}`;
}

/**
 * The HTML without comments and noise elements: on a script-heavy page they are most of it. Forward
 * searches only (no backtracking pattern over the page); an element left open drops the rest.
 */
function withoutNoise(html: string): string {
  const kept: string[] = [];
  let at = 0;
  const start = new RegExp(NOISE_START);
  for (let m = start.exec(html); m !== null; m = start.exec(html)) {
    kept.push(html.slice(at, m.index));
    const tag = m[1]?.toLowerCase();
    const end = tag === undefined ? undefined : NOISE_END[tag];
    let close: number;
    if (end === undefined) {
      const dashes = html.indexOf('-->', start.lastIndex);
      close = dashes < 0 ? -1 : dashes + 2;
    } else {
      const closer = new RegExp(end);
      closer.lastIndex = start.lastIndex;
      const found = closer.exec(html);
      close = found === null ? -1 : html.indexOf('>', found.index);
    }
    at = close < 0 ? html.length : close + 1;
    start.lastIndex = at;
  }
  kept.push(html.slice(at));
  return kept.join('');
}

/** The HTML with every tag deeper than MAX_MARKDOWN_DEPTH replaced by a space; one forward pass. */
function shallow(html: string): string {
  const kept: string[] = [];
  let at = 0;
  let depth = 0;
  const tag = new RegExp(TAG);
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    const close = html.indexOf('>', tag.lastIndex);
    const end = close < 0 ? html.length : close + 1;
    let keep: boolean;
    if (m[1] === '/') {
      keep = depth <= MAX_MARKDOWN_DEPTH;
      depth = Math.max(0, depth - 1);
    } else if (VOID.has(m[2]?.toLowerCase() ?? '')) keep = depth < MAX_MARKDOWN_DEPTH;
    else keep = ++depth <= MAX_MARKDOWN_DEPTH;
    if (!keep) {
      // A run of dropped tags leaves one space, so the text on either side stays apart.
      const text = html.slice(at, m.index);
      if (text !== '' || at === 0) kept.push(text, ' ');
      at = end;
    }
    tag.lastIndex = end;
  }
  kept.push(html.slice(at));
  return kept.join('');
}

/** The parsed HTML without noise, its links absolute. */
function parse(html: string, options: MarkdownOptions): Document {
  // linkedom is no HTML5 parser: a fragment (an <li>, a <tr>) is kept only inside a body.
  const { document } = parseHTML(
    options.source === 'element' ? `<!doctype html><html><head></head><body>${html}</body></html>` : html,
  );
  document.querySelectorAll(NOISE).forEach((element) => element.remove());
  const base = baseOf(document, options.url);
  document.querySelectorAll('a[href]').forEach((link) => absolute(link, 'href', base));
  document.querySelectorAll('img[src]').forEach((image) => absolute(image, 'src', base));
  return document;
}

function count(document: Document): number {
  return document.getElementsByTagName('*').length;
}

function baseOf(document: Document, url: string): URL | undefined {
  const page = parseUrl(url);
  const href = document.querySelector('base[href]')?.getAttribute('href');
  return (href === null || href === undefined ? undefined : parseUrl(href, page)) ?? page;
}

/** Rewrites a link or image attribute as an absolute URL, or drops it when it leads nowhere an agent goes. */
function absolute(element: Element, attribute: 'href' | 'src', base: URL | undefined): void {
  const url = parseUrl(element.getAttribute(attribute) ?? '', base);
  if (url !== undefined && FOLLOWABLE.has(url.protocol)) element.setAttribute(attribute, url.href);
  else element.removeAttribute(attribute);
}

function parseUrl(value: string, base?: URL): URL | undefined {
  return URL.canParse(value, base) ? new URL(value, base) : undefined;
}
