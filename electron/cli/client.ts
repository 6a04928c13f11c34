import { AppError, dispatch, isInputRefusal, type ErrorCode, type ErrorHint, type Input, jobResult, type Job, type JobOperationName, type JobResultOf, type JobTicket, type OperationName, type Output } from '../../shared/api';
import { databasePath, progressLine, version, type CommonOptions } from './common';
import { lockWaitMs, onLockWait } from '../../db/sql';
import { createHandlers, Workbench } from '../services';

/**
 * The CLI is the third client of the operation map: every command parses its arguments and calls
 * an operation through `dispatch`, exactly as IPC and HTTP do, so validation, defaults and errors
 * are the same everywhere. An error result becomes a `CliError` whose exit code follows from its
 * error code (bad input exits 2, as commander's usage errors do; everything else 1).
 */

export class CliError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** A usage error: arguments the operation's schema (or the CLI's parser) refused. */
    readonly usage = code === 'invalid_input' || code === 'unknown_operation',
    /** What the service says can be done about it; `main` words it with the CLI's flags. */
    readonly hint?: ErrorHint,
  ) {
    super(message);
    this.name = 'CliError';
  }

  /** 2 for bad usage, as commander's own errors; 1 when the work itself failed. */
  get exitCode(): number {
    return this.usage ? 2 : 1;
  }
}

export interface OperationClient {
  readonly workbench: Workbench;
  /** Calls one operation through dispatch; throws a CliError on an error result. */
  call<K extends OperationName>(name: K, input: Input<K>): Promise<Output<K>>;
  /**
   * Calls an operation that starts a job (`{jobId}`), shows its progress on stderr, cancels it on
   * Ctrl+C (a second Ctrl+C quits at once), and returns the job's result; a failed or cancelled
   * job throws a CliError.
   */
  runJob<K extends JobOperationName>(name: K, input: Input<K>, label: string): Promise<JobResultOf<K>>;
  /** Waits for a job started by an operation, with the same progress and Ctrl+C handling; the finished job. */
  waitJob(jobId: string, label: string): Promise<Job>;
}

/** Opens the workbench on the command's database, runs `fn` with a client, and closes it. */
export async function withClient<T>(options: CommonOptions, fn: (client: OperationClient) => Promise<T>): Promise<T> {
  // A command holds nobody up while it waits: it waits for another process's write lock as long as
  // an import would (AWB_LOCK_WAIT_MS, ten minutes by default) rather than fail at once.
  const workbench = new Workbench({ databasePath: databasePath(options), mode: 'browser', version: version(), busyTimeoutMs: lockWaitMs() });
  const handlers = createHandlers(workbench);
  // Said once per wait, on stderr: a write waiting for another process's lock is not stuck.
  const quiet = onLockWait(() => process.stderr.write('awb: waiting for another write to this database to finish (an import, a release or a run)…\n'));
  const call = async <K extends OperationName>(name: K, input: Input<K>): Promise<Output<K>> => {
    const result = await dispatch(handlers, name, input);
    if (!result.ok) throw new CliError(result.error.code, result.error.message, isInputRefusal(result.error) || result.error.code === 'unknown_operation', result.error.hint);
    return result.value as Output<K>;
  };
  const client: OperationClient = {
    workbench,
    call,
    async runJob<K extends JobOperationName>(name: K, input: Input<K>, label: string) {
      const ticket: JobTicket = await call<JobOperationName>(name, input);
      return jobResult(name, await client.waitJob(ticket.jobId, label));
    },
    async waitJob(jobId, label) {
      const progress = progressLine(label);
      const off = workbench.events.subscribe((message) => {
        if (message.name !== 'job:progress') return;
        const job = message.payload as Job;
        if (job.id !== jobId) return;
        progress.update(job.done, job.total ?? 0, { etaSeconds: job.etaSeconds, ...(job.detail ? { detail: job.detail } : {}) });
      });
      let interrupts = 0;
      const onSignal = () => {
        interrupts += 1;
        if (interrupts > 1) process.exit(130);
        process.stderr.write('\nCancelling… (Ctrl+C again to quit at once)\n');
        workbench.jobs.cancel(jobId);
      };
      process.on('SIGINT', onSignal);
      try {
        const job = await workbench.jobs.wait(jobId);
        progress.done();
        if (job.state === 'done') return job;
        if (job.state === 'cancelled') throw new CliError('cancelled', `${label}: cancelled`, false);
        throw new CliError(job.error?.code ?? 'internal', job.error?.message ?? `${label} failed`, false, job.error?.hint);
      } finally {
        off();
        process.off('SIGINT', onSignal);
      }
    },
  };
  try {
    return await fn(client);
  } finally {
    quiet();
    workbench.close();
  }
}

export { AppError };
