import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkElectronDist, checkNativeModules, electronFiles, requestedPlatforms } from '../../scripts/packaging-checks';
import { tempDir } from '../helpers/db';
import { makeElectronStandIn } from '../helpers/electron-stand-in';

/**
 * What `npm run dist` checks before electron-builder runs: a whole Electron folder of the pinned
 * version, and native modules for the platform being built, on folders made for each case.
 */

const tmp = tempDir('awb-packaging-checks-');
afterAll(() => tmp.cleanup());

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
const MACHO = Buffer.from('cffaedfe07000001', 'hex');
const PE = Buffer.from('MZ\x90\x00', 'latin1');

function put(file: string, content: Buffer | string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** node_modules with the three native modules' files for one platform. */
function nodeModules(name: string, platform: 'linux' | 'darwin' | 'win32', sqliteFormat = platform): string {
  const dir = tmp.file(name);
  const magic = { linux: ELF, darwin: MACHO, win32: PE };
  const vecOs = platform === 'win32' ? 'windows' : platform;
  const ext = { linux: 'so', darwin: 'dylib', win32: 'dll' }[platform];
  const argon = { linux: 'linux-x64-gnu', darwin: 'darwin-x64', win32: 'win32-x64-msvc' }[platform];
  put(path.join(dir, 'better-sqlite3/build/Release/better_sqlite3.node'), magic[sqliteFormat]);
  put(path.join(dir, `sqlite-vec-${vecOs}-x64/vec0.${ext}`), magic[platform]);
  put(path.join(dir, `@node-rs/argon2-${argon}/argon2.${argon}.node`), magic[platform]);
  return dir;
}

describe('the Electron folder npm run dist packages', () => {
  const linux = { platform: 'linux' as const, arch: 'x64' };

  it('accepts a whole folder of the pinned version, or one holding the release zip', () => {
    expect(checkElectronDist(makeElectronStandIn(tmp.file('whole'), '40.1.0', 'linux'), '40.1.0', linux)).toEqual([]);
    const zipOnly = tmp.file('zip-only');
    put(path.join(zipOnly, 'electron-v40.1.0-linux-x64.zip'), 'zip');
    expect(checkElectronDist(zipOnly, '40.1.0', linux)).toEqual([]);
  });

  it('names every missing file and how to get a whole folder', () => {
    const partial = makeElectronStandIn(tmp.file('partial'), '40.1.0', 'linux', ['libffmpeg.so', 'locales/']);
    expect(checkElectronDist(partial, '40.1.0', linux)).toEqual([
      `The Electron folder ${partial} lacks libffmpeg.so, locales/ (needed to run Electron 40.1.0 on linux-x64). ` +
        'Unzip electron-v40.1.0-linux-x64.zip (from https://github.com/electron/electron/releases/tag/v40.1.0) into it whole, or unset AWB_ELECTRON_DIST to let electron-builder download it.',
    ]);
    expect(checkElectronDist(tmp.file('nowhere'), '40.1.0', linux)[0]).toMatch(/^The Electron folder .*nowhere does not exist\. Unzip/);
  });

  it('refuses an Electron of another version than package.json pins', () => {
    const older = makeElectronStandIn(tmp.file('older'), 'v39.2.0', 'linux');
    expect(checkElectronDist(older, '40.1.0', linux)).toEqual([expect.stringMatching(/holds Electron 39\.2\.0, but package\.json pins 40\.1\.0 \(the native modules are built for it\)/)]);
  });

  it('knows each platform’s executable', () => {
    expect(electronFiles('win32')).toContain('electron.exe');
    expect(electronFiles('darwin')).toContain('Electron.app/Contents/MacOS/Electron');
    expect(electronFiles('linux')).toContain('electron');
  });
});

describe('the native modules npm run dist packages', () => {
  it('finds each for its own platform', () => {
    expect(checkNativeModules(nodeModules('nm-linux', 'linux'), { platform: 'linux', arch: 'x64' })).toEqual([]);
    expect(checkNativeModules(nodeModules('nm-win', 'win32'), { platform: 'win32', arch: 'x64' })).toEqual([]);
    expect(checkNativeModules(nodeModules('nm-mac', 'darwin'), { platform: 'darwin', arch: 'x64' })).toEqual([]);
  });

  it('names the packages of another platform when node_modules came from elsewhere', () => {
    const problems = checkNativeModules(nodeModules('nm-from-mac', 'darwin'), { platform: 'linux', arch: 'x64' });
    expect(problems).toEqual([
      'better-sqlite3/build/Release/better_sqlite3.node is built for darwin, not linux: node_modules came from another machine. Run `npm ci` here.',
      'sqlite-vec has no native file for linux-x64 in node_modules (installed: sqlite-vec-darwin-x64, for another platform). Run `npm ci` on the machine you build on: installers are built on the platform they are for.',
      '@node-rs/argon2 has no native file for linux-x64 in node_modules (installed: @node-rs/argon2-darwin-x64, for another platform). Run `npm ci` on the machine you build on: installers are built on the platform they are for.',
    ]);
  });

  it('checks the binary format, not only the names', () => {
    const mixed = nodeModules('nm-mixed', 'linux', 'win32');
    expect(checkNativeModules(mixed, { platform: 'linux', arch: 'x64' })).toEqual([expect.stringMatching(/better_sqlite3\.node is built for win32, not linux/)]);
  });
});

describe('the platform flags electron-builder takes', () => {
  it('are read as Node platforms', () => {
    expect(requestedPlatforms(['--dir'])).toEqual([]);
    expect(requestedPlatforms(['--win', '-m', '--linux', '-c.foo=bar'])).toEqual(['win32', 'darwin', 'linux']);
  });
});
