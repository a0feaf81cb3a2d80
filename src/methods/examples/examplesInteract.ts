// Examples of page.act, page.snapshot and the input methods for openrpc.json, from the exchanges
// docs/behaviour.md shows (session id and fixture port made the same for every example).
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_ORIGIN as O, EXAMPLE_SESSION as S } from './exampleValues.js';

const done = { ok: true };

export const interactExamples: Record<string, MethodExample[]> = {
  'page.act': [
    {
      name: 'several steps, one fails (docs/behaviour.md)',
      description: 'The steps run in order and stop at the first failure; the answer says which.',
      params: {
        session_id: S,
        steps: [
          { method: 'page.fill', params: { selector: '#note', value: 'call Ada' } },
          { method: 'page.select', params: { selector: '#size', labels: ['Large'] } },
          { method: 'page.check', params: { selector: '#news' } },
          { method: 'page.click', params: { selector: '#nothing-here', timeout: 300 } },
          { expect: { text: 'Saved' } },
        ],
      },
      result: {
        ok: false,
        failedAt: 3,
        steps: [
          { result: {} },
          { result: { selected: ['l'] } },
          { result: {} },
          {
            method: 'page.click',
            ok: false,
            error: { code: -32001, message: 'page.click timed out: Timeout 300ms exceeded. …' },
          },
        ],
      },
    },
  ],
  'page.keyboard': [
    {
      name: 'a key chord (docs/behaviour.md)',
      params: { session_id: S, action: 'press', key: 'Control+A' },
      result: done,
    },
  ],
  'page.mouse': [
    {
      name: 'a click at a point (docs/behaviour.md)',
      params: { session_id: S, action: 'click', x: 300, y: 400 },
      result: done,
    },
  ],
  'page.drag': [
    {
      name: 'drag one item onto another (docs/behaviour.md)',
      params: { session_id: S, selector: '#list li[data-id=a]', targetSelector: '#list li[data-id=c]' },
      result: done,
    },
  ],
  'page.setViewport': [
    {
      name: 'a smaller viewport (docs/behaviour.md)',
      params: { session_id: S, width: 800, height: 600 },
      result: { width: 800, height: 600 },
    },
  ],
  'page.upload': [
    {
      name: 'a file through the chooser a button opens (docs/behaviour.md)',
      params: {
        session_id: S,
        selector: '#pick',
        files: [{ name: 'notes.txt', mimeType: 'text/plain', base64: 'aGVsbG8=' }],
      },
      result: {
        ok: true,
        via: 'chooser',
        files: [{ name: 'notes.txt', mimeType: 'text/plain', bytes: 5 }],
      },
    },
  ],
  'page.drop': [
    {
      name: 'a file and a link dropped onto a drop zone (docs/behaviour.md)',
      params: {
        session_id: S,
        selector: '#zone',
        files: [{ name: 'notes.txt', mimeType: 'text/plain', text: 'hello' }],
        data: { 'text/uri-list': `${O}/files/upload` },
      },
      result: {
        ok: true,
        handled: true,
        files: [{ name: 'notes.txt', mimeType: 'text/plain', bytes: 5 }],
        types: ['text/uri-list'],
      },
    },
  ],
  'page.snapshot': [
    {
      name: 'the accessibility snapshot of a form (docs/behaviour.md)',
      params: { session_id: S, selector: 'form', maxChars: 2000 },
      result: {
        snapshot:
          '- generic [ref=e1]:\n  - generic [ref=e2]:\n    - text: Name\n    - textbox "Name" [ref=e3]: Ada\n  - generic [ref=e4]:\n    - text: Plan\n    - combobox "Plan" [ref=e5]:\n      - option "Free"\n      - option "Team" [selected]\n  - generic [ref=e6]:\n    - checkbox "Terms" [checked] [ref=e7]\n    - text: Terms\n  - button "Save" [disabled] [ref=e8]',
        revision: 1,
        url: `${O}/snapshot`,
      },
    },
    {
      name: 'what changed since revision 2 (docs/behaviour.md)',
      params: { session_id: S, since: 2 },
      result: {
        snapshot:
          '@ (top)\n~ generic [ref=e2]:\n  was: generic [active] [ref=e2]:\n@ form "Profile" [ref=e10]:\n~ textbox "Text" [active] [ref=e13]: Grace\n  was: textbox "Text" [ref=e13]: Ada',
        revision: 3,
        since: 2,
        changes: { added: 0, removed: 0, changed: 2 },
        url: `${O}/inputs`,
      },
    },
  ],
};
