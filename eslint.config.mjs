// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

/** The layer rule (DESIGN §10): browser/ imports nothing above it; transports reach methods only through dispatch. */
const layer = (group, message) => ({ group, message });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'logs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'import-x/no-cycle': 'error',
      // Handlers share one async signature whether or not they await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/browser/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer(
              ['../rpc/*', '../methods/*', '../http/*', '../hub/*', '../mcp/*', '../app.js', '../service.js'],
              'browser/ imports nothing above it',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/cdp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer(
              ['../rpc/*', '../methods/*', '../http/*', '../hub/*', '../mcp/*', '../app.js', '../service.js'],
              'cdp/ imports nothing above it',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/methods/**/*.ts'],
    rules: {
      // Handlers reach the hub domain through services; from agents/ they may only import types.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../hub/*', '../cdp/*'],
              allowTypeImports: true,
              message: 'methods/ reach the hub and the CDP browser through services; import types only',
            },
          ],
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer(
              ['../http/*', '../mcp/*', '../app.js', '../service.js', '../rpc/dispatch.js'],
              'methods/ use browser/ and rpc/defineMethod only',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/http/**/*.ts', 'src/hub/**/*.ts', 'src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer(['../methods/*', '../browser/session*'], 'transports reach methods only through dispatch'),
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: globals.node },
  },
  prettier,
);
