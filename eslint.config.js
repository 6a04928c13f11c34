// Lint: TypeScript rules plus the layering of ARCHITECTURE.md, checked per folder:
//   renderer -> shared;  electron -> shared, db;  db -> shared;  shared -> nothing.
// Only electron/main.ts and electron/preload.ts may import 'electron'.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const nodeOnlyPackages = ['better-sqlite3', 'sqlite-vec', 'openai', 'commander', 'tsx'];

const layer = (message, ...groups) => ({ group: groups, message });

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test-results/**', 'bench-results/**', 'resources/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only electron/main.ts and electron/preload.ts import electron.' }] }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...nodeOnlyPackages, 'electron', 'react', 'react-dom'].map((name) => ({
            name,
            message: 'shared/ is pure TypeScript: no Node, DOM, Electron or React.',
          })),
          patterns: [
            layer('shared/ imports nothing from the other layers.', '**/db/**', '**/electron/**', '**/renderer/**', '../db', '../electron', '../renderer'),
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/set-state-in-effect': 'off',
      'react-hooks/refs': 'off',
      // We do not run the React Compiler; TanStack's hooks are fine without it.
      'react-hooks/incompatible-library': 'off',
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...nodeOnlyPackages, 'electron'].map((name) => ({
            name,
            message: 'renderer/ talks to the services only through the shared API client.',
          })),
          patterns: [layer('renderer/ may import only shared/.', '**/db/**', '**/electron/**', '../db', '../electron', '../../db', '../../electron')],
        },
      ],
    },
  },
  {
    files: ['db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'db/ runs under plain Node.' }],
          patterns: [layer('db/ may import only shared/.', '**/electron/**', '**/renderer/**', '../electron', '../renderer', '../../electron', '../../renderer')],
        },
      ],
    },
  },
  {
    files: ['electron/**/*.ts'],
    ignores: ['electron/main.ts', 'electron/preload.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'Only electron/main.ts and electron/preload.ts import electron; services run under plain Node.' }],
          patterns: [layer('electron/ may import shared/ and db/, never renderer/.', '**/renderer/**', '../renderer', '../../renderer')],
        },
      ],
    },
  },
  {
    files: ['electron/main.ts', 'electron/preload.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [layer('The main process never imports the renderer.', '**/renderer/**', '../renderer')] }],
    },
  },
  {
    files: ['electron/preload.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
