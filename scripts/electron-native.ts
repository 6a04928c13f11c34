// better-sqlite3 for Electron's ABI, shared by `npm start` (the desktop app in development) and
// `npm run dist` (electron-builder's afterPack hook puts it into the packaged app).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * better-sqlite3 in node_modules is built for Node (the CLI and the tests use it). Electron needs
 * a build for its own ABI: make one once per Electron version, in a scratch copy, so the Node
 * build stays intact (electron-builder's own rebuild would replace it in node_modules).
 * `AWB_ELECTRON_SQLITE_BINDING` names a build made elsewhere and skips this.
 */
export function electronSqliteBinding(root: string): string {
  const given = process.env.AWB_ELECTRON_SQLITE_BINDING;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`AWB_ELECTRON_SQLITE_BINDING names ${given}, which does not exist. Unset it to build better-sqlite3 for Electron here.`);
    return given;
  }
  const require = createRequire(path.join(root, 'package.json'));
  const version = (require('electron/package.json') as { version: string }).version;
  const target = path.join(root, 'dist', 'native', `electron-${version}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
  if (fs.existsSync(target)) return target;
  console.log(`Building better-sqlite3 for Electron ${version} (once)…`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-native-'));
  try {
    fs.cpSync(path.join(root, 'node_modules', 'better-sqlite3'), path.join(scratch, 'node_modules', 'better-sqlite3'), { recursive: true });
    fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', dependencies: { 'better-sqlite3': '*' } }));
    const rebuild = require.resolve('@electron/rebuild/lib/cli.js');
    const result = spawnSync(process.execPath, [rebuild, '--version', version, '--module-dir', scratch, '--only', 'better-sqlite3', '--force'], { stdio: 'inherit' });
    if (result.status !== 0) {
      throw new Error(`Building better-sqlite3 for Electron ${version} failed (exit ${result.status}): it needs a C++ toolchain and Electron's headers from the network, or set AWB_ELECTRON_SQLITE_BINDING to a build made elsewhere.`);
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(scratch, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), target);
    return target;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
