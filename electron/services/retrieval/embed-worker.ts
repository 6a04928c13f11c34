import { parentPort, workerData } from 'node:worker_threads';
import { runTask, transferables, type EmbedReply, type EmbedTask } from './embed-work';
import type { OfflineEmbedder } from './offline-embedder';

/** An offline embedder in a worker thread (see embed-work.ts): tasks are answered in the order they come. */

const port = parentPort!;
const { dimensions } = workerData as { dimensions: number };
const state: { embedder: OfflineEmbedder | null } = { embedder: null };

port.on('message', (task: EmbedTask) => {
  let reply: EmbedReply;
  try {
    reply = runTask(dimensions, state, task);
  } catch (error) {
    reply = { op: 'error', seq: task.seq, message: (error as Error).message };
  }
  port.postMessage(reply, transferables(reply));
});
port.postMessage({ op: 'ready' } satisfies EmbedReply);
