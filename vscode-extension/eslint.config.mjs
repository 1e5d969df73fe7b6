// ESLint flat config: typescript-eslint's type-aware recommended rules for src/ and test/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_VSCODE = { name: 'vscode', message: 'core modules must not import vscode' };
// Custom methods are sent and handled through the typed declarations of src/lspExt.ts
// (both the list and lspExt.ts are generated from contract/workspace-agent.json).
// BEGIN GENERATED method-names: from contract/workspace-agent.json by scripts/generate_contract.py (make generate)
const METHOD_NAMES = [
  'RUN_REQUEST',
  'MODELS_REQUEST',
  'SESSIONS_REQUEST',
  'COMMANDS_REQUEST',
  'CHANGES_REQUEST',
  'FILE_VERSION_REQUEST',
  'HISTORY_REQUEST',
  'HISTORY_IMAGE_REQUEST',
  'TOOL_IMAGE_REQUEST',
  'TOOL_OUTPUT_REQUEST',
  'BACKGROUND_REQUEST',
  'BACKGROUND_OUTPUT_REQUEST',
  'BACKGROUND_STOP_REQUEST',
  'MCP_RESTART_REQUEST',
  'MCP_TRUST_REQUEST',
  'MCP_SET_ENABLED_REQUEST',
  'SET_ITEM_CHECK_REQUEST',
  'APPROVE_PLAN_REQUEST',
  'SAVE_DOCUMENTS_REQUEST',
  'DIAGNOSTICS_REQUEST',
  'APPROVAL_REQUEST',
  'CODE_INTEL_REQUEST',
  'TODOS_NOTIFICATION',
  'EVENT_NOTIFICATION',
  'MCP_SERVERS_NOTIFICATION',
  'CHANGES_NOTIFICATION',
  'SANDBOX_NOTIFICATION',
  'CONTEXT_METER_NOTIFICATION',
  'RUN_COMMAND',
  'CANCEL_COMMAND',
  'NEW_SESSION_COMMAND',
  'GET_TODOS_COMMAND',
  'REVERT_COMMAND',
  'UNDO_REVERT_COMMAND',
];
// END GENERATED method-names
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
