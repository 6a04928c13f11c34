import type BetterSqlite3 from 'better-sqlite3';
import { migrations as registry } from './migrations';

export interface Migration {
  /** Consecutive from 1; stored in `PRAGMA user_version` once applied. */
  readonly version: number;
  readonly name: string;
  up(db: BetterSqlite3.Database): void;
}

export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `This database was written by a newer version of Ambiguity Workbench (schema version ${found}; ` +
        `this version knows up to ${known}). Open it with the newer version, or upgrade this one. ` +
        `Nothing in the file was changed.`,
    );
    this.name = 'SchemaTooNewError';
  }
}

export function schemaVersion(db: BetterSqlite3.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function latestVersion(list: readonly Migration[] = registry): number {
  return list.at(-1)?.version ?? 0;
}

/** Throws unless versions run 1, 2, 3... without gaps or repeats. */
export function checkRegistry(list: readonly Migration[]): void {
  list.forEach((migration, i) => {
    if (migration.version !== i + 1) {
      throw new Error(`Migration ${migration.name} has version ${migration.version}; expected ${i + 1}`);
    }
  });
}

/**
 * Applies every pending migration in one transaction: either the database reaches the latest
 * schema or it is left exactly as it was. A failed migration is fatal, never skipped.
 */
export function migrate(db: BetterSqlite3.Database, list: readonly Migration[] = registry): { from: number; to: number } {
  checkRegistry(list);
  const from = schemaVersion(db);
  const to = latestVersion(list);
  if (from > to) throw new SchemaTooNewError(from, to);
  const pending = list.filter((migration) => migration.version > from);
  if (pending.length === 0) return { from, to: from };
  db.transaction(() => {
    for (const migration of pending) {
      try {
        migration.up(db);
      } catch (error) {
        throw new Error(`Migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      // user_version lives in the file header, which is written as part of this transaction.
      db.pragma(`user_version = ${Number(migration.version)}`);
    }
  }).immediate();
  return { from, to };
}
