// Screenshots of the web console for docs/console.md and of its runner page for docs/runner.md:
// starts the service (test settings, port 0), the fixture app and a scripted fake of the Messages
// API, drives /ui in a Chromium of its own, and writes PNGs to docs/images/.
//   npx tsx scripts/uiScreenshots.ts
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startFixtureServer } from '../test/fixtures/fixtureServer.js';
import { RUNNER_GOAL_TEXT } from '../test/fixtures/routes/runner.js';
import {
  startFakeMessagesApi,
  textTurn,
  toolTurn,
  type FakeMessagesApi,
} from '../test/helpers/fakeMessagesApi.js';
import { launchDriverBrowser } from '../test/helpers/driverBrowser.js';
import { connectFakeAgent } from '../test/helpers/fakeAgent.js';
import { startTestService, TEST_API_KEY, waitFor } from '../test/helpers/testService.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'images');
const AGENT_SECRET = 'screenshot-agent-secret';

async function shot(page: Page, name: string, selector?: string): Promise<void> {
  const path = join(OUT, name);
  if (selector === undefined) await page.screenshot({ path, fullPage: true });
  else await page.locator(selector).screenshot({ path });
  console.log(`wrote docs/images/${name}`);
}

/** The runner page after a run against the fake model: the top bar, the settings, the reward, the trace. */
async function runnerShot(
  browser: Awaited<ReturnType<typeof launchDriverBrowser>>,
  serviceUrl: string,
  fixtureUrl: string,
  fake: FakeMessagesApi,
): Promise<void> {
  fake.script.push(
    toolTurn(
      'toolu_01',
      'page_goto',
      { url: `${fixtureUrl}/runner/goal` },
      'I will open the goal page first.',
    ),
    toolTurn('toolu_02', 'page_text', {}, 'Now I read what it says.'),
    toolTurn('toolu_03', 'screenshot', {}, 'And a screenshot to check the layout.'),
    textTurn('The goal page says: "The runner reached the goal page." The task is done.'),
  );
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${serviceUrl}/ui/runner.html`);
  await page.locator('#key-input').fill(TEST_API_KEY);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#key-state').waitFor({ state: 'visible' });
  await page.locator('#anthropic-key').fill('sk-ant-screenshot-0123456789');
  await page.locator('#base-url').fill(fake.url);
  await page.locator('#model').fill('claude-fake-1');
  await page.locator('#max-steps').fill('10');
  await page.locator('#tools').fill('page.goto, page.text, page.click, screenshot');
  await page.locator('#task').fill('Open the goal page and tell me what it says.');
  await page.locator('#success-check').fill(RUNNER_GOAL_TEXT);
  await page.locator('#run').click();
  await page.locator('#status[data-state="done"]').waitFor({ timeout: 60_000 });
  await shot(page, 'runner.png');
  await context.close();
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const fixture = await startFixtureServer();
  const fake = await startFakeMessagesApi();
  const service = await startTestService({ AGENT_SECRET, UI_MODEL_API_ORIGINS: fake.url });
  fake.allowOrigin = service.url;
  const browser = await launchDriverBrowser();
  const agents = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 960 } });
    const page = await context.newPage();
    await page.goto(`${service.url}/ui/`);
    await page.locator('#key-input').fill(TEST_API_KEY);
    await shot(page, 'console-key.png');

    // Two agents on the hub, one of them busy with an evaluation.
    agents.push(
      await connectFakeAgent(service.url, {
        clientId: '7f3c2a10-5b1e-4c7a-9d2e-1a2b3c4d5e6f',
        secret: AGENT_SECRET,
        tools: ['page_text', 'summarize', 'extract_table'],
      }),
      await connectFakeAgent(service.url, {
        clientId: 'c0ffee00-1234-4abc-8def-0123456789ab',
        secret: AGENT_SECRET,
        tools: ['echo'],
      }),
    );

    await page.locator('#key-form button[type=submit]').click();
    await page.locator('#console').waitFor({ state: 'visible' });
    await page.locator('#session-new').click();
    await page.locator('li.session.selected').waitFor({ timeout: 30_000 });
    await page.locator('#goto-url').fill(`${fixture.url}/projects`);
    await page.locator('#goto-form button').click();
    await page
      .locator('li.session.selected .title')
      .filter({ hasText: 'Projects' })
      .waitFor({ timeout: 30_000 });
    // An agent's calls on the selected session, over POST /rpc: the events panel's action rows.
    const selected = await page.locator('li.session.selected').getAttribute('data-session-id');
    if (selected === null) throw new Error('no selected session');
    await service.call('page.goto', { session_id: selected, url: `${fixture.url}/form`, waitUntil: 'load' });
    await service.call('page.fill', { session_id: selected, selector: '#name', value: 'Ada Lovelace' });
    await service.call('page.click', { session_id: selected, selector: '#greet' });
    await service.rpc('page.click', { session_id: selected, selector: '#submit-order', timeout: 500 });
    // A second session, so the list shows more than one.
    const { session_id: second } = await service.call<{ session_id: string }>('session.create', {});
    await service.call('page.goto', { session_id: second, url: `${fixture.url}/form`, waitUntil: 'load' });
    await page.locator(`li.session[data-session-id="${second}"]`).waitFor({ timeout: 10_000 });
    await page.locator('#live-frame').waitFor({ state: 'visible', timeout: 30_000 });

    await page.locator('#method-select').selectOption('page.text');
    await page.locator('#method-run').click();
    await waitFor(
      async () => (await page.locator('#method-result').getAttribute('data-outcome')) === 'result',
      30_000,
      'the page.text answer',
    );
    await page.locator('#agent-rows tr').nth(1).waitFor({ timeout: 10_000 });
    // Two finished evaluations for the evaluation log: one ok, one the agent failed.
    const echo = agents[1];
    if (echo === undefined) throw new Error('no second agent');
    const greeted = service.call('agents.evaluate', {
      clientId: echo.clientId,
      tool: 'echo',
      input: { text: 'hello' },
      name: 'Echo a greeting',
    });
    const greeting = await echo.evaluation();
    echo.send({ jsonrpc: '2.0', id: greeting.id, result: { status: 'success', output: { text: 'hello' } } });
    await greeted;
    const refused = service.rpc('agents.evaluate', {
      clientId: echo.clientId,
      tool: 'echo',
      input: {},
      name: 'Echo an empty input',
    });
    const empty = await echo.evaluation();
    echo.send({ jsonrpc: '2.0', id: empty.id, error: { code: -32000, message: 'input.text is required' } });
    await refused;
    // One evaluation in flight on the first agent, with the status it reported.
    const busy = agents[0];
    if (busy === undefined) throw new Error('no agent');
    const evaluation = service.call('agents.evaluate', {
      clientId: busy.clientId,
      tool: 'summarize',
      input: { url: `${fixture.url}/projects` },
      name: 'Summarize the projects page',
    });
    const request = await busy.evaluation();
    busy.send({
      type: 'status',
      evaluationId: (request.params as { evaluationId: string }).evaluationId,
      status: 'running',
      progress: 0.4,
      message: 'reading the page',
    });
    await page
      .locator('#agent-rows tr')
      .first()
      .filter({ hasText: 'reading the page' })
      .waitFor({ timeout: 10_000 });
    await page.locator('#evaluation-rows tr[data-state="running"]').waitFor({ timeout: 10_000 });
    await page.locator('#evaluation-rows tr[data-state="error"]').waitFor({ timeout: 10_000 });
    // The event stream shows what it has (or says it is not on this service).
    await waitFor(
      async () => !/Connecting/.test((await page.locator('#events-status').textContent()) ?? ''),
      10_000,
      'the event stream',
    );
    // The timeline: the failed click in red, the fill opened to its masked params.
    await page.locator('#event-list li.event.bad[data-kind="action"]').waitFor({ timeout: 10_000 });
    const fill = page.locator('#event-list li.event[data-kind="action"]').filter({ hasText: 'page.fill' });
    await fill.locator('button.event-head').click();
    await page.locator('#event-list').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await shot(page, 'console-overview.png');
    // The top row: sessions, the live view and the events (boxes are viewport coordinates).
    await page.evaluate(() => window.scrollTo(0, 0));
    const first = await page.locator('section.sessions').boundingBox();
    const last = await page.locator('section.events').boundingBox();
    if (first === null || last === null) throw new Error('the panels are not laid out');
    const pad = 8;
    await page.screenshot({
      path: join(OUT, 'console-live-events.png'),
      clip: {
        x: first.x - pad,
        y: first.y - pad,
        width: last.x + last.width - first.x + 2 * pad,
        height: Math.max(first.height, last.height) + 2 * pad,
      },
    });
    console.log('wrote docs/images/console-live-events.png');
    // The Connect dialog over the console.
    await page.locator('#connect-open').click();
    await shot(page, 'console-connect.png', '#connect');
    await page.locator('#connect-close').click();
    // The replay viewer on the agent's fill (the console's sessions record for replay by default).
    await fill.locator('button.event-picture').click();
    await page.locator('#replay-image').waitFor({ state: 'visible', timeout: 10_000 });
    await shot(page, 'console-replay.png', '#replay');
    await page.locator('#replay-close').click();

    await page.locator('#method-select').selectOption('page.goto');
    await page.locator('#param-url').fill(`${fixture.url}/form`);
    await page.locator('#param-waitUntil').selectOption({ label: 'load' });
    await page.locator('#method-run').click();
    await waitFor(
      async () => (await page.locator('#method-result').getAttribute('data-outcome')) === 'result',
      30_000,
      'the page.goto answer',
    );
    await shot(page, 'console-methods.png', 'section.methods');
    await shot(page, 'console-agents.png', 'section.agents');
    busy.send({
      jsonrpc: '2.0',
      id: request.id,
      result: { status: 'success', output: { summary: 'Three projects.' } },
    });
    await evaluation;
    await context.close();
    await runnerShot(browser, service.url, fixture.url, fake);
  } finally {
    for (const agent of agents) await agent.close();
    await browser.close();
    await service.close();
    await fake.close();
    await fixture.close();
  }
}

await main();
