// Examples of the page.* methods for openrpc.json. Where docs/behaviour.md shows a real exchange
// the example is that exchange (its session id and fixture port made the same for every example);
// the others are written in the same shapes. A unit test validates each against its method's
// schemas, and an integration test runs a set of them against the real service.
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_DOWNLOAD, EXAMPLE_ORIGIN as O, EXAMPLE_SESSION as S } from './exampleValues.js';

const done = { ok: true };

export const pageExamples: Record<string, MethodExample[]> = {
  'page.goto': [
    {
      name: 'open the fixture list page',
      params: { session_id: S, url: `${O}/projects` },
      result: { url: `${O}/projects`, title: 'Projects', status: 200 },
    },
    {
      name: 'a link that downloads (docs/behaviour.md, Downloads)',
      params: { session_id: S, url: `${O}/files/attachment.txt` },
      result: {
        url: `${O}/files/downloads`,
        title: 'Downloads',
        status: 200,
        download: EXAMPLE_DOWNLOAD,
      },
    },
  ],
  'page.waitFor': [
    {
      name: 'wait for a text (docs/behaviour.md)',
      params: { session_id: S, text: 'Apollo', timeout: 5000 },
      result: { state: 'text' },
    },
  ],
  'page.reload': [
    {
      name: 'reload the page',
      params: { session_id: S },
      result: { url: `${O}/projects`, title: 'Projects', status: 200 },
    },
  ],
  'page.text': [
    {
      name: 'the page as Markdown, in pieces (docs/behaviour.md)',
      params: { session_id: S, format: 'markdown', maxChars: 400 },
      result: {
        text: `# Reading Guide\n\nThis guide explains how an agent reads a page as Markdown rather than as a flat run of text. It keeps the structure a person sees: headings, lists, tables and links, so the agent can tell a step from a heading and a row from a paragraph. The [projects page](${O}/projects) has more to read.\n\n`,
        truncated: true,
        length: 692,
        cursor: '1:327',
        approxTokens: 82,
      },
    },
  ],
  'page.content': [
    {
      name: 'the HTML of the page',
      params: { session_id: S },
      result: {
        html: '<!DOCTYPE html><html><head><title>Projects</title></head><body><h1>Projects</h1></body></html>',
        truncated: false,
      },
    },
  ],
  'page.evaluate': [
    {
      name: 'an expression evaluated in the page',
      params: { session_id: S, expression: 'document.title' },
      result: { result: 'Projects' },
    },
  ],
  'page.click': [
    {
      name: 'a click that navigates (docs/behaviour.md, Acting)',
      params: { session_id: S, selector: 'a[href="/widgets-b"]' },
      result: { ok: true, navigated: true, title: 'Widgets B', url: `${O}/widgets-b` },
    },
    {
      name: 'click Next until an order is shown (docs/behaviour.md, Clicking until)',
      params: {
        session_id: S,
        selector: 'nav[aria-label="Pages"] a:text-is("Next")',
        until: { text: '#1016' },
      },
      result: {
        ok: true,
        clicks: 2,
        navigated: true,
        title: 'Orders, page 3',
        url: `${O}/tasks/orders?page=3`,
      },
    },
  ],
  'page.fill': [
    {
      name: 'fill a field by selector',
      params: { session_id: S, selector: '#note', value: 'call Ada' },
      result: done,
    },
  ],
  'page.press': [
    {
      name: 'press Enter in a field',
      params: { session_id: S, selector: '#note', key: 'Enter' },
      result: done,
    },
  ],
  'page.hover': [
    { name: 'hover a menu (docs/behaviour.md)', params: { session_id: S, selector: '#menu' }, result: done },
  ],
  'page.dblclick': [
    { name: 'double-click a cell', params: { session_id: S, selector: '#cell' }, result: done },
  ],
  'page.focus': [{ name: 'focus a field', params: { session_id: S, selector: '#note' }, result: done }],
  'page.check': [
    {
      name: 'check a box by its ref (docs/behaviour.md)',
      params: { session_id: S, ref: 'e23' },
      result: done,
    },
  ],
  'page.uncheck': [{ name: 'uncheck a box', params: { session_id: S, selector: '#news' }, result: done }],
  'page.select': [
    {
      name: 'select options by label (docs/behaviour.md)',
      params: { session_id: S, selector: '#toppings', labels: ['Ham', 'Basil'] },
      result: { selected: ['ham', 'basil'] },
    },
  ],
  'page.type': [
    {
      name: 'type key by key (docs/behaviour.md)',
      params: { session_id: S, ref: 'e27', text: 'Par', delay: 50 },
      result: done,
    },
  ],
  'page.scroll': [
    {
      name: 'scroll up 400 pixels (docs/behaviour.md)',
      params: { session_id: S, delta: { dy: -400 } },
      result: done,
    },
  ],
  'page.back': [
    {
      name: 'back in history (docs/behaviour.md)',
      params: { session_id: S },
      result: { url: `${O}/widgets`, title: 'Widgets', status: 200, navigated: true },
    },
  ],
  'page.forward': [
    {
      name: 'forward with no page ahead',
      params: { session_id: S },
      result: { url: `${O}/projects`, title: 'Projects', status: null, navigated: false },
    },
  ],
};
