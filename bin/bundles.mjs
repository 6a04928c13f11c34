// The CLI and the worker threads it starts, as CommonJS bundles (dist/node/*.cjs) made by esbuild
// on first use and again whenever a file they were built from changes. Node loads a bundle in
// about a quarter of the time tsx takes to compile the same TypeScript files, which it would do
// on every run and in every worker. Nothing here is needed for correctness: where the bundles
// cannot be made (no esbuild, a read-only folder, a build error) or are out of date in a worker,
// the sources run through tsx as before.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each bundle's entry: the CLI, and the workers that run under plain Node (their `.mjs` launchers use them). */
export const ENTRIES = {
  awb: 'electron/cli/index.ts',
  'release-encoder': 'electron/services/release/encoder-worker.ts',
  'retrieval-worker': 'electron/services/pipeline/retrieval-worker.ts',
  'embed-worker': 'electron/services/retrieval/embed-worker.ts',
  'score-worker': 'electron/services/evaluation/score-worker.ts',
};

/** Where things are under an app root (the repository's, or a test's folder). */
function places(root) {
  const dir = path.join(root, 'dist', 'node');
  return {
    dir,
    bundle: (name) => path.join(dir, `${name}.cjs`),
    /** Every file the bundles were built from, relative to the root, with its time then: written last by the build. */
    inputs: path.join(dir, 'inputs.json'),
    /** Rewritten by every `npm ci` and `npm install`: the bundled dependencies may have changed. */
    dependencies: path.join(root, 'node_modules', '.package-lock.json'),
  };
}

const mtime = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
};

/**
 * Whether the bundles are there and every file they were built from has the modification time
 * it had then: an edit, a checkout, a deleted file or a fresh `npm ci` all change one. (Equal,
 * not "not newer": a file put back with an older time, by `cp -p` or an archive, counts too.)
 */
export function bundlesAreCurrent(root = ROOT) {
  const at = places(root);
  let built;
  try {
    built = JSON.parse(fs.readFileSync(at.inputs, 'utf8'));
  } catch {
    return false;
  }
  const files = Object.entries(built?.files ?? {});
  if (files.length === 0 || !(built.bundles ?? []).every((name) => mtime(at.bundle(name)) !== null)) return false;
  return files.every(([file, time]) => time !== 0 && mtime(path.join(root, file)) === time);
}

const scratchOf = (file) => `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;

/**
 * Builds the bundles, writes them to scratch files and renames them into place, the list of
 * inputs last: a run that stops half-way leaves a list that does not match (so the next run
 * builds again), and two runs building at once each put whole files in place.
 */
export async function buildBundles(root = ROOT) {
  const at = places(root);
  const { build } = await import('esbuild');
  const started = Date.now();
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).filter(([, entry]) => fs.existsSync(path.join(root, entry))));
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: at.dir,
    outExtension: { '.js': '.cjs' },
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Native modules, Electron, Vite (loaded only to build the UI) and pg's optional native half stay outside.
    external: ['electron', 'better-sqlite3', 'sqlite-vec', '@node-rs/argon2', 'vite', 'pg-native'],
    // paths.ts finds the app's root from its own URL: the bundles sit two folders below it too.
    define: { 'import.meta.url': '__awbBundleUrl' },
    banner: { js: 'var __awbBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    // Source maps beside them for `node --enable-source-maps`; loading one on every run costs 0.25 s.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'silent',
  });
  // A file changed while esbuild ran may be in a bundle as it was before: its time is recorded as
  // 0, which no file has, so the next run builds again (a second late, for file systems that keep
  // whole seconds). A file that is missing (no npm lock of installed packages) stays null.
  const sources = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/'));
  const inputs = { bundles: Object.keys(entryPoints), files: {} };
  for (const file of [...sources, 'package.json', path.relative(root, at.dependencies)]) {
    const time = mtime(path.join(root, file));
    inputs.files[file] = time !== null && time >= started - 1000 ? 0 : time;
  }
  const files = [...result.outputFiles.map((file) => ({ target: file.path, contents: file.contents })), { target: at.inputs, contents: JSON.stringify(inputs) }];
  const scratch = files.map(({ target }) => scratchOf(target));
  try {
    fs.rmSync(at.inputs, { force: true });
    files.forEach(({ contents }, k) => fs.writeFileSync(scratch[k], contents));
    files.forEach(({ target }, k) => fs.renameSync(scratch[k], target));
  } finally {
    for (const file of scratch) fs.rmSync(file, { force: true });
  }
}

/** The CLI bundle's path, the bundles built first when needed; null when they cannot be (tsx runs the sources instead). */
export async function cliBundle(root = ROOT) {
  const at = places(root);
  if (process.env.AWB_FROM_SOURCE === '1' || !fs.existsSync(path.join(root, ENTRIES.awb))) return null;
  if (bundlesAreCurrent(root)) return at.bundle('awb');
  try {
    fs.mkdirSync(at.dir, { recursive: true });
    await buildBundles(root);
    return at.bundle('awb');
  } catch {
    return null;
  }
}

/**
 * A worker's bundle when it is current, else null: a worker never builds (the CLI does, before
 * it starts any), it runs its sources through tsx instead.
 */
export function currentBundle(name, root = ROOT) {
  if (process.env.AWB_FROM_SOURCE === '1' || !bundlesAreCurrent(root)) return null;
  const bundle = places(root).bundle(name);
  return fs.existsSync(bundle) ? bundle : null;
}

/** The bundle's exports, or the sources' (`fromSource` imports them, tsx compiling) when `bundle` is null. */
export async function loadModule(bundle, fromSource) {
  if (bundle) return createRequire(import.meta.url)(bundle);
  const { register } = await import('tsx/esm/api');
  register();
  return fromSource();
}
