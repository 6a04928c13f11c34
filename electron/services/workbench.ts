import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import type { AppInfo, JobKind, JobResult, JobTicket } from '../../shared/api';
import { EventBus } from './events';
import { JobRunner, type JobControl } from './jobs';

export interface ServiceOptions {
  databasePath: string;
  mode: AppInfo['mode'];
  version: string;
  log?: (message: string) => void;
  /** An offline pack to open at start (pack mode). */
  pack?: string;
}

/**
 * Everything the handlers share: the database, events, the job runner and the keys the desktop
 * shell hands over. Each domain's handlers take the workbench and use what they need.
 */
export class Workbench {
  readonly db: WritableDB;
  readonly events = new EventBus();
  readonly jobs = new JobRunner(this.events);
  /**
   * API keys handed over by the desktop shell (kept there with Electron's safeStorage), by the
   * name of the environment variable they stand for. Memory only: never the database or logs.
   */
  readonly apiKeys: Record<string, string> = {};

  constructor(readonly options: ServiceOptions) {
    this.db = openDatabase(options.databasePath, options.log ? { log: options.log } : {});
  }

  /**
   * A separate connection for a long write (an import), so that its open transaction is not
   * seen by the reads the UI keeps making meanwhile. In-memory databases cannot be shared, so
   * they use the one connection.
   */
  writer(): { db: WritableDB; release(): void } {
    if (this.options.databasePath === ':memory:') return { db: this.db, release: () => undefined };
    const db = openDatabase(this.options.databasePath);
    return { db, release: () => db.close() };
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
      const writer = this.writer();
      try {
        return await work(writer.db, control);
      } finally {
        writer.release();
      }
    });
    return { jobId: job.id };
  }

  close(): void {
    this.db.close();
  }
}

/** Leaves out the keys whose value is undefined (for options under exactOptionalPropertyTypes-like checks). */
export function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
