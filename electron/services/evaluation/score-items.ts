import { scoreItem, type GoldItem, type ItemMetrics, type MetricName, type PredictionItem } from '../../../shared/eval/metrics';
import type { PunktParams } from '../../../shared/eval/punkt';

/**
 * Items to score with the non-LLM metrics, and the scoring both threads of `evaluation:score` do
 * (score-parallel.ts on the calling thread, score-worker.ts on the other): each claims the next
 * chunk of items from a counter they share until none is left, so a worker that starts late (it
 * compiles or loads its code first) simply scores fewer.
 */
export interface ScoreItemsTask {
  golds: readonly GoldItem[];
  /** Per gold item, its prediction (an empty one for an item nobody answered). */
  predictions: readonly PredictionItem[];
  metrics: readonly MetricName[];
  variant: 'rougeLsum' | 'rougeL';
  punkt: PunktParams;
}

/** A run of scored items: the first item's index, and their scores in order. */
export interface ScoredChunk {
  start: number;
  items: ItemMetrics[];
}

export type ScoreWorkerReply = { op: 'scores'; chunks: ScoredChunk[] } | { op: 'error'; message: string };

export const CHUNK_ITEMS = 64;

/** Items [start, end) scored. */
export function scoreRange(task: ScoreItemsTask, start: number, end: number): ItemMetrics[] {
  const options = { metrics: task.metrics, variant: task.variant, stemming: true, punkt: task.punkt };
  const out: ItemMetrics[] = [];
  for (let k = start; k < end; k++) out.push(scoreItem(task.predictions[k]!, task.golds[k]!, options));
  return out;
}

export function scoreItems(task: ScoreItemsTask): ItemMetrics[] {
  return scoreRange(task, 0, task.golds.length);
}

/**
 * Claims chunks from `shared[0]` (the next unclaimed index, in shared memory) and scores them,
 * until the items run out. The worker counts each claim in `shared[1]` before making it, so the
 * calling thread, once the items have run out, knows whether the worker can hold any (if it
 * counted none, it cannot: a claim made after that finds none left).
 */
export function scoreClaimedChunks(task: ScoreItemsTask, shared: Int32Array, worker: boolean): ScoredChunk[] {
  const n = task.golds.length;
  const chunks: ScoredChunk[] = [];
  const claim = () => {
    if (worker) Atomics.add(shared, 1, 1);
    return Atomics.add(shared, 0, CHUNK_ITEMS);
  };
  for (let start = claim(); start < n; start = claim()) chunks.push({ start, items: scoreRange(task, start, Math.min(n, start + CHUNK_ITEMS)) });
  return chunks;
}
