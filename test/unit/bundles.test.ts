import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import * as bundles from '../../bin/bundles.mjs';
import { tempDir } from '../helpers/db';

const tmp = tempDir('awb-bundles-');
afterAll(() => tmp.cleanup());
// The CLI hands its build to the workers it starts through the environment: each test starts without.
afterEach(() => delete process.env.AWB_BUNDLE_BUILD);

const current = (root: string) => bundles.bundlesAreCurrent(root);
/** The CLI's bundle, as bin/awb.mjs gets it, without handing its build on (a test of that below). */
const cliBundle = async (root: string) => {
  const bundle = await bundles.cliBundle(root);
  delete process.env.AWB_BUNDLE_BUILD;
  return bundle;
};

let past = Date.now() - 3_600_000;
/** Gives a file a modification time no other file has, in the past. */
const setTime = (file: string, time = (past += 1_000)) => fs.utimesSync(file, new Date(time), new Date(time));

/** A tiny app root: a CLI entry that imports a second module, a package.json and an installed-dependencies stamp. */
function fakeRoot(name: string): { root: string; write: (file: string, text: string) => void; at: (file: string) => string } {
  const root = tmp.file(name);
  const at = (file: string) => path.join(root, file);
  // Each file written with a time of its own in the past: a file whose time falls within a build
  // is taken as possibly changed during it, and makes the next run build again.
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(at(file)), { recursive: true });
    fs.writeFileSync(at(file), text);
    setTime(at(file));
  };
  write('package.json', '{"name":"fake","type":"module"}');
  write('node_modules/.package-lock.json', '{}');
  write('electron/cli/said.ts', "export const said: string = 'first';\n");
  write('electron/cli/index.ts', "import { said } from './said';\nexport async function main(argv: string[]): Promise<void> { process.stdout.write(`${said} ${argv.length}`); }\n");
  return { root, write, at };
}

/** Runs the bundle's `main` in a fresh Node process, as bin/awb.mjs does. */
function run(bundle: string): string {
  const result = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(bundle)}).main(['node', 'awb', 'x'])`], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout;
}

const currentJson = (root: string) => JSON.parse(fs.readFileSync(path.join(root, 'dist', 'node', 'current.json'), 'utf8')) as { build: string; bundles: Record<string, unknown>; files: Record<string, unknown> };

describe('the bundles the CLI makes on first use (bin/bundles.mjs)', () => {
  it('builds once into a folder of its own, is reused while current, and is rebuilt when a file it was built from changes', async () => {
    const { root, write, at } = fakeRoot('app');
    expect(current(root)).toBe(false);
    const bundle = (await cliBundle(root))!;
    const built = currentJson(root);
    expect(bundle).toBe(at(`dist/node/${built.build}/awb.cjs`));
    expect(run(bundle)).toBe('first 3');
    expect(Object.keys(built.bundles)).toEqual(['awb']);
    expect(Object.keys(built.files).sort()).toEqual(
      [
        'bin/bundles.mjs',
        'electron/cli/index.ts',
        'electron/cli/said.ts',
        'node_modules/.package-lock.json',
        'package-lock.json',
        'package.json',
        'shared/tsconfig.json',
        'tsconfig.base.json',
        'tsconfig.json',
      ].sort(),
    );
    expect(current(root)).toBe(true);
    expect(await cliBundle(root)).toBe(bundle);
    // A worker takes a current bundle, and only one that was built.
    expect(bundles.currentBundle('awb', root)).toBe(bundle);
    expect(bundles.currentBundle('release-encoder', root)).toBeNull();

    // An imported module edited: stale, rebuilt into another folder, and the new text runs.
    write('electron/cli/said.ts', "export const said: string = 'second';\n");
    expect(current(root)).toBe(false);
    expect(bundles.currentBundle('awb', root)).toBeNull();
    const second = (await cliBundle(root))!;
    expect(second).not.toBe(bundle);
    expect(run(second)).toBe('second 3');
    // The build it replaced is gone at once.
    expect(fs.existsSync(path.dirname(bundle))).toBe(false);

    // Dependencies installed again, the package file, tsconfig files that appear: stale each.
    for (const change of [() => setTime(at('node_modules/.package-lock.json')), () => setTime(at('package.json')), () => write('tsconfig.json', '{}'), () => write('tsconfig.base.json', '{}')]) {
      change();
      expect(current(root)).toBe(false);
      await cliBundle(root);
      expect(current(root)).toBe(true);
    }

    // The same time but another size, and a file put back with an older time: both count.
    const said = at('electron/cli/said.ts');
    const time = fs.statSync(said).mtimeMs;
    fs.writeFileSync(said, "export const said: string = 'the third';\n");
    setTime(said, time);
    expect(current(root)).toBe(false);
    await cliBundle(root);
    setTime(at('electron/cli/index.ts'), past - 600_000);
    expect(current(root)).toBe(false);
    await cliBundle(root);

    // A bundle cut short (a power cut before it reached the disk) or removed: stale.
    const last = (await cliBundle(root))!;
    fs.truncateSync(last, 10);
    expect(current(root)).toBe(false);
    await cliBundle(root);
    fs.rmSync(bundles.currentBundle('awb', root)!);
    expect(current(root)).toBe(false);
    await cliBundle(root);

    // A new entry appears (a worker): stale, and the next build makes its bundle too.
    write('electron/services/release/encoder-worker.ts', 'export const encoder = 1;\n');
    expect(current(root)).toBe(false);
    await cliBundle(root);
    expect(bundles.currentBundle('release-encoder', root)).toBe(at(`dist/node/${currentJson(root).build}/release-encoder.cjs`));

    // A source the bundles hold deleted: stale.
    fs.rmSync(said);
    expect(current(root)).toBe(false);
  });

  it('builds again on the next run when a file changed during the build (or just before it)', async () => {
    const { root, at } = fakeRoot('recent');
    fs.writeFileSync(at('electron/cli/said.ts'), "export const said: string = 'just now';\n");
    expect(run((await cliBundle(root))!)).toBe('just now 3');
    expect(currentJson(root).files['electron/cli/said.ts']).toBe(0);
    expect(current(root)).toBe(false);
    setTime(at('electron/cli/said.ts'));
    await cliBundle(root);
    expect(current(root)).toBe(true);
  });

  it('keeps the last good build when a build fails, and gives null so that the sources run through tsx', async () => {
    const { root, write } = fakeRoot('broken');
    const bundle = (await cliBundle(root))!;
    const before = fs.readFileSync(path.join(root, 'dist', 'node', 'current.json'), 'utf8');
    write('electron/cli/said.ts', 'export const said: string = ;\n');
    expect(await cliBundle(root)).toBeNull();
    expect(fs.readFileSync(path.join(root, 'dist', 'node', 'current.json'), 'utf8')).toBe(before);
    expect(fs.readdirSync(path.join(root, 'dist', 'node')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(run(bundle)).toBe('first 3');
  });

  it('pairs bundles only with their own build: two builds at once, a build that stopped half-way, a list that is not one', async () => {
    const { root, at } = fakeRoot('together');
    await Promise.all([bundles.buildBundles(root), bundles.buildBundles(root)]);
    expect(current(root)).toBe(true);
    const named = bundles.currentBundle('awb', root)!;
    expect(run(named)).toBe('first 3');
    // A build that stopped before naming its folder: the named build stays in use.
    fs.mkdirSync(at('dist/node/stopped'));
    fs.writeFileSync(at('dist/node/stopped/awb.cjs'), '');
    expect(bundles.currentBundle('awb', root)).toBe(named);
    // Such a folder, or a stray file, goes at the next build once it is an hour old; newer ones stay (a build may be under way).
    fs.mkdirSync(at('dist/node/recent'));
    fs.writeFileSync(at('dist/node/stray.tmp'), '');
    fs.writeFileSync(at('dist/node/recent.tmp'), '');
    setTime(at('dist/node/stopped'), Date.now() - 2 * 3_600_000);
    setTime(at('dist/node/stray.tmp'), Date.now() - 2 * 3_600_000);
    setTime(at('electron/cli/index.ts'));
    await cliBundle(root);
    expect(fs.existsSync(at('dist/node/stopped'))).toBe(false);
    expect(fs.existsSync(at('dist/node/stray.tmp'))).toBe(false);
    expect(fs.existsSync(at('dist/node/recent'))).toBe(true);
    expect(fs.existsSync(at('dist/node/recent.tmp'))).toBe(true);
    // current.json unreadable or of another shape: not current, built again, no exception.
    for (const text of ['', 'null', '[]', '{}', '{"build":"x","bundles":{},"files":[]}', '{"build":']) {
      fs.writeFileSync(at('dist/node/current.json'), text);
      expect(current(root)).toBe(false);
      expect(bundles.currentBundle('awb', root)).toBeNull();
      expect(run((await cliBundle(root))!)).toBe('first 3');
    }
  });

  it("hands the CLI's build to its workers, who keep to it while it is there", async () => {
    const { root, write } = fakeRoot('handed');
    const first = (await bundles.cliBundle(root))!;
    expect(process.env.AWB_BUNDLE_BUILD).toBe(path.basename(path.dirname(first)));
    // Out of date for a new run, but a worker of this run takes the same build as its CLI.
    write('electron/cli/said.ts', "export const said: string = 'later';\n");
    expect(bundles.currentBundle('awb', root)).toBe(first);
    delete process.env.AWB_BUNDLE_BUILD;
    expect(bundles.currentBundle('awb', root)).toBeNull();
    // A handed build that is gone (or a name that is not one): the current build's, if any.
    process.env.AWB_BUNDLE_BUILD = '../../elsewhere';
    expect(bundles.currentBundle('awb', root)).toBeNull();
    const second = (await bundles.cliBundle(root))!;
    process.env.AWB_BUNDLE_BUILD = path.basename(path.dirname(first));
    expect(bundles.currentBundle('awb', root)).toBe(second);
  });

  it('loads the sources instead when a bundle is gone by the time it is loaded, and passes on any other failure', async () => {
    const { root, write } = fakeRoot('gone');
    const fromSource = async () => ({ from: 'source' });
    expect(await bundles.loadModule(null, fromSource)).toEqual({ from: 'source' });
    expect(await bundles.loadModule(path.join(root, 'dist', 'node', 'nothing', 'awb.cjs'), fromSource)).toEqual({ from: 'source' });
    write('broken.cjs', "throw new Error('broken at load');\n");
    await expect(bundles.loadModule(path.join(root, 'broken.cjs'), fromSource)).rejects.toThrow('broken at load');
    write('requires-missing.cjs', "require('./not-there.cjs');\n");
    await expect(bundles.loadModule(path.join(root, 'requires-missing.cjs'), fromSource)).rejects.toThrow(/not-there/);
  });

  it('gives null without building where there are no sources (a packaged app) or AWB_FROM_SOURCE=1 asks for them', async () => {
    expect(await cliBundle(tmp.file('empty'))).toBeNull();
    const { root } = fakeRoot('from-source');
    process.env.AWB_FROM_SOURCE = '1';
    try {
      expect(await cliBundle(root)).toBeNull();
      expect(fs.existsSync(path.join(root, 'dist'))).toBe(false);
      delete process.env.AWB_FROM_SOURCE;
      await cliBundle(root);
      expect(bundles.currentBundle('awb', root)).not.toBeNull();
      process.env.AWB_FROM_SOURCE = '1';
      expect(bundles.currentBundle('awb', root)).toBeNull();
    } finally {
      delete process.env.AWB_FROM_SOURCE;
    }
  });
});
