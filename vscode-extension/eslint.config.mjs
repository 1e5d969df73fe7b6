// ESLint flat config: typescript-eslint's type-aware recommended rules for src/ and test/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_VSCODE = { name: 'vscode', message: 'core modules must not import vscode' };
// Custom methods are sent and handled through the typed declarations of src/lspExt.ts.
const METHOD_NAMES = [
  'RUN_REQUEST',
  'SESSIONS_REQUEST',
  'SAVE_DOCUMENTS_REQUEST',
  'DIAGNOSTICS_REQUEST',
  'TODOS_NOTIFICATION',
  'EVENT_NOTIFICATION',
  'RUN_COMMAND',
  'CANCEL_COMMAND',
  'NEW_SESSION_COMMAND',
  'GET_TODOS_COMMAND',
  'CHANGES_REQUEST',
  'FILE_VERSION_REQUEST',
  'CHANGES_NOTIFICATION',
  'REVERT_COMMAND',
  'UNDO_REVERT_COMMAND',
  'HISTORY_REQUEST',
  'TOOL_OUTPUT_REQUEST',
  'APPROVAL_REQUEST',
];
const NO_METHOD_NAMES = ['./protocol', '../protocol', './contract', '../contract'].map((name) => ({
  name,
  importNames: METHOD_NAMES,
  message: 'use the typed declaration in src/lspExt.ts',
}));

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'bundled/', 'node_modules/', '.e2e-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // node:test's describe/it return promises the runner awaits; JSON fixtures are untyped.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Node scripts (build, wheel) are plain JavaScript modules.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/lspExt.ts', 'src/protocol.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: NO_METHOD_NAMES }] },
  },
  {
    // The pure core must stay testable without an editor.
    files: ['src/core/**/*.ts', 'src/contract.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE, ...NO_METHOD_NAMES] }] },
  },
  {
    // The typed methods too: the protocol tests import them; protocol.ts re-exports the
    // generated names (contract.ts) that lspExt.ts types the methods with.
    files: ['src/lspExt.ts', 'src/protocol.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE] }] },
  },
);
