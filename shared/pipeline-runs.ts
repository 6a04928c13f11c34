import type { LabelTables } from './construction';
import type { PipelineStage } from './domain';

/**
 * What a pipeline run reports: per-stage counts, progress, its summary with early exit, batches and
 * cost per kept instance, the funnel, and item traces. Types only (shared/pipeline.ts re-exports them).
 */

/** What a voting stage asked and skipped per key (ambiguity type), and the order it ended up asking its voters in (before any cached answers, which go first). */
export interface VotingSummary {
  stage: string;
  key: string;
  order: string[];
  asked: number;
  notNeeded: number;
  /**
   * The orders the run froze: items from the `from`-th of the stage (in item order) on asked in
   * `order` (before them, the warm-up asked everyone). Recorded so a resumed run replays them.
   */
  epochs?: { from: number; order: string[] }[];
}

/** Tokens and US dollars (null: a model without a price took part). */
export interface Spend {
  tokens: number;
  usd: number | null;
}

/** Spend divided by the instances kept (null when none was kept). */
export interface PerKept {
  tokens: number | null;
  usd: number | null;
}

/**
 * What a kept instance cost: every call of the run (or of the datasets' construction) per stage
 * and per ambiguity type, divided by the instances kept (made ready) of that type. Detection is
 * per type too: a detector's call about one type counts for that type. Beside it, what the calls
 * skipped by early exit would have cost (each at its model's mean for that stage and type), and
 * the batch calls at synchronous prices: the same run asking everyone, synchronously.
 */
export interface CostPerKept {
  kept: { total: number; byType: Record<string, number> };
  stages: { stage: string; spend: Spend; perKept: PerKept; calls: number; batchCalls: number; byType: Record<string, { spend: Spend; perKept: PerKept }> }[];
  total: { spend: Spend; perKept: PerKept; calls: number; batchCalls: number; cachedPromptTokens: number };
  byType: Record<string, { spend: Spend; perKept: PerKept }>;
  /** Early exit: votes and answers not asked, and what asking them would have added. */
  notNeeded: { votes: number; spend: Spend };
  /** The same run asking everyone synchronously: its spend per kept instance, and this run's ratio to it. */
  askEveryoneSync: { spend: Spend; perKept: PerKept; tokensRatio: number | null; usdRatio: number | null };
  /** Models whose calls had no price (money is null where they took part). */
  unpriced: string[];
}

/** A batch as the run page shows it. */
export interface BatchSummary {
  id: number;
  stage: string;
  endpoint: string;
  model: string;
  state: string;
  providerBatchId: string | null;
  requests: number;
  completed: number;
  failed: number;
  attempt: number;
  submittedAt: string | null;
  finishedAt: string | null;
}

export interface StageCounts {
  stage: PipelineStage;
  /** Items this run took up, and how they ended. */
  processed: number;
  done: number;
  failed: number;
  removed: number;
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** Calls sent whose model has no price (left out of `costUsd`, which is then a floor; absent in older runs). */
  unpricedCalls?: number;
  /** Summed over the calls this stage sent: the endpoints' answering time, and the time queued before sending. */
  latencyMs: number;
  queueMs: number;
  /** Calls answered through a Batch API (absent in runs from before batch mode). */
  batchCalls?: number;
}

export interface PipelineProgress {
  runId: number;
  stage: PipelineStage | null;
  done: number;
  total: number;
  calls: number;
  cachedCalls: number;
  failedCalls: number;
  costUsd: number;
  unpricedCalls?: number;
  etaSeconds: number | null;
  /** Batches being sent, polled or read back (0 without batch mode). */
  openBatches?: number;
}

export interface RunSummary {
  id: number;
  /** `waiting`: stopped (or killed) with batches still open at a provider; `pipeline:resume` takes it up. */
  status: 'running' | 'done' | 'failed' | 'cancelled' | 'waiting';
  startedAt: string;
  finishedAt: string | null;
  stages: StageCounts[];
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** What the priced calls cost: a floor when `unpricedCalls` is above 0. */
  costUsd: number;
  /** Calls whose model has no price (absent in older runs). */
  unpricedCalls?: number;
  error: string | null;
  /** Where cues and evidence were computed: a worker thread, or the run's own thread. */
  retrieval: 'worker' | 'in-thread' | null;
  /** The embedding model that re-ranked evidence (null: the run retrieved nothing). */
  rerank: { provider: 'offline' | 'openai'; model: string; lexical: boolean } | null;
  /** What the run decided on its own and the user should know (e.g. embedding a corpus on first use). */
  log: string[];
  config: unknown;
  /** Early exit per voting stage and type (absent in runs from before it). */
  voting?: VotingSummary[];
  /** What a kept instance cost (computed from the stored calls when the run is shown). */
  costPerKept?: CostPerKept;
  batches?: BatchSummary[];
}

/** One line of the funnel (MARCH Table 2, top): per ambiguity type and overall. */
export interface FunnelRow {
  step: string;
  counts: Record<string, number>;
  total: number;
}

export interface Funnel {
  types: string[];
  rows: FunnelRow[];
  /** Of the instances kept: mean hops and mean question length in words, per type. */
  averageHops: Record<string, number | null>;
  averageQuestionWords: Record<string, number | null>;
  /** What a kept instance cost, over every construction call for these datasets. */
  cost?: CostPerKept;
  /** Of the instances kept: topics per type (MARCH Table 7) and answerability (URASys). */
  labels?: LabelTables;
}

export interface CallTrace {
  id: number;
  stage: string | null;
  endpoint: string;
  model: string;
  status: 'ok' | 'error';
  error: string | null;
  messages: { role: string; content: string }[];
  response: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** The endpoint's time to answer, from sending the request (after any wait for a slot). */
  latencyMs: number | null;
  /** Time spent waiting for a slot and the per-minute limits before sending. */
  queueMs: number | null;
  costUsd: number | null;
  createdAt: string;
}

export interface ItemTrace {
  item: string;
  stages: { stage: string; status: string; reason: string | null; rawOutput: string | null }[];
  calls: CallTrace[];
}

