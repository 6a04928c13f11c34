import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { migrate } from './migrate';
import { registerWriter, withBusyTimeout, type ReadableDB, type WritableDB } from './sql';

export interface OpenOptions {
  /** Called once with the SQLite and sqlite-vec versions (and the schema migration, if any). */
  log?: (message: string) => void;
  /** Skip migrations (for tools that inspect a database without changing it). */
  migrate?: boolean;
  /** Called with the text of every statement the connection runs (tests count reads with it). */
  trace?: (statement: string) => void;
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
 * Where a native file inside the app's asar archive really is: SQLite opens extensions by path,
 * and a packaged app keeps them unpacked beside the archive, while the sqlite-vec package
 * resolves the path inside it (sqlite-vec issue #194). Outside a packaged app, the path itself.
 */
export function outsideAsar(file: string): string {
  return file.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
}

/** A better-sqlite3 connection with sqlite-vec loaded and FTS5 checked; closed again if either fails. */
function connect(file: string, options: OpenOptions & { readonly?: boolean; mustExist?: boolean }): Database.Database {
  let db: Database.Database;
  try {
    // AWB_SQLITE_BINDING: a better-sqlite3 build for Electron's ABI (see scripts/start.mjs).
    const nativeBinding = process.env.AWB_SQLITE_BINDING;
    db = new Database(file, {
      ...(nativeBinding ? { nativeBinding } : {}),
      ...(options.readonly ? { readonly: true, fileMustExist: true } : options.mustExist ? { fileMustExist: true } : {}),
      ...(options.trace ? { verbose: (statement: unknown) => options.trace!(String(statement)) } : {}),
    });
  } catch (error) {
    throw new DatabaseOpenError(`Cannot open the database at ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    try {
      db.loadExtension(outsideAsar(sqliteVec.getLoadablePath()));
    } catch (error) {
      throw new DatabaseOpenError(
        `The sqlite-vec extension could not be loaded (${(error as Error).message}). ` +
          'Reinstall dependencies with `npm ci`; in a packaged app, sqlite-vec must be unpacked from the asar archive.',
        { cause: error },
      );
    }
    const versions = engineVersions(db);
    if (!versions.fts5) throw new DatabaseOpenError('This SQLite build lacks FTS5, which full-text search needs.');
    options.log?.(`SQLite ${versions.sqlite}, sqlite-vec ${versions.sqliteVec}, FTS5 on: ${file}${options.readonly ? ' (read-only)' : ''}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** The pragmas every connection takes, reading or writing: wait on a busy lock, sort in memory, a 64 MB page cache. */
function readPragmas(db: Database.Database, busyTimeoutMs = 5000): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.round(busyTimeoutMs))}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('cache_size = -65536');
}

/**
 * Opens (creating if needed) a workbench database: loads sqlite-vec first and fails fast when it
 * cannot, checks FTS5, sets WAL and foreign keys, then brings the schema up to date.
 */
export function openDatabase(file: string, options: OpenOptions = {}): WritableDB {
  const inMemory = file === ':memory:';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = connect(file, options);
  try {
    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new DatabaseOpenError(`Could not switch ${file} to WAL mode (got ${String(mode)}).`);
    }
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    readPragmas(db, options.busyTimeoutMs);
    if (options.migrate !== false) {
      const { from, to } = migrate(db);
      if (from !== to) options.log?.(`Schema migrated from version ${from} to ${to}.`);
    }
    registerWriter(db as WritableDB);
  } catch (error) {
    db.close();
    throw error;
  }
  return db as WritableDB;
}

/**
 * A second connection to a database that `openDatabase` has opened (and migrated), which can only
 * read: SQLite refuses any write on it (SQLITE_READONLY), whatever the code asks. In WAL mode its
 * reads neither wait for the writer nor see a write before it commits, and each statement sees
 * every write committed before it began. The type says so too: it is a `ReadableDB`, so no write
 * function of db/queries accepts it.
 */
export function openReadOnlyDatabase(file: string, options: Pick<OpenOptions, 'log' | 'trace'> = {}): ReadableDB {
  if (file === ':memory:') throw new DatabaseOpenError('An in-memory database has no second connection to read it from.');
  const db = connect(file, { ...options, readonly: true });
  try {
    const mode = db.pragma('journal_mode', { simple: true });
    if (mode !== 'wal') throw new DatabaseOpenError(`${file} is not in WAL mode (got ${String(mode)}): open it for writing first.`);
    readPragmas(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db as ReadableDB;
}

/** Per connection, while anything has changed it: its own checkpoint threshold, the holds that turn it off, and the bulk writes under way. */
interface CheckpointSetting {
  pages: number;
  holds: number;
  bulk: number;
}
const settings = new WeakMap<WritableDB, CheckpointSetting>();

/** Pages of log a batched bulk write lets build up before its connection checkpoints (64 MB; SQLite's default is 1,000). */
export const BULK_CHECKPOINT_PAGES = 16_384;

const threshold = (s: CheckpointSetting) => (s.holds > 0 || s.pages <= 0 ? 0 : s.bulk > 0 ? Math.max(s.pages, BULK_CHECKPOINT_PAGES) : s.pages);

/** Applies a change to a connection's checkpoint setting; the returned function undoes it (once), the original coming back when nothing is left. */
function changeCheckpoints(db: WritableDB, apply: (s: CheckpointSetting) => void, undo: (s: CheckpointSetting) => void): () => void {
  let state = settings.get(db);
  if (!state) {
    state = { pages: db.pragma('wal_autocheckpoint', { simple: true }) as number, holds: 0, bulk: 0 };
    settings.set(db, state);
  }
  apply(state);
  db.pragma(`wal_autocheckpoint = ${threshold(state)}`);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    undo(state);
    const idle = state.holds === 0 && state.bulk === 0;
    if (idle) settings.delete(db);
    try {
      if (db.open) db.pragma(`wal_autocheckpoint = ${idle ? state.pages : threshold(state)}`);
    } catch {
      // A setting that cannot be put back must not fail whatever undid it: at worst this
      // connection checkpoints by itself more or less often (closing it still does).
    }
  };
}

/**
 * Turns off the checkpoint SQLite runs on this connection at a commit once the write-ahead log has
 * grown past its threshold, until the returned function has been called (by every holder, when
 * several hold it). After a write of hundreds of megabytes (an import, a release) that checkpoint
 * copies the whole log into the database file, with its syncs, before the commit returns; a holder
 * checkpoints from another thread instead (`checkpointFile`). Commits are as durable as every other
 * commit here (synchronous = NORMAL: a power cut may lose the last commits, never corrupt the
 * file), and should the other thread never checkpoint, the next commit after the hold does.
 */
export function holdCheckpoints(db: WritableDB): () => void {
  return changeCheckpoints(
    db,
    (s) => s.holds++,
    (s) => s.holds--,
  );
}

/**
 * Lets a write made of many committed batches (a corpus import, embedding a corpus) build up
 * `BULK_CHECKPOINT_PAGES` of log between this connection's checkpoints, until the returned function
 * is called. At SQLite's default a batch of a few megabytes checkpoints at nearly every commit, each
 * time copying again the pages every batch touches (the search index's, the indexes' inner pages)
 * and syncing the file; less often, those copies and syncs are paid once per 64 MB. Each batch is
 * still committed on its own. A hold meanwhile still turns checkpoints off.
 */
export function checkpointLessOften(db: WritableDB): () => void {
  return changeCheckpoints(
    db,
    (s) => s.bulk++,
    (s) => s.bulk--,
  );
}

/**
 * Copies the write-ahead log into the database file from a connection of its own, without
 * waiting for any reader or writer (SQLite's passive checkpoint: what a reader still uses is left
 * for the next one). A read-only connection cannot checkpoint, so this one can write, but runs
 * nothing else, and never creates the file: one removed meanwhile is an error (nothing to do).
 * Returns the log's frames and those now in the file.
 */
export function checkpointFile(file: string): { log: number; checkpointed: number } {
  const db = connect(file, { mustExist: true });
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return { log: result?.log ?? 0, checkpointed: result?.checkpointed ?? 0 };
  } finally {
    db.close();
  }
}
