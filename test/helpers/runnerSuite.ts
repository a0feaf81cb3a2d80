// The runner page's test set-up: a fake Messages API (and a second one the page's CSP does not
// admit), the fixture app, the service with UI_MODEL_API_ORIGINS naming the first fake, and a
// Chromium of the test's own that opens /ui/runner.html like a person would.
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { resolveBrowser } from '../../src/browser/engine/browserResolve.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startFakeMessagesApi, type FakeMessagesApi } from './fakeMessagesApi.js';
import { TEST_API_KEY, startTestService, type TestService } from './testService.js';

/** The Anthropic key the tests paste: it must reach the fake and never the service. */
export const PASTED_ANTHROPIC_KEY = 'sk-ant-test-PASTED-0123456789abcdef';

export interface SeenRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

export interface RunnerSuite {
  readonly service: TestService;
  readonly fixture: FixtureServer;
  /** The fake whose origin UI_MODEL_API_ORIGINS lists. */
  readonly fake: FakeMessagesApi;
  /** A fake the CSP does not admit (CORS would let the page in). */
  readonly outsider: FakeMessagesApi;
  /** Every request the test browser made to the service, headers and body included. */
  readonly toService: SeenRequest[];
  /** Opens /ui/runner.html in a fresh context (empty localStorage). */
  openRunner(): Promise<Page>;
  /** Fills the settings and the task, with the fake as base URL unless told otherwise. */
  fill(page: Page, values?: Partial<RunnerValues>): Promise<void>;
  /** Clicks Run and waits until the status says the run ended; returns the status line. */
  run(page: Page): Promise<{ state: string; text: string }>;
}

export interface RunnerValues {
  serviceKey: string;
  anthropicKey: string;
  baseUrl: string;
  model: string;
  maxSteps: string;
  tools: string;
  task: string;
  successCheck: string;
}

/** A run of the scripted fake takes a few tool calls on the fixture app; on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 45_000;

export function useRunnerSuite(): RunnerSuite {
  let service: TestService | undefined;
  let fixture: FixtureServer | undefined;
  let fake: FakeMessagesApi | undefined;
  let outsider: FakeMessagesApi | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const toService: SeenRequest[] = [];
  const pending: Promise<void>[] = [];

  beforeAll(async () => {
    fake = await startFakeMessagesApi();
    outsider = await startFakeMessagesApi();
    fixture = await startFixtureServer();
    service = await startTestService({ UI_MODEL_API_ORIGINS: fake.url });
    fake.allowOrigin = service.url;
    outsider.allowOrigin = service.url;
    const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
    if ('tried' in resolved) throw new Error(`no Chromium; looked at ${resolved.tried.join(', ')}`);
    browser = await chromium.launch({
      executablePath: resolved.executablePath,
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
  });
  afterEach(async () => {
    await Promise.all(pending.splice(0));
    for (const context of contexts.splice(0)) await context.close();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await fixture?.close();
    await fake?.close();
    await outsider?.close();
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is used before beforeAll started it`);
    return value;
  };
  const record = (request: Request): void => {
    const origin = started(service, 'service').url;
    if (!request.url().startsWith(origin)) return;
    pending.push(
      request.allHeaders().then((headers) => {
        toService.push({
          url: request.url(),
          method: request.method(),
          headers,
          body: request.postData() ?? '',
        });
      }),
    );
  };

  return {
    get service() {
      return started(service, 'service');
    },
    get fixture() {
      return started(fixture, 'fixture app');
    },
    get fake() {
      return started(fake, 'fake Messages API');
    },
    get outsider() {
      return started(outsider, 'outsider fake');
    },
    toService,
    async openRunner() {
      const context = await started(browser, 'browser').newContext();
      contexts.push(context);
      const page = await context.newPage();
      page.on('request', record);
      await page.goto(`${started(service, 'service').url}/ui/runner.html`);
      return page;
    },
    async fill(page, values = {}) {
      const v: RunnerValues = {
        serviceKey: TEST_API_KEY,
        anthropicKey: PASTED_ANTHROPIC_KEY,
        baseUrl: started(fake, 'fake Messages API').url,
        model: 'claude-fake-1',
        maxSteps: '10',
        tools: 'page.goto, page.text, page.click, screenshot',
        task: 'Open the goal page and read it.',
        successCheck: '',
        ...values,
      };
      // The service key goes in the top bar (shared with the console), which checks it first.
      if (v.serviceKey !== '' && !(await page.isVisible('#key-state'))) {
        await page.fill('#key-input', v.serviceKey);
        await page.click('#key-form button[type="submit"]');
        await page.waitForSelector('#key-state', { state: 'visible' });
      }
      await page.fill('#anthropic-key', v.anthropicKey);
      await page.fill('#base-url', v.baseUrl);
      await page.fill('#model', v.model);
      await page.fill('#max-steps', v.maxSteps);
      await page.fill('#tools', v.tools);
      await page.fill('#task', v.task);
      await page.fill('#success-check', v.successCheck);
    },
    async run(page) {
      await page.click('#run');
      await page.waitForSelector('#status[data-state]', { timeout: RUN_TIMEOUT_MS });
      return page.$eval('#status', (el) => ({
        state: el.getAttribute('data-state') ?? '',
        text: el.textContent ?? '',
      }));
    },
  };
}
