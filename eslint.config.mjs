// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// As Nest's own packages do: the recommended JavaScript and typescript-eslint rules, formatting left to prettier
// (`npm run lint` runs `prettier --check` next to eslint).
export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'coverage/**', '.conformance/**', 'test/compat/*/node_modules/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: globals.node,
      sourceType: 'module',
    },
    rules: {
      // Decorated classes, DI tokens and metadata need `Function` and `object`-typed escapes Nest itself uses.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // A `let` read by a closure before its one assignment (a server handler that needs the server) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  { files: ['test/**/*.ts'], languageOptions: { globals: globals.jest } },
  {
    // The Nest 11 compatibility app is CommonJS on purpose.
    files: ['**/*.cjs', 'test/compat/nest11-cjs/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
