import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, vi } from 'vitest';
import { ROOT } from './db';
import { findPostgres, pgVersion, thisMachine, type PgBinaries } from './postgres-binaries';

/**
 * A throwaway PostgreSQL cluster for the team tests: `initdb` into a temporary folder and
 * `pg_ctl` on a free loopback port, never a shared cluster. Which PostgreSQL runs is chosen by
 * postgres-binaries.ts (AWB_PG_BIN, a system one, or the npm one) and printed once per process.
 * As root (initdb refuses root) the cluster runs through runuser as another user: AWB_PG_USER,
 * else the `postgres` system user where there is one, else `nobody`.
 */

const run = promisify(execFile);

export const PG_PASSWORD = 'awb-test-secret-7a1';

export interface ClusterOptions {
  /** A fixed port; taken means an error. Default: a free one. */
  port?: number;
  /** Where the data folder goes. Default: the system temp folder. */
  parentDir?: string;
  /** Which PostgreSQL. Default: the run's (postgresForRun). */
  binaries?: PgBinaries;
}

export interface PgCluster {
  port: number;
  /** postgres://postgres:PASSWORD@127.0.0.1:PORT/DB */
  url(database?: string): string;
  /** The URL without the password (it then comes from PGPASSWORD). */
  bareUrl(database?: string): string;
  createDatabase(name: string): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

let chosen: PgBinaries | null = null;

/** The binaries for this run, found and announced once per process. */
export function postgresForRun(): PgBinaries {
  if (!chosen) {
    const found = findPostgres(thisMachine(path.join(ROOT, 'node_modules')));
    process.stderr.write(`team tests: ${pgVersion(found.bin)} from ${found.label}\n`);
    chosen = found;
  }
  return chosen;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Who runs PostgreSQL: this user, or (as root) AWB_PG_USER, else `postgres` where it exists,
 * else `nobody`.
 */
function clusterUser(): string | null {
  if (process.getuid?.() !== 0) return null;
  if (process.env.AWB_PG_USER) return process.env.AWB_PG_USER;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return 'nobody';
  }
}

/**
 * As root, the cluster's user must be able to run the binaries; npm's copy may sit under a
 * folder only root can enter (/root/project/node_modules). Then use a copy in the temp folder,
 * made once per binaries folder.
 */
function binariesFor(user: string | null, found: PgBinaries): string {
  if (!user) return found.bin;
  const reachable = (bin: string) => {
    try {
      execFileSync('runuser', ['-u', user, '--', path.join(bin, 'initdb'), '--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (reachable(found.bin)) return found.bin;
  const install = path.dirname(found.bin);
  const copy = path.join(os.tmpdir(), `awb-pg-bin-${crypto.createHash('sha256').update(install).digest('hex').slice(0, 12)}`);
  if (!fs.existsSync(path.join(copy, 'bin', 'initdb'))) {
    const partial = `${copy}.${process.pid}`;
    fs.cpSync(install, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    try {
      fs.renameSync(partial, copy);
    } catch (error) {
      // Another test process made the copy first.
      fs.rmSync(partial, { recursive: true, force: true });
      if (!fs.existsSync(path.join(copy, 'bin', 'initdb'))) throw error;
    }
  }
  if (!reachable(path.join(copy, 'bin'))) {
    throw new Error(`PostgreSQL must run as ${user} (initdb refuses root), and ${user} cannot run ${found.bin} nor a copy in ${copy}. Run the tests as an ordinary user.`);
  }
  return path.join(copy, 'bin');
}

/** The last lines of the server log, for an error message. */
function logTail(file: string): string {
  if (!fs.existsSync(file)) return '(no server log)';
  return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-6).join('\n');
}

function makeDataParent(parentDir: string, user: string | null): string {
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(parentDir, 'awb-pg-'));
  } catch (error) {
    throw new Error(
      `Cannot create the PostgreSQL data folder in ${parentDir} (${(error as NodeJS.ErrnoException).code}): the folder is not writable. ` +
        'Set TMPDIR to a folder you can write to.',
      { cause: error },
    );
  }
  if (user) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['-R', `${user}:`, dir]);
  }
  return dir;
}

/** Runs one of the PostgreSQL programs, as the cluster's user. */
type Runner = (program: string, args: string[]) => Promise<unknown>;

function runnerFor(bin: string, user: string | null, cwd: string): Runner {
  return (program, args) => {
    const [cmd, full] = user ? ['runuser', ['-u', user, '--', path.join(bin, program), ...args]] : [path.join(bin, program), args];
    return run(cmd, full, { cwd });
  };
}

/** `initdb` into dir/data with the test password; on failure removes dir and says why. */
async function initialise(runProgram: Runner, dir: string, found: PgBinaries, user: string | null): Promise<string> {
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (user) execFileSync('chown', [`${user}:`, pwfile]);
  try {
    await runProgram('initdb', ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync']);
    return data;
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `initdb (${found.label}) could not create the data folder ${data}${user ? ` as ${user}` : ''}: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}\n` +
        `The folder must be writable${user ? ` and reachable by ${user} (initdb refuses root)` : ''}: set TMPDIR to such a folder${user ? ', for example /tmp' : ''}.`,
      { cause: error },
    );
  }
}

/**
 * Starts the server on 127.0.0.1. A free port can be taken between choosing and binding it: then
 * it chooses again (twice); a fixed port is never changed. Returns the port it listens on.
 */
async function startServer(runProgram: Runner, dir: string, data: string, found: PgBinaries, port: number, fixed: boolean): Promise<number> {
  const log = path.join(dir, 'log');
  for (let attempt = 0; ; attempt++) {
    const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60${process.platform === 'win32' ? '' : ` -k ${dir}`}`;
    try {
      await runProgram('pg_ctl', ['-D', data, '-o', settings, '-l', log, '-w', '-t', '60', 'start']);
      return port;
    } catch (error) {
      const tail = logTail(log);
      const portTaken = /could not bind|Address already in use/i.test(tail);
      if (portTaken && !fixed && attempt < 2) {
        port = await freePort();
        continue;
      }
      throw new Error(
        `PostgreSQL (${found.label}) did not start on 127.0.0.1:${port} with its data in ${data}. The server log ends:\n${tail}\n` +
          (portTaken ? `Port ${port} is taken: stop the program using it, or leave the port out.` : 'Check that the data folder is writable and the binaries run on this machine.'),
        { cause: error },
      );
    }
  }
}

export async function startCluster(options: ClusterOptions = {}): Promise<PgCluster> {
  const found = options.binaries ?? postgresForRun();
  const user = clusterUser();
  const bin = binariesFor(user, found);
  if (options.port !== undefined && !(await portIsFree(options.port))) {
    throw new Error(`Port ${options.port} on 127.0.0.1 is taken by another program, so PostgreSQL cannot listen there. Stop that program, or leave the port out to take a free one.`);
  }
  const dir = makeDataParent(options.parentDir ?? os.tmpdir(), user);
  const runProgram = runnerFor(bin, user, dir);
  const data = await initialise(runProgram, dir, found, user);
  const port = await startServer(runProgram, dir, data, found, options.port ?? (await freePort()), options.port !== undefined);
  const url = (database = 'postgres') => `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${port}/${database}`;
  let running = true;
  return {
    port,
    url,
    bareUrl: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      await client.end();
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await runProgram('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async start() {
      if (running) return;
      await startServer(runProgram, dir, data, found, port, true);
      running = true;
    },
    async destroy() {
      try {
        if (running) await runProgram('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface TableLock {
  /** Settles once another connection waits for the lock: the sync has reached the table. */
  waited(): Promise<void>;
  /** Lets the waiting connection go on (harmless if the cluster was stopped meanwhile). */
  release(): Promise<void>;
}

/**
 * Holds a lock on a store table from a connection of its own, so a sync that reaches the table
 * waits there. The test then acts (kills the process, stops the cluster) at a known point of the
 * sync instead of after a guessed delay. `SHARE` stops writers only; `ACCESS EXCLUSIVE` readers too.
 */
export async function lockTable(url: string, table: string, mode: 'SHARE' | 'ACCESS EXCLUSIVE'): Promise<TableLock> {
  const pg = (await import('pg')).default;
  const holder = new pg.Client({ connectionString: url });
  // The cluster may be stopped under the lock: its connection then ends, and that is expected.
  holder.on('error', () => undefined);
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${table} IN ${mode} MODE`);
  const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    async waited() {
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      try {
        await vi.waitFor(
          async () => {
            const blocked = await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
            expect(blocked.rows[0]!.n).toBeGreaterThan(0);
          },
          { timeout: 60_000, interval: 10 },
        );
      } finally {
        await watcher.end();
      }
    },
    async release() {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end().catch(() => undefined);
    },
  };
}
