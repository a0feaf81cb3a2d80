// `npm run bench -- --only neighbours`: the service built as `npm start` runs it, with two keys (a
// control and a hostile one) and the fixture app; the report is the neighbours section alone, with
// its raw JSON, next to the other partial reports.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFixtureServer } from '../../test/fixtures/fixtureServer.js';
import { freePort, spawnLogged, stopTree } from './proc.js';
import { formatMarkdown } from './report.js';
import { startRun } from './runStart.js';
import { sleep } from './stats.js';
import { KeyClient, measureNeighbours, neighboursSection } from './neighbours.js';

/** How long the service may take to answer /readyz after it starts, and to stop. */
const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 10_000;

export async function mainNeighbours(
  options: { quiet: boolean; opTimeoutMs: number; outDir: string; resultsPath: string },
  hooks: { signal?: AbortSignal },
  repo: { root: string; commit: string },
): Promise<void> {
  const run = startRun({ quiet: options.quiet }, hooks);
  const fixture = await startFixtureServer();
  const port = await freePort();
  const controlKey = randomBytes(18).toString('base64url');
  const hostileKey = randomBytes(18).toString('base64url');
  const service = spawnLogged(process.execPath, ['dist/src/main.js'], {
    cwd: repo.root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      API_KEY: `${controlKey},${hostileKey}`,
      LOG_LEVEL: 'warn',
      MAX_SESSIONS: '40',
      RATE_LIMIT_MAX: '1000000',
      CHROMIUM_PATH: run.executablePath,
      CONFIG_FILE: '',
    },
  });
  try {
    const control = new KeyClient(port, controlKey, options.opTimeoutMs);
    const hostile = new KeyClient(port, hostileKey, options.opTimeoutMs);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (
      (await control.rpc.get('/readyz').then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline) throw new Error(`service not ready:\n${service.tail()}`);
      await sleep(100);
    }
    run.log(`service ready; fixture server on ${fixture.url}`);
    const result = await measureNeighbours(control, hostile, fixture.url, run.log);
    const date = new Date().toISOString();
    await mkdir(options.outDir, { recursive: true });
    const rawPath = path.join(options.outDir, `raw-neighbours-${date.replace(/[:.]/g, '-')}.json`);
    await writeFile(
      rawPath,
      `${JSON.stringify({ date, commit: repo.commit, neighbours: result }, null, 2)}\n`,
    );
    const markdown = [
      '# Benchmark: neighbours only (`--only neighbours`)',
      '',
      `${date}, commit ${repo.commit}, ${os.availableParallelism()} cores, load average ${run.loadStart.toFixed(2)} at the start; raw: ${path.relative(repo.root, rawPath)}.`,
      '',
      ...neighboursSection(result),
    ].join('\n');
    await mkdir(path.dirname(options.resultsPath), { recursive: true });
    await writeFile(options.resultsPath, await formatMarkdown(markdown, options.resultsPath));
    run.log(`wrote ${path.relative(repo.root, options.resultsPath)}`);
  } finally {
    await stopTree(service, STOP_GRACE_MS);
    await fixture.close();
    run.end();
  }
}
