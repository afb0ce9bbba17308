// ESLint (flat config) for the extension and the webview: typescript-eslint's
// recommended-type-checked rules, using the two tsconfigs that `npm run typecheck` uses, so the
// rules that need types (floating promises, unsafe `any` flows, misused promises) see the same
// program tsc does. Run with `npm run lint`; tests/editors/test_vscode_unit.py runs it in CI.
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Linted: the shipped sources. Not linted: build output, dependencies, the generated wire
    // types (json-schema-to-typescript's output is regenerated, never edited), the test suites
    // and build scripts (no tsconfig covers them; they are checked by running).
    ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/**', 'scripts/**', 'src/protocol/generated.ts', '*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.webview.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // `let x; ... options that close over x ...; x = new Thing(options)` is how a value that
      // its own constructor's callbacks need is wired (server.ts: the language client's
      // middleware reads the client). The default flags it although it cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // No import circle (eslint-plugin-import's no-cycle, through any number of modules): a
    // module imported by one of its own imports runs half-initialised. The .ts sources are
    // resolved with the node resolver; tests/editors/test_vscode_unit.py checks the rule fires.
    // The rule does not follow `import type` (erased at build time): a circle of types alone is
    // caught by test/unit/imports.test.ts (shared types go in a module of their own, e.g.
    // webview/ctx.ts).
    files: ['src/**/*.ts'],
    plugins: { import: importPlugin },
    settings: {
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      'import/extensions': ['.ts', '.js'],
    },
    rules: {
      'import/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The pi/* method names live in src/protocol/ only (client.ts, generated.ts): everything
    // else calls the typed client, so a method name cannot be misspelled or drift from the
    // server's. tests/editors/test_vscode_unit.py checks that this rule fires.
    files: ['src/**/*.ts'],
    ignores: ['src/protocol/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/\\bpi\\/[A-Za-z]/]',
          message: 'A pi/* method name outside src/protocol/: call the typed client (src/protocol/client.ts).',
        },
        {
          selector: 'TemplateElement[value.raw=/\\bpi\\/[A-Za-z]/]',
          message: 'A pi/* method name outside src/protocol/: call the typed client (src/protocol/client.ts).',
        },
      ],
    },
  },
);
