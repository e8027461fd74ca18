// ESLint: JavaScript and typescript-eslint recommended rules; formatting is Prettier's job
// (eslint-config-prettier turns off every rule it would fight with).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.bench-data/', '.test-data/', 'clients/*/dist/', 'web/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      // Unused names are errors, except those deliberately ignored with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
);
