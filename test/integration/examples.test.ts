// Runs each client example (client/examples/*.ts) as its own process, the way the README says to,
// against the real service and the fixture app, and checks what it prints.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startDecoyServer } from '../fixtures/fixtureServer.js';
import { TEST_API_KEY } from '../helpers/testService.js';
import { useServiceSuite } from '../helpers/suite.js';

/** An example compiles with tsx and drives a real browser: generous, but bounded. */
const EXAMPLE_TIMEOUT_MS = 60_000;

const suite = useServiceSuite();

afterEach(async () => {
  // Every example closes the session it opened, whether it succeeded or not.
  const { sessions } = await suite.service.call<{ sessions: unknown[] }>('session.list');
  expect(sessions).toEqual([]);
});

interface ExampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node --import tsx client/examples/<name>.ts` with the env pointing at the test servers. */
function runExample(name: string, env: Record<string, string> = {}): Promise<ExampleRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `client/examples/${name}.ts`], {
      cwd: new URL('../../', import.meta.url),
      env: {
        ...process.env,
        SERVICE_URL: suite.service.url,
        API_KEY: TEST_API_KEY,
        FIXTURE_URL: suite.fixture.url,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: EXAMPLE_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function parseReport(run: ExampleRun): Record<string, unknown> {
  expect(run.stdout.trim().startsWith('{'), `${run.stdout}\n${run.stderr}`).toBe(true);
  const value: unknown = JSON.parse(run.stdout);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value as Record<string, unknown>;
}

describe('client examples', () => {
  it('minimal.ts (seed §14): prints the page text and its console', async () => {
    const run = await runExample('minimal');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Fixture Home');
    const consoleLine = run.stdout.split('\n').find((line) => line.startsWith('console: '));
    expect(consoleLine).toBeDefined();
    expect(JSON.parse(consoleLine?.slice('console: '.length) ?? '[]')).toContainEqual({
      type: 'log',
      text: 'home loaded',
    });
  });

  it('minimal.ts fails loudly with a wrong API key', async () => {
    const run = await runExample('minimal', { API_KEY: 'not-the-key' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('RpcClientError');
    expect(run.stderr).toContain('API key');
  });

  it('debugPage.ts: navigates /projects, clicks New Project, fills, and reports in the seed §13 format', async () => {
    const run = await runExample('debugPage');
    expect(run.code, run.stderr).toBe(0);
    const report = parseReport(run);
    expect(Object.keys(report)).toEqual([
      'url',
      'action_taken',
      'text_excerpt',
      'console_errors',
      'network_errors',
      'next_step',
    ]);
    expect(report.url).toBe(`${suite.fixture.url}/projects`);
    expect(report.action_taken).toContain('clicked "New Project"');
    expect(report.text_excerpt).toContain('Apollo');
    expect(report.text_excerpt).toContain('Typed: Zephyr');
    expect(String(report.text_excerpt).length).toBeLessThanOrEqual(2000);
    expect(report.console_errors).toEqual(
      expect.arrayContaining([expect.stringContaining('demo console error')]),
    );
    expect(report.network_errors).toContainEqual({
      url: `${suite.fixture.url}/api/fail`,
      method: 'GET',
      status: 500,
    });
    expect(report.next_step).toContain('/api/fail');
  });

  it('debugPage.ts still reports, and exits 1, when the action fails (a host outside the allow-list)', async () => {
    const decoy = await startDecoyServer();
    try {
      const run = await runExample('debugPage', { FIXTURE_URL: decoy.url });
      expect(run.code).toBe(1);
      const report = parseReport(run);
      expect(report.action_taken).toContain('NAVIGATION_BLOCKED');
      expect(report.next_step).toContain('failed');
      expect(decoy.hits).toEqual([]);
    } finally {
      await decoy.close();
    }
  });

  it('accessibility.ts: reports axe violations and follows a link found by role', async () => {
    const run = await runExample('accessibility');
    expect(run.code, run.stderr).toBe(0);
    const report = parseReport(run) as {
      url: string;
      violations: { id: string; nodes: number; targets: string[] }[];
      roles: Record<string, { selector: string; count: number; matches: { ref: string | null }[] }>;
      followed_link: { ref: string; url_after: string };
    };
    expect(report.url).toBe(`${suite.fixture.url}/a11y`);
    const ids = report.violations.map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['image-alt', 'button-name']));
    expect(report.violations.find((v) => v.id === 'button-name')?.targets).toEqual(['#empty']);
    expect(report.roles.formLink).toMatchObject({
      selector: 'role=link[name="Form"s]',
      count: 1,
      matches: [{ ref: report.followed_link.ref, name: 'Form' }],
    });
    expect(report.followed_link.ref).toMatch(/^e\d+$/);
    expect(report.followed_link.url_after).toBe(`${suite.fixture.url}/form`);
  });
});
