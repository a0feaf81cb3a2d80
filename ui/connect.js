// @ts-check
// The Connect dialog: this service's URL and what to paste to reach it from curl, the TypeScript
// client, an MCP client's configuration and Claude Code, each with a Copy button. A modal <dialog>
// opened from the top bar: Esc or Close closes it, and focus goes back to the Connect button.
import { byId, h } from './dom.js';

/**
 * The environment variable every snippet reads the key from: the name the service, the client's
 * examples and the Claude Code skill read. The key the console stores never goes into a snippet,
 * so a snippet pasted into a chat, a ticket or a shell history carries no secret.
 */
const KEY_VARIABLE = 'API_KEY';
/** How long a Copy button's "Copied" stays: long enough to be read, short enough to copy again. */
const COPIED_SHOW_MS = 2500;

/**
 * One way to connect: its heading, the text to copy (made from the service's origin) and a line
 * about it.
 * @typedef {{ id: string, title: string, text: (origin: string) => string, note: string }} Snippet
 */

/** @type {Snippet[]} */
const SNIPPETS = [
  {
    id: 'curl',
    title: 'curl',
    text: (origin) =>
      [
        `curl -s "${origin}/rpc" \\`,
        `  -H "x-api-key: $${KEY_VARIABLE}" \\`,
        '  -H "content-type: application/json" \\',
        `  -d '{"jsonrpc":"2.0","id":1,"method":"session.create","params":{}}'`,
      ].join('\n'),
    note: 'Opens a session and answers its session_id. Authorization: Bearer works as well as x-api-key.',
  },
  {
    id: 'typescript',
    title: 'TypeScript client',
    text: (origin) =>
      [
        "import { createClient } from 'playwright-jsonrpc-client';",
        '',
        `const apiKey = process.env.${KEY_VARIABLE};`,
        `if (!apiKey) throw new Error('Set ${KEY_VARIABLE} in the environment');`,
        `const client = createClient({ url: '${origin}', apiKey });`,
        '',
        'const { session_id } = await client.session.create();',
        'console.log(session_id);',
        'await client.session.close({ session_id });',
      ].join('\n'),
    note: 'The package playwright-jsonrpc-client is client/ in the repository: npm pack there and install the tarball (docs/client.md).',
  },
  {
    id: 'mcp',
    title: 'MCP client configuration',
    // Written out rather than JSON.stringify'd whole, to keep the headers on one line as the docs do.
    text: (origin) =>
      [
        '{',
        '  "mcpServers": {',
        '    "browser": {',
        '      "type": "http",',
        `      "url": ${JSON.stringify(`${origin}/mcp`)},`,
        `      "headers": { "x-api-key": "\${${KEY_VARIABLE}}" }`,
        '    }',
        '  }',
        '}',
      ].join('\n'),
    note: `Claude Code expands \${${KEY_VARIABLE}} from the environment it starts in; a client that does not sends it as written, and the service answers that ${KEY_VARIABLE} is not set. More tools: ?groups=all on the URL.`,
  },
  {
    id: 'claude',
    title: 'Claude Code',
    text: (origin) =>
      [
        `claude mcp add --transport http browser "${origin}/mcp" \\`,
        `  --header "x-api-key: $${KEY_VARIABLE}"`,
      ].join('\n'),
    note: `The shell puts the key in when the command runs, and Claude Code keeps it in its own configuration; the .mcp.json above keeps it out of files.`,
  },
];

/** @type {HTMLElement | null} */
let opener = null;
/** @type {WeakMap<HTMLElement, ReturnType<typeof setTimeout>>} */
const copiedTimers = new WeakMap();

/**
 * Copies a text, and says so next to its button; where the clipboard is refused (a page on plain
 * HTTP off localhost has no navigator.clipboard, a browser may deny the permission) the text is
 * selected instead, for the person's own Ctrl+C.
 * @param {string} text
 * @param {HTMLElement} source the element that shows the text
 * @param {HTMLElement} state the status line beside the button
 */
async function copy(text, source, state) {
  clearTimeout(copiedTimers.get(state));
  try {
    // Without a secure context navigator.clipboard is undefined: the TypeError lands in the catch.
    await navigator.clipboard.writeText(text);
    state.textContent = 'Copied';
    state.removeAttribute('title');
    state.dataset.state = 'copied';
    copiedTimers.set(
      state,
      setTimeout(() => {
        state.textContent = '';
        delete state.dataset.state;
      }, COPIED_SHOW_MS),
    );
  } catch (error) {
    window.getSelection()?.selectAllChildren(source);
    state.textContent = 'Selected: press Ctrl+C (⌘C) to copy';
    // Why the clipboard refused, on hover: worth knowing, too long for the line.
    state.title = `The clipboard refused: ${error instanceof Error ? error.message : String(error)}`;
    state.dataset.state = 'selected';
  }
}

/**
 * A text with its Copy button and the status line the button reports in.
 * @param {string} id
 * @param {string} what what is copied, for the button's accessible name
 * @param {HTMLElement} source the element that shows the text
 * @param {string} text
 */
function copyButton(id, what, source, text) {
  const state = h('span', { id: `connect-${id}-state`, class: 'copy-state', role: 'status' });
  const button = h('button', {
    id: `connect-${id}-copy`,
    type: 'button',
    class: 'copy',
    'aria-label': `Copy ${what}`,
    text: 'Copy',
  });
  button.addEventListener('click', () => void copy(text, source, state));
  return { button, state };
}

/** @param {Snippet} snippet @param {string} origin */
function snippetBlock(snippet, origin) {
  const text = snippet.text(origin);
  const titleId = `connect-${snippet.id}-title`;
  const code = h('code', { text });
  const copier = copyButton(snippet.id, `the ${snippet.title} snippet`, code, text);
  const pre = h('pre', { id: `connect-${snippet.id}`, class: 'snippet' }, [code]);
  return h('section', { class: 'connect-snippet', 'data-snippet': snippet.id, 'aria-labelledby': titleId }, [
    h('div', { class: 'connect-snippet-head' }, [
      h('h3', { id: titleId, text: snippet.title }),
      // The status before the button, so "Copied" appearing does not move the button.
      copier.state,
      copier.button,
    ]),
    pre,
    h('p', { class: 'muted small', text: snippet.note }),
  ]);
}

function close() {
  const dialog = byId('connect', HTMLDialogElement);
  if (dialog.open) dialog.close();
}

/** Builds the dialog for this page's origin and wires the top bar's Connect button. */
export function startConnect() {
  const origin = window.location.origin;
  const url = byId('connect-url', HTMLElement);
  url.textContent = origin;
  const copyUrl = copyButton('url', 'the service URL', url, origin);
  byId('connect-url-row', HTMLElement).append(copyUrl.button, copyUrl.state);
  byId('connect-key-variable', HTMLElement).textContent = KEY_VARIABLE;
  byId('connect-snippets', HTMLElement).replaceChildren(...SNIPPETS.map((s) => snippetBlock(s, origin)));
  const dialog = byId('connect', HTMLDialogElement);
  byId('connect-open', HTMLButtonElement).addEventListener('click', (event) => {
    opener = event.currentTarget instanceof HTMLElement ? event.currentTarget : null;
    if (!dialog.open) dialog.showModal();
  });
  byId('connect-close', HTMLButtonElement).addEventListener('click', close);
  dialog.addEventListener('close', () => {
    if (opener?.isConnected) opener.focus();
    opener = null;
  });
}
