// tiddlywiki 5.4.1 on Node.js (a wiki that renders everything, its editor included, from its own
// widget tree, the text field inside an iframe): four tasks, each scripted for the service and for the
// peer as an agent calls their tools. Each starts on a fresh copy of the seed wiki; success is what
// the wiki's server holds (GET /recipes/default/tiddlers/<title>), or the answer compared with the
// seed tiddler's own text.
import {
  matchText,
  readValue,
  refOf,
  refOfText,
  type PeerAgent,
  type ServiceAgent,
  type Step,
} from '../tasks/agents.js';
import { click, expectEqual, fill, findRegex, findRole, findText, goto, type RealAppTask } from './common.js';
import { WIKI_SEED, type Tiddler } from './servers.js';

const NEW_TIDDLER = { title: 'Kestrel launch', text: 'The launch window opens on 14 March.' } as const;
const SHOPPING = WIKI_SEED.shopping;
const EDITED_TEXT = 'Milk, eggs, 3 lemons and a loaf of rye.';
const NEW_TAG = 'Urgent';
const KESTREL = WIKI_SEED.kestrel;
const BUDGET = readValue(KESTREL.text, /Budget: ([^\n]+)/, 'the seed budget');
/** The editor's buttons and fields, by the names tiddlywiki gives them. */
const EDITOR = {
  body: 'Type the text for this tiddler',
  confirm: 'Confirm changes to this tiddler',
  edit: 'Edit this tiddler',
  tag: 'tag name',
} as const;
/** A tiddler's permalink: the wiki opens with it alone in the story. */
const permalink = (base: string, title: string) => `${base}#${encodeURIComponent(title)}`;

/** The title field of a new tiddler: a textbox without a name that shows its value. */
const titleRef = (view: string): string => refOfText(view, 'textbox', 'New Tiddler');

const tags = (t: Tiddler | undefined): string[] => (t?.tags ?? '').split(' ').filter((x) => x !== '');

/**
 * The service opens a tiddler in its editor and finds the fields it will use (the editor's view is
 * thirty formatting buttons long; the agent knows the fields' names).
 */
async function serviceEdit(a: ServiceAgent, url: string, fields: Step[]): Promise<string> {
  const [, seen] = await a.act([goto(url, 'load'), findRole('button', EDITOR.edit)]);
  const [, ...found] = await a.act([click(refOf(matchText(seen), 'button', EDITOR.edit)), ...fields]);
  return found.map(matchText).join('\n');
}

/** The peer opens a tiddler in its editor and reads the editor's fields. */
async function peerEdit(a: PeerAgent, url: string, fields: string): Promise<string> {
  await a.tool('browser_navigate', { url });
  const found = await a.tool('browser_find', { regex: `button "${EDITOR.edit}"` });
  await a.tool('browser_click', { element: EDITOR.edit, target: refOf(found, 'button', EDITOR.edit) });
  return a.tool('browser_find', { regex: fields });
}

export const WIKI_TASKS: RealAppTask[] = [
  {
    id: 'tw-create',
    app: 'tiddlywiki',
    title: `tiddlywiki: create a tiddler "${NEW_TIDDLER.title}" with a line of text and save it`,
    async service(a, c) {
      const [, seen] = await a.act([goto(c.wiki().url, 'load'), findRole('button', 'new tiddler')]);
      const [, ...found] = await a.act([
        click(refOf(matchText(seen), 'button', 'new tiddler')),
        findRegex('^New Tiddler$'),
        findRole('textbox', EDITOR.body),
        findRole('button', EDITOR.confirm),
      ]);
      const view = found.map(matchText).join('\n');
      await a.act([
        fill(titleRef(view), NEW_TIDDLER.title),
        fill(refOf(view, 'textbox', EDITOR.body), NEW_TIDDLER.text),
        click(refOf(view, 'button', EDITOR.confirm)),
      ]);
      return 'saved';
    },
    async peer(a, c) {
      await a.tool('browser_navigate', { url: c.wiki().url });
      const found = await a.tool('browser_find', { regex: 'button "new tiddler"' });
      await a.tool('browser_click', {
        element: 'new tiddler',
        target: refOf(found, 'button', 'new tiddler'),
      });
      const editor = await a.tool('browser_find', {
        regex: `textbox.*: New Tiddler|textbox "${EDITOR.body}"|button "${EDITOR.confirm}"`,
      });
      await a.tool('browser_fill_form', {
        fields: [
          { name: 'title', type: 'textbox', target: titleRef(editor), value: NEW_TIDDLER.title },
          {
            name: 'text',
            type: 'textbox',
            target: refOf(editor, 'textbox', EDITOR.body),
            value: NEW_TIDDLER.text,
          },
        ],
      });
      await a.tool('browser_click', { element: 'Confirm', target: refOf(editor, 'button', EDITOR.confirm) });
      return 'saved';
    },
    async check(_answer, c) {
      const t = await c.wiki().saved(NEW_TIDDLER.title, (x) => x?.text === NEW_TIDDLER.text);
      return expectEqual('the new tiddler', { title: t?.title, text: t?.text }, NEW_TIDDLER);
    },
  },
  {
    id: 'tw-edit',
    app: 'tiddlywiki',
    title: `tiddlywiki: open "${SHOPPING.title}", edit its text and save`,
    async service(a, c) {
      const view = await serviceEdit(a, permalink(c.wiki().url, SHOPPING.title), [
        findRole('textbox', EDITOR.body),
        findRole('button', EDITOR.confirm),
      ]);
      await a.act([
        fill(refOf(view, 'textbox', EDITOR.body), EDITED_TEXT),
        click(refOf(view, 'button', EDITOR.confirm)),
      ]);
      return 'saved';
    },
    async peer(a, c) {
      const editor = await peerEdit(
        a,
        permalink(c.wiki().url, SHOPPING.title),
        `textbox "${EDITOR.body}"|button "${EDITOR.confirm}"`,
      );
      await a.tool('browser_type', {
        element: 'text',
        target: refOf(editor, 'textbox', EDITOR.body),
        text: EDITED_TEXT,
      });
      await a.tool('browser_click', { element: 'Confirm', target: refOf(editor, 'button', EDITOR.confirm) });
      return 'saved';
    },
    async check(_answer, c) {
      const t = await c.wiki().saved(SHOPPING.title, (x) => x?.text === EDITED_TEXT);
      return expectEqual('the text', t?.text, EDITED_TEXT);
    },
  },
  {
    id: 'tw-tag',
    app: 'tiddlywiki',
    title: `tiddlywiki: add the tag "${NEW_TAG}" to "${SHOPPING.title}" and save`,
    async service(a, c) {
      const view = await serviceEdit(a, permalink(c.wiki().url, SHOPPING.title), [
        findRole('textbox', EDITOR.tag),
      ]);
      const tag = refOf(view, 'textbox', EDITOR.tag);
      // Typing in the tag field re-renders the editor around it (its dropdown, its buttons): the agent
      // adds the tag with Enter, then reads the Confirm button again.
      const [, , confirm] = await a.act([
        fill(tag, NEW_TAG),
        { method: 'page.press', params: { ref: tag, key: 'Enter' } },
        findRole('button', EDITOR.confirm),
      ]);
      await a.act([click(refOf(matchText(confirm), 'button', EDITOR.confirm))]);
      return 'saved';
    },
    async peer(a, c) {
      const editor = await peerEdit(a, permalink(c.wiki().url, SHOPPING.title), `textbox "${EDITOR.tag}"`);
      await a.tool('browser_type', {
        element: 'tag name',
        target: refOf(editor, 'textbox', EDITOR.tag),
        text: NEW_TAG,
        submit: true,
      });
      const confirm = await a.tool('browser_find', { regex: `button "${EDITOR.confirm}"` });
      await a.tool('browser_click', { element: 'Confirm', target: refOf(confirm, 'button', EDITOR.confirm) });
      return 'saved';
    },
    async check(_answer, c) {
      const want = [SHOPPING.tags, NEW_TAG].sort();
      const t = await c
        .wiki()
        .saved(SHOPPING.title, (x) => JSON.stringify(tags(x).sort()) === JSON.stringify(want));
      return expectEqual('the tags', tags(t).sort(), want);
    },
  },
  {
    id: 'tw-search',
    app: 'tiddlywiki',
    title: `tiddlywiki: search the wiki for "kestrel", open "${KESTREL.title}" and read its budget`,
    async service(a, c) {
      const [, seen] = await a.act([goto(c.wiki().url, 'load'), findRole('searchbox')]);
      const search = readValue(matchText(seen), /searchbox[^\n]*?\[ref=([^\]]+)\]/, 'the search box');
      const [, results] = await a.act([fill(search, 'kestrel'), findRole('link', KESTREL.title)]);
      const [, budget] = await a.act([
        click(refOf(matchText(results), 'link', KESTREL.title)),
        findText('Budget'),
      ]);
      return readValue(matchText(budget), /Budget: ([^\n"]+)/, 'the budget');
    },
    async peer(a, c) {
      await a.tool('browser_navigate', { url: c.wiki().url });
      const found = await a.tool('browser_find', { regex: 'searchbox' });
      await a.tool('browser_type', {
        element: 'search',
        target: readValue(found, /searchbox[^\n]*?\[ref=([^\]]+)\]/, 'the search box'),
        text: 'kestrel',
      });
      const results = await a.tool('browser_find', { regex: `link "${KESTREL.title}"` });
      await a.tool('browser_click', {
        element: KESTREL.title,
        target: refOf(results, 'link', KESTREL.title),
      });
      const budget = await a.tool('browser_find', { text: 'Budget' });
      return readValue(budget, /Budget: ([^\n"]+)/, 'the budget');
    },
    check: (answer) => expectEqual('budget', answer, BUDGET),
  },
];
