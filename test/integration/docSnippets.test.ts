// Docs snippets are tests: every block of README.md and docs/*.md that the rule in
// test/helpers/docSnippets.ts selects runs here as written, against the real service on the
// documented port (3337, key dev-key-123) and the fixture app on its documented port (8080), the
// way a reader runs it after the README's two start commands. The blocks of one page run in order in
// one shell's state, as in one terminal; each must exit 0 and print no JSON-RPC error (unless marked
// `<!-- snippet: error -320xx -->`, and then that error), and by the end of its page (of each ts/js
// program) every session it opened is closed.
import { constants } from 'node:fs';
import { access, chmod, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import {
  errorCodesIn,
  hasMcpError,
  outputShows,
  planBlock,
  readFencedBlocks,
  shownOutputs,
  type SnippetLang,
} from '../helpers/docSnippets.js';
import { runBashBlock, runTsBlock, type SnippetRun } from '../helpers/snippetRunner.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/testService.js';

/** The ports and key the docs use: a reader's service and fixture app. */
const SERVICE_PORT = 3337;
const FIXTURE_PORT = 8080;
const DOCS_API_KEY = 'dev-key-123';
const DOCS_AGENT_SECRET = 'dev-agent-secret';

/**
 * One snippet drives a real browser, and may run a few tsx programs (each compiles first) on a
 * loaded 2-core machine: generous, but a hang fails.
 */
const SNIPPET_TIMEOUT_MS = 120_000;
/** The test's own bound: the snippet's, plus the session checks after it. */
const TEST_TIMEOUT_MS = SNIPPET_TIMEOUT_MS + 30_000;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PlannedBlock {
  file: string;
  line: number;
  lang: SnippetLang;
  code: string;
  expectError: number | undefined;
}

async function docFiles(): Promise<string[]> {
  const docs = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

async function plannedPages(): Promise<Map<string, PlannedBlock[]>> {
  const pages = new Map<string, PlannedBlock[]>();
  for (const file of await docFiles()) {
    const blocks: PlannedBlock[] = [];
    for (const block of readFencedBlocks(await readFile(path.join(ROOT, file), 'utf8'))) {
      let plan;
      try {
        plan = planBlock(block);
      } catch (error) {
        throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
      }
      if (plan.run) {
        blocks.push({
          file,
          line: block.line,
          lang: plan.lang,
          code: block.code,
          expectError: plan.expectError,
        });
      }
    }
    if (blocks.length > 0) pages.set(file, blocks);
  }
  return pages;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    probe.listen({ host: '127.0.0.1', port }, () => probe.close(() => resolve(true)));
  });
}

const pages = await plannedPages();
const busy = [];
for (const port of [SERVICE_PORT, FIXTURE_PORT]) if (!(await portFree(port))) busy.push(port);
if (busy.length > 0) {
  const message = `docs snippets: port ${busy.join(' and ')} in use on 127.0.0.1; the snippets need the documented ports`;
  // CI's machine is fresh: a busy port there is a failure, not a reason to skip.
  if (process.env['CI']) throw new Error(message);
  console.warn(`${message}: skipped`);
}

let service: TestService | undefined;
let fixture: FixtureServer | undefined;
const tmpDir = path.join(ROOT, `.doc-snippets-${process.pid}`);

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the ${what} is used before beforeAll started it`);
  return value;
}

/**
 * A reader's shell: PATH, HOME, and the key and agent secret of the service the docs start
 * (exported, as a reader who set them would have them); nothing else of the test's environment.
 */
function readerEnv(wireLog: string): Record<string, string> {
  const env: Record<string, string> = {
    API_KEY: DOCS_API_KEY,
    AGENT_SECRET: DOCS_AGENT_SECRET,
    SNIPPET_WIRE_LOG: wireLog,
  };
  for (const name of ['HOME', 'LANG', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env['PATH'] = `${path.join(tmpDir, 'bin')}:${process.env['PATH'] ?? ''}`;
  return env;
}

async function findOnPath(command: string): Promise<string> {
  for (const dir of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
    const candidate = path.join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`${command} is not installed: the docs' snippets need it (CI installs it from Debian)`);
}

/**
 * curl as the snippets call it, plus a copy of every answer in SNIPPET_WIRE_LOG: a snippet that
 * pipes an answer into jq (`jq -r .result.text`) would otherwise print `null` for an error.
 */
async function installCurlShim(): Promise<void> {
  const realCurl = await findOnPath('curl');
  const shim = path.join(tmpDir, 'bin', 'curl');
  await mkdir(path.dirname(shim), { recursive: true });
  await writeFile(
    shim,
    `#!/usr/bin/env bash\n'${realCurl}' "$@" | tee -a "$SNIPPET_WIRE_LOG"\nstatus=\${PIPESTATUS[0]}\necho >> "$SNIPPET_WIRE_LOG"\nexit "$status"\n`,
  );
  await chmod(shim, 0o755);
}

/** Sessions still open (every key's: the test calls with the admin key), closed after being counted. */
async function openSessions(): Promise<string[]> {
  const running = started(service, 'service');
  const { sessions } = await running.call<{ sessions: { session_id: string; url: string }[] }>(
    'session.list',
  );
  await Promise.all(sessions.map((s) => running.call('session.close', { session_id: s.session_id })));
  return sessions.map((s) => `${s.session_id} on ${s.url}`);
}

/** A snippet that ran no curl left no wire log. */
function noWire(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return '';
  throw error;
}

function describeRun(block: PlannedBlock, run: SnippetRun): string {
  return `${block.file}:${block.line} (${block.lang})\n--- snippet\n${block.code}\n--- output\n${run.output}`;
}

function checkRun(block: PlannedBlock, run: SnippetRun, wire: string): void {
  const context = `${describeRun(block, run)}\n--- what curl received\n${wire}`;
  expect(run.timedOut, `timed out after ${SNIPPET_TIMEOUT_MS} ms: ${context}`).toBe(false);
  expect(run.code, context).toBe(0);
  const codes = errorCodesIn(`${run.output}\n${wire}`);
  if (block.expectError === undefined) {
    expect(codes, `a JSON-RPC error: ${context}`).toEqual([]);
    expect(hasMcpError(`${run.output}\n${wire}`), `an MCP error result: ${context}`).toBe(false);
  } else {
    expect(
      codes.length,
      `the error the docs show (${block.expectError}) was not printed: ${context}`,
    ).toBeGreaterThan(0);
    expect(new Set(codes), context).toEqual(new Set([block.expectError]));
  }
  // What the docs say a command prints (`# => …`) is what it printed.
  if (block.lang === 'bash') {
    for (const shown of shownOutputs(block.code)) {
      expect(
        outputShows(run.output, shown),
        `the docs show "${shown}", the snippet did not print it: ${context}`,
      ).toBe(true);
    }
  }
}

describe.skipIf(busy.length > 0)('docs snippets run as written', () => {
  beforeAll(async () => {
    await mkdir(tmpDir, { recursive: true });
    await installCurlShim();
    // The client package's names (its own, and the service package's ./client export) resolve to
    // the client's source, so the docs' imports run unbuilt.
    await writeFile(
      path.join(tmpDir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.json',
        compilerOptions: {
          paths: {
            'playwright-jsonrpc-client': ['../client/src/index.ts'],
            'playwright-jsonrpc/client': ['../client/src/index.ts'],
          },
        },
      }),
    );
    fixture = await startFixtureServer({ port: FIXTURE_PORT });
    service = await startTestService({
      PORT: String(SERVICE_PORT),
      API_KEY: DOCS_API_KEY,
      ADMIN_API_KEY: TEST_API_KEY,
      AGENT_SECRET: DOCS_AGENT_SECRET,
    });
  });

  afterAll(async () => {
    await service?.close();
    await fixture?.close();
    await rm(tmpDir, { recursive: true, force: true });
  });

  it('finds the README walk-through among the snippets', () => {
    expect(pages.get('README.md')?.length ?? 0).toBeGreaterThan(0);
  });

  for (const [file, blocks] of pages) {
    describe(file, () => {
      const stateFile = path.join(tmpDir, `${file.replaceAll('/', '_')}.state`);
      let failed: string | undefined;

      for (const [index, block] of blocks.entries()) {
        const last = index === blocks.length - 1;
        it(
          `line ${block.line} (${block.lang})`,
          async (ctx) => {
            if (failed !== undefined) ctx.skip(`an earlier block of ${file} failed (${failed})`);
            try {
              const wireLog = path.join(tmpDir, `wire-${file.replaceAll('/', '_')}-${block.line}.log`);
              const options = { cwd: ROOT, env: readerEnv(wireLog), timeoutMs: SNIPPET_TIMEOUT_MS };
              const run =
                block.lang === 'bash'
                  ? await runBashBlock(
                      block.code,
                      path.join(tmpDir, `block-${block.line}.sh`),
                      stateFile,
                      options,
                    )
                  : await runTsBlock(
                      block.code,
                      path.join(tmpDir, `snippet-${file.replaceAll('/', '_')}-${block.line}.ts`),
                      path.join(tmpDir, 'tsconfig.json'),
                      options,
                    );
              checkRun(block, run, await readFile(wireLog, 'utf8').catch(noWire));
              // A program closes what it opened; a page's shell blocks may hand a session on to the
              // next block, and close it by the page's end.
              if (block.lang === 'ts' || last) {
                expect(await openSessions(), `sessions left open by ${file}:${block.line}`).toEqual([]);
              }
            } catch (error) {
              failed = `line ${block.line}`;
              await openSessions();
              throw error;
            }
          },
          TEST_TIMEOUT_MS,
        );
      }
    });
  }
});
