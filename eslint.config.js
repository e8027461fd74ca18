// ESLint: JavaScript and typescript-eslint recommended rules; formatting is Prettier's job
// (eslint-config-prettier turns off every rule it would fight with).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.bench-data/', '.test-data/', 'clients/*/dist/', 'clients/*/src/generated/', 'web/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names are errors, except those deliberately ignored with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      // Off: input sanitisers match control characters on purpose, to refuse them.
      'no-control-regex': 'off',
    },
  },
  {
    // The dashboard and the reference page's script run in the browser.
    files: ['web/src/**', 'assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Off in tests and benchmarks: they read arbitrary JSON answers and poke at internals.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Off in migrations: Kysely's documented migration signature is Kysely<any>, since a
    // migration must not depend on today's schema type.
    files: ['src/store/migrations/**', 'src/store/database.ts', 'src/engine/researchStore.ts', 'src/engine/search/searchStore.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Everything outside the policy states intent through AccessPolicy (forgetAnswer,
    // hasRecentLookup, poolStates, refund, ...): its counters' store is the policy's alone,
    // so a backend can change without any route rebuilding cache keys or lookup windows.
    files: ['src/**'],
    ignores: ['src/policy/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='store'][object.name='policy'], MemberExpression[property.name='store'][object.property.name='policy']",
          message: "Use an AccessPolicy method: the policy store is the policy's alone.",
        },
      ],
    },
  },
);
