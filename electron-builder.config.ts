import fs from 'node:fs';
import path from 'node:path';
import type { AfterPackContext, Configuration } from 'electron-builder';
import { electronSqliteBinding } from './scripts/electron-native';

/**
 * The installers users download (`npm run dist`, see scripts/dist.ts and docs/packaging.md):
 * Linux AppImage and deb, Windows NSIS, macOS dmg. Electron Forge (forge.config.ts) stays for
 * development packaging; this file is what ships.
 *
 * The app is the esbuild bundles (dist/electron), the built UI (dist/renderer) and resources/
 * (icons, demo data, protocols); node_modules adds only what the bundles leave external: the
 * native modules, which live outside the asar archive so the OS can load them.
 */

/**
 * What the bundles leave external (scripts/build-electron.mjs), with the packages they load:
 * better-sqlite3 (and `bindings`, which finds its .node file), sqlite-vec and its platform
 * package, argon2 and its platform package. Everything else in `dependencies` is inside the
 * bundles already, or serves only the CLI.
 */
const RUNTIME_MODULES = ['bindings', 'file-uri-to-path', 'sqlite-vec', 'sqlite-vec-*', '@node-rs/argon2', '@node-rs/argon2-*'];

/**
 * better-sqlite3 in node_modules is built for Node; the packaged app gets the build for
 * Electron's ABI (scripts/electron-native.ts) in its place, so node_modules stays usable by the
 * CLI and the tests (electron-builder's own rebuild, npmRebuild, would replace it there).
 */
async function putElectronSqlite(context: AfterPackContext): Promise<void> {
  const resources = context.packager.getResourcesDir(context.appOutDir);
  const packaged = path.join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!fs.existsSync(packaged)) throw new Error(`better-sqlite3 is missing from the packaged app (${packaged}): it must be unpacked from the asar archive.`);
  fs.copyFileSync(electronSqliteBinding(process.cwd()), packaged);
}

const config: Configuration = {
  appId: 'org.ambiguity-workbench.app',
  productName: 'Ambiguity Workbench',
  executableName: 'ambiguity-workbench',
  copyright: 'Copyright © Ambiguity Workbench contributors',
  directories: { output: 'out/installers', buildResources: 'resources/icons' },
  files: [
    'package.json',
    'dist/electron/*.cjs',
    'dist/renderer/**',
    'resources/**',
    '!**/*.map',
    '!node_modules/**',
    `node_modules/{${RUNTIME_MODULES.join(',')}}/**`,
    // better-sqlite3 without its sources, SQLite's amalgamation and the compiler's leftovers.
    'node_modules/better-sqlite3/{package.json,LICENSE,lib/**,build/Release/better_sqlite3.node}',
  ],
  asar: true,
  // .node files are unpacked by electron-builder itself; sqlite-vec is a SQLite extension that
  // SQLite opens by path, so its whole platform package goes beside the archive too.
  asarUnpack: ['**/*.node', 'node_modules/sqlite-vec-*/**'],
  npmRebuild: false,
  afterPack: putElectronSqlite,
  extraResources: [{ from: 'LICENSE', to: 'LICENSE.txt' }],
  icon: 'resources/icons/icon.png',
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Science',
    maintainer: 'Ambiguity Workbench contributors',
    synopsis: 'Build, validate, release and use benchmarks of ambiguous questions',
  },
  deb: { packageName: 'ambiguity-workbench' },
  win: { target: 'nsis' },
  nsis: { oneClick: false, allowToChangeInstallationDirectory: true, license: 'LICENSE' },
  mac: { target: 'dmg', category: 'public.app-category.education' },
};

export default config;
