import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The guard rails (import cycles, one layer rule per folder of src/) must bite: a throw-away tree with
// one violation per file is linted with the repository's real eslint.config.mjs, and each file must
// be refused by exactly the rule that guards it.

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Modules the violations import: leaves, so they import nothing and pass themselves. */
const leaves: Record<string, string> = {
  'src/config/config.ts': 'export interface Config {\n  port: number;\n}\n',
  'src/errors/catalogue.ts': 'export const ERROR_CODE = 1;\n',
  'src/observability/logger.ts': 'export const LOG_LEVEL = "info";\n',
  'src/ws/upgradeRouter.ts': 'export const UPGRADE = "ws";\n',
  'src/rpc/defineMethod.ts': 'export const defineMethod = (name: string): string => name;\n',
  'src/rpc/dispatch.ts': 'export class Dispatcher {\n  calls = 0;\n}\n',
  'src/rpc/jsonRpc.ts': 'export const VERSION = "2.0";\n',
  'src/rpc/methodTable.ts': 'export const TABLE = "table";\n',
  'src/browser/engine/browserHost.ts': 'export class BrowserHost {\n  up = true;\n}\n',
  'src/browser/session/session.ts': 'export const SESSION = "session";\n',
  'src/cdp/cdpTabs.ts': 'export class CdpTabs {\n  open = 0;\n}\n',
  'src/hub/agentRegistry.ts': 'export class AgentRegistry {\n  size = 0;\n}\n',
  'src/methods/page/page.ts': 'export const PAGE = "page";\n',
  'src/http/bodyErrors.ts': 'export const BODY = "body";\n',
  'src/http/rpcRoute.ts': 'export const ROUTE = "route";\n',
  'src/mcp/mcpRoute.ts': 'export const MCP = "mcp";\n',
  'src/app.ts': 'export const APP = "app";\n',
};

/** `import { name } from spec` re-exported as a value, so the import is used and nothing else fires. */
const valueImport = (name: string, spec: string): string =>
  `import { ${name} } from '${spec}';\n\nexport const used = ${name};\n`;
const typeImport = (name: string, spec: string): string =>
  `import type { ${name} } from '${spec}';\n\nexport type Used = ${name};\n`;

const RESTRICTED = 'no-restricted-imports';
const TYPES_ONLY = '@typescript-eslint/no-restricted-imports';

/** One forbidden import per file, and the rule that must refuse it. */
const violations: { file: string; source: string; rule: string }[] = [
  { file: 'src/errors/toRpc.ts', source: valueImport('VERSION', '../rpc/jsonRpc.js'), rule: RESTRICTED },
  {
    file: 'src/observability/toErrors.ts',
    source: valueImport('ERROR_CODE', '../errors/catalogue.js'),
    rule: RESTRICTED,
  },
  { file: 'src/ws/toRpc.ts', source: valueImport('VERSION', '../rpc/jsonRpc.js'), rule: RESTRICTED },
  { file: 'src/rpc/toMethods.ts', source: valueImport('PAGE', '../methods/page/page.js'), rule: RESTRICTED },
  {
    file: 'src/rpc/toBrowser.ts',
    source: typeImport('BrowserHost', '../browser/engine/browserHost.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/browser/engine/toRpc.ts',
    source: valueImport('defineMethod', '../../rpc/defineMethod.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/browser/engine/toSession.ts',
    source: valueImport('SESSION', '../session/session.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/methods/page/toHttp.ts',
    source: valueImport('ROUTE', '../../http/rpcRoute.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/methods/page/toHubValue.ts',
    source: valueImport('AgentRegistry', '../../hub/agentRegistry.js'),
    rule: TYPES_ONLY,
  },
  {
    file: 'src/cdp/toHub.ts',
    source: typeImport('AgentRegistry', '../hub/agentRegistry.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/hub/toBrowser.ts',
    source: valueImport('BrowserHost', '../browser/engine/browserHost.js'),
    rule: RESTRICTED,
  },
  { file: 'src/hub/toRpc.ts', source: valueImport('VERSION', '../rpc/jsonRpc.js'), rule: RESTRICTED },
  { file: 'src/methods/toHttp.ts', source: valueImport('ROUTE', '../http/rpcRoute.js'), rule: RESTRICTED },
  {
    file: 'src/methods/toDispatch.ts',
    source: typeImport('Dispatcher', '../rpc/dispatch.js'),
    rule: RESTRICTED,
  },
  { file: 'src/methods/toApp.ts', source: valueImport('APP', '../app.js'), rule: RESTRICTED },
  {
    file: 'src/methods/toHubValue.ts',
    source: valueImport('AgentRegistry', '../hub/agentRegistry.js'),
    rule: TYPES_ONLY,
  },
  {
    file: 'src/methods/toCdpValue.ts',
    source: valueImport('CdpTabs', '../cdp/cdpTabs.js'),
    rule: TYPES_ONLY,
  },
  { file: 'src/http/toMethods.ts', source: valueImport('PAGE', '../methods/page/page.js'), rule: RESTRICTED },
  {
    file: 'src/http/toSession.ts',
    source: valueImport('SESSION', '../browser/session/session.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/http/toHostValue.ts',
    source: valueImport('BrowserHost', '../browser/engine/browserHost.js'),
    rule: TYPES_ONLY,
  },
  { file: 'src/mcp/toMethods.ts', source: valueImport('PAGE', '../methods/page/page.js'), rule: RESTRICTED },
  {
    file: 'src/mcp/toMethodTable.ts',
    source: valueImport('TABLE', '../rpc/methodTable.js'),
    rule: RESTRICTED,
  },
  {
    file: 'src/config/config.ts',
    source: valueImport('ERROR_CODE', '../errors/catalogue.js'),
    rule: RESTRICTED,
  },
];

/** Cycles: each file of the cycle is refused by the named rule. */
const cycles: { name: string; files: Record<string, string>; rule: string }[] = [
  {
    name: 'a two-file value cycle',
    rule: 'import-x/no-cycle',
    files: {
      'src/valueCycle/a.ts': "import { b } from './b.js';\n\nexport const a = (): string => b();\n",
      'src/valueCycle/b.ts': "import { a } from './a.js';\n\nexport const b = (): string => String(a);\n",
    },
  },
  {
    name: 'a type-only cycle',
    rule: 'local/no-type-cycle',
    files: {
      'src/typeCycle/a.ts': "import type { B } from './b.js';\n\nexport interface A {\n  b?: B;\n}\n",
      'src/typeCycle/b.ts': "import type { A } from './a.js';\n\nexport interface B {\n  a?: A;\n}\n",
    },
  },
  {
    name: 'a cycle closed by a type import',
    rule: 'local/no-type-cycle',
    files: {
      'src/mixedCycle/a.ts':
        "import { b } from './b.js';\n\nexport interface A {\n  n: number;\n}\nexport const a = b;\n",
      'src/mixedCycle/b.ts': "import type { A } from './a.js';\n\nexport const b = (x: A): number => x.n;\n",
    },
  },
];

/** What each folder may import, as the current tree does: all must pass. */
const allowed: Record<string, string> = {
  'src/ws/ok.ts': valueImport('LOG_LEVEL', '../observability/logger.js'),
  'src/rpc/ok.ts': valueImport('ERROR_CODE', '../errors/catalogue.js'),
  'src/cdp/ok.ts': valueImport('BrowserHost', '../browser/engine/browserHost.js'),
  'src/hub/ok.ts': valueImport('UPGRADE', '../ws/upgradeRouter.js'),
  'src/methods/ok.ts':
    "import type { AgentRegistry } from '../hub/agentRegistry.js';\n" +
    "import type { CdpTabs } from '../cdp/cdpTabs.js';\n" +
    "import type { Config } from '../config/config.js';\n" +
    "import type { BrowserHost } from '../browser/engine/browserHost.js';\n" +
    "import { SESSION } from '../browser/session/session.js';\n" +
    "import { defineMethod } from '../rpc/defineMethod.js';\n\n" +
    'export type Services = { agents: AgentRegistry; tabs: CdpTabs; config: Config; host: BrowserHost };\n' +
    'export const used = [defineMethod, SESSION];\n',
  'src/mcp/ok.ts':
    "import { BODY } from '../http/bodyErrors.js';\n" +
    "import type { Dispatcher } from '../rpc/dispatch.js';\n" +
    "import type { BrowserHost } from '../browser/engine/browserHost.js';\n" +
    "import { VERSION } from '../rpc/jsonRpc.js';\n\n" +
    'export type Deps = { dispatcher: Dispatcher; host: BrowserHost };\n' +
    'export const used = [BODY, VERSION];\n',
  'src/browser/session/ok.ts': valueImport('BrowserHost', '../engine/browserHost.js'),
  'src/methods/page/ok.ts':
    "import type { Config } from '../../config/config.js';\n" +
    "import { SESSION } from '../../browser/session/session.js';\n" +
    "import { defineMethod } from '../../rpc/defineMethod.js';\n\n" +
    'export type Services = { config: Config };\n' +
    'export const used = [defineMethod, SESSION];\n',
  'src/service.ts': valueImport('PAGE', './methods/page/page.js'),
};

const tsconfig = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  },
  include: ['src'],
};

let dir = '';
const results = new Map<string, ESLint.LintResult>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pw-jsonrpc-lint-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ type: 'module', private: true }),
    'tsconfig.json': JSON.stringify(tsconfig),
    ...leaves,
    ...Object.fromEntries(violations.map((v) => [v.file, v.source])),
    ...Object.fromEntries(cycles.flatMap((c) => Object.entries(c.files))),
    ...allowed,
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const eslint = new ESLint({ cwd: dir, overrideConfigFile: join(repo, 'eslint.config.mjs') });
  for (const result of await eslint.lintFiles(['src'])) results.set(relative(dir, result.filePath), result);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The rules that fired on a file of the throw-away tree. */
function rulesOn(file: string): (string | null)[] {
  const result = results.get(file);
  if (!result) throw new Error(`${file} was not linted`);
  return result.messages.map((m) => m.ruleId);
}

describe('the lint guard rails bite', () => {
  it('lints every file of the throw-away tree with the real config', () => {
    expect(results.size).toBe(
      Object.keys(leaves).length +
        violations.filter((v) => !(v.file in leaves)).length +
        cycles.reduce((n, c) => n + Object.keys(c.files).length, 0) +
        Object.keys(allowed).length,
    );
  });

  it.each(cycles)('refuses $name with $rule', ({ files, rule }) => {
    for (const file of Object.keys(files)) expect(rulesOn(file), file).toEqual([rule]);
  });

  it.each(violations)('refuses $file with $rule', ({ file, rule }) => {
    expect(rulesOn(file)).toEqual([rule]);
  });

  it('passes the imports each layer may make, and the leaves', () => {
    const leafFiles = Object.keys(leaves).filter((f) => !violations.some((v) => v.file === f));
    for (const file of [...leafFiles, ...Object.keys(allowed)]) expect(rulesOn(file), file).toEqual([]);
  });
});
