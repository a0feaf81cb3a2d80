// `--only realapps`: the agent tasks on real open-source web apps (bench/realapps/), each task done
// by this service and by @playwright/mcp as an agent would call their tools, interleaved, with the
// runner and table of `--only tasks` (bench/lib/taskSuite.ts). The apps are installed (pinned, only
// when missing), started on loopback on free ports with temporary data, reset before every task run
// and stopped at the end by pid.
import path from 'node:path';
import type { RealAppContext, RealAppTask } from '../realapps/common.js';
import { DOCS_TASKS } from '../realapps/docsTasks.js';
import { ensureApps, PINS, type AppName } from '../realapps/install.js';
import { NODE_RED_TASKS } from '../realapps/nodeRedTasks.js';
import { DocsSite, NodeRedApp, WikiApp } from '../realapps/servers.js';
import { WIKI_TASKS } from '../realapps/wikiTasks.js';
import {
  runSuite,
  taskTable,
  withTaskSystems,
  writeSuiteReport,
  type SuiteHooks,
  type SuiteOptions,
  type SuiteReport,
  type TaskResult,
  type TaskTargets,
} from './taskSuite.js';
import type { AgentMenus } from './agentMenus.js';

/** Every real-app task, app by app. */
export const REAL_APP_TASKS: RealAppTask[] = [...NODE_RED_TASKS, ...WIKI_TASKS, ...DOCS_TASKS];
/** The smoke: one task on each app that keeps state. */
export const REAL_APP_SMOKE_TASKS = ['nr-add-inject', 'tw-create'];
/** The iterations of a run without --iterations. */
export const REAL_APP_DEFAULT_ITERATIONS = 3;
/** The targets of the real-app suite, service ÷ peer. */
export const REAL_APP_TARGETS: TaskTargets = {
  chars: { task: 0.6, total: 0.3 },
  calls: { task: 0.7, total: 0.7 },
  wallMs: { task: 0.5, total: 0.5 },
  sent: 0.4,
};
/** The service may open 127.0.0.1 on any port (each app listens on a free one), and nothing else. */
const LOOPBACK_ONLY = '^https?://127\\.0\\.0\\.1(:\\d+)?(/|$)';

export interface RealAppsReport extends SuiteReport {
  apps: Record<AppName, string>;
}

type App = NodeRedApp | WikiApp | DocsSite;

/** The section of the report: the apps, the table, the targets. */
export function realAppsSection(
  tasks: TaskResult[],
  apps: Record<AppName, string>,
  menus: AgentMenus | undefined,
): string[] {
  return [
    '## Real-app agent tasks',
    '',
    `Apps: ${Object.values(apps)
      .filter((v) => v !== '')
      .join(
        '; ',
      )}. Each runs on 127.0.0.1 on a free port with temporary data, reset to its seed before every task run (node-red: a full deploy of the seed flow; tiddlywiki: a restart on a fresh copy of the seed wiki; the docs are read-only). Each task is done by this service (HTTP \`/rpc\`) and by \`@playwright/mcp\` (its MCP tools) in a fresh session each, the two interleaved; values are medians over the runs as **service / peer**, ratios service ÷ peer; the total is the sum of the medians. Calls, characters and images count every answer the agent read (the JSON result of each call; the text and image parts of each tool reply); session set-up and close are not counted on either side. Success is the app's own state (node-red's GET /flows, the wiki's tiddlers on its server) or the answer compared with the page's own content.`,
    '',
    ...taskTable(tasks, REAL_APP_TARGETS, menus, { images: true }),
  ];
}

/** `--only realapps`: installs and starts the apps, the service and the peer, runs the suite, writes the report. */
export async function mainRealApps(options: SuiteOptions, hooks: SuiteHooks = {}): Promise<RealAppsReport> {
  const wanted = options.taskIds ?? (options.smoke ? REAL_APP_SMOKE_TASKS : undefined);
  const tasks = wanted ? REAL_APP_TASKS.filter((t) => wanted.includes(t.id)) : REAL_APP_TASKS;
  if (tasks.length === 0) throw new Error(`no real-app task among ${wanted?.join(', ') ?? ''}`);
  const needed = new Set(tasks.map((t) => t.app));
  const started: App[] = [];
  try {
    return await withTaskSystems(
      options,
      hooks,
      { ALLOW_HOST_REGEX: LOOPBACK_ONLY },
      async ({ systems, log, signal }) => {
        const installed = await ensureApps(path.join(options.repoRoot, 'bench', '.apps'), needed, log);
        const apps: { 'node-red'?: NodeRedApp; tiddlywiki?: WikiApp; docs?: DocsSite } = {};
        const start = async <T extends App>(app: T): Promise<T> => {
          started.push(app);
          hooks.onSystem?.(app);
          await app.start();
          log(`${app.name} ready at ${app.url}`);
          return app;
        };
        if (needed.has('node-red'))
          apps['node-red'] = await start(new NodeRedApp(installed.nodeForNodeRed, installed.nodeRedMain));
        if (needed.has('tiddlywiki')) apps.tiddlywiki = await start(new WikiApp(installed.tiddlywikiMain));
        if (needed.has('docs')) apps.docs = await start(new DocsSite(installed.docsRoot));
        const running = <T>(name: AppName, app: T | undefined): T => {
          if (app === undefined) throw new Error(`${name} is not running in this run`);
          return app;
        };
        const ctx: RealAppContext = {
          nodeRed: () => running('node-red', apps['node-red']),
          wiki: () => running('tiddlywiki', apps.tiddlywiki),
          docs: () => running('docs', apps.docs),
        };
        // Before each run (its clock not started): the app of the task back to its seed.
        const contextFor = async (task: RealAppTask): Promise<RealAppContext> => {
          await apps[task.app]?.reset();
          return ctx;
        };
        const iterations = options.smoke ? 1 : options.iterations;
        const { tasks: results, menus } = await runSuite(
          tasks,
          systems,
          contextFor,
          { iterations, trace: options.trace === true },
          log,
          signal,
        );
        const versions: Record<AppName, string> = {
          'node-red': needed.has('node-red') ? `node-red ${PINS.nodeRed.version}` : '',
          tiddlywiki: needed.has('tiddlywiki') ? `tiddlywiki ${PINS.tiddlywiki.version}` : '',
          docs: needed.has('docs')
            ? `the Python 3.11 docs of Debian's ${PINS.pythonDoc.name} (${installed.docsRoot})`
            : '',
        };
        return writeSuiteReport(
          { name: 'the real-app agent tasks', only: 'realapps' },
          { commit: options.commit, iterations, tasks: results, apps: versions, menus },
          options,
          realAppsSection(results, versions, menus),
          log,
        );
      },
    );
  } finally {
    for (const app of started.reverse())
      await app
        .stop()
        .catch((error: unknown) => process.stderr.write(`stopping ${app.name} failed: ${String(error)}\n`));
  }
}
