// Seed 003's Claude subagent contract as docs/claude-subagents.md's drop-in prompt states it: each
// flow below makes the calls the prompt tells the model to make, with the params it names, against
// the real service, Chromium and the fixture app, and builds the report it promises
// ({url, action_taken, text_excerpt, console_errors, network_errors, next_step}) from the answers.
// Then the Claude Code files that carry the prompt: the subagent's frontmatter and MCP tools, and
// the .mcp.json that registers the server they come from.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  buildReport,
  TEXT_EXCERPT_MAX_BYTES,
  type SubagentReport,
} from '../../client/agent/subagentReport.js';
import type {
  LogsPullResult,
  NetworkPullResult,
  PageActResult,
  PageSnapshotResult,
  PageTextResult,
} from '../../client/src/methods.generated.js';
import { UNSET_KEY_PLACEHOLDER } from '../../src/http/auth.js';
import { rpcFailure } from '../helpers/boundSession.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

/** Bound on connecting to /mcp and listing its tools. */
const MCP_TIMEOUT_MS = 30_000;
/** The prompt's maxChars for page.text. */
const PROMPT_MAX_CHARS = 2000;
/** The prompt's retry pauses on TIMEOUT (seed §13: 200 ms, then 600 ms). */
const RETRY_PAUSES_MS = [200, 600];
/** An action timeout short enough for the retry flow to stay quick. */
const SHORT_ACTION_TIMEOUT_MS = 300;

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** The drop-in prompt: the ```text block under "## The drop-in system prompt". */
function dropInPrompt(): string {
  const m = /## The drop-in system prompt\n[\s\S]*?```text\n([\s\S]*?)```/.exec(
    read('docs/claude-subagents.md'),
  );
  if (m?.[1] === undefined) throw new Error('docs/claude-subagents.md has no drop-in prompt block');
  return m[1];
}

const prompt = dropInPrompt();
const suite = useServiceSuite();

type Params = Record<string, unknown>;
const call = <T>(method: string, params: Params): Promise<T> => suite.service.call<T>(method, params);

/** Every field of the promised output object, checked against the pulls it must come from. */
function checkReport(report: SubagentReport, text: string, logs: LogsPullResult, network: NetworkPullResult) {
  expect(Object.keys(report).sort()).toEqual(
    ['action_taken', 'console_errors', 'network_errors', 'next_step', 'text_excerpt', 'url'].sort(),
  );
  expect(report.url).toMatch(/^http:\/\//);
  expect(report.action_taken.length).toBeGreaterThan(0);
  expect(Buffer.byteLength(report.text_excerpt, 'utf8')).toBeLessThanOrEqual(TEXT_EXCERPT_MAX_BYTES);
  expect(text.startsWith(report.text_excerpt)).toBe(true);
  // console_errors: the text of each console entry of type error and the message of each page error.
  const errorTexts = [
    ...logs.console.filter((c) => c.type === 'error').map((c) => c.text),
    ...logs.pageErrors.map((e) => e.message),
  ];
  expect(report.console_errors).toHaveLength(errorTexts.length);
  errorTexts.forEach((t, i) => expect(report.console_errors[i]).toContain(t));
  // network_errors: each request network.pull listed, with its url, method, status and failure.
  expect(report.network_errors).toEqual(
    network.requests.map(({ url, method, status, failure }) =>
      failure === undefined ? { url, method, status } : { url, method, status, failure },
    ),
  );
  expect(report.next_step.length).toBeGreaterThan(10);
}

async function closeAndCheck(session_id: string): Promise<void> {
  await call('session.close', { session_id });
  const { sessions } = await call<{ sessions: { session_id: string }[] }>('session.list', {});
  expect(sessions.map((s) => s.session_id)).not.toContain(session_id);
}

describe('the drop-in prompt', () => {
  it('names the methods and params these flows use, and the six fields of the report', () => {
    for (const phrase of [
      'session.create',
      'page.goto {url}',
      "waitUntil 'networkidle'",
      'page.waitFor',
      'page.snapshot {interactive: true}',
      '[ref=eN]',
      'page.text',
      `maxChars ${PROMPT_MAX_CHARS}`,
      'page.act {steps: [{method, params}, ..., {expect: {text}}]}',
      'failedAt',
      'navigated',
      'consoleErrors, failedRequests, dialogs, downloads, pages',
      'STALE_REF (-32013)',
      'logs.pull and network.pull {onlyErrors: true}',
      'TIMEOUT (-32001): at most 2 retries, after 200 ms then 600 ms',
      "page.waitFor {state: 'idleFor', ms}",
      'session.close',
      '{url, action_taken, text_excerpt, console_errors, network_errors, next_step}',
      'the first 2 KB at most',
    ]) {
      expect(prompt, phrase).toContain(phrase);
    }
  });
});

describe('the contract flow, as the prompt describes it', () => {
  it('succeeds on /form: snapshot, page.act on refs, text, both pulls, report, close', async () => {
    const actions: string[] = [];
    const { session_id } = await call<{ session_id: string }>('session.create', {});
    const nav = await call<{ url: string; title: string }>('page.goto', {
      session_id,
      url: `${suite.fixture.url}/form`,
    });
    actions.push(`opened ${nav.url}`);

    const snap = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    const name = refOf(snap.snapshot, /textbox "Name"/);
    const greet = refOf(snap.snapshot, /button "Greet"/);

    const act = await call<PageActResult>('page.act', {
      session_id,
      steps: [
        { method: 'page.fill', params: { ref: name, value: 'Ada' } },
        { method: 'page.click', params: { ref: greet } },
        { expect: { text: 'Hello, Ada!' } },
      ],
    });
    expect(act.ok).toBe(true);
    expect(act.steps).toHaveLength(3);
    // The report of each action: nothing navigated, nothing failed, so nothing to pull at once
    // (a step that only succeeded is {}: its entry's success is its ok).
    for (const step of act.steps.slice(0, 2)) {
      expect(step.result).toEqual(expect.any(Object));
      expect(step.result).not.toHaveProperty('navigated');
      expect(step.result).not.toHaveProperty('consoleErrors');
      expect(step.result).not.toHaveProperty('failedRequests');
    }
    actions.push(`page.act: filled "Name" with "Ada", clicked "Greet", saw "Hello, Ada!"`);

    const text = await call<PageTextResult>('page.text', {
      session_id,
      selector: 'main',
      maxChars: PROMPT_MAX_CHARS,
    });
    expect(text.text).toContain('Hello, Ada!');
    const logs = await call<LogsPullResult>('logs.pull', { session_id });
    const network = await call<NetworkPullResult>('network.pull', { session_id, onlyErrors: true });

    const report = buildReport({ url: snap.url, actions, text: text.text, logs, network });
    checkReport(report, text.text, logs, network);
    expect(report).toMatchObject({
      url: `${suite.fixture.url}/form`,
      console_errors: [],
      network_errors: [],
      next_step: 'Nothing failed: carry on with the task.',
    });
    expect(report.text_excerpt).toContain('Hello, Ada!');
    await closeAndCheck(session_id);
  });

  it('fails on /settle: the report shows the errors, logs.pull + network.pull explain them', async () => {
    const actions: string[] = [];
    const { session_id } = await call<{ session_id: string }>('session.create', {});
    await call('page.goto', { session_id, url: `${suite.fixture.url}/settle` });
    const snap = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    const brk = refOf(snap.snapshot, /button "Break"/);

    // The model expects data to load; the page's fetch fails instead, so the expect step fails.
    const act = await call<PageActResult>('page.act', {
      session_id,
      steps: [{ method: 'page.click', params: { ref: brk } }, { expect: { text: 'fetched', timeout: 1000 } }],
    });
    expect(act).toMatchObject({ ok: false, failedAt: 1 });
    const failedStep = act.steps[1];
    expect(failedStep?.error?.code).toBe(-32001);
    const clickReport = act.steps[0]?.result as { consoleErrors?: string[]; failedRequests?: unknown[] };
    expect(clickReport.consoleErrors).toContain('settle: something broke');
    expect(clickReport.failedRequests).toContainEqual(
      expect.objectContaining({ url: `${suite.fixture.url}/api/fail`, method: 'GET' }),
    );
    actions.push('clicked "Break"', `expected "fetched": ${failedStep?.error?.message ?? ''}`);

    // On any failure: logs.pull and network.pull at once.
    const logs = await call<LogsPullResult>('logs.pull', { session_id });
    const network = await call<NetworkPullResult>('network.pull', { session_id, onlyErrors: true });
    const text = await call<PageTextResult>('page.text', {
      session_id,
      selector: 'main',
      maxChars: PROMPT_MAX_CHARS,
    });

    const report = buildReport({
      url: snap.url,
      actions,
      text: text.text,
      logs,
      network,
      failure: failedStep?.error?.message,
    });
    checkReport(report, text.text, logs, network);
    // The entry names where the page logged it: /settle's inline script.
    expect(report.console_errors).toContainEqual(
      expect.stringMatching(/^settle: something broke \(http:\/\/127\.0\.0\.1:\d+\/settle:\d+:\d+\)$/),
    );
    expect(report.network_errors).toContainEqual({
      url: `${suite.fixture.url}/api/fail`,
      method: 'GET',
      status: 500,
    });
    expect(report.next_step).toContain('The flow stopped');
    expect(report.text_excerpt).toContain('failed');
    await closeAndCheck(session_id);
  });

  it('after a navigation the report says so, and the old refs are STALE_REF: snapshot again', async () => {
    const { session_id } = await call<{ session_id: string }>('session.create', {});
    await call('page.goto', { session_id, url: `${suite.fixture.url}/settle` });
    const snap = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    const go = refOf(snap.snapshot, /button "Go to B"/);
    const brk = refOf(snap.snapshot, /button "Break"/);
    const click = await call<{ navigated: boolean; url?: string; title?: string }>('page.click', {
      session_id,
      ref: go,
    });
    expect(click).toMatchObject({ navigated: true, url: `${suite.fixture.url}/widgets-b` });
    await rpcFailure(call('page.click', { session_id, ref: brk }), -32013);
    const again = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    expect(again.url).toBe(`${suite.fixture.url}/widgets-b`);
    await closeAndCheck(session_id);
  });

  it('reads pages and dialogs from the report: pages.select a popup, a confirm answered by the policy', async () => {
    const { session_id } = await call<{ session_id: string }>('session.create', {});
    await call('page.goto', { session_id, url: `${suite.fixture.url}/opener` });
    const snap = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    const click = await call<{ pages?: { page_id: string; url: string }[] }>('page.click', {
      session_id,
      ref: refOf(snap.snapshot, /button "Open window"/),
    });
    // The report names the popup (4 of 4 probes in a quiet run). Under load this suite saw the click
    // answer before the popup was known (reported to the lead, not fixed here): then pages.list,
    // which the prompt names, must list it.
    let pageId = click.pages?.[0]?.page_id;
    await waitFor(
      async () => {
        const { pages } = await call<{ pages: { page_id: string }[] }>('pages.list', { session_id });
        pageId ??= pages[1]?.page_id;
        return pageId !== undefined;
      },
      10_000,
      'the popup in pages.list',
    );
    expect(pageId).toBe('p2');
    await call('pages.select', { session_id, page_id: pageId });
    const tab = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    expect(tab.url).toBe(`${suite.fixture.url}/pages-target?from=window-open`);

    // p2 is the active page now: its refs carry its id (p2e4, p2f1e4).
    await call('page.goto', { session_id, url: `${suite.fixture.url}/alert` });
    const alertPage = await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
    const confirm = await call<{ dialogs?: { type: string; message: string; outcome: string }[] }>(
      'page.click',
      { session_id, ref: /button "Confirm" \[ref=(p2\w+)\]/.exec(alertPage.snapshot)?.[1] },
    );
    expect(confirm.dialogs).toEqual([
      expect.objectContaining({ type: 'confirm', message: 'sure?', outcome: 'dismissed' }),
    ]);
    await closeAndCheck(session_id);
  });

  it('retries a TIMEOUT at most twice, pausing with page.waitFor idleFor and snapshotting first', async () => {
    const { session_id } = await call<{ session_id: string }>('session.create', {});
    await call('page.goto', { session_id, url: `${suite.fixture.url}/form` });
    const click = () =>
      call('page.click', { session_id, selector: '#not-there', timeout: SHORT_ACTION_TIMEOUT_MS });
    const first = await rpcFailure(click(), -32001);
    const errors = [first.message];
    for (const ms of RETRY_PAUSES_MS) {
      expect(await call('page.waitFor', { session_id, state: 'idleFor', ms })).toEqual({ state: 'idleFor' });
      await call<PageSnapshotResult>('page.snapshot', { session_id, interactive: true });
      errors.push((await rpcFailure(click(), -32001)).message);
    }
    // Three attempts, then the prompt's failure path: pull both, report, close.
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain('matched no element');
    const logs = await call<LogsPullResult>('logs.pull', { session_id });
    const network = await call<NetworkPullResult>('network.pull', { session_id, onlyErrors: true });
    const text = await call<PageTextResult>('page.text', { session_id, maxChars: PROMPT_MAX_CHARS });
    const report = buildReport({
      url: `${suite.fixture.url}/form`,
      actions: ['clicked #not-there three times: TIMEOUT each time'],
      text: text.text,
      logs,
      network,
      failure: errors.at(-1),
    });
    checkReport(report, text.text, logs, network);
    await closeAndCheck(session_id);
  });
});

/** The subagent's frontmatter and body, and its tools without the mcp__browser__ prefix. */
function subagent(): { front: Record<string, unknown>; body: string; tools: string[] } {
  const m = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(read('.claude/agents/browser-debugger.md'));
  if (m?.[1] === undefined || m[2] === undefined) throw new Error('no frontmatter block');
  const front = parseYaml(m[1]) as Record<string, unknown>;
  const listed = String(front.tools).split(/,\s*/);
  for (const tool of listed) expect(tool).toMatch(/^mcp__browser__[A-Za-z0-9_]+$/);
  return { front, body: m[2], tools: listed.map((t) => t.slice('mcp__browser__'.length)) };
}

/**
 * An MCP client on .mcp.json's server `browser`, its ${VAR} and ${VAR:-default} expanded as Claude
 * Code does, from an environment with API_KEY set unless `withKey` is false.
 */
async function connectAsClaudeCode(withKey = true): Promise<Client> {
  const mcp = JSON.parse(read('.mcp.json')) as {
    mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
  };
  const server = mcp.mcpServers.browser;
  expect(server?.type).toBe('http');
  // Without API_KEY the default is the placeholder the service answers "set API_KEY" to.
  expect(server?.headers).toEqual({ 'x-api-key': `\${API_KEY:-${UNSET_KEY_PLACEHOLDER}}` });
  const env: Record<string, string> = {
    PLAYWRIGHT_JSONRPC_URL: suite.service.url,
    ...(withKey ? { API_KEY: TEST_API_KEY } : {}),
  };
  const expand = (s: string) =>
    s.replace(
      /\$\{(\w+)(?::-([^}]*))?\}/g,
      (_all, name: string, fallback?: string) => env[name] ?? fallback ?? '',
    );
  const url = expand(server?.url ?? '');
  // The subagent's tools are the core menu and downloads_list, of the files group.
  expect(url).toBe(`${suite.service.url}/mcp?groups=files`);
  const headers = Object.fromEntries(Object.entries(server?.headers ?? {}).map(([k, v]) => [k, expand(v)]));
  const client = new Client({ name: 'claude-subagent-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }), {
    timeout: MCP_TIMEOUT_MS,
  });
  return client;
}

/** A tool's answer: its structured content when the server gives one, else the JSON of its text. */
async function tool<T>(client: Client, allowed: string[], name: string, args: Params): Promise<T> {
  expect(allowed, `the subagent may call ${name}`).toContain(name);
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: MCP_TIMEOUT_MS });
  const parts = (result.content ?? []) as { type: string; text?: string }[];
  const text = parts.find((c) => c.type === 'text')?.text ?? 'null';
  expect(result.isError, text).toBeFalsy();
  return (result.structuredContent ?? JSON.parse(text)) as T;
}

describe('the Claude Code files', () => {
  it('.claude/agents/browser-debugger.md: frontmatter, MCP tools the service lists, the prompt as its body', async () => {
    const { front, body, tools } = subagent();
    expect(front.name).toBe('browser-debugger');
    expect(typeof front.description).toBe('string');
    expect(body).toBe(prompt);
    expect(tools.filter((n) => /^(tabs|agents)_/.test(n))).toEqual([]);
    // Every method the prompt's flows call is among the subagent's tools.
    for (const method of [
      'session.create',
      'page.goto',
      'page.waitFor',
      'page.snapshot',
      'page.text',
      'page.act',
      'page.click',
      'page.fill',
      'find.byRole',
      'logs.pull',
      'network.pull',
      'session.close',
    ]) {
      expect(tools).toContain(method.replace(/\./g, '_'));
    }
    const client = await connectAsClaudeCode();
    try {
      const { tools: offered } = await client.listTools(undefined, { timeout: MCP_TIMEOUT_MS });
      const names = new Set(offered.map((t) => t.name));
      expect(tools.filter((n) => !names.has(n))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('.mcp.json without API_KEY in the environment: the connect fails saying to set it, no sign-in', async () => {
    // A 400, not the 401 or 403 Claude Code would take for "needs authentication" and remember.
    await expect(connectAsClaudeCode(false)).rejects.toThrow(/Set API_KEY in your environment/);
  });

  it("runs the prompt's flow over MCP with the subagent's tools only, and reports", async () => {
    const { tools } = subagent();
    const client = await connectAsClaudeCode();
    try {
      const use = <T>(name: string, args: Params = {}) => tool<T>(client, tools, name, args);
      const { session_id } = await use<{ session_id: string }>('session_create');
      await use('page_goto', { session_id, url: `${suite.fixture.url}/projects` });
      await use('page_waitFor', { session_id, text: 'Apollo' });
      const snap = await use<PageSnapshotResult>('page_snapshot', { session_id, interactive: true });
      const act = await use<PageActResult>('page_act', {
        session_id,
        steps: [
          { method: 'page.click', params: { ref: refOf(snap.snapshot, /button "New Project"/) } },
          { method: 'page.fill', params: { selector: 'role=textbox[name="Project name"]', value: 'Zephyr' } },
          { method: 'page.press', params: { selector: 'role=textbox[name="Project name"]', key: 'Enter' } },
          { expect: { text: 'Typed: Zephyr' } },
        ],
      });
      expect(act.ok).toBe(true);
      expect(act.steps).toHaveLength(4);
      const text = await use<PageTextResult>('page_text', {
        session_id,
        selector: 'main',
        maxChars: PROMPT_MAX_CHARS,
      });
      // /projects logs a console error and fetches /api/fail on load: the pulls must carry both.
      const logs = await use<LogsPullResult>('logs_pull', { session_id });
      const network = await use<NetworkPullResult>('network_pull', { session_id, onlyErrors: true });
      const report = buildReport({
        url: snap.url,
        actions: ['opened /projects', 'clicked "New Project"', 'typed "Zephyr" and pressed Enter'],
        text: text.text,
        logs,
        network,
      });
      checkReport(report, text.text, logs, network);
      expect(report.text_excerpt).toContain('Zephyr');
      expect(report.console_errors.some((e) => e.startsWith('demo console error'))).toBe(true);
      expect(report.network_errors).toContainEqual({
        url: `${suite.fixture.url}/api/fail`,
        method: 'GET',
        status: 500,
      });
      await use('session_close', { session_id });
    } finally {
      await client.close();
    }
  });
});
