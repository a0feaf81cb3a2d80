// npm run soak -- --duration 180 --sessions 8: a bounded soak of the real service. Each worker
// keeps a session and loops mixed calls on the fixture app; every sample interval it records Node's
// RSS and the Chromium process tree's PSS (from /proc). Prints p50/p99 per method, error counts by
// code and the memory series, and whether memory stayed flat after warm-up. A report, not a test.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startFixtureServer } from '../fixtures/fixtureServer.js';
import { chromiumTree } from '../helpers/procfs.js';
import { RpcCallError, startTestService, type TestService } from '../helpers/testService.js';

/** Memory is "flat" when the last sample is within this factor of the first one after warm-up. */
const FLAT_FACTOR = 1.25;
const SAMPLE_EVERY_MS = 10_000;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '180' },
    sessions: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '30' },
  },
});
const durationMs = Number(values.duration) * 1000;
const workers = Number(values.sessions);
const warmupMs = Number(values.warmup) * 1000;

function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    // The process exited between listing and reading: it holds no memory.
    return 0;
  }
}

const timings = new Map<string, number[]>();
const errors = new Map<string, number>();
const memory: { t: number; nodeRssMb: number; chromiumPssMb: number }[] = [];

async function timed(
  service: TestService,
  method: string,
  params: Record<string, unknown>,
): Promise<unknown> {
  const started = performance.now();
  try {
    return await service.call(method, params);
  } catch (error) {
    const code = error instanceof RpcCallError ? String(error.code) : 'transport';
    errors.set(`${method} ${code}`, (errors.get(`${method} ${code}`) ?? 0) + 1);
    return undefined;
  } finally {
    const list = timings.get(method) ?? [];
    list.push(performance.now() - started);
    timings.set(method, list);
  }
}

async function worker(service: TestService, base: string, until: number): Promise<void> {
  const pages = ['/projects', '/form', '/static', '/errors', '/big'];
  let i = 0;
  while (Date.now() < until) {
    const created = (await timed(service, 'session.create', {})) as { session_id: string } | undefined;
    if (created === undefined) continue;
    const { session_id } = created;
    for (let step = 0; step < 10 && Date.now() < until; step++, i++) {
      const path = pages[i % pages.length] ?? '/static';
      await timed(service, 'page.goto', { session_id, url: `${base}${path}` });
      await timed(service, 'page.text', { session_id, selector: 'main' });
      if (path === '/form') {
        await timed(service, 'page.fill', { session_id, selector: '#name', value: `soak ${i}` });
        await timed(service, 'page.click', { session_id, selector: '#greet' });
      }
      if (step % 3 === 0) await timed(service, 'screenshot', { session_id });
      await timed(service, 'logs.pull', { session_id });
      await timed(service, 'network.pull', { session_id });
    }
    await timed(service, 'session.close', { session_id });
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const fixture = await startFixtureServer();
const service = await startTestService({ LOG_LEVEL: 'warn', MAX_SESSIONS: String(workers + 2) });
const started = Date.now();
const sampler = setInterval(() => {
  const chromium = chromiumTree().reduce((sum, p) => sum + pssKb(p.pid), 0) / 1024;
  const sample = {
    t: Math.round((Date.now() - started) / 1000),
    nodeRssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
    chromiumPssMb: Math.round(chromium),
  };
  memory.push(sample);
  process.stdout.write(
    `t=${sample.t}s node rss ${sample.nodeRssMb} MiB, chromium pss ${sample.chromiumPssMb} MiB\n`,
  );
}, SAMPLE_EVERY_MS);
try {
  await Promise.all(
    Array.from({ length: workers }, () => worker(service, fixture.url, started + durationMs)),
  );
} finally {
  clearInterval(sampler);
  await service.close();
  await fixture.close();
}

process.stdout.write('\n| method | calls | p50 ms | p99 ms |\n| --- | --- | --- | --- |\n');
for (const [method, list] of [...timings.entries()].sort()) {
  const sorted = [...list].sort((a, b) => a - b);
  process.stdout.write(
    `| ${method} | ${list.length} | ${pct(sorted, 50).toFixed(1)} | ${pct(sorted, 99).toFixed(1)} |\n`,
  );
}
process.stdout.write(
  `\nerrors by method and code: ${errors.size === 0 ? 'none' : JSON.stringify(Object.fromEntries(errors))}\n`,
);
const afterWarmup = memory.filter((m) => m.t * 1000 >= warmupMs);
const first = afterWarmup[0];
const last = afterWarmup[afterWarmup.length - 1];
if (first && last) {
  const flat =
    last.nodeRssMb <= first.nodeRssMb * FLAT_FACTOR &&
    last.chromiumPssMb <= first.chromiumPssMb * FLAT_FACTOR;
  process.stdout.write(
    `memory after warm-up: node ${first.nodeRssMb} → ${last.nodeRssMb} MiB, chromium ${first.chromiumPssMb} → ${last.chromiumPssMb} MiB: ${flat ? 'flat' : 'GROWING'}\n`,
  );
} else process.stdout.write('memory: run longer than the warm-up to judge\n');
