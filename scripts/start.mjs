// `npm start`: the desktop app when Electron's binary is installed; otherwise browser mode
// (`awb serve` on the same default database, printing its URL). Either way on the database in
// the user data directory, seeded once with the bundled demo data, and with the UI built when
// it is missing or older than its sources (by the desktop app before it starts; by `awb serve`
// for its first page).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { withLargePages } from './large-pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// npm runs scripts from the package root; a file named on the command line is relative to where
// the user typed it (INIT_CWD).
const userCwd = process.env.INIT_CWD ?? process.cwd();
const isFile = (a) => !a.startsWith('-') && fs.existsSync(path.resolve(userCwd, a)) && fs.statSync(path.resolve(userCwd, a)).isFile();
const args = process.argv.slice(2).map((a) => (isFile(a) ? path.resolve(userCwd, a) : a));

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** The same first-use build as `awb serve`, with Vite's JS API (renderer-build.ts). */
async function buildRendererIfStale() {
  register();
  const { rendererOnFirstUse } = await import('../electron/transport/renderer-build.ts');
  const outDir = path.join(root, 'dist', 'renderer');
  await rendererOnFirstUse({ outDir, appRoot: root, log: (message) => process.stderr.write(`${message}\n`) })();
  if (!fs.existsSync(path.join(outDir, 'index.html'))) process.exit(1);
}

/** The Electron binary's path, or null when the package or its binary is missing. */
function electronBinary() {
  try {
    const binary = require('electron');
    return typeof binary === 'string' && fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const electron = electronBinary();
if (electron) {
  await buildRendererIfStale();
  // better-sqlite3 built for Electron's ABI, once, beside the Node build (electron-native.ts).
  const { electronSqliteBinding } = await import('./electron-native.ts');
  run(process.execPath, [path.join(root, 'scripts', 'build-electron.mjs')]);
  const child = spawn(electron, ['.', ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, AWB_SQLITE_BINDING: electronSqliteBinding(root) },
  });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('No Electron binary is installed here, so the workbench starts in browser mode.');
  // `npm start -- FILE` opens an annotation pack.
  const serveArgs = args.map((a) => (isFile(a) ? `--pack=${a}` : a));
  // The server asks for huge pages where glibc can (large-pages.mjs): its first dense query at 1M
  // fills 156 MB of new buffers.
  const child = spawn(process.execPath, [path.join(root, 'bin', 'awb.mjs'), 'serve', '--seed-demo', ...serveArgs], {
    cwd: root,
    stdio: 'inherit',
    env: withLargePages(process.env),
  });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code) => process.exit(code ?? 0));
}
