import { parentPort, workerData } from 'node:worker_threads';
import { scoreClaimedChunks, type ScoreItemsTask, type ScoreWorkerReply } from './score-items';

/**
 * A scoring worker (see score-parallel.ts): it gets the items and the shared chunk counter with
 * its start, scores the chunks it claims, posts them and is done. No handshake: the thread that
 * started it is busy claiming chunks of its own.
 */

const port = parentPort!;
const { task, next } = workerData as { task: ScoreItemsTask; next: SharedArrayBuffer };
try {
  port.postMessage({ op: 'scores', chunks: scoreClaimedChunks(task, new Int32Array(next), true) } satisfies ScoreWorkerReply);
} catch (error) {
  port.postMessage({ op: 'error', message: (error as Error).message } satisfies ScoreWorkerReply);
}
