// Screenshots of the web console for docs/console.md: starts the service (test settings, port 0) and
// the fixture app, drives /ui in a Chromium of its own, and writes PNGs to docs/images/.
//   npx tsx scripts/uiScreenshots.ts
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startFixtureServer } from '../test/fixtures/fixtureServer.js';
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

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const fixture = await startFixtureServer();
  const service = await startTestService({ AGENT_SECRET });
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
  } finally {
    for (const agent of agents) await agent.close();
    await browser.close();
    await service.close();
    await fixture.close();
  }
}

await main();
