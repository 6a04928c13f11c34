import { randomUUID } from 'node:crypto';
import { AppError, isCancelled, type ApiError, type Job, type JobKind, type JobOf, type JobResult } from '../../shared/api';
import type { EventBus } from './events';

export interface JobControl {
  signal: AbortSignal;
  /** Reports progress; events are throttled to a few per second. */
  progress(done: number, total: number | null, detail?: string): void;
  /** Sets or clears the job's detail line alone (a wait for another job, say). */
  note(detail: string | null): void;
}

/**
 * A job as the runner holds it: any kind, any result. `start` alone creates them, and its
 * signature pairs each kind with its result type, so handing one out as a `Job` is sound.
 */
type HeldJob = Omit<JobOf<JobKind>, 'result'> & { result: unknown };
const asJob = (job: HeldJob): Job => ({ ...job }) as Job;

interface JobEntry {
  job: HeldJob;
  controller: AbortController;
  lastEmit: number;
}

const THROTTLE_MS = 200;
const KEEP_FINISHED = 50;

/**
 * Long work (imports, exports, later pipeline runs) runs as a job: it returns an id at once,
 * streams `job:progress` with an ETA, ends with `job:done`, and can be cancelled.
 */
export class JobRunner {
  private readonly jobs = new Map<string, JobEntry>();

  constructor(private readonly events: EventBus) {}

  /** Starts `work` as a job of `kind`; its result must be what that kind ends with. */
  start<Kind extends JobKind>(kind: Kind, title: string, unit: string, work: (control: JobControl) => Promise<JobResult<Kind>>): JobOf<Kind> {
    const job: HeldJob = {
      id: randomUUID(),
      kind,
      title,
      state: 'running',
      done: 0,
      total: null,
      unit,
      startedAt: new Date().toISOString(),
      etaSeconds: null,
      detail: null,
      result: null,
      error: null,
    };
    const entry = { job, controller: new AbortController(), lastEmit: 0 };
    this.jobs.set(job.id, entry);
    let phaseStarted = Date.now();
    const control: JobControl = {
      signal: entry.controller.signal,
      progress: (done, total, detail) => {
        if (detail !== undefined && detail !== job.detail) {
          // A new phase (a pipeline stage) restarts the ETA's clock.
          if (job.detail?.split(' ')[0] !== detail.split(' ')[0]) phaseStarted = Date.now();
          job.detail = detail;
        }
        job.done = done;
        job.total = total;
        const elapsed = (Date.now() - phaseStarted) / 1000;
        job.etaSeconds = total && done > 0 && elapsed > 0.5 ? Math.max(0, ((total - done) * elapsed) / done) : null;
        const now = Date.now();
        if (now - entry.lastEmit >= THROTTLE_MS) {
          entry.lastEmit = now;
          this.events.emit('job:progress', asJob(job));
        }
      },
      note: (detail) => {
        job.detail = detail;
        this.events.emit('job:progress', asJob(job));
      },
    };
    this.events.emit('job:progress', asJob(job));
    // Start on the next tick so the caller gets the id before any event about it.
    setImmediate(() => {
      work(control).then(
        (result) => this.finish(job, 'done', result, null),
        (error: unknown) => {
          // Cancelled: a stop, or whatever a cancel made the work throw, but not a failure of its own
          // said as such (a run that lost its last commit while being cancelled fails).
          const cancelled = isCancelled(error) || (entry.controller.signal.aborted && !(error instanceof AppError));
          const apiError: ApiError =
            error instanceof AppError ? error.toApiError() : { code: 'internal', message: (error as Error).message ?? String(error) };
          this.finish(job, cancelled ? 'cancelled' : 'failed', null, apiError);
        },
      );
    });
    return asJob(job) as JobOf<Kind>;
  }

  private finish(job: HeldJob, state: Job['state'], result: unknown, error: ApiError | null): void {
    job.state = state;
    job.result = result;
    job.error = error;
    job.etaSeconds = null;
    if (state === 'done') this.events.emit('data:changed', { reason: job.kind });
    this.events.emit('job:done', asJob(job));
    const finished = [...this.jobs.values()].filter((e) => e.job.state !== 'running');
    for (const stale of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(stale.job.id);
  }

  list(): Job[] {
    return [...this.jobs.values()].map((e) => asJob(e.job));
  }

  get(id: string): Job {
    const entry = this.jobs.get(id);
    if (!entry) throw new AppError('not_found', `No job ${id}`);
    return asJob(entry.job);
  }

  cancel(id: string): Job {
    const entry = this.jobs.get(id);
    if (!entry) throw new AppError('not_found', `No job ${id}`);
    if (entry.job.state === 'running') entry.controller.abort();
    return asJob(entry.job);
  }

  /** Resolves when the job ends (for the CLI and tests). */
  wait(id: string): Promise<Job> {
    const current = this.get(id);
    if (current.state !== 'running') return Promise.resolve(current);
    return new Promise((resolve) => {
      const off = this.events.subscribe((message) => {
        if (message.name === 'job:done' && (message.payload as Job).id === id) {
          off();
          resolve(message.payload as Job);
        }
      });
    });
  }
}
