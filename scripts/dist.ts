// `npm run dist [-- electron-builder flags]`: the installers for this machine's platform with
// electron-builder (electron-builder.config.ts), after `npm run dist` has built the bundles.
// Before electron-builder runs it checks what would otherwise break late or silently: the native
// modules are there and built for this platform, and an Electron folder given with
// AWB_ELECTRON_DIST (or the one the electron package installed) is whole.
//
//   npm run dist                 AppImage + deb / NSIS / dmg into out/installers
//   npm run dist -- --dir        the unpacked app only (out/installers/<platform>-unpacked)
//   AWB_ELECTRON_DIST=DIR ...    use an unpacked Electron instead of downloading one
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { checkElectronDist, checkNativeModules, requestedPlatforms, type Target } from './packaging-checks';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(path.join(root, 'package.json'));
const args = process.argv.slice(2);
const target: Target = { platform: process.platform, arch: process.arch };
const names: Partial<Record<NodeJS.Platform, string>> = { linux: 'Linux', win32: 'Windows', darwin: 'macOS' };

function fail(problems: string[]): never {
  process.stderr.write(`npm run dist cannot build the installers:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(1);
}

const others = requestedPlatforms(args).filter((platform) => platform !== target.platform);
if (others.length) {
  fail([
    `This machine runs ${names[target.platform] ?? target.platform}; the native modules in node_modules (better-sqlite3, sqlite-vec, argon2) are for it alone, ` +
      `so ${others.map((p) => names[p] ?? p).join(' and ')} installers are built on ${others.length > 1 ? 'those platforms' : 'that platform'} (npm ci, then npm run dist there).`,
  ]);
}

const electronVersion = (require('electron/package.json') as { version: string }).version;
// The Electron the electron package downloaded, when it did (not with ELECTRON_SKIP_BINARY_DOWNLOAD).
const installedElectron = path.join(path.dirname(require.resolve('electron/package.json')), 'dist');
const electronDist = process.env.AWB_ELECTRON_DIST ? path.resolve(process.env.AWB_ELECTRON_DIST) : fs.existsSync(installedElectron) ? installedElectron : null;

const problems = [...checkNativeModules(path.join(root, 'node_modules'), target), ...(electronDist ? checkElectronDist(electronDist, electronVersion, target) : [])];
for (const bundle of ['dist/electron/main.cjs', 'dist/electron/preload.cjs', 'dist/renderer/index.html']) {
  if (!fs.existsSync(path.join(root, bundle))) problems.push(`${bundle} is not built: run \`npm run dist\` (it builds the bundles first), not this script alone.`);
}
if (problems.length) fail(problems);

console.log(electronDist ? `Packaging with the Electron ${electronVersion} in ${electronDist}` : `Packaging with Electron ${electronVersion}, downloaded by electron-builder`);
const builder = path.join(path.dirname(require.resolve('electron-builder/package.json')), 'cli.js');
const result = spawnSync(process.execPath, [builder, '--config', 'electron-builder.config.ts', ...(electronDist ? [`-c.electronDist=${electronDist}`] : []), ...args], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0 && !electronDist) {
  process.stderr.write(
    `\nnpm run dist: electron-builder failed. If it could not download Electron ${electronVersion} (no network, a proxy), download ` +
      `electron-v${electronVersion}-${target.platform}-${target.arch}.zip elsewhere, unzip it, and run again with AWB_ELECTRON_DIST set to that folder.\n`,
  );
}
process.exit(result.status ?? 1);
