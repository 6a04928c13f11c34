import { parentPort, workerData } from 'node:worker_threads';
import { checkpointFile } from '../../db/connection';

/**
 * Copies a database file's write-ahead log into the file on a connection of its own when asked,
 * and says how it went: the background half of `checkpointInBackground` (checkpoints.ts).
 */

export type CheckpointReply = { op: 'ready' } | { op: 'checkpointed'; log: number; checkpointed: number } | { op: 'error'; message: string };

const port = parentPort!;
port.once('message', () => {
  try {
    port.postMessage({ op: 'checkpointed', ...checkpointFile((workerData as { file: string }).file) } satisfies CheckpointReply);
  } catch (error) {
    port.postMessage({ op: 'error', message: (error as Error).message } satisfies CheckpointReply);
  }
});
port.postMessage({ op: 'ready' } satisfies CheckpointReply);
