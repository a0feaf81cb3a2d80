/**
 * The MCP menu in capability groups. An MCP client sends its whole tool list with every model
 * request, so /mcp lists the core group alone unless the client asks for more: `?groups=` (or the
 * `x-mcp-groups` header) when it connects, or the tools_enable tool at run time. Each group is one
 * concern, named for a model; every method that can be a tool is in exactly one.
 */

/** The group every menu holds: what an agent needs to browse a site and act on it. */
export const CORE_GROUP = 'core';
/** What a client writes to ask for every group at once. */
export const ALL_GROUPS = 'all';

/** Each group's methods, and what it is for in a model's words (tools_enable shows it). */
const GROUPS = {
  core: {
    about: 'sessions, navigation, snapshot, find, the common actions, text, dialogs, pages, logs, screenshot',
    methods: [
      'session.create',
      'session.close',
      'session.list',
      'page.goto',
      'page.back',
      'page.reload',
      'page.waitFor',
      'page.snapshot',
      'page.text',
      'find.byRole',
      'find.byText',
      'page.click',
      'page.fill',
      'page.type',
      'page.press',
      'page.select',
      'page.check',
      'page.act',
      'dialog.handle',
      'pages.list',
      'pages.select',
      'logs.pull',
      'network.pull',
      'screenshot',
    ],
  },
  page: {
    about:
      'hover, uncheck, double-click, focus, scroll, keyboard, mouse, drag, upload, drop, viewport, forward, open or close a page, dialog policy',
    methods: [
      'page.forward',
      'page.hover',
      'page.uncheck',
      'page.dblclick',
      'page.focus',
      'page.scroll',
      'page.keyboard',
      'page.mouse',
      'page.drag',
      'page.upload',
      'page.drop',
      'page.setViewport',
      'pages.open',
      'pages.close',
      'dialog.setPolicy',
    ],
  },
  inspect: {
    about: 'HTML, JavaScript, accessibility checks, performance insights',
    methods: ['page.content', 'page.evaluate', 'axe.run', 'performance.start', 'performance.stop'],
  },
  network: {
    about: 'request details, HAR, mocking, offline, throttling, headers',
    methods: [
      'network.get',
      'network.har',
      'network.route',
      'network.unroute',
      'network.routes',
      'network.offline',
      'network.throttle',
      'network.setExtraHeaders',
    ],
  },
  storage: {
    about: 'cookies, sessionStorage, saved logins, init scripts',
    methods: [
      'cookies.get',
      'cookies.set',
      'cookies.clear',
      'sessionStorage.get',
      'sessionStorage.set',
      'sessionStorage.clear',
      'session.storageState',
      'session.setStorageState',
      'session.addInitScript',
    ],
  },
  files: {
    about:
      'downloads, PDF, Playwright traces, export as a Playwright test or trace, replay pictures and video',
    methods: [
      'downloads.list',
      'downloads.get',
      'page.pdf',
      'trace.start',
      'trace.stop',
      'trace.get',
      'session.export',
      'replay.picture',
      'replay.trace',
      'replay.video',
    ],
  },
  agents: {
    about: 'evaluation agents',
    methods: ['agents.list', 'agents.evaluate', 'agents.evaluations', 'agents.configureLLM'],
  },
  tabs: {
    about: 'tabs of an attached browser',
    methods: ['tabs.list', 'tabs.open', 'tabs.close', 'tabs.attach'],
  },
} as const satisfies Record<string, { about: string; methods: readonly string[] }>;

export type ToolGroup = keyof typeof GROUPS;

/** Every group, core first, in the order tools_enable and the docs list them. */
export const TOOL_GROUPS = Object.keys(GROUPS) as ToolGroup[];

/** The groups a client may ask for (core is always there). */
export const OPTIONAL_GROUPS: readonly ToolGroup[] = TOOL_GROUPS.filter((g) => g !== CORE_GROUP);

const groupOfMethod = new Map<string, ToolGroup>(
  TOOL_GROUPS.flatMap((group) => GROUPS[group].methods.map((method) => [method, group] as const)),
);

/** The group of a method's tool, or undefined for a method in none. */
export function groupOf(method: string): ToolGroup | undefined {
  return groupOfMethod.get(method);
}

/** The methods of a group. */
export function methodsOf(group: ToolGroup): readonly string[] {
  return GROUPS[group].methods;
}

/** What a group is for, in a model's words. */
export function aboutGroup(group: ToolGroup): string {
  return GROUPS[group].about;
}

export function isToolGroup(name: string): name is ToolGroup {
  return Object.hasOwn(GROUPS, name);
}

/**
 * The groups a comma-separated list names (`network,storage`, `all`), with core; the names it
 * does not know are in `unknown`, for an answer that lists the right ones.
 */
export function parseGroups(lists: readonly string[]): { groups: Set<ToolGroup>; unknown: string[] } {
  const groups = new Set<ToolGroup>([CORE_GROUP]);
  const unknown: string[] = [];
  for (const name of lists.flatMap((list) => list.split(',')).map((n) => n.trim())) {
    if (name === '') continue;
    if (name === ALL_GROUPS) for (const g of TOOL_GROUPS) groups.add(g);
    else if (isToolGroup(name)) groups.add(name);
    else unknown.push(name);
  }
  return { groups, unknown };
}
