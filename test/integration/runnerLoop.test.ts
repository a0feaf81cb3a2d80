// The runner page's agent loop in a real browser: /ui/runner.html against the real service (seed
// 002's POST /sessions, POST /sessions/{id}/execute, DELETE /sessions/{id}) and a scripted fake of
// the Messages API. Needs the runner API routes (issue 13's rest work).
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { RUNNER_GOAL_TEXT } from '../fixtures/routes/runner.js';
import type { FakeTurn, RecordedRequest } from '../helpers/fakeMessagesApi.js';
import { textTurn, toolTurn } from '../helpers/fakeMessagesApi.js';
import { PASTED_ANTHROPIC_KEY, useRunnerSuite } from '../helpers/runnerSuite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

const suite = useRunnerSuite();

interface Block {
  type: string;
  [key: string]: unknown;
}

/** The blocks of the last message of a request the fake got. */
function lastBlocks(request: RecordedRequest | undefined): Block[] {
  const messages = request?.body.messages ?? [];
  const last = messages[messages.length - 1];
  return Array.isArray(last?.content) ? (last.content as Block[]) : [];
}

/** The text blocks inside a tool_result block's content. */
function resultText(block: Block | undefined): string {
  const content = Array.isArray(block?.content) ? (block.content as Block[]) : [];
  return content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join('\n');
}

async function openSessions(): Promise<unknown[]> {
  const { sessions } = await suite.service.call<{ sessions: unknown[] }>('session.list', {});
  return sessions;
}

function script(turns: FakeTurn[]): void {
  suite.fake.script.splice(0, suite.fake.script.length, ...turns);
}

beforeEach(() => {
  suite.fake.requests.length = 0;
  suite.fake.hits.length = 0;
  suite.outsider.hits.length = 0;
  suite.toService.length = 0;
});

describe('the runner page runs the agent loop in the browser', () => {
  it('streams, executes each tool call through execute with its id as idempotency_key, returns the results to the model, checks the reward and closes the session', async () => {
    const goal = `${suite.fixture.url}/runner/goal`;
    script([
      toolTurn('toolu_01', 'page_goto', { url: goal }, 'I will open the goal page.'),
      toolTurn('toolu_02', 'page_text', {}),
      toolTurn('toolu_03', 'screenshot', {}),
      textTurn('The goal page says the runner reached the goal.'),
    ]);
    const page = await suite.openRunner();
    await suite.fill(page, { successCheck: RUNNER_GOAL_TEXT });
    const { state, text } = await suite.run(page);
    expect(text).toContain('end_turn');
    expect(state).toBe('done');

    // The model: four streamed calls, from this browser, with the pasted key.
    const requests = suite.fake.requests;
    expect(requests).toHaveLength(4);
    for (const r of requests) {
      expect(r.headers['x-api-key']).toBe(PASTED_ANTHROPIC_KEY);
      expect(r.headers['anthropic-version']).toBe('2023-06-01');
      expect(r.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
      expect(r.headers.authorization).toBeUndefined();
      expect(JSON.stringify(r)).not.toContain(TEST_API_KEY);
      expect(r.body.stream).toBe(true);
      expect(r.body.model).toBe('claude-fake-1');
    }
    // The tools: the chosen methods, named for the API, their params schemas without session_id.
    const tools = requests[0]?.body.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual(['page_goto', 'page_text', 'page_click', 'screenshot']);
    const gotoSchema = tools[0]?.input_schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(gotoSchema.properties)).toContain('url');
    expect(gotoSchema.properties).not.toHaveProperty('session_id');
    expect(gotoSchema.required).toEqual(['url']);
    expect(tools[0]?.description).toMatch(/Navigate/);

    // The assistant turn went back whole: the tool input joined from its input_json_delta parts.
    const second = requests[1]?.body.messages ?? [];
    expect(second[0]).toEqual({ role: 'user', content: 'Open the goal page and read it.' });
    expect(second[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'I will open the goal page.' },
        { type: 'tool_use', id: 'toolu_01', name: 'page_goto', input: { url: goal } },
      ],
    });
    const gotoResult = lastBlocks(requests[1])[0];
    expect(gotoResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01' });
    expect(gotoResult?.is_error).toBeUndefined();
    expect(resultText(gotoResult)).toContain('Runner goal');
    // page.text's result reached the model.
    const textResult = lastBlocks(requests[2])[0];
    expect(textResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_02' });
    expect(resultText(textResult)).toContain(RUNNER_GOAL_TEXT);
    // The screenshot went back as an image block, and its base64 not as text.
    const shotResult = lastBlocks(requests[3])[0];
    const shotContent = (shotResult?.content ?? []) as Block[];
    const image = shotContent.find((b) => b.type === 'image');
    expect(image?.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
    expect(resultText(shotResult).length).toBeLessThan(1000);

    // The trace: streamed text, three calls and three results, the screenshot, the reward.
    expect(await page.locator('.entry-text').allTextContents()).toEqual([
      expect.stringContaining('I will open the goal page.'),
      expect.stringContaining('Calling page_text.'),
      expect.stringContaining('Calling screenshot.'),
      expect.stringContaining('The goal page says the runner reached the goal.'),
    ]);
    expect(await page.locator('.entry-tool-call').count()).toBe(3);
    expect(await page.locator('.entry-tool-result').count()).toBe(3);
    expect(await page.locator('.entry-tool-result.error').count()).toBe(0);
    expect(await page.locator('.entry-tool-result img').getAttribute('src')).toMatch(
      /^data:image\/png;base64,/,
    );
    expect(await page.getAttribute('#reward', 'data-reward')).toBe('1');
    expect(await page.textContent('#reward')).toContain(RUNNER_GOAL_TEXT);
    // Each tool call ran in execute's streamed form: its row got the progress event sent at the
    // start, and lost its running label when its result came.
    for (const row of await page.locator('.entry-tool-call').all())
      expect(Number(await row.getAttribute('data-progress-events'))).toBeGreaterThanOrEqual(1);
    expect(await page.locator('.tool-running').count()).toBe(0);

    // The service: one session, each tool call executed once under its tool_use id, then closed.
    const executes = suite.toService.filter((r) => r.method === 'POST' && r.url.includes('/execute'));
    const bodies = executes.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(bodies.map((b) => b.tool_name)).toEqual(['page.goto', 'page.text', 'screenshot', 'page.text']);
    expect(bodies.slice(0, 3).map((b) => b.idempotency_key)).toEqual(['toolu_01', 'toolu_02', 'toolu_03']);
    expect(bodies[0]?.args).toEqual({ url: goal });
    for (const r of executes) expect(r.headers.accept).toBe('text/event-stream');
    expect(suite.toService.filter((r) => r.method === 'POST' && r.url.endsWith('/sessions'))).toHaveLength(1);
    expect(suite.toService.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect(await openSessions()).toEqual([]);

    // The Anthropic key never reached the service: not in a URL, a header or a body, nor its logs;
    // the service key went in the Authorization header only, never in a URL.
    expect(suite.toService.length).toBeGreaterThan(5);
    for (const r of suite.toService) {
      expect(JSON.stringify(r)).not.toContain(PASTED_ANTHROPIC_KEY);
      expect(r.url).not.toContain(TEST_API_KEY);
      expect(r.headers['x-api-key']).toBeUndefined();
    }
    expect(suite.service.logs.join('\n')).not.toContain(PASTED_ANTHROPIC_KEY);
  });

  it('a reward check the final page fails gives reward 0', async () => {
    script([
      toolTurn('toolu_r1', 'page_goto', { url: `${suite.fixture.url}/runner/goal` }),
      textTurn('Done.'),
    ]);
    const page = await suite.openRunner();
    await suite.fill(page, { successCheck: 'text that is nowhere on the page' });
    expect((await suite.run(page)).state).toBe('done');
    // The page was reached (no tool failed), yet it lacks the text.
    expect(await page.locator('.entry-tool-result').count()).toBe(1);
    expect(await page.locator('.entry-tool-result.error').count()).toBe(0);
    expect(await page.getAttribute('#reward', 'data-reward')).toBe('0');
  });

  it('a tool call that fails, or names a tool not offered, goes back as is_error and the loop goes on', async () => {
    script([
      {
        kind: 'stream',
        stopReason: 'tool_use',
        blocks: [
          { type: 'text', text: 'Two calls.' },
          {
            type: 'tool_use',
            id: 'toolu_e1',
            name: 'page_click',
            input: { selector: '#missing', timeout: 300 },
          },
          { type: 'tool_use', id: 'toolu_e2', name: 'page_evaluate', input: { expression: '1' } },
        ],
      },
      textTurn('Both failed.'),
    ]);
    const page = await suite.openRunner();
    await suite.fill(page);
    expect((await suite.run(page)).state).toBe('done');
    const results = lastBlocks(suite.fake.requests[1]);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_e1', is_error: true });
    expect(resultText(results[0])).toMatch(/#missing/);
    expect(results[1]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_e2', is_error: true });
    expect(resultText(results[1])).toContain('Unknown tool page_evaluate');
    expect(await page.locator('.entry-tool-result.error').count()).toBe(2);
    // The tool not offered never reached the service.
    const executed = suite.toService.filter((r) => r.url.includes('/execute')).map((r) => r.body);
    expect(executed.join('\n')).not.toContain('page.evaluate');
    expect(await openSessions()).toEqual([]);
  });

  it('stops after max steps model calls even when the model keeps calling tools', async () => {
    const goal = `${suite.fixture.url}/runner/goal`;
    script(Array.from({ length: 5 }, (_, i) => toolTurn(`toolu_m${i}`, 'page_goto', { url: goal })));
    const page = await suite.openRunner();
    await suite.fill(page, { maxSteps: '2' });
    const { state, text } = await suite.run(page);
    expect(state).toBe('done');
    expect(text).toContain('max steps reached (2)');
    expect(suite.fake.requests).toHaveLength(2);
    // Step 1's call ran; step 2's was not run, since no model call may follow it.
    expect(suite.toService.filter((r) => r.url.includes('/execute'))).toHaveLength(1);
    expect(await openSessions()).toEqual([]);
  });
});

/** Picks a sample of ui/runnerSamples.json once the page has loaded the file. */
async function pickSample(page: Page, id: string): Promise<void> {
  await page.waitForSelector('#samples-note[data-state="loaded"]');
  await page.selectOption('#sample', id);
}

/** The check entry of the trace: which check ran, through which method, and what it saw. */
async function checkEntry(page: Page): Promise<{ kind: string | null; label: string; text: string }> {
  const entry = page.locator('.entry-check');
  expect(await entry.count()).toBe(1);
  return {
    kind: await entry.getAttribute('data-check-kind'),
    label: (await entry.locator('.label').textContent()) ?? '',
    text: (await entry.locator('pre').textContent()) ?? '',
  };
}

describe('eval samples: picked from ui/runnerSamples.json or pasted, each with its own check', () => {
  it('a picked sample runs its task, and its textContains check passes on the page the agent reached', async () => {
    script([
      toolTurn('toolu_s1', 'page_goto', { url: `${suite.fixture.url}/runner/goal` }),
      textTurn('The page says the runner reached the goal.'),
    ]);
    const page = await suite.openRunner();
    await suite.fill(page, { task: 'not this task', successCheck: 'not this check' });
    await pickSample(page, 'fixture-goal-text');
    // The sample stands in for the task and success check fields.
    expect(await page.isDisabled('#task')).toBe(true);
    expect(await page.isVisible('#success-check')).toBe(false);
    expect(await page.textContent('#sample-check')).toContain('textContains');
    expect((await suite.run(page)).state).toBe('done');
    // The model got the sample's task, not the task field's.
    const first = suite.fake.requests[0]?.body.messages?.[0];
    expect(first?.content).toBe(
      'Open http://127.0.0.1:8080/runner/goal and say in one sentence what the page reports.',
    );
    expect(await page.getAttribute('#reward', 'data-reward')).toBe('1');
    expect(await page.getAttribute('#reward', 'data-check-kind')).toBe('textContains');
    const check = await checkEntry(page);
    expect(check.kind).toBe('textContains');
    expect(check.label).toBe('check textContains via page.text: reward 1');
    expect(check.text).toContain(`textContains "${RUNNER_GOAL_TEXT}"`);
    expect(check.text).toContain(`saw: found at character 5: Goal ${RUNNER_GOAL_TEXT}. OK`);
    // The reward was read through execute with page.text, never page.evaluate.
    const executed = suite.toService
      .filter((r) => r.url.includes('/execute'))
      .map((r) => (JSON.parse(r.body) as { tool_name: string }).tool_name);
    expect(executed).toEqual(['page.goto', 'page.text']);
    expect(JSON.parse(suite.toService.filter((r) => r.url.includes('/execute'))[1]?.body ?? '{}')).toEqual({
      tool_name: 'page.text',
      args: { maxChars: 2_000_000 },
    });
    expect(await openSessions()).toEqual([]);
  });

  it('the same sample gives reward 0 when the agent ends on another page', async () => {
    script([toolTurn('toolu_s2', 'page_goto', { url: `${suite.fixture.url}/projects` }), textTurn('Done.')]);
    const page = await suite.openRunner();
    await suite.fill(page);
    await pickSample(page, 'fixture-goal-text');
    expect((await suite.run(page)).state).toBe('done');
    expect(await page.getAttribute('#reward', 'data-reward')).toBe('0');
    expect(await page.textContent('#reward')).toContain('failed');
    const check = await checkEntry(page);
    expect(check.label).toBe('check textContains via page.text: reward 0');
    expect(check.text).toContain("saw: not in the page's");
    expect(check.text).toContain('characters of text, which begin: Projects');
  });

  it('a pasted sample opens its startUrl first; its selectorText check reads the element', async () => {
    const startUrl = `${suite.fixture.url}/rest-counter`;
    script([toolTurn('toolu_s3', 'page_click', { selector: '#inc' }), textTurn('Clicked once.')]);
    const page = await suite.openRunner();
    await suite.fill(page);
    await page.fill(
      '#sample-json',
      JSON.stringify({
        id: 'pasted-counter',
        title: 'Counter',
        task: 'Press Add one once.',
        startUrl,
        check: { selectorText: { selector: '#count', text: '1' } },
      }),
    );
    expect(await page.isHidden('#sample-error')).toBe(true);
    expect(await page.textContent('#sample-check')).toContain(`starting at ${startUrl}`);
    expect((await suite.run(page)).state).toBe('done');
    // The start page was opened before the model's first call, and the model was told so.
    const executed = suite.toService
      .filter((r) => r.url.includes('/execute'))
      .map((r) => JSON.parse(r.body) as { tool_name: string; args: Record<string, unknown> });
    expect(executed.map((b) => b.tool_name)).toEqual(['page.goto', 'page.click', 'page.text']);
    expect(executed[0]?.args).toEqual({ url: startUrl });
    expect(executed[2]?.args).toEqual({ selector: 'css=#count', timeout: 5000 });
    expect(suite.fake.requests[0]?.body.messages?.[0]?.content).toBe(
      `Press Add one once.\n\n(The browser is already at ${startUrl}.)`,
    );
    expect(await page.locator('.entry-tool-call').first().textContent()).toContain('page.goto');
    expect(await page.getAttribute('#reward', 'data-reward')).toBe('1');
    const check = await checkEntry(page);
    expect(check.label).toBe('check selectorText via page.text: reward 1');
    expect(check.text).toContain('saw: element text: 1');
    expect(await openSessions()).toEqual([]);
  });

  it("a urlMatches check reads the active page's URL with pages.list, and fails on another page", async () => {
    const startUrl = `${suite.fixture.url}/runner/goal`;
    script([textTurn('Nothing to do.')]);
    const page = await suite.openRunner();
    await suite.fill(page);
    await page.fill(
      '#sample-json',
      JSON.stringify({
        id: 'pasted-url',
        title: 'URL',
        task: 'Go to the Projects page.',
        startUrl,
        check: { urlMatches: '/projects$' },
      }),
    );
    expect((await suite.run(page)).state).toBe('done');
    expect(await page.getAttribute('#reward', 'data-reward')).toBe('0');
    const check = await checkEntry(page);
    expect(check.label).toBe('check urlMatches via pages.list: reward 0');
    expect(check.text).toContain(`saw: URL ${startUrl}`);
  });
});

describe('a long tool call in the runner page', () => {
  it('shows "running … N s" on its row while it runs, and Stop ends it and closes the session', async () => {
    // A pause far longer than the test: only Stop ends it.
    script([toolTurn('toolu_w1', 'page_waitFor', { state: 'idleFor', ms: 60_000 }), textTurn('Waited.')]);
    const page = await suite.openRunner();
    await suite.fill(page, { tools: 'page.goto, page.waitFor' });
    await page.click('#run');
    const row = page.locator('.entry-tool-call[data-tool-use-id="toolu_w1"]');
    await row.locator('.tool-running').waitFor();
    expect(await row.locator('.tool-running').textContent()).toMatch(/^ running … \d+ s$/);
    expect(await page.getAttribute('#status', 'data-state')).toBeNull();
    await page.click('#stop');
    await page.waitForSelector('#status[data-state]');
    expect(await page.getAttribute('#status', 'data-state')).toBe('stopped');
    expect(await row.locator('.tool-running').count()).toBe(0);
    expect(await row.locator('.tool-unfinished').textContent()).toBe(' not finished');
    // The model was never told a result: the call did not finish.
    expect(suite.fake.requests).toHaveLength(1);
    expect(await openSessions()).toEqual([]);
  });
});

describe('what the runner page shows when the model API fails', () => {
  it('shows a Messages API HTTP error (401) and closes the session', async () => {
    script([{ kind: 'http-error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }]);
    const page = await suite.openRunner();
    await suite.fill(page);
    const { state, text } = await suite.run(page);
    expect(state).toBe('error');
    expect(text).toContain('HTTP 401 authentication_error: invalid x-api-key');
    expect(suite.fake.requests).toHaveLength(1);
    expect(await openSessions()).toEqual([]);
  });

  it('shows an error event inside the stream (overloaded)', async () => {
    script([{ kind: 'stream-error', type: 'overloaded_error', message: 'Overloaded' }]);
    const page = await suite.openRunner();
    await suite.fill(page);
    const { state, text } = await suite.run(page);
    expect(state).toBe('error');
    expect(text).toContain('overloaded_error: Overloaded');
    expect(await openSessions()).toEqual([]);
  });

  it('shows text as it streams; the stop button ends a run whose model call never finishes, and closes the session', async () => {
    script([{ kind: 'hang', text: 'Still thinking' }]);
    const page = await suite.openRunner();
    await suite.fill(page);
    await page.click('#run');
    // The text shows while its stream is still open (live, not at the end of the message), and the
    // model call is in flight (the fake holds it) when the person presses stop.
    await page.waitForSelector('.entry-text:has-text("Still thinking")');
    expect(suite.fake.requests).toHaveLength(1);
    expect(await page.getAttribute('#status', 'data-state')).toBeNull();
    await page.click('#stop');
    await page.waitForSelector('#status[data-state]');
    expect(await page.getAttribute('#status', 'data-state')).toBe('stopped');
    expect(await openSessions()).toEqual([]);
  });

  it('a base URL whose origin UI_MODEL_API_ORIGINS does not list is refused by the CSP, and the page says which key to set', async () => {
    const page = await suite.openRunner();
    await suite.fill(page, { baseUrl: suite.outsider.url });
    const { state, text } = await suite.run(page);
    expect(state).toBe('error');
    expect(text).toContain('UI_MODEL_API_ORIGINS');
    expect(text).toContain(suite.outsider.url);
    expect(suite.outsider.hits).toEqual([]);
    expect(await openSessions()).toEqual([]);
  });
});
