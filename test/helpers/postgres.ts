import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, vi } from 'vitest';

/**
 * A throwaway PostgreSQL cluster for the team tests: `initdb` into a temporary folder and
 * `pg_ctl` on a free loopback port, never a shared cluster. PostgreSQL must be installed (CI
 * installs Debian's `postgresql`); without it the tests fail and say so, they do not skip.
 * As root (initdb refuses root) the cluster runs as the `postgres` system user.
 */

const run = promisify(execFile);

export const PG_PASSWORD = 'awb-test-secret-7a1';

function findBin(): string {
  const candidates: string[] = [];
  for (const base of ['/usr/lib/postgresql', '/usr/local/lib/postgresql']) {
    if (!fs.existsSync(base)) continue;
    for (const version of fs.readdirSync(base).sort((a, b) => Number(b) - Number(a))) candidates.push(path.join(base, version, 'bin'));
  }
  candidates.push('/usr/local/pgsql/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin');
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error(
      'PostgreSQL is needed for the team-mode tests and was not found (no initdb/pg_ctl under /usr/lib/postgresql/*/bin or on the usual paths). ' +
        'Install it: sudo apt-get install postgresql (Debian/Ubuntu), or brew install postgresql.',
    );
  }
  return found;
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

export async function startCluster(): Promise<PgCluster> {
  const bin = findBin();
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-pg-'));
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  }
  const exec = async (file: string, args: string[]) => {
    const [cmd, full] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args]] : [path.join(bin, file), args];
    return run(cmd, full, { cwd: dir });
  };
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = async () => {
    await exec('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  };
  await start();
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
      await exec('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async start() {
      if (running) return;
      await start();
      running = true;
    },
    async destroy() {
      try {
        if (running) await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
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
