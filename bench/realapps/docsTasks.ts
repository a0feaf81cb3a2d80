// The Python 3.11 documentation (Sphinx HTML from Debian's python3-doc, a large static site whose
// signatures render as one element per parameter): three reading tasks, each scripted for the service
// and for the peer as an agent calls their tools. Success is the answer compared with the page's own
// content (the signature Sphinx rendered, read from the installed HTML file) and, where the task is
// to get there, the #fragment the agent landed on.
import {
  joinedText,
  matchText,
  readValue,
  refOf,
  str,
  type PeerAgent,
  type ServiceAgent,
} from '../tasks/agents.js';
import {
  click,
  expectEqual,
  expectText,
  fill,
  findRegex,
  findRole,
  findText,
  goto,
  type RealAppContext,
  type RealAppTask,
} from './common.js';

/** A signature as text: no ¶ permalink, no whitespace (the service reads it with spaces, the peer's snapshot without). */
const compact = (s: string): string => s.replace(/¶/g, '').replace(/\s+/g, '');

const DUMPS = { page: 'library/json.html', id: 'json.dumps' } as const;
const DEQUE = {
  page: 'library/collections.html',
  id: 'collections.deque',
  fragment: '#deque-objects',
} as const;
const GROUPBY = { page: 'library/itertools.html', id: 'itertools.groupby' } as const;
/** The library index's entry for the collections module: its title, after the module's name. */
const COLLECTIONS = 'Container datatypes';
/** That entry's link: a link without a name of its own, its first child the module's name as code. */
const COLLECTIONS_LINK =
  /link \[ref=([^\]]+)\][^\n]*:\n(?:\s*- \/url:[^\n]*\n)?\s*- code[^\n]*: collections\n/;
/** The collections page's table of contents entry for the section: the link to its #fragment. */
const TOC_LINK = /link \[ref=([^\]]+)\][^\n]*:\n\s*- \/url: "#deque-objects"/;
/** The quick search field of every page. */
const SEARCH_BOX = 'Quick search';

/**
 * The service reads a signature: the match of its name (a regex on the element's own text) sits in
 * the signature's term, whose ref the match's context gives; page.text of that term is the signature.
 */
async function serviceSignature(
  a: ServiceAgent,
  found: Record<string, unknown> | undefined,
): Promise<string> {
  const term = readValue(matchText(found), /term \[ref=([^\]]+)\]/, 'the signature');
  return str(await a.call('page.text', { ref: term }), 'text');
}

/** The peer reads a signature: the snapshot of the term its find showed, its lines' texts joined. */
async function peerSignature(a: PeerAgent, found: string): Promise<string> {
  const term = readValue(found, /term \[ref=([^\]]+)\]/, 'the signature');
  return joinedText(await a.tool('browser_snapshot', { target: term }));
}

/** The answer against the signature Sphinx rendered for `target` (whitespace and ¶ aside). */
async function sameSignature(c: RealAppContext, answer: string, target: { page: string; id: string }) {
  return expectEqual('signature', compact(answer), compact(await c.docs().signature(target.page, target.id)));
}

export const DOCS_TASKS: RealAppTask[] = [
  {
    id: 'docs-signature',
    app: 'docs',
    title:
      'docs: read the full signature of json.dumps (its parameters) on the json module page (~110 KB of HTML)',
    async service(a, c) {
      const [, found] = await a.act([goto(`${c.docs().url}${DUMPS.page}`, 'load'), findRegex('^dumps$')]);
      return serviceSignature(a, found);
    },
    async peer(a, c) {
      await a.tool('browser_navigate', { url: `${c.docs().url}${DUMPS.page}` });
      return peerSignature(a, await a.tool('browser_find', { regex: '\\]: dumps$' }));
    },
    async check(answer, c) {
      return sameSignature(c, answer, DUMPS);
    },
  },
  {
    id: 'docs-toc',
    app: 'docs',
    title: `docs: from the library index follow the table of contents to collections, then its table of contents to the section "deque objects" (${DEQUE.fragment}) and read the deque signature`,
    async service(a, c) {
      const [, index] = await a.act([
        goto(`${c.docs().url}library/index.html`, 'load'),
        findText(COLLECTIONS),
      ]);
      // The entry is a link holding the module's name as code, then its title.
      const entry = readValue(matchText(index), COLLECTIONS_LINK, 'the collections entry');
      const [, found] = await a.act([click(entry), findRegex('^deque$')]);
      const seen = matchText(found);
      const [moved, signature] = await a.act([
        click(readValue(seen, TOC_LINK, 'the table of contents entry')),
        { method: 'page.text', params: { ref: readValue(seen, /term \[ref=([^\]]+)\]/, 'the signature') } },
      ]);
      // The click's report names the URL it moved to (the #fragment).
      return `${str(moved, 'url')}\n${str(signature, 'text')}`;
    },
    async peer(a, c) {
      await a.tool('browser_navigate', { url: `${c.docs().url}library/index.html` });
      const index = await a.tool('browser_find', { text: COLLECTIONS });
      await a.tool('browser_click', {
        element: 'collections',
        target: readValue(index, COLLECTIONS_LINK, 'the entry'),
      });
      const found = await a.tool('browser_find', { regex: '\\]: deque$' });
      const moved = await a.tool('browser_click', {
        element: 'deque objects',
        target: readValue(found, TOC_LINK, 'the table of contents entry'),
      });
      const url = readValue(moved, /Page URL: (\S+)/, 'the URL');
      return `${url}\n${await peerSignature(a, found)}`;
    },
    async check(answer, c) {
      const [url = '', signature = ''] = answer.split('\n');
      if (!url.endsWith(DEQUE.fragment)) return `landed on ${url}, not on ${DEQUE.fragment}`;
      return sameSignature(c, signature, DEQUE);
    },
  },
  {
    id: 'docs-search',
    app: 'docs',
    title:
      'docs: search the docs for "groupby" with the quick search box, open itertools.groupby from the results and read its signature',
    async service(a, c) {
      const [, seen] = await a.act([
        goto(`${c.docs().url}index.html`, 'load'),
        findRole('textbox', SEARCH_BOX),
      ]);
      const box = refOf(matchText(seen), 'textbox', SEARCH_BOX);
      const [, , , results] = await a.act([
        fill(box, 'groupby'),
        { method: 'page.press', params: { ref: box, key: 'Enter' } },
        // Sphinx searches in the page, from its index (3.6 MB of JavaScript), after the load.
        expectText('Search finished', 30_000),
        findRole('link', GROUPBY.id),
      ]);
      const [, found] = await a.act([
        click(refOf(matchText(results), 'link', GROUPBY.id)),
        findRegex('^groupby$'),
      ]);
      return serviceSignature(a, found);
    },
    async peer(a, c) {
      await a.tool('browser_navigate', { url: `${c.docs().url}index.html` });
      const seen = await a.tool('browser_find', { regex: `textbox "${SEARCH_BOX}"` });
      await a.tool('browser_type', {
        element: SEARCH_BOX,
        target: refOf(seen, 'textbox', SEARCH_BOX),
        text: 'groupby',
        submit: true,
      });
      await a.tool('browser_wait_for', { text: 'Search finished' });
      const results = await a.tool('browser_find', { regex: `link "${GROUPBY.id}"` });
      await a.tool('browser_click', { element: GROUPBY.id, target: refOf(results, 'link', GROUPBY.id) });
      return peerSignature(a, await a.tool('browser_find', { regex: '\\]: groupby$' }));
    },
    async check(answer, c) {
      return sameSignature(c, answer, GROUPBY);
    },
  },
];
