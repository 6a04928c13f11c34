import { pgMigrations, type PgMigration } from './migrations';
import { pgAll, pgRun, pgSql, type PgClient } from './sql';

/**
 * Brings the shared store's schema up to date. An advisory lock keeps two desktops that sync for
 * the first time at once from applying the same step twice; each step commits with its version row.
 */
export async function migratePostgres(client: PgClient, list: readonly PgMigration[] = pgMigrations): Promise<number> {
  await client.query(`CREATE TABLE IF NOT EXISTS awb_schema_versions (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  let applied = 0;
  for (const migration of list) {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(4242014)');
      const done = await pgAll<{ version: number }>(client, pgSql`SELECT version FROM awb_schema_versions WHERE version = ${migration.version}`);
      if (done.length === 0) {
        await client.query(migration.sql);
        await pgRun(client, pgSql`INSERT INTO awb_schema_versions (version, name) VALUES (${migration.version}, ${migration.name})`);
        applied++;
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
  const newest = await pgAll<{ v: number | null }>(client, pgSql`SELECT max(version) AS v FROM awb_schema_versions`);
  const known = list.at(-1)?.version ?? 0;
  if ((newest[0]?.v ?? 0) > known) {
    throw new Error(`The shared store was set up by a newer Ambiguity Workbench (schema ${newest[0]?.v}; this one knows up to ${known}). Upgrade this desktop before syncing.`);
  }
  return applied;
}
