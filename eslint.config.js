// Lint: TypeScript rules plus the layering of ARCHITECTURE.md, checked per folder:
//   renderer -> shared;  electron -> shared, db;  db -> shared;  shared -> nothing.
// Inside electron/: desktop/ (the Electron shell) and cli/ sit above transport/, which sits above
// services/; dev/ (fakes for the offline demo and tests) sits beside them and reaches only shared/.
// Service domains reach each other only along the declared seams (SEAMS below), and a domain's
// handlers.ts is imported only by services/index.ts, which composes them.
// Only electron/desktop/ may import 'electron'. All SQL lives in db/.
//
// The layer rule is a small local plugin (below) rather than `no-restricted-imports`, because it
// must see every way a module is reached: static imports, re-exports, `import()`, `require()` and
// `import('...')` types. It resolves relative paths, so a rule names the folder it protects,
// whatever the depth of the importing file.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const nodeBuiltins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const nodeOnlyPackages = new Set(['better-sqlite3', 'sqlite-vec', 'openai', 'commander', 'tsx']);

// ---- where a file lives, and what it imports --------------------------------------------------

const under = (folder) => (file) => file === folder || file.startsWith(`${folder}/`);
const isFile = (pattern) => (file) => pattern.test(file);
const not = (test) => (file) => !test(file);
const both = (a, b) => (file) => a(file) && b(file);
const either = (...tests) => (file) => tests.some((test) => test(file));

const CLI = under('electron/cli');
const TRANSPORT = under('electron/transport');
const SERVICES = under('electron/services');
const DEV = under('electron/dev');
const ENTRY = under('electron/desktop');
const RENDERER = under('renderer');
const SHARED = under('shared');
const DB = under('db');
const ELECTRON = under('electron');

/** The package an import names (`react-dom/client` is `react-dom`; `node:fs/promises` stays whole for the builtin list). */
function packageOf(specifier) {
  if (nodeBuiltins.has(specifier)) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const packages = (...sets) => (name) => sets.some((set) => (set instanceof Set ? set.has(name) : set === name));

/**
 * The layer table: for files matching `from`, imports of files matching `file` or of packages
 * matching `package` are refused with `message`.
 */
const LAYERS = [
  {
    from: SHARED,
    package: packages(nodeBuiltins, nodeOnlyPackages, 'electron', 'react', 'react-dom'),
    message: 'shared/ is pure TypeScript: no Node, DOM, Electron or React.',
  },
  { from: SHARED, file: either(DB, ELECTRON, RENDERER), message: 'shared/ imports nothing from the other layers.' },
  {
    from: both(RENDERER, not(isFile(/^renderer\/vite\.config\.ts$/))),
    package: packages(nodeBuiltins, nodeOnlyPackages, 'electron'),
    message: 'renderer/ talks to the services only through the shared API client.',
  },
  { from: both(RENDERER, not(isFile(/^renderer\/vite\.config\.ts$/))), file: either(DB, ELECTRON), message: 'renderer/ may import only shared/.' },
  { from: DB, package: packages('electron'), message: 'db/ runs under plain Node.' },
  { from: DB, file: either(ELECTRON, RENDERER), message: 'db/ may import only shared/.' },
  { from: both(ELECTRON, not(ENTRY)), file: RENDERER, message: 'electron/ may import shared/ and db/, never renderer/.' },
  { from: ENTRY, file: RENDERER, message: 'The main process never imports the renderer.' },
  {
    from: both(either(SHARED, RENDERER, DB, ELECTRON), not(ENTRY)),
    package: packages('electron'),
    message: 'Only electron/desktop/ imports electron; services run under plain Node.',
  },
  {
    from: SERVICES,
    file: either(CLI, TRANSPORT, ENTRY),
    message: 'Services sit below the CLI, the transports and the main process: they import none of them.',
  },
  { from: TRANSPORT, file: either(CLI, ENTRY), message: 'Transports sit below the CLI and the main process: they import neither.' },
  { from: CLI, file: ENTRY, message: 'The CLI runs under plain Node: it never imports the Electron main process or preload.' },
  { from: DEV, file: either(DB, CLI, TRANSPORT, SERVICES, ENTRY), message: 'electron/dev/ holds fakes that stand in for the outside world: they import only shared/.' },
  { from: either(SERVICES, TRANSPORT, ENTRY), file: DEV, message: 'The product never depends on its fakes: only the CLI (the offline demo) and tests import electron/dev/.' },
];

/**
 * The seams between service domains: a domain may import only the domains listed for it (and the
 * shared service infrastructure in electron/services/*.ts). Kept acyclic, so a change in one
 * domain never loops back into itself; the check below refuses a table with a cycle.
 */
const SEAMS = {
  import: [],
  corpus: ['import'],
  retrieval: ['import', 'corpus'],
  pipeline: ['retrieval'],
  annotation: [],
  release: ['pipeline', 'annotation'],
  evaluation: ['retrieval', 'release', 'pipeline', 'import'],
  failures: ['evaluation', 'annotation'],
  team: ['annotation'],
  construction: ['pipeline', 'annotation'],
  labels: ['pipeline'],
  'qa-layer': ['pipeline', 'retrieval'],
};
(function refuseCycles() {
  const seen = new Set();
  const visit = (domain, path) => {
    if (path.includes(domain)) throw new Error(`eslint.config.js: the service seams form a cycle: ${[...path, domain].join(' -> ')}`);
    if (seen.has(domain)) return;
    for (const next of SEAMS[domain] ?? []) visit(next, [...path, domain]);
    seen.add(domain);
  };
  for (const domain of Object.keys(SEAMS)) visit(domain, []);
})();

const domainOf = (file) => /^electron\/services\/([\w-]+)\//.exec(file)?.[1] ?? null;

/** A service file's imports of other domains, checked against SEAMS; handlers.ts only for services/index.ts. */
function seamProblem(from, target) {
  const source = domainOf(from);
  const domain = domainOf(target);
  if (domain && /\/handlers(\.[cm]?[jt]s)?$/.test(target) && from !== 'electron/services/index.ts' && source !== domain)
    return `A domain's handlers are composed only by electron/services/index.ts; import the function they call instead.`;
  if (!source || !domain || source === domain) return null;
  if (!(source in SEAMS)) return `electron/services/${source}/ is not in the SEAMS table of eslint.config.js: declare what it may import.`;
  if (!SEAMS[source].includes(domain)) return `Service domain '${source}' may not import '${domain}' (not a declared seam in eslint.config.js).`;
  return null;
}

/** The module names a node reaches, or null when the path is computed and cannot be checked. */
function literalPath(node) {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (node.type === 'TSLiteralType') return literalPath(node.literal);
  return null;
}

const relative = (file) => path.relative(ROOT, file).split(path.sep).join('/');

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps every import, re-export, import() and require() inside the layering of ARCHITECTURE.md.' },
    schema: [],
  },
  create(context) {
    const from = relative(context.filename);
    const rules = LAYERS.filter((rule) => rule.from(from));
    if (rules.length === 0 && !SERVICES(from)) return {};
    const check = (node, source) => {
      const specifier = literalPath(source);
      if (specifier === undefined) return;
      if (specifier === null) {
        context.report({ node, message: 'import() of a computed path escapes the layer rules: import a literal path.' });
        return;
      }
      const relativePath = specifier.startsWith('.') || specifier.startsWith('/');
      const target = relativePath ? relative(path.resolve(path.dirname(context.filename), specifier)) : null;
      const name = relativePath ? null : packageOf(specifier);
      for (const rule of rules) {
        const hit = target !== null ? rule.file?.(target) : rule.package?.(name) || rule.package?.(specifier);
        if (hit) context.report({ node, message: `${rule.message} ('${specifier}')` });
      }
      const seam = target !== null && SERVICES(from) ? seamProblem(from, target) : null;
      if (seam) context.report({ node, message: `${seam} ('${specifier}')` });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, 'source' in node ? node.source : node.argument),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' && check(node, node.moduleReference.expression),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0] ?? null);
      },
    };
  },
};

// ---- all SQL lives in db/ -------------------------------------------------------------------

/** What electron/ may take from db/sql.ts: transactions, the write lock's error and wait, and the handle types, never a way to run SQL. */
const SQL_MODULE_ALLOWED = new Set(['transaction', 'groupTransaction', 'flushGroup', 'settleGroup', 'readSnapshot', 'beginWrite', 'commit', 'rollback', 'DatabaseBusyError', 'isBusy', 'lockWaitMs', 'onLockWait']);
const isText = (node) => node?.type === 'TemplateLiteral' || (node?.type === 'Literal' && typeof node.value === 'string');

const sqlRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps SQL in db/: no sql templates, prepared statements or query runners outside it.' },
    schema: [],
  },
  create(context) {
    const message = 'All SQL lives in db/: write a function in db/queries/ and call it.';
    const isSqlModule = (specifier) =>
      typeof specifier === 'string' &&
      specifier.startsWith('.') &&
      relative(path.resolve(path.dirname(context.filename), specifier)).replace(/\.[cm]?[jt]s$/, '') === 'db/sql';
    return {
      TaggedTemplateExpression(node) {
        const tag = node.tag.type === 'MemberExpression' ? node.tag.object : node.tag;
        if (tag.type === 'Identifier' && tag.name === 'sql') context.report({ node, message });
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.computed) return;
        const method = callee.property.name;
        if (method === 'prepare' || method === 'pragma') context.report({ node, message: `${message} (no db.${method} outside db/)` });
        // db.exec('...') runs SQL text; a RegExp's exec takes the text to search, never a literal here.
        const regex = callee.object.type === 'Literal' && 'regex' in callee.object;
        if (method === 'exec' && !regex && isText(node.arguments[0])) context.report({ node, message: `${message} (no db.exec outside db/)` });
      },
      ImportDeclaration(node) {
        if (!isSqlModule(node.source.value) || node.importKind === 'type') return;
        for (const specifier of node.specifiers) {
          if (specifier.type === 'ImportSpecifier' && (specifier.importKind === 'type' || SQL_MODULE_ALLOWED.has(specifier.imported.name))) continue;
          context.report({ node: specifier, message: `${message} (only transactions and types come from db/sql)` });
        }
      },
      ImportExpression(node) {
        if (isSqlModule(literalPath(node.source))) context.report({ node, message });
      },
    };
  },
};

const layers = { rules: { imports: importsRule, sql: sqlRule } };

// ---- size --------------------------------------------------------------------------------------

/** No source file over 450 lines, counting every line (comments and blank lines too). */
const MAX_LINES = 450;
/**
 * No function over 150 lines in electron/, db/, shared/ and renderer/ (over ~80 is a smell, over
 * 150 is wrong: split it into steps, or a screen into its parts, named for what they do). A
 * migration's `up` is its schema's text, kept whole and never edited once released.
 */
const MAX_FUNCTION_LINES = 150;
const SOURCE_FILES = ['electron/**/*.{ts,mts,js,mjs}', 'db/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}', 'scripts/**/*.{ts,mjs,js}', 'bin/**/*.{mjs,js}'];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test-results/**', 'bench-results/**', 'resources/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    languageOptions: { globals: { ...globals.node } },
    plugins: { layers },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'layers/imports': 'error',
    },
  },
  {
    files: ['electron/**/*.{ts,mts,js,mjs}'],
    rules: { 'layers/sql': 'error' },
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
    },
  },
  {
    files: ['electron/desktop/preload.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: SOURCE_FILES,
    rules: { 'max-lines': ['error', { max: MAX_LINES, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['electron/**/*.{ts,mts,js,mjs}', 'db/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}'],
    ignores: ['db/migrations/**'],
    rules: { 'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
);
