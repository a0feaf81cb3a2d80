// @ts-check
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import ts from 'typescript';

/**
 * The layer rules (one block per folder of src/): each folder lists what it MAY import; everything
 * else of the project (`../*` from a folder file, `./*` from a top-level file) is refused. Patterns
 * are gitignore-style, so `!../x` re-admits a folder and `../x/*` + `!../x/y.js` narrows it to files.
 * Imports that are allowed as types only go to `@typescript-eslint/no-restricted-imports` with
 * `allowTypeImports` (the core rule lets them through, the typed rule refuses their values).
 */
const only = (folder, allowed, message) => [
  {
    files: [`src/${folder}/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', `!../${folder}`, ...allowed], message }] },
      ],
    },
  },
  // A file one folder deeper reaches the same layers one `../` further up; its own layer's files
  // (`../x.js`, `../sibling/x.js`) are not matched and stay allowed.
  {
    files: [`src/${folder}/*/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../*', `!../../${folder}`, ...allowed.map(deeper)], message }] },
      ],
    },
  },
];
/** The same gitignore-style pattern written from one folder deeper. */
const deeper = (pattern) => pattern.replace(/^(!?)\.\.\//, '$1../../');
/** Re-admit a whole folder. */
const dir = (name) => `!../${name}`;
/**
 * Re-admit single files of a folder that is otherwise refused; a file in a subfolder (`engine/x.js`)
 * re-admits the subfolder and refuses its other files (gitignore cannot re-admit below a refused folder).
 */
const files = (name, ...names) => {
  const out = [`!../${name}`, `../${name}/*`];
  for (const file of names) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      if (!out.includes(`!../${name}/${sub}`)) out.push(`!../${name}/${sub}`, `../${name}/${sub}/*`);
    }
    out.push(`!../${name}/${file}`);
  }
  return out;
};
/**
 * browser/'s rooms, lowest first: each imports only the rooms before it (and errors/, observability/),
 * so no room imports one that imports it back.
 */
const BROWSER_ROOMS = ['engine', 'events', 'network', 'artifacts', 'page', 'session'];
const browserRooms = () =>
  BROWSER_ROOMS.map((room, i) => {
    const later = BROWSER_ROOMS.slice(i + 1);
    const below = BROWSER_ROOMS.slice(0, i);
    return {
      files: [`src/browser/${room}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: ['../../*', '!../../errors', '!../../observability'],
                message: 'browser/ imports nothing above it: errors/ and observability/ only',
              },
              ...(later.length > 0
                ? [
                    {
                      group: later.map((r) => `../${r}`),
                      message: `browser/${room}/ imports only ${below.length > 0 ? below.map((r) => `browser/${r}/`).join(', ') : 'no other room of browser/'} (the rooms run ${BROWSER_ROOMS.join(' → ')})`,
                    },
                  ]
                : []),
            ],
          },
        ],
      },
    };
  });
/** Files whose imports must be `import type`. */
const typesOnly = (group, message) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    { patterns: [{ group, allowTypeImports: true, message }] },
  ],
});

/**
 * `import-x/no-cycle` skips every type-only import (hard-coded, no option), so a cycle that passes
 * through `import type` is invisible to it. This rule builds the import graph from the TypeScript
 * program (every relative import and re-export, types included), and reports an import that lies on
 * a cycle unless import-x already reports it (a value import inside an all-value cycle).
 */
const graphs = new WeakMap();
/** @param {ts.Program} program */
function importGraph(program) {
  const known = graphs.get(program);
  if (known) return known;
  const options = program.getCompilerOptions();
  const cache = ts.createModuleResolutionCache(program.getCurrentDirectory(), (f) => f, options);
  /** @type {Map<string, { spec: string, target: string, typeOnly: boolean, node: ts.Node }[]>} */
  const edges = new Map();
  for (const sf of program.getSourceFiles()) {
    if (
      sf.isDeclarationFile ||
      program.isSourceFileFromExternalLibrary(sf) ||
      sf.fileName.includes('/node_modules/')
    )
      continue;
    const list = [];
    for (const st of sf.statements) {
      let spec;
      let typeOnly = false;
      if (ts.isImportDeclaration(st)) {
        spec = st.moduleSpecifier;
        const clause = st.importClause;
        const named =
          clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
        typeOnly =
          !!clause &&
          (clause.isTypeOnly ||
            (!clause.name &&
              !!named &&
              named.elements.length > 0 &&
              named.elements.every((e) => e.isTypeOnly)));
      } else if (ts.isExportDeclaration(st) && st.moduleSpecifier) {
        spec = st.moduleSpecifier;
        const named = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause : undefined;
        typeOnly =
          st.isTypeOnly ||
          (!!named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly));
      } else if (ts.isImportEqualsDeclaration(st) && ts.isExternalModuleReference(st.moduleReference)) {
        spec = st.moduleReference.expression;
        typeOnly = st.isTypeOnly;
      }
      if (!spec || !ts.isStringLiteral(spec)) continue;
      const mode = ts.getModeForUsageLocation(sf, spec, options);
      const resolved = ts.resolveModuleName(
        spec.text,
        sf.fileName,
        options,
        ts.sys,
        cache,
        undefined,
        mode,
      ).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const target = program.getSourceFile(resolved.resolvedFileName);
      if (!target || target.isDeclarationFile || target === sf) continue;
      list.push({ spec: spec.text, target: target.fileName, typeOnly, node: st });
    }
    edges.set(sf.fileName, list);
  }
  const all = components(edges, () => true);
  const values = components(edges, (e) => !e.typeOnly);
  const graph = { edges, all, values, byNode: new Map([...edges.values()].flat().map((e) => [e.node, e])) };
  graphs.set(program, graph);
  return graph;
}
/** Tarjan: file -> id of its strongly connected component (only components of two or more files). */
function components(edges, keep) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const scc = new Map();
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const e of edges.get(v) ?? []) {
      if (!keep(e) || !edges.has(e.target)) continue;
      if (!index.has(e.target)) {
        visit(e.target);
        low.set(v, Math.min(low.get(v), low.get(e.target)));
      } else if (onStack.has(e.target)) low.set(v, Math.min(low.get(v), index.get(e.target)));
    }
    if (low.get(v) === index.get(v)) {
      const members = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1) for (const m of members) scc.set(m, v);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return scc;
}
/** The shortest way back from `from` to `to` along any imports. */
function routeBack(edges, from, to) {
  const prev = new Map([[from, '']]);
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === to) break;
    for (const e of edges.get(v) ?? [])
      if (!prev.has(e.target)) {
        prev.set(e.target, v);
        queue.push(e.target);
      }
  }
  const route = [];
  for (let v = to; v; v = prev.get(v)) route.unshift(v);
  return route;
}

/** @type {import('eslint').Rule.RuleModule} */
const noTypeCycle = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Forbid import cycles that run through a type-only import (import-x/no-cycle skips those).',
    },
    schema: [],
    messages: { cycle: 'Dependency cycle through a type-only import: {{route}}' },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const program = services?.program;
    if (!program || !services.esTreeNodeToTSNodeMap) return {};
    const check = (node) => {
      const { edges, all, values, byNode } = importGraph(program);
      const edge = byNode.get(services.esTreeNodeToTSNodeMap.get(node));
      if (!edge) return;
      const from = edge.node.getSourceFile().fileName;
      if (!all.has(from) || all.get(from) !== all.get(edge.target)) return;
      if (!edge.typeOnly && values.has(from) && values.get(from) === values.get(edge.target)) return;
      const cwd = program.getCurrentDirectory();
      const route = [from, ...routeBack(edges, edge.target, from)]
        .map((f) => path.relative(cwd, f))
        .join(' → ');
      context.report({ node, messageId: 'cycle', data: { route } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: (node) => node.source && check(node),
      ExportAllDeclaration: check,
      TSImportEqualsDeclaration: check,
    };
  },
};

const tsExtensions = ['.ts', '.tsx', '.mts', '.cts'];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'client/dist/**',
      'node_modules/**',
      'coverage/**',
      'bench/results/**',
      'logs/**',
      'test/.export-runs/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX, local: { rules: { 'no-type-cycle': noTypeCycle } } },
    settings: {
      // import-x resolves `./x.js` to the `./x.ts` source only through this: without it no-cycle
      // never reaches a .ts file and passes every cycle.
      'import-x/extensions': [...tsExtensions, '.js', '.mjs', '.cjs'],
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: [...tsExtensions, '.js', '.mjs', '.cjs', '.json', '.node'],
          extensionAlias: {
            '.js': ['.ts', '.tsx', '.js'],
            '.mjs': ['.mts', '.mjs'],
            '.cjs': ['.cts', '.cjs'],
          },
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'local/no-type-cycle': 'error',
      // Handlers share one async signature whether or not they await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  only('errors', [], 'errors/ (the error catalogue) imports nothing of the project'),
  only('observability', [], 'observability/ imports nothing of the project'),
  only('ws', [dir('observability'), dir('errors')], 'ws/ imports only observability/ and errors/'),
  only(
    'rpc',
    [dir('errors'), dir('observability')],
    'rpc/ is an engine over injected services: errors/ and observability/ only',
  ),
  only(
    'browser',
    [dir('errors'), dir('observability')],
    'browser/ imports nothing above it: errors/ and observability/ only',
  ),
  ...browserRooms(),
  only(
    'cdp',
    [dir('errors'), dir('observability'), dir('browser')],
    'cdp/ imports only errors/, observability/ and browser/',
  ),
  only(
    'hub',
    [dir('errors'), dir('observability'), dir('ws')],
    'hub/ imports only errors/, observability/ and ws/',
  ),
  only(
    'methods',
    [
      ...files('rpc', 'defineMethod.js', 'openrpc.js'),
      dir('browser'),
      dir('errors'),
      dir('observability'),
      dir('config'),
      dir('hub'),
      dir('cdp'),
    ],
    'methods/ use rpc/defineMethod, rpc/openrpc, browser/, errors/, observability/ and config types only',
  ),
  // Handlers reach the hub, the CDP browser and the configuration through services: types only.
  ...[
    ['src/methods/*.ts', ['../hub/*', '../cdp/*', '../config/*']],
    ['src/methods/*/**/*.ts', ['../../hub/*', '../../cdp/*', '../../config/*']],
  ].map(([glob, group]) => ({
    files: [glob],
    rules: typesOnly(
      group,
      'methods/ reach the hub, the CDP browser and the configuration through services; import types only',
    ),
  })),
  only(
    'http',
    [
      ...files('rpc', 'jsonRpc.js', 'dispatch.js', 'defineMethod.js'),
      dir('errors'),
      dir('observability'),
      dir('ws'),
      ...files('browser', 'engine/browserHost.js'),
    ],
    'transports reach methods only through dispatch: rpc/jsonRpc, rpc/dispatch, errors/, observability/, ws/ and browserHost types',
  ),
  only(
    'mcp',
    [
      ...files('rpc', 'jsonRpc.js', 'dispatch.js', 'defineMethod.js', 'openrpc.js'),
      dir('errors'),
      dir('observability'),
      dir('ws'),
      ...files('http', 'bodyErrors.js', 'auth.js'),
      ...files('browser', 'engine/browserHost.js'),
    ],
    'transports reach methods only through dispatch: rpc/jsonRpc, rpc/dispatch, rpc/openrpc (the projection MCP shares), errors/, observability/, ws/, http/bodyErrors, http/auth and browserHost types',
  ),
  {
    files: ['src/http/**/*.ts', 'src/mcp/**/*.ts'],
    rules: typesOnly(
      ['../rpc/dispatch.js', '../rpc/defineMethod.js', '../browser/engine/browserHost.js'],
      'transports use the dispatcher, method metadata and the browser host as types only (the composition root builds them)',
    ),
  },
  only('config', [], 'config/ imports nothing of the project: its files import only each other'),
  {
    // The service's web pages: browser ES modules, type-checked through ui/tsconfig.json.
    files: ['ui/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: globals.node },
  },
  prettier,
);
