import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { MethodInfo } from '../rpc/defineMethod.js';

/**
 * What an MCP client shows a person about each tool and how it may treat a call: a title, and the
 * hints of the MCP spec. readOnlyHint is the method table's `readOnly`; the rest is kept here, by
 * method, because it is about how a client should treat a call, not about the call itself. Keyed
 * by method name; a method of the table without a title is a test failure (mcp.test.ts).
 */
export const TOOL_TITLES: Readonly<Record<string, string>> = {
  'session.create': 'Open a browser session',
  'session.close': 'Close a session',
  'session.list': 'List sessions',
  'session.addInitScript': 'Add an init script',
  'session.storageState': 'Export cookies and storage',
  'session.setStorageState': 'Import cookies and storage',
  'cookies.get': 'Read cookies',
  'cookies.set': 'Set cookies',
  'cookies.clear': 'Delete cookies',
  'sessionStorage.get': 'Read sessionStorage',
  'sessionStorage.set': 'Set sessionStorage items',
  'sessionStorage.clear': 'Delete sessionStorage items',
  'page.goto': 'Open a URL',
  'page.waitFor': 'Wait for a condition',
  'page.reload': 'Reload the page',
  'page.text': 'Read the page text',
  'page.content': 'Read the page HTML',
  'page.evaluate': 'Run JavaScript in the page',
  'page.click': 'Click',
  'page.fill': 'Fill a field',
  'page.press': 'Press a key',
  'page.hover': 'Hover',
  'page.dblclick': 'Double-click',
  'page.focus': 'Focus an element',
  'page.check': 'Check',
  'page.uncheck': 'Uncheck',
  'page.select': 'Select options',
  'page.type': 'Type text',
  'page.scroll': 'Scroll',
  'page.back': 'Go back',
  'page.forward': 'Go forward',
  'page.act': 'Run several steps',
  'page.keyboard': 'Use the keyboard',
  'page.mouse': 'Use the mouse',
  'page.drag': 'Drag and drop',
  'page.setViewport': 'Resize the viewport',
  'page.upload': 'Upload files',
  'page.drop': 'Drop files or data',
  'page.snapshot': 'Snapshot the page',
  'pages.list': 'List pages',
  'pages.select': 'Switch page',
  'pages.open': 'Open a new page',
  'pages.close': 'Close a page',
  'dialog.setPolicy': 'Set the dialog policy',
  'dialog.handle': 'Answer a dialog',
  'logs.pull': 'Read console logs and errors',
  'network.pull': 'Read failed requests',
  'network.get': 'Read one request',
  'network.har': 'Export a HAR',
  'network.route': 'Mock or block requests',
  'network.unroute': 'Remove a route',
  'network.routes': 'List routes',
  'network.offline': 'Go offline or online',
  'network.throttle': 'Throttle the network',
  'network.setExtraHeaders': 'Set extra request headers',
  screenshot: 'Take a screenshot',
  'downloads.list': 'List downloads',
  'downloads.get': 'Read a download',
  'page.pdf': 'Print to PDF',
  'trace.start': 'Start a trace',
  'session.export': 'Export as a Playwright test',
  'replay.picture': 'A replay picture',
  'replay.trace': 'Export as a Playwright trace',
  'replay.video': 'Export the replay as a video',
  'performance.start': 'Record page performance',
  'performance.stop': 'Performance insights',
  'trace.stop': 'Stop the trace',
  'trace.get': 'Read a trace',
  'find.byRole': 'Find by role',
  'find.byText': 'Find by text',
  'axe.run': 'Check accessibility',
  'agents.list': 'List evaluation agents',
  'agents.evaluate': 'Run an agent evaluation',
  'agents.evaluations': 'List agent evaluations',
  'agents.configureLLM': 'Configure an agent’s model',
  'tabs.list': 'List attached-browser tabs',
  'tabs.open': 'Open a tab',
  'tabs.close': 'Close a tab',
  'tabs.attach': 'Attach a tab as a session',
  'session.subscribe': 'Subscribe to events (WebSocket only)',
  'session.unsubscribe': 'Unsubscribe (WebSocket only)',
};

/**
 * Calls that may destroy what cannot be got back: anything that acts in the page (a click may
 * submit or delete in the app, a fill or a navigation drops what was typed), and what ends or
 * replaces the service's own state (a session, a page, cookies, routes, a tab). Pulls drain their
 * buffer. The other calls that change something only add or set what can be set back.
 */
const DESTRUCTIVE: ReadonlySet<string> = new Set([
  'session.close',
  'session.setStorageState',
  'cookies.clear',
  'sessionStorage.clear',
  'page.goto',
  'page.reload',
  'page.back',
  'page.forward',
  'page.evaluate',
  'page.click',
  'page.dblclick',
  'page.fill',
  'page.press',
  'page.type',
  'page.select',
  'page.check',
  'page.uncheck',
  'page.act',
  'page.keyboard',
  'page.mouse',
  'page.drag',
  'page.upload',
  'page.drop',
  'pages.close',
  'dialog.handle',
  'logs.pull',
  'network.pull',
  'network.unroute',
  'agents.evaluate',
  'tabs.close',
]);

/**
 * Calls that change something and whose repeat with the same arguments changes nothing more: a
 * state set to a value (checked, filled, selected, offline, a policy), or an end (a closed session).
 */
const IDEMPOTENT: ReadonlySet<string> = new Set([
  'session.close',
  'session.setStorageState',
  'cookies.set',
  'cookies.clear',
  'sessionStorage.set',
  'sessionStorage.clear',
  'page.fill',
  'page.select',
  'page.check',
  'page.uncheck',
  'page.hover',
  'page.focus',
  'page.setViewport',
  'pages.select',
  'dialog.setPolicy',
  'network.unroute',
  'network.offline',
  'network.throttle',
  'network.setExtraHeaders',
  'agents.configureLLM',
]);

/**
 * Calls that reach nothing beyond the service's own records (its sessions, buffers, files, routes
 * and settings): no page is loaded or acted on, no agent or other browser is asked.
 */
const CLOSED_WORLD: ReadonlySet<string> = new Set([
  'session.close',
  'session.list',
  'session.storageState',
  'session.setStorageState',
  'session.addInitScript',
  'cookies.get',
  'cookies.set',
  'cookies.clear',
  'pages.list',
  'pages.select',
  'dialog.setPolicy',
  'logs.pull',
  'network.pull',
  'network.get',
  'network.har',
  'network.unroute',
  'network.routes',
  'network.offline',
  'network.throttle',
  'network.setExtraHeaders',
  'downloads.list',
  'downloads.get',
  'trace.start',
  'trace.stop',
  'trace.get',
  'agents.list',
  'agents.evaluations',
  'session.subscribe',
  'session.unsubscribe',
]);

/** The annotations of a method's tool. */
export function toolAnnotations(def: MethodInfo): ToolAnnotations {
  const title = TOOL_TITLES[def.name] ?? def.name;
  const openWorldHint = !CLOSED_WORLD.has(def.name);
  // The spec reads destructiveHint and idempotentHint only when readOnlyHint is false.
  if (def.readOnly) return { title, readOnlyHint: true, openWorldHint };
  return {
    title,
    readOnlyHint: false,
    destructiveHint: DESTRUCTIVE.has(def.name),
    idempotentHint: IDEMPOTENT.has(def.name),
    openWorldHint,
  };
}
