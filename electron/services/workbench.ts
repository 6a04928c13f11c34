import { openDatabase, openReadOnlyDatabase } from '../../db/connection';
import { flushGroup, type ReadableDB, type WritableDB } from '../../db/sql';
import type { AppInfo, JobKind, JobResult, JobTicket } from '../../shared/api';
import { EventBus } from './events';
import { JobRunner, type JobControl } from './jobs';
import { flushAudit } from './team/audit';
import { writeGateFor, type WriteGate } from './write-gate';

/**
 * The writer jobs that hold one transaction open across their awaits (see WriteGate): those whose
 * work calls `beginWrite`, through importFile, importCorpus (a retrieval evaluation builds its
 * corpus with it) or createRelease.
 */
const EXCLUSIVE_WRITERS: ReadonlySet<JobKind> = new Set(['import', 'corpus-import', 'release', 'retrieval-eval']);

export interface ServiceOptions {
  databasePath: string;
  mode: AppInfo['mode'];
  version: string;
  log?: (message: string) => void;
  /** An offline pack to open at start (pack mode). */
  pack?: string;
  /** How long a write waits for another process's lock (default 5 s; the CLI, which holds nobody up, waits longer). */
  busyTimeoutMs?: number;
}

/**
 * Everything the handlers share: the database, events, the job runner and the keys the desktop
 * shell hands over. Each domain's handlers take the workbench and use what they need.
 */
export class Workbench {
  readonly db: WritableDB;
  /**
   * A read-only connection for the operations that only read (browsing, counts, export): in WAL
   * mode they see every committed write and never an open transaction's, and SQLite refuses a
   * write on it. An in-memory database has one connection, so it reads from `db`.
   */
  readonly reader: ReadableDB;
  readonly events = new EventBus();
  readonly jobs = new JobRunner(this.events);
  /** Which writer jobs may run together (see WriteGate): one gate per database file in the process. */
  readonly writeGate: WriteGate;
  /**
   * API keys handed over by the desktop shell (kept there with Electron's safeStorage), by the
   * name of the environment variable they stand for. Memory only: never the database or logs.
   */
  readonly apiKeys: Record<string, string> = {};

  constructor(readonly options: ServiceOptions) {
    this.db = openDatabase(options.databasePath, { ...(options.log ? { log: options.log } : {}), ...this.lockWait() });
    this.reader = options.databasePath === ':memory:' ? this.db : openReadOnlyDatabase(options.databasePath);
    this.writeGate = writeGateFor(options.databasePath);
  }

  /**
   * A separate connection for a long write (an import), so that its open transaction is not
   * seen by the reads the UI keeps making meanwhile. In-memory databases cannot be shared, so
   * they use the one connection.
   */
  writer(): { db: WritableDB; release(): void } {
    if (this.options.databasePath === ':memory:') return { db: this.db, release: () => undefined };
    const db = openDatabase(this.options.databasePath, this.lockWait());
    return { db, release: () => closeWritable(db) };
  }

  /**
   * Starts a job whose work writes through its own connection (see `writer`), closed however
   * the job ends; answers the operation with the job's id.
   */
  writerJob<Kind extends JobKind>(
    kind: Kind,
    title: string,
    unit: string,
    work: (db: WritableDB, control: JobControl) => Promise<JobResult<Kind>>,
  ): JobTicket<Kind, JobResult<Kind>> {
    const job = this.jobs.start(kind, title, unit, async (control) => {
      let waited = false;
      const leave = await this.writeGate
        .enter(EXCLUSIVE_WRITERS.has(kind) ? 'exclusive' : 'shared', title, control.signal, (detail) => {
          waited = true;
          control.note(detail);
        })
        .finally(() => {
          if (waited) control.note(null);
        });
      try {
        const writer = this.writer();
        let result: JobResult<Kind>;
        try {
          result = await work(writer.db, control);
        } catch (error) {
          // A failed last commit on release never hides the error the work itself threw; it is logged beside it.
          try {
            writer.release();
          } catch (releaseError) {
            this.options.log?.(`${title}: the last commit failed too: ${(releaseError as Error).message}`);
          }
          throw error;
        }
        writer.release();
        return result;
      } finally {
        leave();
      }
    });
    return { jobId: job.id };
  }

  /** Closes the database, first writing any audit row another process's lock held back. */
  close(): void {
    if (!this.db.open) return;
    flushAudit(this.db);
    if (this.reader !== this.db) this.reader.close();
    try {
      closeWritable(this.db);
    } catch (error) {
      // Closing goes on whatever failed: the failure is logged (the answers of a failed group were written again).
      this.options.log?.(`closing the database: ${(error as Error).message}`);
    }
  }

  private lockWait(): { busyTimeoutMs?: number } {
    return this.options.busyTimeoutMs !== undefined ? { busyTimeoutMs: this.options.busyTimeoutMs } : {};
  }
}

/** Commits the connection's open group (the last turn's model answers, say), then closes it; a failed commit is thrown once it is closed. */
function closeWritable(db: WritableDB): void {
  try {
    flushGroup(db);
  } finally {
    db.close();
  }
}

/** Leaves out the keys whose value is undefined (for options under exactOptionalPropertyTypes-like checks). */
export function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
