// The web console (/ui) in a real browser against the real service: the key, sessions, the live
// view, the event stream, the method runner and the agent hub; and what it must never do.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchDriverBrowser } from '../helpers/driverBrowser.js';
import { connectFakeAgent } from '../helpers/fakeAgent.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

/** ui/api.js's KEY_STORAGE_NAME: where the console keeps the key. */
const KEY_STORAGE = 'playwright-jsonrpc.apiKey';
const OTHER_KEY = 'other-key-5a7c9e1b3d';
const AGENT_SECRET = 'console-agent-secret-2b4d6f8a';

const suite = useServiceSuite({ API_KEY: `${TEST_API_KEY},${OTHER_KEY}`, AGENT_SECRET });
let browser: Browser;

beforeAll(async () => {
  browser = await launchDriverBrowser();
});
afterAll(async () => {
  await browser?.close();
});

interface Watched {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested. */
  urls: string[];
  /** Requests to the service's API (not /ui) and whether each carried the key in its Authorization header. */
  apiCalls: { url: string; bearer: boolean }[];
  /** Console messages about the Content Security Policy. */
  cspViolations: string[];
}

async function openConsole(): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const watched: Watched = { context, page, urls: [], apiCalls: [], cspViolations: [] };
  page.on('request', (request) => {
    watched.urls.push(request.url());
    const url = new URL(request.url());
    if (url.origin === suite.service.url && !url.pathname.startsWith('/ui'))
      watched.apiCalls.push({
        url: request.url(),
        bearer: request.headers().authorization === `Bearer ${TEST_API_KEY}`,
      });
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) watched.cspViolations.push(message.text());
  });
  await page.goto(`${suite.service.url}/ui/`);
  return watched;
}

async function enterKey(page: Page, key: string): Promise<void> {
  await page.locator('#key-input').fill(key);
  await page.locator('#key-form button[type=submit]').click();
}

describe('the console shell', () => {
  it('is served without a key, under a CSP that allows no inline script, style or other origin', async () => {
    const res = await fetch(`${suite.service.url}/ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name = '', ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const script = await fetch(`${suite.service.url}/ui/api.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
  });

  it('redirects /ui to /ui/, and answers 404 (not 401) for a file it does not have', async () => {
    const bare = await fetch(`${suite.service.url}/ui`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/ui/');
    const missing = await fetch(`${suite.service.url}/ui/nothing-here.js`);
    expect(missing.status).toBe(404);
    const outside = await fetch(`${suite.service.url}/ui/../openrpc.json`);
    expect(outside.status).toBe(401);
  });

  it('leaves the data behind the key: /openrpc.json without one is 401', async () => {
    expect((await fetch(`${suite.service.url}/openrpc.json`)).status).toBe(401);
  });
});

describe('a wrong key', () => {
  it('shows an error and stores nothing', async () => {
    const { context, page } = await openConsole();
    try {
      await enterKey(page, 'not-the-key-0000');
      await expect.poll(() => page.locator('#notice').textContent()).toMatch(/refused the key \(HTTP 401\)/);
      expect(await page.locator('#notice').isVisible()).toBe(true);
      expect(await page.locator('#console').isVisible()).toBe(false);
      expect(await page.evaluate((name) => window.localStorage.getItem(name), KEY_STORAGE)).toBeNull();
      // Nor after a reload: the console asks for a key again.
      await page.reload();
      expect(await page.locator('#key-input').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('a stored key the service no longer accepts is forgotten at load', async () => {
    const { context, page } = await openConsole();
    try {
      await page.evaluate((name) => window.localStorage.setItem(name, 'stale-key-1111'), KEY_STORAGE);
      await page.reload();
      await expect.poll(() => page.locator('#notice').textContent()).toMatch(/HTTP 401/);
      expect(await page.evaluate((name) => window.localStorage.getItem(name), KEY_STORAGE)).toBeNull();
    } finally {
      await context.close();
    }
  });
});

describe('with the key', () => {
  let w: Watched;
  let sessionId: string;

  beforeAll(async () => {
    w = await openConsole();
    await enterKey(w.page, TEST_API_KEY);
    await w.page.locator('#console').waitFor({ state: 'visible' });
  });
  afterAll(async () => {
    await w?.context.close();
  });

  it('keeps the key in localStorage and survives a reload', async () => {
    expect(await w.page.evaluate((name) => window.localStorage.getItem(name), KEY_STORAGE)).toBe(
      TEST_API_KEY,
    );
    await w.page.reload();
    await w.page.locator('#console').waitFor({ state: 'visible' });
    expect(await w.page.locator('#key-state').isVisible()).toBe(true);
  });

  it('creates a session, which session.list then shows', async () => {
    const before = await suite.service.call<{ sessions: { session_id: string }[] }>('session.list');
    await w.page.locator('#session-new').click();
    await waitFor(
      async () =>
        (await suite.service.call<{ sessions: { session_id: string }[] }>('session.list')).sessions.length >
        before.sessions.length,
      15_000,
      'the new session',
    );
    const after = await suite.service.call<{ sessions: { session_id: string }[] }>('session.list');
    const created = after.sessions.find((s) => !before.sessions.some((b) => b.session_id === s.session_id));
    expect(created).toBeDefined();
    sessionId = created?.session_id ?? '';
    await w.page.locator(`li.session.selected[data-session-id="${sessionId}"]`).waitFor();
  });

  it('navigates the session, and the live view shows a new frame after the navigation', async () => {
    const frame = w.page.locator('#live-frame');
    await frame.waitFor({ state: 'visible', timeout: 15_000 });
    const seqBefore = Number(await frame.getAttribute('data-seq'));
    const srcBefore = await frame.getAttribute('src');
    expect(srcBefore).toMatch(/^data:image\/jpeg;base64,/);
    await w.page.locator('#goto-url').fill(`${suite.fixture.url}/projects`);
    await w.page.locator('#goto-form button').click();
    await waitFor(
      async () =>
        (
          await suite.service.call<{ sessions: { session_id: string; url: string }[] }>('session.list')
        ).sessions.some((s) => s.session_id === sessionId && s.url.endsWith('/projects')),
      20_000,
      'the session on /projects',
    );
    await expect
      .poll(async () => Number(await frame.getAttribute('data-seq')), { timeout: 15_000 })
      .toBeGreaterThan(seqBefore);
    expect(await frame.getAttribute('src')).not.toBe(srcBefore);
    await w.page
      .locator(`li.session[data-session-id="${sessionId}"] .title`)
      .filter({ hasText: 'Projects' })
      .waitFor();
  });

  it('shows an event of the session as it arrives (GET /sessions/{id}/events)', async () => {
    const rows = w.page.locator('#event-list li.event[data-kind]');
    const before = await rows.count();
    await suite.service.call('page.goto', {
      session_id: sessionId,
      url: `${suite.fixture.url}/errors`,
      waitUntil: 'load',
    });
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBeGreaterThan(before);
    // The page's uncaught error is among them (each row keeps its event's JSON in its title).
    await expect
      .poll(
        async () =>
          (await rows.evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''))).join('\n'),
        {
          timeout: 15_000,
        },
      )
      .toContain('fixture uncaught error');
  });

  it('runs a method from the form generated from its params schema', async () => {
    await w.page.locator('#method-select').selectOption('pages.list');
    const sessionField = w.page.locator('#param-session_id');
    expect(await sessionField.inputValue()).toBe(sessionId);
    await w.page.locator('#method-run').click();
    await expect.poll(() => w.page.locator('#method-result').getAttribute('data-outcome')).toBe('result');
    const result = JSON.parse((await w.page.locator('#method-result').textContent()) ?? '') as {
      pages: { url: string }[];
    };
    expect(result.pages.some((p) => p.url.includes('127.0.0.1'))).toBe(true);
  });

  it('generates a select for an enum and a JSON box for an object, and shows a JSON-RPC error as such', async () => {
    await w.page.locator('#method-select').selectOption('page.goto');
    const options = await w.page.locator('#param-waitUntil option').allTextContents();
    expect(options).toEqual(expect.arrayContaining(['load', 'domcontentloaded', 'networkidle', 'commit']));
    await w.page.locator('#method-select').selectOption('session.create');
    expect(await w.page.locator('textarea#param-viewport').count()).toBe(1);
    expect(await w.page.locator('select#param-headless option').allTextContents()).toEqual([
      '(not set)',
      'true',
      'false',
    ]);
    await w.page.locator('#method-select').selectOption('page.goto');
    await w.page.locator('#param-session_id').fill('s_does-not-exist');
    await w.page.locator('#param-url').fill(`${suite.fixture.url}/`);
    await w.page.locator('#method-run').click();
    await expect.poll(() => w.page.locator('#method-result').getAttribute('data-outcome')).toBe('error');
    expect(await w.page.locator('#method-result').textContent()).toContain('-32010');
  });

  it('shows an agent when one connects on /agents', async () => {
    const clientId = randomUUID();
    const agent = await connectFakeAgent(suite.service.url, {
      clientId,
      secret: AGENT_SECRET,
      tools: ['console_probe'],
    });
    try {
      const row = w.page.locator(`#agent-rows tr[data-client-id="${clientId}"]`);
      await row.waitFor({ timeout: 15_000 });
      expect(await row.textContent()).toContain('console_probe');
      expect(await row.textContent()).toContain('0 / 2');
      // An evaluation in flight: the load and the agent's last status show it.
      const evaluation = suite.service.call('agents.evaluate', {
        clientId,
        tool: 'console_probe',
        input: {},
      });
      const request = await agent.evaluation();
      const params = request.params as { evaluationId: string };
      agent.send({
        type: 'status',
        evaluationId: params.evaluationId,
        status: 'running',
        progress: 0.5,
        message: 'half way',
      });
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('1 / 2');
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('running 50% · half way');
      agent.send({ jsonrpc: '2.0', id: request.id, result: { status: 'success', output: { ok: true } } });
      await evaluation;
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('0 / 2');
    } finally {
      await agent.close();
    }
  });

  it("shows the key's evaluation log: in flight, then ok or error; never another key's", async () => {
    const clientId = randomUUID();
    const agent = await connectFakeAgent(suite.service.url, {
      clientId,
      secret: AGENT_SECRET,
      tools: ['console_log_probe'],
    });
    try {
      await w.page.locator(`#agent-rows tr[data-client-id="${clientId}"]`).waitFor({ timeout: 15_000 });
      // Another key's evaluation: it must not appear in this key's log.
      const foreign = await suite.service.post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'agents.evaluate',
          // A tool the agent does not offer: refused at once, yet recorded for that key.
          params: { clientId, tool: 'not_offered', input: {}, name: 'Another key task' },
        }),
        { 'x-api-key': OTHER_KEY },
      );
      expect(foreign.status).toBe(200);
      expect(JSON.stringify(foreign.body)).toContain('"code":-32004');
      const evaluation = suite.service.call('agents.evaluate', {
        clientId,
        tool: 'console_log_probe',
        input: {},
        name: 'Read the projects page',
      });
      const request = await agent.evaluation();
      const { evaluationId } = request.params as { evaluationId: string };
      const row = w.page.locator(`#evaluation-rows tr[data-evaluation-id="${evaluationId}"]`);
      await row.waitFor({ timeout: 15_000 });
      expect(await row.getAttribute('data-state')).toBe('running');
      expect(await row.textContent()).toContain('Read the projects page');
      expect(await row.textContent()).toContain('running');
      agent.send({ jsonrpc: '2.0', id: request.id, result: { status: 'success', output: { ok: true } } });
      await evaluation;
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe('ok');
      expect(await row.textContent()).toContain('success');

      const failing = suite.service.rpc('agents.evaluate', {
        clientId,
        tool: 'console_log_probe',
        input: {},
      });
      const second = await agent.evaluation();
      const failedId = (second.params as { evaluationId: string }).evaluationId;
      agent.send({ jsonrpc: '2.0', id: second.id, error: { code: -32000, message: 'the probe failed' } });
      expect((await failing).error?.code).toBe(-32000);
      const failedRow = w.page.locator(`#evaluation-rows tr[data-evaluation-id="${failedId}"]`);
      await failedRow.waitFor({ timeout: 15_000 });
      expect(await failedRow.getAttribute('data-state')).toBe('error');
      expect(await failedRow.textContent()).toContain('error -32000');
      // Newest first, and nothing of the other key's.
      expect(await w.page.locator('#evaluation-rows tr').first().getAttribute('data-evaluation-id')).toBe(
        failedId,
      );
      expect(await w.page.locator('#evaluation-rows').textContent()).not.toContain('Another key task');
      expect(await w.page.locator('#evaluations-empty').isVisible()).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("shows a page's title that is HTML as text, isolated, and no HTML sink takes a string (Trusted Types)", async () => {
    const hostile = '<img src=x onerror="window.pwned=1">\u202Eevil';
    await suite.service.call('page.evaluate', {
      session_id: sessionId,
      expression: `document.title = ${JSON.stringify(hostile)}`,
    });
    const title = w.page.locator(`li.session[data-session-id="${sessionId}"] .title`);
    await expect.poll(() => title.textContent(), { timeout: 15_000 }).toBe(hostile);
    expect(await title.locator('img').count()).toBe(0);
    expect(await title.evaluate((el) => getComputedStyle(el).unicodeBidi)).toBe('isolate');
    expect(await w.page.evaluate(() => 'pwned' in window)).toBe(false);
    await w.page.locator(`li.session[data-session-id="${sessionId}"]`).screenshot({
      path: join(tmpdir(), 'console-hostile-title.png'),
    });
    // The policy refuses a string where HTML would be parsed: it throws instead of running.
    const refused = await w.page.evaluate(() => {
      try {
        document.createElement('div').innerHTML = '<b>x</b>';
        return 'set';
      } catch (error) {
        return error instanceof TypeError ? 'TypeError' : String(error);
      }
    });
    expect(refused).toBe('TypeError');
  });

  it('closes the session from its row', async () => {
    await w.page.locator(`li.session[data-session-id="${sessionId}"] button.close`).click();
    await waitFor(
      async () =>
        !(await suite.service.call<{ sessions: { session_id: string }[] }>('session.list')).sessions.some(
          (s) => s.session_id === sessionId,
        ),
      15_000,
      'the session closed',
    );
    await w.page.locator(`li.session[data-session-id="${sessionId}"]`).waitFor({ state: 'detached' });
  });

  it('never put the key in a URL, sent it on every API call, and broke no CSP rule', () => {
    expect(w.urls.length).toBeGreaterThan(10);
    for (const url of w.urls) {
      expect(url).not.toContain(TEST_API_KEY);
      expect(decodeURIComponent(url)).not.toContain(TEST_API_KEY);
    }
    expect(w.apiCalls.length).toBeGreaterThan(5);
    expect(w.apiCalls.filter((c) => !c.bearer)).toEqual([]);
    expect(w.cspViolations).toEqual([]);
  });

  it('forgets the key on request', async () => {
    await w.page.locator('#key-forget').click();
    expect(await w.page.evaluate((name) => window.localStorage.getItem(name), KEY_STORAGE)).toBeNull();
    expect(await w.page.locator('#console').isVisible()).toBe(false);
  });
});

describe('GET /sessions/{id}/screencast', () => {
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  async function firstFrame(res: Response): Promise<{ event: string; data: Record<string, unknown> }> {
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error('no body');
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before a frame: ${buffer}`);
      buffer += value;
      const m = /event: (frame|end)\ndata: (.*)\n\n/.exec(buffer);
      if (m?.[1] !== undefined && m[2] !== undefined) {
        await reader.cancel();
        return { event: m[1], data: JSON.parse(m[2]) as Record<string, unknown> };
      }
    }
  }

  it("streams JPEG frames of the owner key's session", async () => {
    const id = await suite.open('/');
    const controller = new AbortController();
    try {
      const res = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
        headers: auth(TEST_API_KEY),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frame = await firstFrame(res);
      expect(frame.event).toBe('frame');
      const jpeg = Buffer.from(String(frame.data.data), 'base64');
      expect(jpeg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      expect(frame.data.seq).toBe(1);
    } finally {
      controller.abort();
      await suite.service.call('session.close', { session_id: id });
    }
  });

  it("refuses another key's session with 404, as an id that never existed; no key is 401", async () => {
    const id = await suite.open('/');
    try {
      const other = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
        headers: auth(OTHER_KEY),
      });
      expect(other.status).toBe(404);
      const body = (await other.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-32010);
      const never = await fetch(`${suite.service.url}/sessions/s_never/screencast`, {
        headers: auth(OTHER_KEY),
      });
      expect(never.status).toBe(404);
      const neverBody = (await never.json()) as { error: { code: number; message: string } };
      // The same answer as for an id that never existed, but for the id it names.
      expect(neverBody.error.code).toBe(body.error.code);
      expect(neverBody.error.message.replace('s_never', id)).toBe(body.error.message);
      const none = await fetch(`${suite.service.url}/sessions/${id}/screencast`);
      expect(none.status).toBe(401);
      const inQuery = await fetch(`${suite.service.url}/sessions/${id}/screencast?api_key=${TEST_API_KEY}`);
      expect(inQuery.status).toBe(401);
    } finally {
      await suite.service.call('session.close', { session_id: id });
    }
  });

  it('stops the screencast when its last viewer leaves', async () => {
    const id = await suite.open('/');
    const hub = suite.service.running.screencasts;
    try {
      const viewers = [new AbortController(), new AbortController()];
      for (const v of viewers) {
        const res = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
          headers: auth(TEST_API_KEY),
          signal: v.signal,
        });
        expect(res.status).toBe(200);
      }
      expect(hub.active).toBe(1);
      viewers[0]?.abort();
      // One viewer is left: the screencast goes on.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hub.active).toBe(1);
      viewers[1]?.abort();
      await waitFor(() => hub.active === 0, 10_000, 'the screencast stopped');
    } finally {
      await suite.service.call('session.close', { session_id: id });
    }
  });

  it('ends the stream with event: end when the session closes', async () => {
    const id = await suite.open('/');
    const res = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
      headers: auth(TEST_API_KEY),
    });
    expect(res.status).toBe(200);
    const text = res.text();
    await suite.service.call('session.close', { session_id: id });
    expect(await text).toMatch(/event: end\ndata: \{"reason":"closed"\}\n\n$/);
  });

  it('refuses a viewer past SCREENCAST_MAX_VIEWERS with 429', async () => {
    const { SCREENCAST_MAX_VIEWERS } = await import('../../src/browser/artifacts/screencast.js');
    const id = await suite.open('/');
    const controllers: AbortController[] = [];
    try {
      for (let i = 0; i < SCREENCAST_MAX_VIEWERS; i++) {
        const controller = new AbortController();
        controllers.push(controller);
        const res = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
          headers: auth(TEST_API_KEY),
          signal: controller.signal,
        });
        expect(res.status).toBe(200);
      }
      const extra = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
        headers: auth(TEST_API_KEY),
      });
      expect(extra.status).toBe(429);
      // One leaves: the next viewer gets in.
      controllers.pop()?.abort();
      await waitFor(
        async () => {
          const res = await fetch(`${suite.service.url}/sessions/${id}/screencast`, {
            headers: auth(TEST_API_KEY),
          });
          await res.body?.cancel();
          return res.status === 200;
        },
        10_000,
        'a free viewer slot',
      );
    } finally {
      for (const c of controllers) c.abort();
      await suite.service.call('session.close', { session_id: id });
    }
  });
});
