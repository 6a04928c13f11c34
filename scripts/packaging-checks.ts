// What `npm run dist` checks before electron-builder runs, so a missing piece is named with its
// fix instead of surfacing as a broken installer or an ENOENT deep inside the packager.
import fs from 'node:fs';
import path from 'node:path';

export type Target = { platform: NodeJS.Platform; arch: string };

/**
 * The files of an unpacked Electron (as in electron-vX-PLATFORM-ARCH.zip) without which the
 * packaged app does not start: the executable, ICU data, V8 snapshots, Chromium's resource
 * packs and locales, and the libraries the executable links (FFmpeg, ANGLE).
 */
export function electronFiles(platform: NodeJS.Platform): string[] {
  const common = ['icudtl.dat', 'resources.pak', 'chrome_100_percent.pak', 'v8_context_snapshot.bin', 'snapshot_blob.bin', 'locales/', 'resources/'];
  switch (platform) {
    case 'darwin':
      return ['Electron.app/Contents/MacOS/Electron', 'Electron.app/Contents/Info.plist', 'Electron.app/Contents/Frameworks/Electron Framework.framework/'];
    case 'win32':
      return ['electron.exe', 'ffmpeg.dll', 'libEGL.dll', 'libGLESv2.dll', ...common];
    default:
      return ['electron', 'chrome_crashpad_handler', 'libffmpeg.so', 'libEGL.so', 'libGLESv2.so', ...common];
  }
}

/** electron-builder also takes a folder holding the release zip itself. */
const zipName = (version: string, target: Target) => `electron-v${version}-${target.platform}-${target.arch}.zip`;

/**
 * An Electron folder (AWB_ELECTRON_DIST, or node_modules/electron/dist): every file the app needs,
 * and the version the native modules are built for. Returns the problems, empty when none.
 */
export function checkElectronDist(dir: string, version: string, target: Target): string[] {
  const how =
    `Unzip ${zipName(version, target)} (from https://github.com/electron/electron/releases/tag/v${version}) into it whole, ` +
    'or unset AWB_ELECTRON_DIST to let electron-builder download it.';
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return [`The Electron folder ${dir} does not exist. ${how}`];
  if (fs.existsSync(path.join(dir, zipName(version, target)))) return [];
  const missing = electronFiles(target.platform).filter((file) => !fs.existsSync(path.join(dir, file)));
  const problems: string[] = [];
  if (missing.length) problems.push(`The Electron folder ${dir} lacks ${missing.join(', ')} (needed to run Electron ${version} on ${target.platform}-${target.arch}). ${how}`);
  const versionFile = path.join(dir, 'version');
  const found = fs.existsSync(versionFile) ? fs.readFileSync(versionFile, 'utf8').trim().replace(/^v/, '') : null;
  if (found && found !== version) {
    problems.push(`The Electron folder ${dir} holds Electron ${found}, but package.json pins ${version} (the native modules are built for it). ${how}`);
  }
  return problems;
}

/** The binary format a native file must have on each platform: ELF, Mach-O or PE. */
function formatOf(file: string): 'linux' | 'darwin' | 'win32' | 'unknown' {
  const head = Buffer.alloc(4);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.toString('latin1') === '\x7fELF') return 'linux';
  if (head.subarray(0, 2).toString('latin1') === 'MZ') return 'win32';
  if (['cffaedfe', 'cefaedfe', 'cafebabe', 'feedfacf'].includes(head.toString('hex'))) return 'darwin';
  return 'unknown';
}

interface NativeModule {
  name: string;
  /** Packages or folders under node_modules that may hold the file for a target, and the file. */
  candidates(target: Target): { dir: string; file: RegExp }[];
  /** node_modules packages that hold it for one platform each (to name the one installed). */
  platformPackages?: RegExp;
}

const NATIVE_MODULES: NativeModule[] = [
  {
    name: 'better-sqlite3',
    candidates: () => [{ dir: 'better-sqlite3/build/Release', file: /^better_sqlite3\.node$/ }],
  },
  {
    name: 'sqlite-vec',
    candidates: (t) => [{ dir: `sqlite-vec-${t.platform === 'win32' ? 'windows' : t.platform}-${t.arch}`, file: /^vec0\.(so|dylib|dll)$/ }],
    platformPackages: /^sqlite-vec-/,
  },
  {
    name: '@node-rs/argon2',
    candidates: (t) =>
      ['', '-gnu', '-musl', '-msvc', '-gnueabihf'].map((abi) => ({ dir: `@node-rs/argon2-${t.platform}-${t.arch}${abi}`, file: /\.node$/ })),
    platformPackages: /^@node-rs\/argon2-/,
  },
];

function listPackages(nodeModules: string): string[] {
  if (!fs.existsSync(nodeModules)) return [];
  return fs.readdirSync(nodeModules).flatMap((name) => (name.startsWith('@') ? fs.readdirSync(path.join(nodeModules, name)).map((sub) => `${name}/${sub}`) : [name]));
}

/**
 * Each native module has its file for the target in node_modules, in the target's binary format;
 * node_modules installed on another machine (or with --os/--cpu) is named as such.
 */
export function checkNativeModules(nodeModules: string, target: Target): string[] {
  const installed = listPackages(nodeModules);
  const problems: string[] = [];
  for (const module of NATIVE_MODULES) {
    const file = module
      .candidates(target)
      .map(({ dir, file: pattern }) => {
        const full = path.join(nodeModules, dir);
        const hit = fs.existsSync(full) ? fs.readdirSync(full).find((name) => pattern.test(name)) : undefined;
        return hit ? path.join(full, hit) : null;
      })
      .find((hit) => hit !== null);
    const others = module.platformPackages ? installed.filter((name) => module.platformPackages!.test(name)) : [];
    if (!file) {
      problems.push(
        `${module.name} has no native file for ${target.platform}-${target.arch} in node_modules` +
          (others.length ? ` (installed: ${others.join(', ')}, for another platform)` : '') +
          '. Run `npm ci` on the machine you build on: installers are built on the platform they are for.',
      );
      continue;
    }
    const format = formatOf(file);
    if (format !== target.platform) {
      problems.push(`${path.relative(nodeModules, file)} is built for ${format === 'unknown' ? 'no known platform' : format}, not ${target.platform}: node_modules came from another machine. Run \`npm ci\` here.`);
    }
  }
  return problems;
}

/** The platform flags electron-builder takes, as Node platforms. */
export function requestedPlatforms(args: readonly string[]): NodeJS.Platform[] {
  const flags: Record<string, NodeJS.Platform> = { '--linux': 'linux', '-l': 'linux', '--win': 'win32', '-w': 'win32', '--windows': 'win32', '--mac': 'darwin', '-m': 'darwin', '--macos': 'darwin' };
  return [...new Set(args.filter((a) => a in flags).map((a) => flags[a]!))];
}
