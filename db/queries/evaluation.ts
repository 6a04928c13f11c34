import type { TraceStep } from '../../shared/eval/types';
import type { CallTrace } from '../../shared/pipeline';
import { all, get, iterate, run, sql, transaction, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

/** Evaluation runs, their items and traces (migration 0008). */

export type EvalRunStatus = 'running' | 'done' | 'failed' | 'cancelled';

export interface EvalRunRow {
  id: number;
  method: string;
  model: string;
  endpoint: string;
  source_kind: 'release' | 'dataset';
  source: string;
  release_id: number | null;
  split: string | null;
  dataset_id: number | null;
  corpus: string | null;
  retrieval_mode: string | null;
  k: number | null;
  options: string;
  prompt_versions: string;
  status: EvalRunStatus;
  total: number;
  done: number;
  failed: number;
  calls: number;
  cached_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  summary: string;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface NewEvalRun {
  method: string;
  model: string;
  endpoint: unknown;
  sourceKind: 'release' | 'dataset';
  source: string;
  releaseId: number | null;
  split: string | null;
  datasetId: number | null;
  corpus: string | null;
  retrievalMode: string | null;
  k: number | null;
  options: unknown;
  promptVersions: Record<string, string>;
}

export function insertEvalRun(db: WritableDB, r: NewEvalRun): number {
  return transaction(db, () => {
    const id = get<{ id: number }>(db, sql`INSERT INTO runs (kind, status, config) VALUES ('evaluation', 'running', ${JSON.stringify(r.options)}) RETURNING id`)!.id;
    run(
      db,
      sql`INSERT INTO eval_runs (id, method, model, endpoint, source_kind, source, release_id, split, dataset_id, corpus, retrieval_mode, k, options, prompt_versions, status)
          VALUES (${id}, ${r.method}, ${r.model}, ${JSON.stringify(r.endpoint)}, ${r.sourceKind}, ${r.source}, ${r.releaseId}, ${r.split}, ${r.datasetId},
                  ${r.corpus}, ${r.retrievalMode}, ${r.k}, ${JSON.stringify(r.options)}, ${JSON.stringify(r.promptVersions)}, 'running')`,
    );
    return id;
  });
}

export function getEvalRun(db: ReadableDB, id: number): EvalRunRow | undefined {
  return get<EvalRunRow>(db, sql`SELECT * FROM eval_runs WHERE id = ${id}`);
}

export function listEvalRuns(db: ReadableDB, limit: number, offset = 0): EvalRunRow[] {
  return all<EvalRunRow>(db, sql`SELECT * FROM eval_runs ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`);
}

export function setEvalRunStatus(db: WritableDB, id: number, status: EvalRunStatus, error: string | null): void {
  const finished = status === 'running' ? null : new Date().toISOString();
  transaction(db, () => {
    run(db, sql`UPDATE eval_runs SET status = ${status}, error = ${error}, finished_at = ${finished} WHERE id = ${id}`);
    run(db, sql`UPDATE runs SET status = ${status}, finished_at = ${finished} WHERE id = ${id}`);
  });
}

/**
 * The run's spending from the call log (every call is committed as it completes, so a killed
 * session's calls count too), plus the answers it took from the cache this session.
 */
export function refreshEvalRunTotals(db: WritableDB, id: number, cachedCalls: number): void {
  run(
    db,
    sql`UPDATE eval_runs SET (calls, prompt_tokens, completion_tokens, cost_usd) = (
          SELECT count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), coalesce(sum(cost_usd), 0) FROM llm_calls WHERE run_id = ${id}),
          cached_calls = cached_calls + ${cachedCalls} WHERE id = ${id}`,
  );
  refreshEvalRunCounts(db, id);
}

export function refreshEvalRunCounts(db: WritableDB, id: number): void {
  run(
    db,
    sql`UPDATE eval_runs SET total = (SELECT count(*) FROM eval_items WHERE run_id = ${id}),
          done = (SELECT count(*) FROM eval_items WHERE run_id = ${id} AND status = 'done'),
          failed = (SELECT count(*) FROM eval_items WHERE run_id = ${id} AND status = 'failed') WHERE id = ${id}`,
  );
}

/** Moves the run's done and failed counts by a batch of finished items (in the batch's transaction). */
export function addEvalRunCounts(db: WritableDB, id: number, done: number, failed: number): void {
  run(db, sql`UPDATE eval_runs SET done = done + ${done}, failed = failed + ${failed} WHERE id = ${id}`);
}

/** Whether any call was recorded under the run (it has had a session before). */
export function runHasCalls(db: ReadableDB, id: number): boolean {
  return get(db, sql`SELECT 1 AS x FROM llm_calls WHERE run_id = ${id} LIMIT 1`) !== undefined;
}

export function saveEvalRunSummary(db: WritableDB, id: number, summary: unknown): void {
  run(db, sql`UPDATE eval_runs SET summary = ${JSON.stringify(summary)} WHERE id = ${id}`);
}

/** Runs left "running" by a process that ended (not among those this process is running). */
export function markAbandonedEvalRuns(db: WritableDB, active: readonly number[]): void {
  const ids = all<{ id: number }>(db, sql`SELECT id FROM eval_runs WHERE status = 'running' AND id NOT IN ${sql.list(active.length ? [...active] : [-1])}`).map((r) => r.id);
  for (const id of ids) setEvalRunStatus(db, id, 'failed', 'The run stopped before it finished (its process ended); resume it to finish the remaining items.');
}

// ---- items -----------------------------------------------------------------------------------------

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

function writeSteps(db: WritableDB, itemId: number, steps: readonly TraceStep[]): void {
  run(db, sql`DELETE FROM eval_steps WHERE item_id = ${itemId}`);
  for (const s of steps) {
    run(
      db,
      sql`INSERT INTO eval_steps (item_id, position, kind, label, content, call_id, cached, latency_ms)
          VALUES (${itemId}, ${s.position}, ${s.kind}, ${s.label}, ${JSON.stringify(s.content ?? null)}, ${s.callId}, ${s.cached}, ${s.latencyMs})`,
    );
  }
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
    writeSteps(db, itemId, steps);
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
    writeSteps(db, itemId, steps);
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

/** Every call recorded or last used for an item (repair attempts included). */
export function itemCallIds(db: ReadableDB, tag: string): number[] {
  return all<{ id: number }>(db, sql`SELECT id FROM llm_calls WHERE item = ${tag}`).map((r) => r.id);
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

interface StepRow {
  position: number;
  kind: TraceStep['kind'];
  label: string;
  content: string;
  call_id: number | null;
  cached: number;
  latency_ms: number | null;
}

export function itemSteps(db: ReadableDB, itemId: number): TraceStep[] {
  return all<StepRow>(db, sql`SELECT position, kind, label, content, call_id, cached, latency_ms FROM eval_steps WHERE item_id = ${itemId} ORDER BY position`).map((s) => ({
    position: s.position,
    kind: s.kind,
    label: s.label,
    content: JSON.parse(s.content) as unknown,
    callId: s.call_id,
    cached: s.cached === 1,
    latencyMs: s.latency_ms,
  }));
}

/**
 * What an item's method spent, as each call recorded it when made (a cached call counts what it
 * cost then): the calls it got back, and any others recorded for it (a repaired answer's first
 * attempt), leaving out the evaluation's own reader and judge calls.
 */
export function itemUsage(db: ReadableDB, tag: string, ids: readonly number[]): { calls: number; promptTokens: number; completionTokens: number; costUsd: number; latencyMs: number } {
  return get(
    db,
    sql`SELECT count(*) AS calls, coalesce(sum(prompt_tokens), 0) AS promptTokens, coalesce(sum(completion_tokens), 0) AS completionTokens,
               coalesce(sum(cost_usd), 0) AS costUsd, coalesce(sum(latency_ms), 0) AS latencyMs
        FROM llm_calls WHERE id IN ${sql.list([...new Set(ids)])} OR (item = ${tag} AND coalesce(stage, '') NOT IN ('eval.eval_reader', 'eval.eval_judge'))`,
  )!;
}

interface CallRow {
  id: number;
  stage: string | null;
  endpoint: string;
  model: string;
  status: 'ok' | 'error';
  error: string | null;
  request: string;
  response: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  latency_ms: number | null;
  cost_usd: number | null;
  created_at: string;
}

/** The calls behind a trace, with prompt, raw output, tokens, latency and cost. */
export function callsById(db: ReadableDB, ids: readonly number[]): CallTrace[] {
  if (ids.length === 0) return [];
  return all<CallRow>(db, sql`SELECT * FROM llm_calls WHERE id IN ${sql.list([...new Set(ids)])} ORDER BY id`).map((c) => {
    const request = JSON.parse(c.request) as { messages?: { role: string; content: string }[]; awb_queue_ms?: number };
    return {
      id: c.id,
      stage: c.stage,
      endpoint: c.endpoint,
      model: c.model,
      status: c.status,
      error: c.error,
      messages: request.messages ?? [],
      response: c.response,
      promptTokens: c.prompt_tokens,
      completionTokens: c.completion_tokens,
      latencyMs: c.latency_ms,
      queueMs: typeof request.awb_queue_ms === 'number' ? request.awb_queue_ms : null,
      costUsd: c.cost_usd,
      createdAt: c.created_at,
    };
  });
}

/** Items two runs share by key, with one metric of each (for paired comparisons). */
export function pairedItems(db: ReadableDB, runA: number, runB: number): { key: string; ambiguity_type: string; a: string; b: string }[] {
  return all(
    db,
    sql`SELECT a.key AS key, a.ambiguity_type AS ambiguity_type, a.metrics AS a, b.metrics AS b
        FROM eval_items a JOIN eval_items b ON b.run_id = ${runB} AND b.key = a.key
        WHERE a.run_id = ${runA} AND a.status = 'done' AND b.status = 'done' ORDER BY a.position`,
  );
}

// ---- the items a run takes -------------------------------------------------------------------------

export function releaseSplitEntries(db: ReadableDB, releaseId: number, split: string | null): { key: string; split: string; ambiguity_type: string; instance_id: number | null; chunk: number; line: number }[] {
  return all(
    db,
    sql`SELECT ri.key, ri.split, ri.ambiguity_type, ri.instance_id, ri.chunk, ri.line FROM release_instances ri
        WHERE ri.release_id = ${releaseId} AND (${split} IS NULL OR ri.split = ${split}) ORDER BY ri.position, ri.key`,
  );
}

export function findReleaseByName(db: ReadableDB, name: string, version: string | null): { id: number; name: string; version: string } | undefined {
  return version
    ? get(db, sql`SELECT id, name, version FROM releases WHERE name = ${name} AND version = ${version}`)
    : get(db, sql`SELECT id, name, version FROM releases WHERE name = ${name} ORDER BY created_at DESC, id DESC LIMIT 1`);
}

/** The instances of a dataset an evaluation can use: not removed, with at least one active interpretation. */
export function datasetInstanceIds(db: ReadableDB, datasetId: number): { id: number; source_id: string; ambiguity_type: string }[] {
  return all(
    db,
    sql`SELECT i.id, b.source_id, i.ambiguity_type FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.dataset_id = ${datasetId} AND i.status <> 'removed'
          AND EXISTS (SELECT 1 FROM interpretations p WHERE p.instance_id = i.id AND p.status = 'active')
        ORDER BY b.source_id, i.ambiguity_type`,
  );
}
