import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { migrate } from './migrate';
import { withBusyTimeout, type WritableDB } from './sql';

export interface OpenOptions {
  /** Called once with the SQLite and sqlite-vec versions (and the schema migration, if any). */
  log?: (message: string) => void;
  /** Skip migrations (for tools that inspect a database without changing it). */
  migrate?: boolean;
  /** How long a statement waits for another connection's write lock before failing (default 5 s). */
  busyTimeoutMs?: number;
}

export interface EngineVersions {
  sqlite: string;
  sqliteVec: string;
  fts5: boolean;
}

export class DatabaseOpenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}

/**
 * Lets SQLite refresh its planner statistics where a large write changed them (cheap when nothing
 * did). It runs after a commit, so it is best-effort: when another writer holds the lock it is
 * left for the next time rather than waited for, and it never fails the write before it.
 */
export function optimize(db: WritableDB): void {
  try {
    withBusyTimeout(db, 0, () => db.pragma('optimize'));
  } catch {
    // Statistics are refreshed by the next large write instead.
  }
}

export function engineVersions(db: Database.Database): EngineVersions {
  const row = db.prepare('SELECT sqlite_version() AS sqlite, vec_version() AS vec').get() as {
    sqlite: string;
    vec: string;
  };
  const fts5 = (db.pragma('compile_options') as { compile_options: string }[]).some(
    (option) => option.compile_options === 'ENABLE_FTS5',
  );
  return { sqlite: row.sqlite, sqliteVec: row.vec, fts5 };
}

/**
 * Opens (creating if needed) a workbench database: loads sqlite-vec first and fails fast when it
 * cannot, checks FTS5, sets WAL and foreign keys, then brings the schema up to date.
 */
export function openDatabase(file: string, options: OpenOptions = {}): WritableDB {
  const inMemory = file === ':memory:';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  let db: Database.Database;
  try {
    // AWB_SQLITE_BINDING: a better-sqlite3 build for Electron's ABI (see scripts/start.mjs).
    const nativeBinding = process.env.AWB_SQLITE_BINDING;
    db = new Database(file, nativeBinding ? { nativeBinding } : {});
  } catch (error) {
    throw new DatabaseOpenError(`Cannot open the database at ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    try {
      // In a packaged app the extension is unpacked beside the asar archive, while its package
      // resolves the path inside it (sqlite-vec issue #194): load it from the unpacked copy.
      db.loadExtension(sqliteVec.getLoadablePath().replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2'));
    } catch (error) {
      throw new DatabaseOpenError(
        `The sqlite-vec extension could not be loaded (${(error as Error).message}). ` +
          'Reinstall dependencies with `npm ci`; in a packaged app, sqlite-vec must be unpacked from the asar archive.',
        { cause: error },
      );
    }
    const versions = engineVersions(db);
    if (!versions.fts5) throw new DatabaseOpenError('This SQLite build lacks FTS5, which full-text search needs.');
    options.log?.(`SQLite ${versions.sqlite}, sqlite-vec ${versions.sqliteVec}, FTS5 on: ${file}`);

    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new DatabaseOpenError(`Could not switch ${file} to WAL mode (got ${String(mode)}).`);
    }
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.round(options.busyTimeoutMs ?? 5000))}`);
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -65536');
    if (options.migrate !== false) {
      const { from, to } = migrate(db);
      if (from !== to) options.log?.(`Schema migrated from version ${from} to ${to}.`);
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db as WritableDB;
}
