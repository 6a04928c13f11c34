import type { EvalItemRowView } from '../../shared/api';
import type { TraceStep } from '../../shared/eval/types';
import { all, get, iterate, run, sql, transaction, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';
import { replaceItemSteps } from './eval-steps';
import { refreshEvalRunCounts } from './eval-runs';

/**
 * The `eval_items` table (migration 0008): every item of an evaluation run, with its output, gold
 * snapshot and metrics. Its only writer. The failure table's pages of these items, which walk
 * the covering indexes of migration 0012, are in eval-items-failures.ts: a second module for the
 * same table, read-only, kept apart for size (the plan chooser alone is a page long).
 */

export interface NewEvalItem {
  position: number;
  key: string;
  instanceId: number | null;
  ambiguityType: string;
  question: string;
  gold: unknown;
}

export function insertEvalItems(db: WritableDB, runId: number, items: readonly NewEvalItem[]): void {
  transaction(db, () => {
    for (const i of items) {
      run(
        db,
        sql`INSERT INTO eval_items (run_id, position, key, instance_id, ambiguity_type, question, gold, status)
            VALUES (${runId}, ${i.position}, ${i.key}, ${i.instanceId}, ${i.ambiguityType}, ${i.question}, ${JSON.stringify(i.gold)}, 'pending')`,
      );
    }
  });
  refreshEvalRunCounts(db, runId);
}

export interface EvalItemRow {
  id: number;
  run_id: number;
  position: number;
  key: string;
  instance_id: number | null;
  ambiguity_type: string;
  question: string;
  gold: string;
  status: 'pending' | 'done' | 'failed';
  long_answer: string | null;
  short_answers: string;
  citations: string;
  interpretations: string;
  retrieved: string;
  metrics: string;
  str_em: number | null;
  disambig_f1: number | null;
  rouge_l: number | null;
  judge_mean: number | null;
  collapsed: number | null;
  retrieval_miss: number | null;
  latency_ms: number | null;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  notes: string;
  error: string | null;
  finished_at: string | null;
}

/** The items a (resumed) run still has to do: pending, and failed ones (their failed calls are not cached, so they are tried again). */
export function itemIdsToRun(db: ReadableDB, runId: number): number[] {
  return all<{ id: number }>(db, sql`SELECT id FROM eval_items WHERE run_id = ${runId} AND status <> 'done' ORDER BY position`).map((r) => r.id);
}

export interface ItemResult {
  longAnswer: string;
  shortAnswers: string[];
  citations: string[];
  interpretations: unknown[];
  retrieved: unknown[];
  metrics: Record<string, unknown>;
  strEm: number | null;
  disambigF1: number | null;
  rougeL: number | null;
  judgeMean: number | null;
  collapsed: boolean | null;
  retrievalMiss: boolean | null;
  latencyMs: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  notes: string[];
}

/** Stores a finished item with its trace (call inside a transaction: a kill never leaves half an item). */
export function saveItemDone(db: WritableDB, itemId: number, r: ItemResult, steps: readonly TraceStep[]): void {
  transaction(db, () => {
    run(
      db,
      sql`UPDATE eval_items SET status = 'done', error = NULL, long_answer = ${r.longAnswer}, short_answers = ${JSON.stringify(r.shortAnswers)},
            citations = ${JSON.stringify(r.citations)}, interpretations = ${JSON.stringify(r.interpretations)}, retrieved = ${JSON.stringify(r.retrieved)},
            metrics = ${JSON.stringify(r.metrics)}, str_em = ${r.strEm}, disambig_f1 = ${r.disambigF1}, rouge_l = ${r.rougeL}, judge_mean = ${r.judgeMean},
            collapsed = ${r.collapsed}, retrieval_miss = ${r.retrievalMiss}, latency_ms = ${r.latencyMs}, calls = ${r.calls},
            prompt_tokens = ${r.promptTokens}, completion_tokens = ${r.completionTokens}, cost_usd = ${r.costUsd}, notes = ${JSON.stringify(r.notes)},
            finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
          WHERE id = ${itemId}`,
    );
    replaceItemSteps(db, itemId, steps);
  });
}

export function saveItemFailed(
  db: WritableDB,
  itemId: number,
  error: string,
  steps: readonly TraceStep[],
  usage: { latencyMs: number; calls: number; promptTokens: number; completionTokens: number; costUsd: number; notes: string[] },
): void {
  transaction(db, () => {
    run(
      db,
      sql`UPDATE eval_items SET status = 'failed', error = ${error}, latency_ms = ${usage.latencyMs}, calls = ${usage.calls}, prompt_tokens = ${usage.promptTokens},
            completion_tokens = ${usage.completionTokens}, cost_usd = ${usage.costUsd}, notes = ${JSON.stringify(usage.notes)},
            finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
          WHERE id = ${itemId}`,
    );
    replaceItemSteps(db, itemId, steps);
  });
}

export const ITEM_SORTS = ['position', 'str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'] as const;
export type ItemSort = (typeof ITEM_SORTS)[number];

export interface ItemFilter {
  status?: 'pending' | 'done' | 'failed' | undefined;
  type?: string | undefined;
  collapsed?: boolean | undefined;
  retrievalMiss?: boolean | undefined;
  /** Metric column below (strictly) / at or above a value. */
  below?: { metric: Exclude<ItemSort, 'position'>; value: number } | undefined;
  atLeast?: { metric: Exclude<ItemSort, 'position'>; value: number } | undefined;
}

function itemWhere(runId: number, f: ItemFilter): SqlFragment {
  const parts: SqlFragment[] = [sql`run_id = ${runId}`];
  if (f.status) parts.push(sql`status = ${f.status}`);
  if (f.type) parts.push(sql`ambiguity_type = ${f.type}`);
  if (f.collapsed !== undefined) parts.push(sql`collapsed = ${f.collapsed}`);
  if (f.retrievalMiss !== undefined) parts.push(sql`retrieval_miss = ${f.retrievalMiss}`);
  if (f.below) parts.push(sql`${sql.id(f.below.metric)} < ${f.below.value}`);
  if (f.atLeast) parts.push(sql`${sql.id(f.atLeast.metric)} >= ${f.atLeast.value}`);
  return sql.join(parts, sql` AND `);
}

export function listEvalItems(db: ReadableDB, runId: number, filter: ItemFilter, sort: ItemSort, direction: 'asc' | 'desc', limit: number, offset: number): EvalItemRow[] {
  const dir = sql.keyword(direction === 'asc' ? 'ASC' : 'DESC');
  const order = sort === 'position' ? sql`position ${dir}` : sql`${sql.id(sort)} IS NULL, ${sql.id(sort)} ${dir}, position`;
  return all<EvalItemRow>(db, sql`SELECT * FROM eval_items WHERE ${itemWhere(runId, filter)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`);
}

export function countEvalItems(db: ReadableDB, runId: number, filter: ItemFilter): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM eval_items WHERE ${itemWhere(runId, filter)}`)!.n;
}

export function getEvalItem(db: ReadableDB, id: number): EvalItemRow | undefined {
  return get<EvalItemRow>(db, sql`SELECT * FROM eval_items WHERE id = ${id}`);
}

/** Every done item of a run, with what summaries need (type, metrics JSON, latency, usage). */
export function* doneItems(
  db: ReadableDB,
  runId: number,
): Generator<Pick<EvalItemRow, 'key' | 'ambiguity_type' | 'metrics' | 'latency_ms' | 'calls' | 'prompt_tokens' | 'completion_tokens' | 'cost_usd'>> {
  yield* iterate(
    db,
    sql`SELECT key, ambiguity_type, metrics, latency_ms, calls, prompt_tokens, completion_tokens, cost_usd FROM eval_items WHERE run_id = ${runId} AND status = 'done' ORDER BY position`,
  );
}

/** Items two runs share by key that both finished (done or failed), with each side's status and metrics (for paired comparisons). */
export function pairedItems(db: ReadableDB, runA: number, runB: number): { key: string; ambiguity_type: string; status_a: 'done' | 'failed'; status_b: 'done' | 'failed'; a: string; b: string }[] {
  return all(
    db,
    sql`SELECT a.key AS key, a.ambiguity_type AS ambiguity_type, a.status AS status_a, b.status AS status_b, a.metrics AS a, b.metrics AS b
        FROM eval_items a JOIN eval_items b ON b.run_id = ${runB} AND b.key = a.key
        WHERE a.run_id = ${runA} AND a.status <> 'pending' AND b.status <> 'pending' ORDER BY a.position`,
  );
}

/** A run's item counts per ambiguity type and status. */
export function itemCountsByType(db: ReadableDB, runId: number): { ambiguity_type: string; status: 'pending' | 'done' | 'failed'; n: number }[] {
  return all(db, sql`SELECT ambiguity_type, status, count(*) AS n FROM eval_items WHERE run_id = ${runId} GROUP BY ambiguity_type, status`);
}

// ---- for failure rules and judge validation ------------------------------------------------------

/** Items a text rule looks at: failed ones with their reason, and done ones with their answer. */
export function* itemsForTextRules(db: ReadableDB, runId: number): Generator<{ id: number; status: string; error: string | null; long_answer: string | null }> {
  yield* iterate(db, sql`SELECT id, status, error, substr(long_answer, 1, 400) AS long_answer FROM eval_items WHERE run_id = ${runId} AND status <> 'pending'`);
}

/** A run's done items with their metrics and how many gold interpretations they have (for the rules that read what a method recorded). */
export function* itemsForMetricRules(db: ReadableDB, runId: number): Generator<{ id: number; metrics: string; gold_interpretations: number }> {
  yield* iterate(
    db,
    sql`SELECT id, metrics, coalesce(json_array_length(gold, '$.interpretations'), 0) AS gold_interpretations FROM eval_items WHERE run_id = ${runId} AND status = 'done'`,
  );
}

/** A run's failed items with their reasons, in the run's order (for grouping the reasons). */
export function* failedItemReasons(db: ReadableDB, runId: number): Generator<{ id: number; error: string | null }> {
  yield* iterate(db, sql`SELECT id, error FROM eval_items WHERE run_id = ${runId} AND status = 'failed' ORDER BY position`);
}

/** A run's finished items that point at an instance, with their metrics (judge scores among them). */
export function runItemsWithInstances(db: ReadableDB, runId: number): { id: number; instance_id: number; status: string; long_answer: string | null; metrics: string }[] {
  return all(db, sql`SELECT id, instance_id, status, long_answer, metrics FROM eval_items WHERE run_id = ${runId} AND instance_id IS NOT NULL ORDER BY position`);
}

export function evalItemForInstance(db: ReadableDB, runId: number, instanceId: number): { id: number; long_answer: string | null; question: string } | undefined {
  return get(db, sql`SELECT id, long_answer, question FROM eval_items WHERE run_id = ${runId} AND instance_id = ${instanceId} ORDER BY position LIMIT 1`);
}

// ---- row mappers ---------------------------------------------------------------------------------

const bool = (v: number | null) => (v === null ? null : v === 1);

export type ItemColumns = Pick<
  EvalItemRow,
  'id' | 'position' | 'key' | 'instance_id' | 'ambiguity_type' | 'question' | 'status' | 'str_em' | 'disambig_f1' | 'rouge_l' | 'judge_mean' | 'collapsed' | 'retrieval_miss' | 'latency_ms' | 'cost_usd' | 'error'
>;

/** The fields an item's row shows wherever it is listed (the run's item table, the failure table). */
export function itemFields(r: ItemColumns) {
  return {
    id: r.id,
    position: r.position,
    key: r.key,
    instanceId: r.instance_id,
    ambiguityType: r.ambiguity_type,
    question: r.question,
    status: r.status,
    strEm: r.str_em,
    disambigF1: r.disambig_f1,
    rougeL: r.rouge_l,
    judgeMean: r.judge_mean,
    collapsed: bool(r.collapsed),
    retrievalMiss: bool(r.retrieval_miss),
    latencyMs: r.latency_ms,
    costUsd: r.cost_usd,
    error: r.error,
  };
}

/** An item as a row of the run's item table. */
export function rowToEvalItemRowView(r: EvalItemRow): EvalItemRowView {
  return { ...itemFields(r), longAnswer: r.long_answer, shortAnswers: JSON.parse(r.short_answers) as string[], calls: r.calls };
}
