import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const APP_NAME = 'Ambiguity Workbench';

/**
 * The user data directory, computed the way Electron's `app.getPath('userData')` does for an app
 * named "Ambiguity Workbench", so the CLI, `awb serve` and the desktop app share one database.
 * `AWB_HOME` overrides it (tests and portable installs).
 */
export function userDataDir(): string {
  if (process.env.AWB_HOME) return path.resolve(process.env.AWB_HOME);
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_NAME);
    default:
      return path.join(process.env.XDG_CONFIG_HOME ?? path.join(home, '.config'), APP_NAME);
  }
}

export function defaultDatabasePath(): string {
  return path.join(userDataDir(), 'workbench.db');
}

/**
 * The repository root, two levels above this folder. Bundles in dist/electron/ never reach the
 * fallback: main.ts sets AWB_APP_ROOT to the packaged app's path before anything asks.
 */
export function appRoot(): string {
  if (process.env.AWB_APP_ROOT) return process.env.AWB_APP_ROOT;
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.resolve(here, '..', '..');
}

/**
 * A worker thread's script, or null when it is missing: in the desktop app the bundle
 * `dist/electron/<bundle>.cjs` (scripts/build-electron.mjs), under Node the `.mjs` launcher beside
 * its TypeScript source (`source`, from the root), which loads the worker's bundle from dist/node
 * (bin/bundles.mjs) or else runs the source through tsx.
 */
export function workerScript(bundle: string, source: string): string | null {
  const root = appRoot();
  const script = process.versions.electron ? path.join(root, 'dist', 'electron', `${bundle}.cjs`) : path.join(root, source);
  return fs.existsSync(script) ? script : null;
}

export function resourcesDir(): string {
  return path.join(appRoot(), 'resources');
}

/** The built UI; `AWB_RENDERER_DIR` puts it elsewhere (tests build into a scratch folder). */
export function rendererDir(): string {
  if (process.env.AWB_RENDERER_DIR) return path.resolve(process.env.AWB_RENDERER_DIR);
  return path.join(appRoot(), 'dist', 'renderer');
}
