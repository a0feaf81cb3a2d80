// Prometheus' own linter on what GET /metrics serves: `promtool check metrics` reads the exposition
// text on stdin and exits 0 when it has nothing to say (3 on lint problems, 1 on a parse error).
import { spawnSync } from 'node:child_process';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { PROMTOOL_REFUSED_DEFAULT_METRICS } from '../../src/observability/metrics.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/testService.js';

/** promtool reads a few kilobytes and answers at once: past this it is hung, and the test fails. */
const PROMTOOL_TIMEOUT_MS = 30_000;

const INSTALL_HINT =
  "promtool not found on PATH: install Debian's prometheus package (apt-get install prometheus) " +
  'or put the promtool of a Prometheus release on PATH';

/** The promtool on PATH, or undefined when there is none. */
function findPromtool(): string | undefined {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8', timeout: PROMTOOL_TIMEOUT_MS });
  return probe.status === 0 ? 'promtool' : undefined;
}

const promtool = findPromtool();

/** The tool, or a skip saying what to install; under CI=true a missing tool fails instead. */
function requirePromtool(ctx: TestContext): string {
  if (promtool !== undefined) return promtool;
  if (process.env.CI === 'true') throw new Error(`${INSTALL_HINT} (CI=true: a missing tool fails the test)`);
  return ctx.skip(INSTALL_HINT);
}

function checkMetrics(tool: string, exposition: string): { status: number | null; output: string } {
  const run = spawnSync(tool, ['check', 'metrics'], {
    input: exposition,
    encoding: 'utf8',
    timeout: PROMTOOL_TIMEOUT_MS,
  });
  if (run.error !== undefined) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service?.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${service.url}/metrics`, { headers: { 'x-api-key': TEST_API_KEY } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe('promtool check metrics on GET /metrics', () => {
  it('the live exposition, after calls that succeed and fail, passes with exit 0 and no remark', async (ctx) => {
    const tool = requirePromtool(ctx);
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    await service.call('session.close', { session_id });
    expect((await service.rpc('no.such.method', {})).error?.code).toBe(-32601);
    // A refusal, so http_refusals_total has a series to check.
    expect((await fetch(`${service.url}/metrics`)).status).toBe(401);

    const text = await scrape();
    // Every family the service defines is there, with the series those calls made.
    for (const family of [
      'rpc_requests_total',
      'rpc_request_duration_seconds',
      'browser_sessions_active',
      'browser_sessions_created_total',
      'browser_sessions_expired_total',
      'browser_restarts_total',
      'agents_connected',
      'agent_evaluations_total',
      'http_refusals_total',
    ])
      expect(text).toContain(`# TYPE ${family} `);
    expect(text).toContain('rpc_requests_total{method="session.create",outcome="ok"} 1');
    expect(text).toContain('outcome="METHOD_NOT_FOUND"');
    expect(text).toContain('http_refusals_total{route="/metrics",reason="missing",status="401"} 1');
    // The default process metrics stay; only the gauges promtool refuses are gone, their labelled
    // families (whose sum they were) remain.
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    for (const name of PROMTOOL_REFUSED_DEFAULT_METRICS) expect(text).not.toContain(`# TYPE ${name} `);

    expect(checkMetrics(tool, text)).toEqual({ status: 0, output: '' });
  });

  it("negative: prom-client's default metrics as they come fail with exit 3, naming each dropped gauge", async (ctx) => {
    const tool = requirePromtool(ctx);
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const { status, output } = checkMetrics(tool, await registry.metrics());
    expect(status).toBe(3);
    for (const name of PROMTOOL_REFUSED_DEFAULT_METRICS)
      expect(output).toContain(`${name} non-counter metrics should not have "_total" suffix`);
    // Nothing else of theirs is refused: the three are the whole list.
    expect(output.trim().split('\n')).toHaveLength(PROMTOOL_REFUSED_DEFAULT_METRICS.length);
  });

  it('negative: the check can fail on the service’s own kind of mistake (a gauge named like a counter)', async (ctx) => {
    const tool = requirePromtool(ctx);
    const bad = `${await scrape()}# HELP browser_pages_total Pages open now\n# TYPE browser_pages_total gauge\nbrowser_pages_total 3\n`;
    const { status, output } = checkMetrics(tool, bad);
    expect(status).toBe(3);
    expect(output).toContain('browser_pages_total');
  });
});
