// The typed client as its own package (client/package.json): `npm pack` builds it (prepack) into a
// tarball of ESM and .d.ts only; the tarball installs offline into a fresh project outside the repo
// (no dependency to fetch), and a plain ESM script there makes real calls against the service.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/testService.js';

const run = promisify(execFile);
/** npm pack (with its tsc build) and an offline install: bounded, generous for loaded machines. */
const NPM_TIMEOUT_MS = 180_000;
/** The consumer script and the type check of its TypeScript twin. */
const SCRIPT_TIMEOUT_MS = 120_000;
const CASE_TIMEOUT_MS = 2 * NPM_TIMEOUT_MS + 2 * SCRIPT_TIMEOUT_MS;
const TSC = resolve('node_modules/typescript/bin/tsc');

let service: TestService;
let fixtures: FixtureServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pwjr-client-'));
  service = await startTestService();
  fixtures = await startFixtureServer();
});

afterAll(async () => {
  await fixtures?.close();
  await service?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

const CONSUMER = `import { createClient, RpcClientError, METHOD_NAMES } from 'playwright-jsonrpc-client';

const client = createClient({ url: process.env.SERVICE_URL, apiKey: process.env.API_KEY });
const { session_id } = await client.session.create();
const out = { methods: METHOD_NAMES.length };
try {
  const goto = await client.page.goto({ session_id, url: process.env.FIXTURE_URL + '/projects' });
  out.url = goto.url;
  out.text = (await client.page.text({ session_id, selector: 'main' })).text;
  try {
    await client.page.text({ session_id: 's_unknown' });
  } catch (error) {
    out.error = error instanceof RpcClientError ? [error.code, error.errorName] : String(error);
  }
} finally {
  await client.session.close({ session_id });
}
out.after = (await client.session.list()).sessions.length;
console.log(JSON.stringify(out));
`;

const CONSUMER_TS = `import { createClient, type PageGotoParams } from 'playwright-jsonrpc-client';
const client = createClient({ url: 'http://127.0.0.1:3337', apiKey: 'k' });
const params: PageGotoParams = { session_id: 's_1', url: 'http://localhost/' };
export const pending: Promise<{ url: string }> = client.page.goto(params);
// @ts-expect-error an unknown param does not compile
export const wrong = client.page.goto({ session_id: 's_1', url: 'x', bogus: 1 });
`;

describe('playwright-jsonrpc-client, packed and installed like any npm package', () => {
  it(
    'packs ESM and .d.ts with no dependencies, installs offline, and makes real calls',
    async () => {
      const manifest = JSON.parse(readFileSync('client/package.json', 'utf8')) as Record<string, unknown>;
      expect(manifest.dependencies).toBeUndefined();
      expect(manifest.private).toBeUndefined();

      const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
        cwd: 'client',
        timeout: NPM_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
      // prepack's own output may precede npm's JSON: the JSON is the last top-level array.
      const json = packed.stdout.slice(packed.stdout.lastIndexOf('\n[') + 1);
      const [info] = JSON.parse(json) as { filename: string; files: { path: string }[] }[];
      if (info === undefined) throw new Error(`npm pack printed no result: ${packed.stdout}`);
      const files = info.files.map((f) => f.path).sort();
      expect(files).toContain('dist/index.js');
      expect(files).toContain('dist/index.d.ts');
      expect(files).toContain('dist/methods.generated.d.ts');
      // Only the build and the manifest: no sources, no maps, no tsconfig.
      expect(files.filter((f) => !/^dist\/[\w.]+\.(js|d\.ts)$/.test(f))).toEqual(['package.json']);

      const project = join(work, 'consumer');
      rmSync(project, { recursive: true, force: true });
      await run('mkdir', ['-p', project]);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
      );
      await run('npm', ['install', join(work, info.filename), '--offline', '--no-audit', '--no-fund'], {
        cwd: project,
        timeout: NPM_TIMEOUT_MS,
      });
      const installed = JSON.parse(
        readFileSync(join(project, 'node_modules/playwright-jsonrpc-client/package.json'), 'utf8'),
      ) as { name: string };
      expect(installed.name).toBe('playwright-jsonrpc-client');
      // Nothing else came with it.
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, unknown>;
      };
      expect(Object.keys(lock.packages).sort()).toEqual(['', 'node_modules/playwright-jsonrpc-client']);

      writeFileSync(join(project, 'main.mjs'), CONSUMER);
      const { stdout } = await run(process.execPath, ['main.mjs'], {
        cwd: project,
        timeout: SCRIPT_TIMEOUT_MS,
        env: {
          PATH: process.env.PATH ?? '',
          SERVICE_URL: service.url,
          API_KEY: TEST_API_KEY,
          FIXTURE_URL: fixtures.url,
        },
      });
      const out = JSON.parse(stdout) as Record<string, unknown>;
      expect(out.url).toBe(`${fixtures.url}/projects`);
      expect(out.text).toContain('New Project');
      expect(out.error).toEqual([-32010, 'SESSION_NOT_FOUND']);
      expect(out.after).toBe(0);
      expect(out.methods).toBe(service.running.dispatcher.methods().length);

      // The types resolve through "exports" from the installed package: a typed call compiles, an
      // unknown param does not (the @ts-expect-error would fail the check if it compiled).
      writeFileSync(join(project, 'check.ts'), CONSUMER_TS);
      await run(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--lib',
          'es2023,dom',
          'check.ts',
        ],
        { cwd: project, timeout: SCRIPT_TIMEOUT_MS },
      );
    },
    CASE_TIMEOUT_MS,
  );
});
