import { Worker } from 'node:worker_threads';
import type { ItemMetrics } from '../../../shared/eval/metrics';
import { workerScript } from '../paths';
import { CHUNK_ITEMS, scoreClaimedChunks, scoreItems, scoreRange, type ScoredChunk, type ScoreItemsTask, type ScoreWorkerReply } from './score-items';

/**
 * Scores items on both cores: a worker thread (score-worker.ts) and this one claim chunks of items
 * from a shared counter, and the chunks are put back in order. Scores are the same numbers
 * whichever thread computes them (the metrics are pure functions of the texts). Chunks a worker
 * claimed but never returned (it could not start, or failed) are scored here, so scoring never
 * depends on it; below PARALLEL_FROM items one thread does it all, as a worker's start would cost
 * more than it saves.
 */

export const PARALLEL_FROM = 2_000;

export interface ParallelOptions {
  parallelFrom?: number;
  /** The worker script (tests name a broken one); by default the app's own. */
  script?: string | null;
}

/** The items' scores, in order, and how many of them the worker scored. */
export async function scoreItemsInParallel(task: ScoreItemsTask, options: ParallelOptions = {}): Promise<{ items: ItemMetrics[]; byWorker: number }> {
  const n = task.golds.length;
  const script = n >= (options.parallelFrom ?? PARALLEL_FROM) ? (options.script ?? workerScript('score-worker', 'electron/services/evaluation/score-worker.mjs')) : null;
  if (!script) return { items: scoreItems(task), byWorker: 0 };
  const shared = new Int32Array(new SharedArrayBuffer(8));
  const worker = startScoring(script, task, shared);
  const mine = scoreClaimedChunks(task, shared, false);
  let theirs: ScoredChunk[] = [];
  // A worker that has claimed nothing yet (still starting) never will: it is stopped, not awaited.
  if (worker && Atomics.load(shared, 1) > 0) theirs = (await worker.chunks) ?? [];
  else worker?.stop();
  return { items: joinChunks(task, [...mine, ...theirs]), byWorker: theirs.reduce((a, c) => a + c.items.length, 0) };
}

/** Every item's scores in order, from the chunks scored, scoring here any chunk missing from them (one the worker claimed and never returned). */
export function joinChunks(task: ScoreItemsTask, chunks: readonly ScoredChunk[]): ItemMetrics[] {
  const n = task.golds.length;
  const items: (ItemMetrics | undefined)[] = new Array(n);
  for (const chunk of chunks) chunk.items.forEach((m, k) => (items[chunk.start + k] = m));
  for (let start = 0; start < n; start += CHUNK_ITEMS) {
    if (items[start] !== undefined) continue;
    scoreRange(task, start, Math.min(n, start + CHUNK_ITEMS)).forEach((m, k) => (items[start + k] = m));
  }
  return items as ItemMetrics[];
}

/** A started worker: the chunks it scored (null when it could not give them; it is stopped either way). */
function startScoring(script: string, task: ScoreItemsTask, shared: Int32Array): { chunks: Promise<ScoredChunk[] | null>; stop: () => void } | null {
  let worker: Worker;
  try {
    worker = new Worker(script, { workerData: { task, next: shared.buffer } });
  } catch {
    return null;
  }
  const stop = () => void worker.terminate();
  const chunks = new Promise<ScoredChunk[] | null>((resolve) => {
    const finish = (result: ScoredChunk[] | null) => {
      resolve(result);
      stop();
    };
    worker.once('message', (reply: ScoreWorkerReply) => finish(reply.op === 'scores' ? reply.chunks : null));
    worker.once('error', () => finish(null));
    worker.once('exit', () => finish(null));
  });
  return { chunks, stop };
}
