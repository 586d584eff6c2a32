// Code lint only. The layering (folder layers and packages) is declared once, in .dependency-cruiser.cjs
// (`npm run lint:deps`, docs/architecture.md#layers).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.turns-data/**',
      '.chaos/**',
      '.test-dist/**',
      'packages/*/dist/**',
      '.dist-next-*/**',
      '.dist-old-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Abstract classes used as injection tokens are declared and implemented as classes.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // No src file over 250 lines (docs/architecture.md#layers): a longer one holds more than one concern. Specs are exempt.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }] },
  },
);
