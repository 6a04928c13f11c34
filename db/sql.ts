import type BetterSqlite3 from 'better-sqlite3';
import { AppError } from '../shared/api/core';
import { databaseFileKey } from './file-key';
import type { SqlFragment } from './sql-text';

/**
 * Running SQL: statements (cached per connection), transactions and the group commit. The text
 * itself is built by the `sql` template of ./sql-text, re-exported here so that a query module
 * imports everything from one place.
 */
export { insertChunks, sql, type SqlFragment, type SqlValue } from './sql-text';

// ---- handles ---------------------------------------------------------------------------------

declare const READ: unique symbol;
declare const WRITE: unique symbol;

/** A connection that queries may read from. */
export type ReadableDB = BetterSqlite3.Database & { readonly [READ]: true };
/** A connection that may also be written: every write function asks for this type. */
export type WritableDB = ReadableDB & { readonly [WRITE]: true };

const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
const CACHE_LIMIT = 512;

function prepare(db: ReadableDB, query: SqlFragment): BetterSqlite3.Statement {
  let cache = statementCache.get(db);
  if (!cache) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let statement = cache.get(query.text);
  if (!statement) {
    statement = db.prepare(query.text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(query.text, statement);
  }
  if (!statement.readonly) {
    if (groupConnections.size > 0) commitOtherGroups(db);
    if (threadWriters.size > 1 && !db.inTransaction) refuseHeldOnThisThread(db);
  }
  return statement;
}

export function all<Row>(db: ReadableDB, query: SqlFragment): Row[] {
  return prepare(db, query).all(...query.params) as Row[];
}

/**
 * Rows as arrays of their values, in the order of the query's columns: for loops that read many
 * rows (export, releases), where making an object of each row costs as much as the query itself.
 */
export function allRaw<Row extends readonly unknown[]>(db: ReadableDB, query: SqlFragment): Row[] {
  return allIn<Row>('raw', db, query);
}

/** Every row, with the statement switched to arrays (`raw`) or first values (`pluck`) for the call. */
function allIn<Row>(mode: 'raw' | 'pluck', db: ReadableDB, query: SqlFragment): Row[] {
  const statement = prepare(db, query);
  statement[mode](true);
  try {
    return statement.all(...query.params) as Row[];
  } finally {
    statement[mode](false);
  }
}

export function get<Row>(db: ReadableDB, query: SqlFragment): Row | undefined {
  return prepare(db, query).get(...query.params) as Row | undefined;
}

export function* iterate<Row>(db: ReadableDB, query: SqlFragment): Generator<Row> {
  yield* prepare(db, query).iterate(...query.params) as IterableIterator<Row>;
}

/** `iterate` with rows as arrays of their values (see `allRaw`). */
export function* iterateRaw<Row extends readonly unknown[]>(db: ReadableDB, query: SqlFragment): Generator<Row> {
  const statement = prepare(db, query);
  statement.raw(true);
  try {
    yield* statement.iterate(...query.params) as IterableIterator<Row>;
  } finally {
    statement.raw(false);
  }
}

export function run(db: WritableDB, query: SqlFragment): BetterSqlite3.RunResult {
  return prepare(db, query).run(...query.params);
}

/** The first column of every row, as a plain array of values (no object or array per row). */
export function column<Value>(db: ReadableDB, query: SqlFragment): Value[] {
  return allIn<Value>('pluck', db, query);
}

/** The single column of the first row, or undefined. */
export function pluck<Value>(db: ReadableDB, query: SqlFragment): Value | undefined {
  const row = get<Record<string, unknown>>(db, query);
  if (row === undefined) return undefined;
  return Object.values(row)[0] as Value;
}

// ---- writes and the write lock ----------------------------------------------------------------
//
// SQLite lets one connection write at a time. Every write transaction here takes the write lock
// at its start (BEGIN IMMEDIATE), so a writer that meets another one waits for the lock at once,
// under the busy handler, instead of failing half-way when it first writes. A wait that runs out
// becomes DatabaseBusyError, a refusal that says nothing was written; work after a COMMIT (planner
// statistics, say) is best-effort and never turns a committed write into a reported failure.

/** SQLite's "the database is locked" family, or a write refused for it: another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  if (error instanceof DatabaseBusyError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** A write refused because another one held the lock for longer than this one would wait (or held it on this very thread). */
export class DatabaseBusyError extends AppError {
  constructor(what = 'nothing was written', onThisThread = false) {
    super(
      'conflict',
      onThisThread
        ? `The database is busy with an import or a release of this app, which writes everything in one transaction; ${what}. Try again when it finishes.`
        : `The database is busy with another write (an import, a release or a run, perhaps in another process) and stayed so for longer than this one waits; ${what}. Try again when it finishes.`,
    );
    this.name = 'DatabaseBusyError';
  }
}

/** This thread's writable connections to files (`openDatabase` registers each), by real path, to tell a wait that cannot end. */
const threadWriters = new Map<WritableDB, string>();

export function registerWriter(db: WritableDB): void {
  // Each in-memory database is its own: none holds another's lock.
  if (!db.memory) threadWriters.set(db, databaseFileKey(db.name));
}


/**
 * Refuses at once a write that would wait for a transaction another connection of this thread
 * holds across its awaits (an import's or a release's `beginWrite`): SQLite's busy handler would
 * sleep this thread, the only one that can end that transaction, for the whole busy timeout, and
 * then fail anyway. Open groups are committed before this is asked, so only such a holder is left.
 */
function refuseHeldOnThisThread(db: ReadableDB): void {
  const file = threadWriters.get(db as WritableDB);
  if (file === undefined) return;
  for (const [other, otherFile] of threadWriters) {
    if (!other.open) threadWriters.delete(other);
    // Only a connection to the same file holds this one's lock.
    else if (other !== db && otherFile === file && other.inTransaction) throw new DatabaseBusyError('nothing was written', true);
  }
}

/**
 * How long a writer that may wait (an import, a release) waits for the lock: AWB_LOCK_WAIT_MS, or
 * ten minutes. Writes that cannot wait without holding up others wait the connection's busy timeout.
 */
export function lockWaitMs(): number {
  const configured = Number(process.env.AWB_LOCK_WAIT_MS);
  return Number.isFinite(configured) && configured >= 0 ? configured : 10 * 60_000;
}

/** Runs `fn` with the connection's busy timeout set to `ms`, then puts the old one back. */
export function withBusyTimeout<T>(db: ReadableDB, ms: number, fn: () => T): T {
  const before = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${Math.max(0, Math.round(ms))}`);
  try {
    return fn();
  } finally {
    db.pragma(`busy_timeout = ${before}`);
  }
}

/**
 * Runs `fn` in a write transaction (nested calls become savepoints). The lock is taken at the
 * start; when another writer keeps it past the busy timeout, nothing runs and DatabaseBusyError
 * says so.
 */
export function transaction<T>(db: WritableDB, fn: () => T): T {
  // Outside any group transaction's own work, a pending group is committed first: this one commits on return, as it always did.
  if (groupDepth === 0) {
    commitPendingGroup(db);
    commitOtherGroups(db);
  }
  if (db.inTransaction) return db.transaction(fn)();
  refuseHeldOnThisThread(db);
  try {
    return db.transaction(fn).immediate();
  } catch (error) {
    if (isBusy(error) && !(error instanceof DatabaseBusyError)) throw new DatabaseBusyError();
    throw error;
  }
}

/**
 * Group commit: `groupTransaction` runs `fn` atomically (a savepoint) inside one write transaction
 * shared by every such call until the event loop turns, and commits it then (setImmediate), or
 * after 200 ms if the turn lasts that long (other writers wait no longer than that). Many
 * small writes made in one turn (a pipeline answered from its cache finishes hundreds of items
 * without waiting on anything; 64 answers in flight arrive several to a turn) cost one commit
 * instead of one each; what a crash loses is at most one turn's writes. A write that must not be
 * lost with its group (a paid model answer: see recordCall) passes `replay`: when the group is
 * rolled back (its commit failed, or a later write in it made SQLite roll it back whole), each such
 * write is made again at once in a transaction of its own, in order. Inside a transaction someone
 * else opened it is a plain nested `transaction`. `flushGroup` commits at once
 * (before closing or handing over the connection); `beginWrite` and `transaction` flush first, so
 * their writes are committed when they return, as before (another connection, a retrieval worker
 * say, sees them at once). A write on another connection of this thread commits every group open
 * on this thread first: it would otherwise wait for a lock that only this thread can release.
 */
/** The connections with an open group, and when it began. */
const openGroups = new WeakMap<ReadableDB, number>();
/** How many group transactions' `fn` are running (a `transaction` inside one is a savepoint of it, not a reason to commit). */
let groupDepth = 0;
/** How long a group may hold the write lock before it commits. */
const GROUP_MAX_MS = 200;
/** A group whose writes were lost (its commit failed on the timer, or SQLite rolled it back whole): every later group write but an answer throws it, until a flush reports it. */
const failedGroups = new WeakMap<ReadableDB, unknown>();
/** The open group's writes to make again should it be rolled back; a replay returns what went wrong where it wrote, but not as before. */
const groupReplays = new WeakMap<ReadableDB, (() => string | void)[]>();
/** This thread's connections with an open group. */
const groupConnections = new Set<WritableDB>();

/** Commits the groups other connections of this thread hold open, before `db` writes (outside any group's own work). */
function commitOtherGroups(db: ReadableDB): void {
  if (groupDepth > 0) return;
  for (const other of groupConnections) if (other !== db) commitPendingGroup(other);
}

/** A group still marked open whose transaction SQLite has ended (a failed write outside it rolled it back, or the connection closed) is lost. */
function checkGroupAlive(db: WritableDB): void {
  if (openGroups.has(db) && (!db.open || !db.inTransaction)) lostGroup(db, new Error('SQLite rolled back the grouped writes (a write beside them failed, or the connection closed)'));
}

function throwFailedGroup(db: ReadableDB, consume: boolean): void {
  if (!failedGroups.has(db)) return;
  const error = failedGroups.get(db);
  if (consume) failedGroups.delete(db);
  throw error;
}

export function groupTransaction<T>(db: WritableDB, fn: () => T, replay?: () => string | void): T {
  checkGroupAlive(db);
  // A turn that never ends (every answer from the cache) still lets other writers in this often.
  if (groupDepth === 0 && performance.now() - (openGroups.get(db) ?? Infinity) > GROUP_MAX_MS) commitPendingGroup(db);
  // A write that must not be lost is made even after an earlier group failed (the failure waits for the next other write or flush).
  if (!replay) throwFailedGroup(db, false);
  if (!db.inTransaction) {
    commitOtherGroups(db);
    refuseHeldOnThisThread(db);
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      if (isBusy(error)) throw new DatabaseBusyError();
      throw error;
    }
    openGroups.set(db, performance.now());
    groupReplays.set(db, []);
    groupConnections.add(db);
    // A timer has no caller to tell of a failed commit: the next group write or flush does.
    setImmediate(() => commitPendingGroup(db));
  }
  const replays = groupReplays.get(db);
  const before = replays?.length ?? 0;
  groupDepth++;
  try {
    const result = db.transaction(fn)();
    if (replay && openGroups.has(db)) groupReplays.get(db)!.push(replay);
    return result;
  } catch (error) {
    // Some errors (a full disk) make SQLite roll back the whole transaction, not only this savepoint.
    if (openGroups.has(db) && !db.inTransaction) lostGroup(db, new Error(`A write failed and took the writes grouped with it along (rolled back): ${(error as Error).message}`));
    // Only this savepoint was undone: so were the writes nested in it, which are not to be made again.
    else if (replays && groupReplays.get(db) === replays) replays.length = before;
    throw error;
  } finally {
    groupDepth--;
  }
}

/** Commits the open group transaction, if any (its writes are lost, and this throws, when the commit fails). */
function commitGroup(db: WritableDB): void {
  checkGroupAlive(db);
  if (!openGroups.has(db)) return;
  try {
    db.exec('COMMIT');
    openGroups.delete(db);
    groupReplays.delete(db);
    groupConnections.delete(db);
  } catch (error) {
    rollback(db);
    lostGroup(db, error);
    throw error;
  }
}

/**
 * A group rolled back: its writes that must not be lost are made again, each in a transaction of
 * its own, in order; the failure is kept for the next group write or flush to report (the group's
 * other writes are gone), with every replay that failed or wrote otherwise than before.
 */
function lostGroup(db: WritableDB, error: unknown): void {
  openGroups.delete(db);
  groupConnections.delete(db);
  const replays = groupReplays.get(db) ?? [];
  groupReplays.delete(db);
  const problems: string[] = [];
  for (const replay of replays) {
    try {
      const problem = db.transaction(replay).immediate();
      if (problem) problems.push(problem);
    } catch (replayError) {
      problems.push(`writing it again failed: ${(replayError as Error).message}`);
    }
  }
  const written = replays.length - problems.length;
  const what = `The grouped writes were lost (${(error as Error).message})${replays.length ? `; ${written} of ${replays.length} answers written again${problems.length ? `, not as before: ${problems.join('; ')}` : ''}` : ''}`;
  // A failure not yet reported stays in the report: a later one is added to it, never put in its place.
  const earlier = failedGroups.get(db);
  failedGroups.set(db, new Error(earlier ? `${(earlier as Error).message}; then: ${what}` : what));
}

/**
 * Commits the open group before another write. A group that fails to commit does not take that
 * write down with it (a paid answer being recorded, say): its failure is kept, and the next group
 * write and the run's flush report it.
 */
function commitPendingGroup(db: WritableDB): void {
  try {
    commitGroup(db);
  } catch {
    // Kept in failedGroups by commitGroup.
  }
}

/** Commits the open group transaction at once; throws when it, or one committed on the timer since, failed. */
export function flushGroup(db: WritableDB): void {
  try {
    commitGroup(db);
  } finally {
    throwFailedGroup(db, true);
  }
}

/** `flushGroup` for a run that ends: the failure's message, or null, instead of a throw (its status then says failed, with it). */
export function settleGroup(db: WritableDB): string | null {
  try {
    flushGroup(db);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Runs `fn`'s reads in one read transaction, so they all see the database as it was when the
 * first began, whatever another connection commits meanwhile (inside a transaction, in that one).
 */
export function readSnapshot<T>(db: ReadableDB, fn: () => T): T {
  if (db.inTransaction) return fn();
  return db.transaction(fn).deferred();
}

const lockWaitListeners = new Set<() => void>();

/**
 * Hears each time a writer of this process starts waiting for another's lock (the CLI says so on
 * stderr, so that a script or a person knows why nothing moves). Returns the unsubscribe.
 */
export function onLockWait(listener: () => void): () => void {
  lockWaitListeners.add(listener);
  return () => lockWaitListeners.delete(listener);
}

export interface WriteWait {
  /** How long to wait for the lock (default: lockWaitMs()). */
  waitMs?: number;
  signal?: AbortSignal;
  /** Called once, when the lock is taken by another writer and this one starts waiting. */
  onWait?: () => void;
}

/**
 * Opens a write transaction held open by hand, for work that awaits between its writes (imports
 * that stream a file), which `transaction` cannot span. While another writer holds the lock it
 * waits without blocking the process (short tries, with pauses between them), up to `waitMs`.
 * End it with `commit` or `rollback`.
 */
export async function beginWrite(db: WritableDB, wait: WriteWait = {}): Promise<void> {
  commitPendingGroup(db);
  commitOtherGroups(db);
  const deadline = Date.now() + (wait.waitMs ?? lockWaitMs());
  let waiting = false;
  for (;;) {
    wait.signal?.throwIfAborted();
    try {
      withBusyTimeout(db, 50, () => db.exec('BEGIN IMMEDIATE'));
      return;
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() >= deadline) throw new DatabaseBusyError();
      if (!waiting) {
        waiting = true;
        wait.onWait?.();
        for (const listener of lockWaitListeners) listener();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Commits, then runs `after` (planner statistics, a notice) as best-effort work: once COMMIT has
 * returned the write is done, and nothing after it may report it as failed.
 */
export function commit(db: WritableDB, after?: () => void): void {
  db.exec('COMMIT');
  if (!after) return;
  try {
    after();
  } catch {
    // Best-effort by design: the write is committed whatever happens here.
  }
}

/** Undoes the open transaction, if there is one. */
export function rollback(db: WritableDB): void {
  if (db.inTransaction) db.exec('ROLLBACK');
}

/** The plan SQLite would use, one detail line per step (for query-plan tests and the bench). */
export function explain(db: ReadableDB, query: SqlFragment): string[] {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[];
  return rows.map((row) => row.detail);
}
