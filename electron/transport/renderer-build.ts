import fs from 'node:fs';
import path from 'node:path';

/**
 * `awb serve` right after `npm ci`: the UI is built the first time it is asked for, when its
 * build is missing or older than its sources, with Vite's JS API. A packaged app ships the
 * built UI and neither the sources nor Vite; there nothing is built and the server says how to
 * build the UI instead.
 */

export interface RendererBuildOptions {
  /** Where the built UI goes (index.html and assets/). */
  outDir: string;
  /** The folder holding renderer/ and shared/ (the repository root). */
  appRoot: string;
  log: (message: string) => void;
  /** Vite's JS API, or null where it is not installed; tests pass their own. */
  loadVite?: () => Promise<Vite | null>;
}

/** Rough time of one build on a small machine, for the message shown while the user waits. */
const TYPICAL_BUILD_SECONDS = 5;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** The newest modification time among the UI's sources, or null where there are none (packaged). */
export function newestRendererSource(appRoot: string): number | null {
  const config = path.join(appRoot, 'renderer', 'vite.config.ts');
  if (!fs.existsSync(config)) return null;
  return Math.max(newestMtime(path.join(appRoot, 'renderer')), fs.existsSync(path.join(appRoot, 'shared')) ? newestMtime(path.join(appRoot, 'shared')) : 0);
}

/** Why the UI in outDir needs a build, or null when it is current (or cannot be built here). */
export function rendererBuildReason(outDir: string, appRoot: string): string | null {
  const index = path.join(outDir, 'index.html');
  const sources = newestRendererSource(appRoot);
  if (!fs.existsSync(index)) return sources === null ? null : 'not built yet';
  if (sources !== null && fs.statSync(index).mtimeMs < sources) return 'older than its sources';
  return null;
}

export interface Vite {
  build(config: Record<string, unknown>): Promise<unknown>;
}

async function loadVite(): Promise<Vite | null> {
  try {
    return (await import('vite')) as Vite;
  } catch {
    return null;
  }
}

/**
 * Builds the UI into a scratch folder next to outDir and swaps it in, so that a build that fails
 * or is interrupted never leaves half a UI behind. Returns whether a new build is in place.
 */
export async function buildRenderer(options: RendererBuildOptions): Promise<boolean> {
  const vite = await (options.loadVite ?? loadVite)();
  if (!vite) {
    options.log('The UI is not built, and Vite (a development dependency) is not installed to build it: run `npm ci`, then `npm run build:renderer`.');
    return false;
  }
  const outDir = path.resolve(options.outDir);
  const scratch = `${outDir}.building-${process.pid}`;
  const previous = `${outDir}.previous-${process.pid}`;
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  try {
    await vite.build({
      configFile: path.join(options.appRoot, 'renderer', 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: scratch, emptyOutDir: true },
    });
    if (fs.existsSync(outDir)) fs.renameSync(outDir, previous);
    fs.renameSync(scratch, outDir);
    fs.rmSync(previous, { recursive: true, force: true });
    return true;
  } catch (error) {
    fs.rmSync(scratch, { recursive: true, force: true });
    if (fs.existsSync(previous) && !fs.existsSync(outDir)) fs.renameSync(previous, outDir);
    options.log(`Building the UI failed: ${(error as Error).message}`);
    return false;
  }
}

/**
 * A function to await before serving the UI: the first call builds it when needed (telling the
 * user on stderr), later calls wait for that same build.
 */
export function rendererOnFirstUse(options: RendererBuildOptions): () => Promise<void> {
  let ready: Promise<void> | null = null;
  return () => {
    ready ??= (async () => {
      const reason = rendererBuildReason(options.outDir, options.appRoot);
      if (!reason) return;
      options.log(
        reason === 'not built yet'
          ? `Building the UI once (about ${TYPICAL_BUILD_SECONDS} s)…`
          : `Building the UI again, as it is older than its sources (about ${TYPICAL_BUILD_SECONDS} s)…`,
      );
      const started = Date.now();
      if (await buildRenderer(options)) options.log(`Built the UI in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
      else if (fs.existsSync(path.join(options.outDir, 'index.html'))) options.log('Serving the previous build of the UI.');
    })();
    return ready;
  };
}
