import { parentPort, workerData } from 'node:worker_threads';
import { openReadOnlyDatabase } from '../../../db/connection';
import { AppError } from '../../../shared/api';
import { RELEASE_COLUMNS } from '../../../shared/release/schema';
import { Shredder } from '../../../shared/release/shred';
import { encodeTask, transferList, type EncodeTask } from './encode';
import type { EncoderReply } from './encoder-pool';

/**
 * A release encoder (see encode.ts): its own read-only connection to the database file, encoding
 * tasks as they come. The release's transaction on the main connection holds the write lock, so
 * what this connection reads is what the release planned.
 */

const port = parentPort!;
const db = openReadOnlyDatabase((workerData as { file: string }).file);
const shredder = new Shredder(RELEASE_COLUMNS);

port.on('message', (task: EncodeTask) => {
  try {
    const part = encodeTask(db, task, shredder);
    port.postMessage({ op: 'part', part } satisfies EncoderReply, transferList(part));
  } catch (error) {
    port.postMessage({ op: 'error', seq: task.seq, message: (error as Error).message, code: error instanceof AppError ? error.code : 'internal' } satisfies EncoderReply);
  }
});
port.postMessage({ op: 'ready' } satisfies EncoderReply);
