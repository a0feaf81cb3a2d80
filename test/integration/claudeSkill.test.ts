// The Claude Code skill .claude/skills/browser-rpc: every bash block of its SKILL.md runs as written
// (only the fixture app's documented origin, http://localhost:8080, becomes this run's), in a shell
// of its own as Claude Code's Bash tool runs it, against the real service and the fixture app; and
// its rpc helper fails the way SKILL.md says.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { constants, accessSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** A block makes a handful of calls, each bounded by the service's own timeouts. */
const BLOCK_TIMEOUT_MS = 60_000;
/** The origin SKILL.md's examples name: the fixture app as `npm run fixtures` serves it. */
const DOCUMENTED_ORIGIN = 'http://localhost:8080';

const SKILL_DIR = fileURLToPath(new URL('../../.claude/skills/browser-rpc', import.meta.url));
const skill = readFileSync(`${SKILL_DIR}/SKILL.md`, 'utf8');

const suite = useServiceSuite();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `bash -c script` with only what Claude Code's shell would have: PATH, HOME and the skill's env. */
function bash(script: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        API_KEY: TEST_API_KEY,
        PLAYWRIGHT_JSONRPC_URL: suite.service.url,
        CLAUDE_SKILL_DIR: SKILL_DIR,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BLOCK_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The fenced bash blocks of SKILL.md under each `## ` heading, in order. */
function bashBlocks(markdown: string): { heading: string; code: string }[] {
  const blocks: { heading: string; code: string }[] = [];
  let heading = '';
  for (const part of markdown.split(/^(## .*)$/m)) {
    if (part.startsWith('## ')) {
      heading = part.slice(3).trim();
      continue;
    }
    for (const m of part.matchAll(/^```bash\n([\s\S]*?)^```$/gm)) blocks.push({ heading, code: m[1] ?? '' });
  }
  return blocks;
}

async function liveSessions(): Promise<unknown[]> {
  return (await suite.service.call<{ sessions: unknown[] }>('session.list', {})).sessions;
}

describe('the browser-rpc skill', () => {
  const blocks = bashBlocks(skill);

  it('has the frontmatter Claude Code reads (name, description) and an executable helper', () => {
    const front = /^---\n([\s\S]*?)\n---\n/.exec(skill)?.[1] ?? '';
    expect(front).toMatch(/^name: browser-rpc$/m);
    expect(front).toMatch(/^description: .{40,1024}$/m);
    expect(() => accessSync(`${SKILL_DIR}/rpc`, constants.X_OK)).not.toThrow();
    expect(blocks.map((b) => b.heading)).toEqual([
      'Check the service',
      'Open a page, see it, read it, pull its errors',
      'Act on refs, several steps in one call',
    ]);
  });

  it('runs "Check the service" as written', async () => {
    const run = await bash(blocks[0]?.code ?? 'false');
    expect(run.code, run.stderr).toBe(0);
    const [ready, list] = run.stdout.trim().split('\n');
    // /readyz also reports the capacity a load balancer weighs by (docs/operations.md).
    expect(JSON.parse(ready ?? 'null')).toMatchObject({
      status: 'ready',
      ready: true,
      browser: 'connected',
      free: expect.any(Number) as unknown,
    });
    expect(JSON.parse(list ?? 'null')).toEqual({ sessions: expect.any(Array) as unknown });
  });

  it('runs "Open a page, see it, read it, pull its errors" as written, and closes its session', async () => {
    const before = (await liveSessions()).length;
    const code = (blocks[1]?.code ?? 'false').replaceAll(DOCUMENTED_ORIGIN, suite.fixture.url);
    const run = await bash(code);
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    // page.goto's answer, then the snapshot's lines with refs, the text, and the two pulls.
    expect(out).toContain(`"url":"${suite.fixture.url}/projects","title":"Projects","status":200`);
    expect(out).toMatch(/- button "New Project" \[ref=\w+\]/);
    expect(out).toContain('Apollo');
    const lines = out.trim().split('\n');
    const consoleErrors = JSON.parse(lines.at(-2) ?? 'null') as string[];
    const networkErrors = JSON.parse(lines.at(-1) ?? 'null') as { url: string; status: number }[];
    expect(consoleErrors).toContain('demo console error');
    expect(networkErrors).toContainEqual(
      expect.objectContaining({ url: `${suite.fixture.url}/api/fail`, method: 'GET', status: 500 }),
    );
    expect(await liveSessions()).toHaveLength(before);
  });

  it('runs "Act on refs, several steps in one call" as written, and closes its session', async () => {
    const before = (await liveSessions()).length;
    const code = (blocks[2]?.code ?? 'false').replaceAll(DOCUMENTED_ORIGIN, suite.fixture.url);
    const run = await bash(code);
    expect(run.code, run.stderr).toBe(0);
    const [act, ...text] = run.stdout.trim().split('\n');
    expect(JSON.parse(act ?? 'null')).toEqual({ ok: true, failedAt: null });
    expect(text.join('\n')).toContain('Hello, Ada!');
    expect(await liveSessions()).toHaveLength(before);
  });

  it('rpc exits 1 with the JSON-RPC error on stderr, and 2 when the key is refused or nothing answers', async () => {
    const rpc = `"$CLAUDE_SKILL_DIR/rpc"`;
    const unknown = await bash(`${rpc} page.text session_id=s_00000000-0000-4000-8000-000000000000`);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(JSON.parse(unknown.stderr)).toMatchObject({ code: -32010 });

    const badParams = await bash(`${rpc} session.create viewport:=not-json`);
    expect(badParams.code).toBe(2);
    expect(badParams.stderr).toContain('viewport:= needs JSON');

    const wrongKey = await bash(`${rpc} session.list`, { API_KEY: 'not-the-key' });
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toContain('refused the key');

    const noKey = await bash(`${rpc} session.list`, { API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('API_KEY is not set');

    const closedPort = await new Promise<number>((resolve, reject) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() =>
          typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
        );
      });
    });
    const nothing = await bash(`${rpc} session.list`, {
      PLAYWRIGHT_JSONRPC_URL: `http://127.0.0.1:${closedPort}`,
    });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('no answer from');

    // A URL ending in /rpc works as well as the base URL.
    const withPath = await bash(`${rpc} session.list`, {
      PLAYWRIGHT_JSONRPC_URL: `${suite.service.url}/rpc`,
    });
    expect(withPath.code, withPath.stderr).toBe(0);
  });
});
