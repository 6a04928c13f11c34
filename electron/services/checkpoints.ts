import { holdCheckpoints } from '../../db/connection';
import { commit, type WritableDB } from '../../db/sql';
import type { CheckpointReply } from './checkpoint-worker';
import { workerScript } from './paths';
import { startWorker } from './worker-start';

/**
 * Large writes (an import, a release) commit without SQLite's own checkpoint, which would copy
 * the hundreds of megabytes of log they leave into the database file, with its syncs, before the
 * commit returns; another thread checkpoints instead while the caller goes on (SQLite's
 * documentation suggests a separate thread for this). The committing connection's own checkpoints
 * stay off until that one has finished, so that a small commit right after (statistics, a merge
 * of the search index) does not do the copy after all. A background checkpoint that fails or is
 * cut short (the process ends) loses nothing: the log stays valid, and the next commit, or
 * closing the last connection, checkpoints as usual.
 */

/** Background checkpoints not yet finished (see `checkpointsDone`). */
const pending = new Set<Promise<void>>();

const READY_TIMEOUT_MS = 15_000;

/**
 * Commits, then has `checkpoint` copy the log into the file in the background: this connection
 * does not checkpoint by itself until it has settled. Returns once committed (a failed commit
 * throws, with nothing started).
 */
export function commitThenCheckpoint(db: WritableDB, checkpoint: () => Promise<unknown>): void {
  const release = holdCheckpoints(db);
  try {
    commit(db);
  } catch (error) {
    release();
    throw error;
  }
  const done: Promise<void> = Promise.resolve()
    .then(checkpoint)
    .then(
      () => undefined,
      () => undefined,
    )
    .finally(() => {
      release();
      pending.delete(done);
    });
  pending.add(done);
}

/** The checkpoint worker's script: its bundle in the desktop app, its launcher under Node; null when missing. */
const script = () => workerScript('checkpoint-worker', 'electron/services/checkpoint-worker.mjs');

/** Whether `commitThenCheckpoint` with `checkpointInBackground` can work on this file (not in memory, the worker found). */
export const canCheckpointInBackground = (file: string) => file !== '' && file !== ':memory:' && script() !== null;

/** Checkpoints a database file on a worker thread of its own: the log's frames, and those now in the file. */
export async function checkpointInBackground(file: string): Promise<{ log: number; checkpointed: number }> {
  const found = script();
  if (!found) throw new Error('the checkpoint worker is missing');
  const worker = await startWorker(found, { file }, 'checkpoint worker', READY_TIMEOUT_MS);
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', (reply: CheckpointReply) => {
        if (reply.op === 'checkpointed') resolve({ log: reply.log, checkpointed: reply.checkpointed });
        else reject(new Error(reply.op === 'error' ? reply.message : `unexpected reply ${reply.op}`));
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the checkpoint worker stopped (exit code ${code})`)));
      worker.postMessage({ op: 'checkpoint' });
    });
  } finally {
    await worker.terminate();
  }
}

/** Resolves once every background checkpoint has finished (a large write waits for them first; tests and the bench too). */
export async function checkpointsDone(): Promise<void> {
  await Promise.all([...pending]);
}
