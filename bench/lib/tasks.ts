// `--only tasks` (issue 15): the agent task suite on the fixture shop (bench/tasks/shopTasks.ts), each
// task done by this service and by @playwright/mcp as an agent would call their tools, interleaved;
// per task and system: calls, characters returned to the agent, wall time, and success as the fixture
// server saw it. The runner and the table are bench/lib/taskSuite.ts, shared with `--only realapps`.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureServer } from '../../test/fixtures/fixtureServer.js';
import { taskRun } from '../../test/fixtures/routes/tasks.js';
import { SMOKE_TASKS, TASKS, type TaskContext } from '../tasks/shopTasks.js';
import {
  runSuite,
  taskTable,
  withTaskSystems,
  writeSuiteReport,
  type SuiteHooks,
  type SuiteOptions,
  type SuiteReport,
  type TaskResult,
  type TaskSystems,
} from './taskSuite.js';
import type { AgentMenus } from './agentMenus.js';

export type { TaskResult, TaskRunSample } from './taskSuite.js';

/**
 * Targets of issue 15, service ÷ peer, per task and in total; `sent` (what an MCP agent is sent:
 * menu × calls + answers) in total only, as for the real-app suite.
 */
export const TASK_TARGETS = { chars: 0.3, calls: 0.8, wallMs: 0.5, sent: 0.4 } as const;
/** A 1×1 PNG: the signup's avatar. */
const AVATAR_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export type TasksReport = SuiteReport;
export type TasksOptions = SuiteOptions;

/** Runs every task `iterations` times on both systems, the order of the systems swapped each time. */
export async function measureTasks(
  systems: TaskSystems,
  base: string,
  options: Pick<TasksOptions, 'iterations' | 'trace' | 'taskIds'> & { smoke: boolean },
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<{ tasks: TaskResult[]; menus: AgentMenus }> {
  const wanted = options.taskIds ?? (options.smoke ? SMOKE_TASKS : undefined);
  const tasks = wanted ? TASKS.filter((t) => wanted.includes(t.id)) : TASKS;
  // The peer reads files only under its workspace root (its working directory).
  const dir = await mkdtemp(path.join(systems.peer.workspace(), 'tasks-'));
  try {
    const bytes = Buffer.from(AVATAR_BASE64, 'base64');
    const upload = {
      path: path.join(dir, 'avatar.png'),
      name: 'avatar.png',
      base64: AVATAR_BASE64,
      bytes: bytes.length,
    };
    await writeFile(upload.path, bytes);
    // Each run has its own id: the fixture keeps its state apart from every other run's.
    const contextFor = (task: { id: string }, sys: string): Promise<TaskContext> => {
      const run = `${task.id}-${sys}-${randomBytes(6).toString('hex')}`;
      return Promise.resolve({
        url: (p) => `${base}${p}?run=${run}`,
        state: () => taskRun(run),
        upload,
      });
    };
    return await runSuite(
      tasks,
      systems,
      contextFor,
      { iterations: options.iterations, trace: options.trace === true },
      log,
      signal,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The markdown section: a row per task, the total, the targets, and why any run failed. */
export function tasksSection(tasks: TaskResult[], menus: AgentMenus | undefined): string[] {
  const bound = (x: number) => ({ task: x, total: x });
  return [
    '## Agent tasks (issue 15)',
    '',
    "Each task is done by this service (HTTP `/rpc`) and by `@playwright/mcp` (its MCP tools), in a fresh session each, the two interleaved; values are medians over the runs as **service / peer**, ratios service ÷ peer. Calls and characters count every answer the agent read (the JSON result of each call; the text content of each tool reply); session set-up and close are not counted on either side. Success is what the fixture server saw (its state for the run) or the answer compared with the fixture's own value.",
    '',
    ...taskTable(
      tasks,
      {
        calls: bound(TASK_TARGETS.calls),
        chars: bound(TASK_TARGETS.chars),
        wallMs: bound(TASK_TARGETS.wallMs),
        sent: TASK_TARGETS.sent,
      },
      menus,
    ),
  ];
}

/** `--only tasks`: starts the fixture app, the service and the peer, runs the suite, writes the report. */
export async function mainTasks(options: TasksOptions, hooks: SuiteHooks = {}): Promise<TasksReport> {
  const fixture = await startFixtureServer();
  try {
    return await withTaskSystems(options, hooks, undefined, async ({ systems, log, signal }) => {
      // The smoke: each of SMOKE_TASKS once on each system.
      const iterations = options.smoke ? 1 : options.iterations;
      const { tasks, menus } = await measureTasks(
        systems,
        fixture.url,
        {
          iterations,
          smoke: options.smoke,
          trace: options.trace,
          ...(options.taskIds ? { taskIds: options.taskIds } : {}),
        },
        log,
        signal,
      );
      return writeSuiteReport(
        { name: 'the agent tasks', only: 'tasks' },
        { commit: options.commit, iterations, tasks, menus },
        options,
        tasksSection(tasks, menus),
        log,
      );
    });
  } finally {
    await fixture.close();
  }
}
