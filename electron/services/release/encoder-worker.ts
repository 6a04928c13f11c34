import { parentPort, workerData } from 'node:worker_threads';
import { checkpointFile, openReadOnlyDatabase } from '../../../db/connection';
import { AppError } from '../../../shared/api';
import { RELEASE_COLUMNS } from '../../../shared/release/schema';
import { Shredder } from '../../../shared/release/shred';
import { encodeTask, transferList } from './encode';
import { CHECKPOINT_SEQ, type EncoderReply, type EncoderRequest } from './encoder-pool';

/**
 * A release encoder (see encode.ts): its own read-only connection to the database file, encoding
 * tasks as they come. The release's transaction on the main connection holds the write lock, so
 * what this connection reads is what the release planned. Once the release has committed, one
 * encoder may be asked to checkpoint the file (see `EncoderPool.checkpointAndClose`).
 */

const port = parentPort!;
const file = (workerData as { file: string }).file;
const db = openReadOnlyDatabase(file);
const shredder = new Shredder(RELEASE_COLUMNS);

port.on('message', (task: EncoderRequest) => {
  if ('op' in task) {
    try {
      checkpointFile(file);
      port.postMessage({ op: 'checkpointed' } satisfies EncoderReply);
    } catch (error) {
      port.postMessage({ op: 'error', seq: CHECKPOINT_SEQ, message: (error as Error).message, code: 'internal' } satisfies EncoderReply);
    }
    return;
  }
  try {
    const part = encodeTask(db, task, shredder);
    port.postMessage({ op: 'part', part } satisfies EncoderReply, transferList(part));
  } catch (error) {
    port.postMessage({ op: 'error', seq: task.seq, message: (error as Error).message, code: error instanceof AppError ? error.code : 'internal' } satisfies EncoderReply);
  }
});
port.postMessage({ op: 'ready' } satisfies EncoderReply);
