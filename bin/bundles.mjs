// The CLI and the worker threads it starts, as CommonJS bundles made by esbuild on first use and
// again whenever a file they were built from changes. Node loads a bundle in about a third of the
// time tsx takes to compile the same TypeScript files, which it would do on every run and in every
// worker. Nothing here is needed for correctness: where the bundles cannot be made (no esbuild, a
// read-only folder, a build error) or are out of date in a worker, the sources run through tsx.
//
// Each build goes into a folder of its own, dist/node/<build>/, and dist/node/current.json names
// the build in use with the project files it was made from, its settings and its bundles (each
// one's size and modification time then; 0 for a file that changed during the build). That file
// is written last, by a rename, so switching builds is one atomic step: a build that stops
// half-way, or two at once, never pair one build's bundles with another's list. The CLI hands its
// build to the workers it starts (AWB_BUNDLE_BUILD), so they run the same code as it does.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The worker threads' entries, by bundle name: the desktop build (scripts/build-electron.mjs) bundles the same ones. */
export const WORKER_ENTRIES = {
  'release-encoder': 'electron/services/release/encoder-worker.ts',
  'retrieval-worker': 'electron/services/pipeline/retrieval-worker.ts',
  'embed-worker': 'electron/services/retrieval/embed-worker.ts',
  'checkpoint-worker': 'electron/services/checkpoint-worker.ts',
};

/** Each bundle's entry: the CLI, and the workers that run under plain Node (their `.mjs` launchers use them). */
export const ENTRIES = { awb: 'electron/cli/index.ts', ...WORKER_ENTRIES };

/**
 * Left outside every bundle, here and in the desktop build: native modules, Vite (loaded only to
 * build the UI) and pg's optional native half.
 */
export const EXTERNAL = ['better-sqlite3', 'sqlite-vec', '@node-rs/argon2', 'vite', 'pg-native'];

/**
 * Files that change a build without being in it: how it is made (this file), the tsconfig files
 * esbuild reads for the sources' folders, and the installed dependencies (npm rewrites its lock on
 * every `npm ci`).
 */
const SETTINGS = ['bin/bundles.mjs', 'tsconfig.json', 'tsconfig.base.json', 'shared/tsconfig.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];

/** Anything in dist/node that no build names is removed once it is this old (a build takes seconds). */
const ABANDONED_MS = 3_600_000;

/** Where things are under an app root (the repository's, or a test's folder). */
function places(root) {
  const dir = path.join(root, 'dist', 'node');
  return { dir, current: path.join(dir, 'current.json'), bundle: (build, name) => path.join(dir, build, `${name}.cjs`) };
}

/** A file's size and modification time, or null when it is missing. */
function stamp(file) {
  try {
    const stat = fs.statSync(file);
    return [stat.size, stat.mtimeMs];
  } catch {
    return null;
  }
}

const sameStamp = (a, b) => (a === null || b === null ? a === b : a[0] === b[0] && a[1] === b[1]);

/** The build in use, as current.json describes it, when every file it names is as it was; else null. */
function currentBuild(root) {
  const at = places(root);
  let built;
  try {
    built = JSON.parse(fs.readFileSync(at.current, 'utf8'));
  } catch {
    return null;
  }
  if (!built || typeof built.build !== 'string' || !built.files || typeof built.files !== 'object' || !built.bundles || typeof built.bundles !== 'object') return null;
  // An entry added since (a new worker) makes the build out of date too.
  if (Object.entries(ENTRIES).some(([name, entry]) => !(name in built.bundles) && fs.existsSync(path.join(root, entry)))) return null;
  const bundles = Object.entries(built.bundles).map(([name, recorded]) => [path.relative(root, at.bundle(built.build, name)), recorded]);
  const files = [...Object.entries(built.files), ...bundles];
  if (files.length === 0 || !files.every(([file, recorded]) => recorded !== 0 && sameStamp(stamp(path.join(root, file)), recorded))) return null;
  return built;
}

/**
 * Whether the bundles are current: every file they were built from (and each bundle itself) has
 * the size and modification time it had then. An edit, a checkout, a deleted file or a fresh
 * `npm ci` all change one; equal rather than "not newer", so a file put back with an older
 * time (`cp -p`, an archive) counts too.
 */
export const bundlesAreCurrent = (root = ROOT) => currentBuild(root) !== null;

/** The file system's own clock (a share's may differ from this machine's): a file written now, its time. */
function fileClock(dir) {
  const probe = path.join(dir, `.clock-${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(probe, '');
  try {
    return fs.statSync(probe).mtimeMs;
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

/**
 * Removes the build that `replaced` named at once (a process about to load from it falls back to
 * the sources), and anything else but current.json and `keep` once it is an hour old: builds that
 * stopped half-way, scratch files.
 */
function removeOldBuilds(dir, keep, replaced, now) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === keep || entry.name === 'current.json') continue;
    const item = path.join(dir, entry.name);
    if (entry.name === replaced || now - (stamp(item)?.[1] ?? now) > ABANDONED_MS) fs.rmSync(item, { recursive: true, force: true });
  }
}

/** Builds the bundles into a new folder, then names it in current.json (see the top of this file); gives what it wrote there. */
export async function buildBundles(root = ROOT) {
  const at = places(root);
  const { build } = await import('esbuild');
  fs.mkdirSync(at.dir, { recursive: true });
  fs.accessSync(at.dir, fs.constants.W_OK);
  const started = fileClock(at.dir);
  const name = `${Math.round(started).toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).filter(([, entry]) => fs.existsSync(path.join(root, entry))));
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: path.join(at.dir, name),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron', ...EXTERNAL],
    // paths.ts finds the app's root two folders above its own URL: in a bundle (three folders
    // below the root) that URL is where paths.ts lies, so the root comes out the same.
    define: { 'import.meta.url': '__awbPathsUrl' },
    banner: { js: 'var __awbPathsUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, "..", "..", "..", "electron", "services", "paths.ts")).href;' },
    // Source maps beside them, for NODE_OPTIONS=--enable-source-maps; loading one on every run costs 0.25 s.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'silent',
  });
  // A file whose time falls within the build, on the file system's clock, may have changed after
  // esbuild read it: it is recorded as 0, which matches nothing, so the next run builds again (a
  // second either side, for file systems that keep whole seconds).
  const finished = fileClock(at.dir);
  const sources = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/'));
  const files = {};
  for (const file of [...sources, ...SETTINGS]) {
    const recorded = stamp(path.join(root, file));
    files[file] = recorded !== null && recorded[1] >= started - 1000 && recorded[1] <= finished + 1000 ? 0 : recorded;
  }
  const bundles = Object.fromEntries(Object.keys(entryPoints).map((entry) => [entry, stamp(at.bundle(name, entry))]));
  const built = { build: name, bundles, files };
  let replaced = null;
  try {
    replaced = JSON.parse(fs.readFileSync(at.current, 'utf8'))?.build ?? null;
  } catch {
    // no build before this one, or a list that is not one
  }
  const scratch = `${at.current}.${name}.tmp`;
  fs.writeFileSync(scratch, JSON.stringify(built));
  fs.renameSync(scratch, at.current);
  try {
    removeOldBuilds(at.dir, name, typeof replaced === 'string' && replaced !== name ? replaced : null, finished);
  } catch {
    // a folder in use elsewhere (Windows): the next build removes it
  }
  return built;
}

/** The CLI bundle's path, the bundles built first when needed; null when they cannot be (tsx runs the sources instead). */
export async function cliBundle(root = ROOT) {
  if (process.env.AWB_FROM_SOURCE === '1' || !fs.existsSync(path.join(root, ENTRIES.awb))) return null;
  try {
    // A build just made is used even if a file changed while it ran (the next run builds again).
    const built = currentBuild(root) ?? (await buildBundles(root));
    if (!('awb' in built.bundles)) return null;
    process.env.AWB_BUNDLE_BUILD = built.build;
    return places(root).bundle(built.build, 'awb');
  } catch {
    return null;
  }
}

/**
 * A worker's bundle: the one of the build its CLI runs (AWB_BUNDLE_BUILD) while that is there,
 * else the current build's, else null. A worker never builds; without a bundle it runs its sources
 * through tsx.
 */
export function currentBundle(name, root = ROOT) {
  if (process.env.AWB_FROM_SOURCE === '1') return null;
  const handed = process.env.AWB_BUNDLE_BUILD;
  if (handed && /^[\w-]+$/.test(handed) && fs.existsSync(places(root).bundle(handed, name))) return places(root).bundle(handed, name);
  try {
    const built = currentBuild(root);
    return built && name in built.bundles ? places(root).bundle(built.build, name) : null;
  } catch {
    return null;
  }
}

/**
 * The bundle's exports, or the sources' (`fromSource` imports them, tsx compiling) when `bundle`
 * is null or gone by now (a build an hour old, removed since it was found, say).
 */
export async function loadModule(bundle, fromSource) {
  if (bundle) {
    try {
      return createRequire(import.meta.url)(bundle);
    } catch (error) {
      if (fs.existsSync(bundle)) throw error;
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return fromSource();
}
