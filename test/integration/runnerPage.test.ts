// The runner page (ui/runner.html) as files the service serves: public, under the /ui CSP that
// admits the configured Messages API origins, and what the page does before any run. The agent
// loop itself is in runnerLoop.test.ts.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { UI_CSP, uiContentSecurityPolicy } from '../../src/http/uiRoute.js';
import { PASTED_ANTHROPIC_KEY, useRunnerSuite } from '../helpers/runnerSuite.js';
import { TEST_API_KEY, startTestService } from '../helpers/testService.js';

const suite = useRunnerSuite();

/** GET with the path exactly as given (no dot-segment resolution, unlike fetch). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/`, { path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('/ui/runner.html: served with its own CSP', () => {
  it('is served without a key (a navigation sends none) with a CSP that admits the configured model origin only', async () => {
    const res = await fetch(`${suite.service.url}/ui/runner.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(uiContentSecurityPolicy([suite.fake.url]));
    expect(csp).toContain(`connect-src 'self' ${suite.fake.url}`);
    expect(csp).not.toContain(suite.outsider.url);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('upgrade-insecure-requests');
    const html = await res.text();
    // No inline script or style: every script and style is a file of the service.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    for (const file of [
      'runner.js',
      'runnerLoop.js',
      'runnerService.js',
      'runnerSamples.js',
      'runnerSamplePicker.js',
      'runnerSamples.json',
      'runner.css',
    ]) {
      const r = await fetch(`${suite.service.url}/ui/${file}`);
      expect(r.status, file).toBe(200);
      expect(r.headers.get('content-security-policy')).toBe(csp);
    }
  });

  it('defaults to https://api.anthropic.com; none admits the service only; a bad origin stops start-up', async () => {
    expect(uiContentSecurityPolicy(['https://api.anthropic.com'])).toContain(
      "connect-src 'self' https://api.anthropic.com;",
    );
    const plain = await startTestService();
    try {
      const res = await fetch(`${plain.url}/ui/runner.html`);
      expect(res.headers.get('content-security-policy')).toContain(
        "connect-src 'self' https://api.anthropic.com;",
      );
    } finally {
      await plain.close();
    }
    const none = await startTestService({ UI_MODEL_API_ORIGINS: 'none' });
    try {
      const res = await fetch(`${none.url}/ui/runner.html`);
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self';");
    } finally {
      await none.close();
    }
    await expect(startTestService({ UI_MODEL_API_ORIGINS: 'https://api.example.com/v1' })).rejects.toThrow(
      /UI_MODEL_API_ORIGINS/,
    );
    await expect(
      startTestService({ UI_MODEL_API_ORIGINS: "https://a.example.com 'unsafe-eval'" }),
    ).rejects.toThrow(/UI_MODEL_API_ORIGINS/);
  });

  it('serves only the files of ui/: no listing, no way out of the folder, the API still behind the key', async () => {
    const base = suite.service.url;
    // /ui/ is the console's page, under the console's policy (no model origin).
    const index = await fetch(`${base}/ui/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toBe(UI_CSP);
    expect((await fetch(`${base}/ui/nothing.html`)).status).toBe(404);
    // Raw paths (fetch would resolve the dots before sending): send cannot leave the folder.
    for (const path of ['/ui/..%2fpackage.json', '/ui/%2e%2e/package.json', '/ui/../package.json']) {
      const got = await rawGet(base, path);
      expect(got.status, path).toBe(404);
      expect(got.body, path).not.toContain('playwright-jsonrpc');
    }
    // The pages are public, the service is not.
    expect((await fetch(`${base}/openrpc.json`)).status).toBe(401);
    expect(
      (await fetch(`${base}/openrpc.json`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })).status,
    ).toBe(200);
  });
});

describe('/ui/runner.html in a browser, before any run', () => {
  it('loads with no CSP violation, shows the defaults and keeps the settings in localStorage', async () => {
    const page = await suite.openRunner();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.reload();
    expect(await page.inputValue('#base-url')).toBe('https://api.anthropic.com');
    expect(await page.inputValue('#max-steps')).toBe('20');
    expect(await page.textContent('#max-steps-limit')).toBe('100');
    expect(await page.inputValue('#tools')).toContain('page.goto');
    await suite.fill(page, { task: '' });
    await page.click('#run');
    await page.waitForSelector('#status[data-state="invalid"]');
    expect(await page.textContent('#status')).toContain('a task');
    const stored = await page.evaluate(() => ({
      service: localStorage.getItem('playwright-jsonrpc.apiKey'),
      anthropic: localStorage.getItem('pwrpc.anthropicKey'),
      base: localStorage.getItem('pwrpc.runner.baseUrl'),
    }));
    expect(stored).toEqual({ service: TEST_API_KEY, anthropic: PASTED_ANTHROPIC_KEY, base: suite.fake.url });
    await page.reload();
    expect(await page.inputValue('#anthropic-key')).toBe(PASTED_ANTHROPIC_KEY);
    // The top bar kept the key: the form is replaced by its state.
    await page.waitForSelector('#key-state', { state: 'visible' });
    expect(await page.isVisible('#key-form')).toBe(false);
    expect(problems).toEqual([]);
    // Nothing was sent anywhere: a refused run calls neither the service's API nor the model. The
    // only calls to the service are the top bar's key checks (GET /openrpc.json, the key in a header).
    expect(suite.fake.requests).toHaveLength(0);
    const calls = suite.toService.filter((r) => !r.url.includes('/ui/'));
    expect(calls.length).toBeGreaterThan(0);
    for (const r of calls) {
      expect(`${r.method} ${new URL(r.url).pathname}`).toBe('GET /openrpc.json');
      expect(r.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    }
  });

  it('has the console top bar: its link opens the console, whose key is the one the runner kept, and back', async () => {
    const page = await suite.openRunner();
    expect(await page.getAttribute('.top nav a[aria-current="page"]', 'href')).toBe('/ui/runner.html');
    // No key yet: the top bar's form asks for it; a wrong one is refused and nothing is kept.
    expect(await page.isVisible('#key-form')).toBe(true);
    await page.fill('#key-input', 'not-the-key-0123456789');
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('#notice', { state: 'visible' });
    expect(await page.evaluate(() => localStorage.getItem('playwright-jsonrpc.apiKey'))).toBeNull();
    await suite.fill(page);
    await page.click('.top nav a:text-is("Console")');
    await page.waitForURL(`${suite.service.url}/ui/`);
    // The console took the key the runner's top bar stored: its panels show, not the key form.
    await page.waitForSelector('#console', { state: 'visible' });
    expect(await page.isVisible('#key-form')).toBe(false);
    expect(await page.getAttribute('.top nav a[aria-current="page"]', 'href')).toBe('/ui/');
    await page.click('.top nav a:text-is("Runner")');
    await page.waitForURL(`${suite.service.url}/ui/runner.html`);
    await page.waitForSelector('#key-state', { state: 'visible' });
    // Forgetting the key in the runner's top bar forgets it for the console too.
    await page.click('#key-forget');
    await page.waitForSelector('#key-form', { state: 'visible' });
    expect(await page.evaluate(() => localStorage.getItem('playwright-jsonrpc.apiKey'))).toBeNull();
  });

  it('refuses max steps past the limit and a base URL that is not http(s)', async () => {
    const page = await suite.openRunner();
    await suite.fill(page, { maxSteps: '101', baseUrl: 'ftp://example.com' });
    const { state, text } = await suite.run(page);
    expect(state).toBe('invalid');
    expect(text).toContain('max steps between 1 and 100');
    expect(text).toContain('an http(s) base URL');
    expect(suite.fake.requests).toHaveLength(0);
  });
});

/** The part of ui/runnerSamples.js these tests use (the module is checked by ui/tsconfig.json). */
interface RunnerSamples {
  parseSamplesFile(text: string): { samples: { id: string; title: string }[]; errors: string[] };
  MAX_SAMPLES: number;
  MAX_SAMPLE_JSON_CHARS: number;
}
// A path in a variable: TypeScript does not resolve it (ui/ is its own JS project).
const samplesModule = '../../ui/runnerSamples.js';
const samplesLib = (await import(samplesModule)) as RunnerSamples;

describe('/ui/runner.html: eval samples', () => {
  it("serves runnerSamples.json, whose samples all pass the page's checks, and lists them in the picker", async () => {
    const res = await fetch(`${suite.service.url}/ui/runnerSamples.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const file = samplesLib.parseSamplesFile(await res.text());
    expect(file.errors).toEqual([]);
    expect(file.samples.map((s) => s.id)).toEqual([
      'fixture-goal-text',
      'fixture-projects-url',
      'fixture-counter',
    ]);
    const page = await suite.openRunner();
    await page.waitForSelector('#samples-note[data-state="loaded"]');
    expect(await page.textContent('#samples-note')).toBe('3 samples from /ui/runnerSamples.json.');
    const options = await page.locator('#sample option').allTextContents();
    expect(options.slice(1)).toEqual(file.samples.map((s) => s.title));
    // Picking one shows its JSON; picking none gives the task field back.
    await page.selectOption('#sample', 'fixture-counter');
    expect(JSON.parse(await page.inputValue('#sample-json'))).toMatchObject({
      id: 'fixture-counter',
      check: { selectorText: { selector: '#count', text: '1' } },
    });
    expect(await page.textContent('#sample-check')).toContain('selectorText "#count" is "1"');
    expect(await page.isDisabled('#task')).toBe(true);
    await page.selectOption('#sample', '');
    expect(await page.inputValue('#sample-json')).toBe('');
    expect(await page.isDisabled('#task')).toBe(false);
    expect(await page.isVisible('#success-check')).toBe(true);
  });

  it('a bad sample says what is wrong and Run starts nothing', async () => {
    suite.fake.requests.length = 0;
    suite.toService.length = 0;
    const page = await suite.openRunner();
    await suite.fill(page);
    const bad: [unknown, string][] = [
      [
        { id: 'x', title: 'X', task: 'Do it.', check: { pageContains: 'Done' } },
        'unknown check kind pageContains: a check is one of textContains, urlMatches, selectorText',
      ],
      [{ id: 'x', title: 'X', check: { textContains: 'Done' } }, 'sample x: the task is missing'],
      [{ id: 'x', title: 'X', task: 'Do it.' }, 'sample x: the check is missing'],
      [
        { id: 'x', title: 'X', task: 'Do it.', check: { urlMatches: '(' } },
        'check.urlMatches is not a regular expression',
      ],
      [
        { id: 'x', title: 'X', task: 'Do it.', check: { selectorText: { selector: '#a' } } },
        'check.selectorText.text must be a string',
      ],
      [
        { id: 'x', title: 'X', task: 'Do it.', startUrl: 'file:///etc/passwd', check: { textContains: 'a' } },
        'startUrl must be an http(s) URL',
      ],
      [
        { id: 'x', title: 'X', task: 'Do it.', check: { textContains: 'a', urlMatches: 'b' } },
        'exactly one of',
      ],
      ['{"id": "x", ', 'the sample is not JSON'],
      [
        {
          id: 'x',
          title: 'X',
          task: 'x'.repeat(samplesLib.MAX_SAMPLE_JSON_CHARS),
          check: { textContains: 'a' },
        },
        `longer than ${samplesLib.MAX_SAMPLE_JSON_CHARS} characters`,
      ],
    ];
    for (const [sample, message] of bad) {
      await page.fill('#sample-json', typeof sample === 'string' ? sample : JSON.stringify(sample));
      await page.waitForSelector('#sample-error', { state: 'visible' });
      expect(await page.textContent('#sample-error'), message).toContain(message);
      await page.evaluate(() => document.getElementById('status')?.removeAttribute('data-state'));
      const { state, text } = await suite.run(page);
      expect(state, message).toBe('invalid');
      expect(text, message).toContain('Bad sample');
      expect(text, message).toContain(message);
    }
    // Nothing was sent: no model call, no session, no execute.
    expect(suite.fake.requests).toHaveLength(0);
    const runnerCalls = suite.toService.filter((r) => /\/(sessions|execute)\b/.test(new URL(r.url).pathname));
    expect(runnerCalls).toEqual([]);
    // Emptied, the sample box gives the task field back, and the error goes.
    await page.fill('#sample-json', '');
    expect(await page.isHidden('#sample-error')).toBe(true);
    expect(await page.isDisabled('#task')).toBe(false);
  });

  it('refuses a samples file over its caps, and leaves out its bad entries', () => {
    const good = { id: 'a', title: 'A', task: 'Do it.', check: { textContains: 'Done' } };
    const many = {
      samples: Array.from({ length: samplesLib.MAX_SAMPLES + 1 }, (_, i) => ({ ...good, id: `s${i}` })),
    };
    const tooMany = samplesLib.parseSamplesFile(JSON.stringify(many));
    expect(tooMany.samples).toEqual([]);
    expect(tooMany.errors[0]).toContain(`more than ${samplesLib.MAX_SAMPLES}`);
    const mixed = samplesLib.parseSamplesFile(
      JSON.stringify({ samples: [good, { ...good, id: 'b', check: { nope: 1 } }, good] }),
    );
    expect(mixed.samples.map((s) => s.id)).toEqual(['a']);
    expect(mixed.errors).toEqual([
      'entry 2: sample b: unknown check kind nope: a check is one of textContains, urlMatches, selectorText',
      'entry 3: id a is listed twice',
    ]);
    expect(samplesLib.parseSamplesFile('[]').errors).toEqual(['the samples file must be {"samples": [ … ]}']);
    const huge = samplesLib.parseSamplesFile(`{"samples": [], "pad": "${'x'.repeat(300 * 1024)}"}`);
    expect(huge.errors[0]).toMatch(/more than \d+$/);
  });
});
