/**
 * The param texts of the core menu's tools, short and written for a model: every MCP client sends
 * that menu with every model request, so each word here is paid for on every turn. The long form
 * of each param is in the method table (docs/methods.md) and in the tools of the other groups.
 * Texts name tools (page_snapshot); the only dotted method names are those page_act's steps take.
 * A param without a text here is named well enough by its name, type and default (session_id,
 * timeout, maxChars …); an object param's text names its fields, which the core menu leaves out.
 */

/** Params many core tools share, by name. */
export const SHARED_PARAM_TEXTS: Readonly<Record<string, string>> = {
  ref: 'e12 from page_snapshot or find_*.',
  selector: 'Instead of ref: CSS or role=button[name="Save"].',
  observe: 'Also answer what changed on the page.',
};

/** Params of one core tool, by method and param name (these win over the shared texts). */
export const BRIEF_PARAM_TEXTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'session.create': {
    viewport: '{width, height}; default 1280x800.',
    storageState: 'What session_storageState saved: {cookies, origins}.',
    device: "'iPhone 13', 'Pixel 7' …",
    locale: 'e.g. de-DE.',
    timezoneId: 'e.g. Europe/Berlin.',
    geolocation: '{latitude, longitude}.',
    permissions: "Granted to every origin: 'geolocation', 'clipboard-read' …",
    dialogs: '{mode: auto|manual, confirm|prompt|beforeunload: accept|dismiss, promptText}.',
    traceOnFailure: 'Keep a trace of each failed call.',
    url: 'Open this URL at once, as page_goto.',
    secrets: '{NAME: value}: typed by page_fill or page_type with secret NAME, never shown.',
  },
  'page.goto': { url: 'Absolute http(s) URL.' },
  'page.waitFor': {
    state: 'Load state; idleFor pauses ms; element state with selector or ref.',
    text: 'Until this text is visible.',
    textGone: 'Until this text is gone.',
    url: 'Until the URL matches this glob or /regex/.',
  },
  'page.text': {
    selector: 'Read only this element (default: whole page).',
    ref: 'Read only this element.',
    format: 'markdown keeps headings, lists, tables and links.',
    frames: 'Append the text of iframes.',
    cursor: 'From a previous answer: read on.',
  },
  'page.snapshot': {
    selector: 'Only this subtree.',
    ref: 'Only this subtree.',
    interactive: 'Only what can be acted on.',
    boxes: 'Add each element’s box in CSS pixels.',
    since: 'A previous revision: answer only what changed.',
    cursor: 'From a previous answer: read on.',
  },
  'page.click': { until: '{text} or {selector}: click again (Next, Load more) until it is visible.' },
  'page.fill': { value: 'Replaces the field’s content.', secret: 'Instead of value: a secret’s name.' },
  'page.press': { key: 'Enter, Tab, ArrowDown, Control+A …' },
  'page.select': {
    values: 'Option values.',
    labels: 'Option labels.',
    indexes: 'Option positions from 0.',
  },
  'page.act': {
    steps:
      'In order: {method: "page.click", params: {ref}} (any page_* or find_* tool, its name with a dot, no session_id) or {expect: {text} | {url} | {selector} | {textGone}}.',
    timeout: 'For all the steps, ms.',
  },
  'find.byRole': {
    role: 'button, link, textbox, heading, checkbox …',
    name: 'Accessible name, a case-insensitive substring unless exact.',
    boxes: 'Add each match’s box in CSS pixels.',
    revision: 'Reuse this snapshot if still current.',
  },
  'find.byText': {
    text: 'Case-insensitive substring of a name, text or value.',
    regex: 'Or a JavaScript regex, without slashes.',
    flags: 'Flags of regex.',
    boxes: 'Add each match’s box in CSS pixels.',
    revision: 'Reuse this snapshot if still current.',
  },
  'dialog.handle': {
    accept: 'true: OK, false: Cancel.',
    promptText: 'The answer to a prompt.',
  },
  'pages.select': { page_id: 'p1, p2 … from pages_list.' },
  'logs.pull': { since: 'Last seq seen: read without draining.' },
  'network.pull': {
    onlyErrors: 'false: every response.',
    since: 'Last seq seen: read without draining.',
  },
  screenshot: {
    clip: '{x, y, width, height} of the viewport, CSS pixels.',
    downscale: 'Keep the long side within 1568 px.',
  },
};
