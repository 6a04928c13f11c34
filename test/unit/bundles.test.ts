import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of bin/, without types
import { bundlesAreCurrent, cliBundle, currentBundle } from '../../bin/bundles.mjs';
import { tempDir } from '../helpers/db';

const tmp = tempDir('awb-bundles-');
afterAll(() => tmp.cleanup());

const bundled = cliBundle as (root: string) => Promise<string | null>;
const current = bundlesAreCurrent as (root: string) => boolean;
const workerBundle = currentBundle as (name: string, root: string) => string | null;

/** A tiny app root: a CLI entry that imports a second module, a package.json and an installed-dependencies stamp. */
function fakeRoot(name: string): { root: string; write: (file: string, text: string) => void } {
  const root = tmp.file(name);
  // Each file written with a time of its own in the past: a file changed in the second before a
  // build is taken as possibly changed during it, and would make the next run build again.
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
    setTime(path.join(root, file));
  };
  write('package.json', '{"name":"fake","type":"module"}');
  write('node_modules/.package-lock.json', '{}');
  write('electron/cli/said.ts', "export const said: string = 'first';\n");
  write('electron/cli/index.ts', "import { said } from './said';\nexport async function main(argv: string[]): Promise<void> { process.stdout.write(`${said} ${argv.length}`); }\n");
  return { root, write };
}

/** Runs the bundle's `main` in a fresh Node process, as bin/awb.mjs does. */
function run(bundle: string): string {
  const script = `require(${JSON.stringify(bundle)}).main(['node', 'awb', 'x'])`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout;
}

let past = Date.now() - 3_600_000;
/** Gives a file a modification time no other file has, in the past. */
const setTime = (file: string) => {
  past += 1_000;
  fs.utimesSync(file, new Date(past), new Date(past));
};

describe('the bundles the CLI makes on first use (bin/bundles.mjs)', () => {
  it('builds once, is reused while current, and is rebuilt when a file it was built from changes', async () => {
    const { root, write } = fakeRoot('app');
    expect(current(root)).toBe(false);
    const bundle = await bundled(root);
    expect(bundle).toBe(path.join(root, 'dist', 'node', 'awb.cjs'));
    expect(run(bundle!)).toBe('first 3');
    const inputs = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'node', 'inputs.json'), 'utf8')) as { bundles: string[]; files: Record<string, number> };
    expect(inputs.bundles).toEqual(['awb']);
    expect(Object.keys(inputs.files).sort()).toEqual(['electron/cli/index.ts', 'electron/cli/said.ts', 'node_modules/.package-lock.json', 'package.json']);
    expect(current(root)).toBe(true);
    // A worker takes a current bundle, and only one that was built.
    expect(workerBundle('awb', root)).toBe(bundle);
    expect(workerBundle('release-encoder', root)).toBeNull();

    // An imported module edited: stale, rebuilt, and the new text runs.
    write('electron/cli/said.ts', "export const said: string = 'second';\n");
    expect(current(root)).toBe(false);
    expect(workerBundle('awb', root)).toBeNull();
    expect(run((await bundled(root))!)).toBe('second 3');

    // Dependencies installed again, or the package file changed: stale too.
    setTime(path.join(root, 'node_modules', '.package-lock.json'));
    expect(current(root)).toBe(false);
    await bundled(root);
    setTime(path.join(root, 'package.json'));
    expect(current(root)).toBe(false);
    await bundled(root);

    // A file put back with an older time (cp -p, an archive) counts as changed too.
    expect(current(root)).toBe(true);
    const older = new Date(past - 10 * 60_000);
    fs.utimesSync(path.join(root, 'electron', 'cli', 'index.ts'), older, older);
    expect(current(root)).toBe(false);
    await bundled(root);

    // A source the bundle holds deleted: stale (the build then fails, see below).
    expect(current(root)).toBe(true);
    fs.rmSync(path.join(root, 'electron', 'cli', 'said.ts'));
    expect(current(root)).toBe(false);
  });

  it('builds again on the next run when a file changed in the second before a build (it may have changed during it)', async () => {
    const { root } = fakeRoot('recent');
    fs.writeFileSync(path.join(root, 'electron', 'cli', 'said.ts'), "export const said: string = 'just now';\n");
    expect(run((await bundled(root))!)).toBe('just now 3');
    expect(current(root)).toBe(false);
    setTime(path.join(root, 'electron', 'cli', 'said.ts'));
    await bundled(root);
    expect(current(root)).toBe(true);
  });

  it('gives null (the sources run through tsx instead) when the build fails, leaving no scratch files and the last good bundle', async () => {
    const { root, write } = fakeRoot('broken');
    const bundle = (await bundled(root))!;
    write('electron/cli/said.ts', 'export const said: string = ;\n');
    expect(await bundled(root)).toBeNull();
    expect(fs.readdirSync(path.join(root, 'dist', 'node')).sort()).toEqual(['awb.cjs', 'awb.cjs.map', 'inputs.json']);
    expect(run(bundle)).toBe('first 3');
  });

  it('gives null without building where there are no sources (a packaged app) or AWB_FROM_SOURCE=1 asks for them', async () => {
    expect(await bundled(tmp.file('empty'))).toBeNull();
    const { root } = fakeRoot('from-source');
    process.env.AWB_FROM_SOURCE = '1';
    try {
      expect(await bundled(root)).toBeNull();
      expect(fs.existsSync(path.join(root, 'dist'))).toBe(false);
      delete process.env.AWB_FROM_SOURCE;
      await bundled(root);
      expect(workerBundle('awb', root)).not.toBeNull();
      process.env.AWB_FROM_SOURCE = '1';
      expect(workerBundle('awb', root)).toBeNull();
    } finally {
      delete process.env.AWB_FROM_SOURCE;
    }
  });
});
