import type { EvalRunSummary, EvalStartRequest, FailureRunInfo } from '../../shared/api';
import { METHOD_INFO, type EvalMethod } from '../../shared/eval/methods';
import { resolveSettings, type SettingsInput } from '../../shared/eval/methods/settings';
import type { MetricSummary, UsageSummary } from '../../shared/eval/metrics';
import { runStatusLabel } from '../../shared/eval/labels';
import { all, get, run, sql, transaction, type ReadableDB, type WritableDB } from '../sql';
import { insertRun, setRunStatus } from './runs';

/**
 * The `eval_runs` table (migration 0008): an evaluation run's method, model, source, counts,
 * spending and summary. Its only writer; the run's row of `runs` (same id) is written through
 * runs.ts, in the same transaction.
 */

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
    const id = insertRun(db, 'evaluation', r.options);
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
    setRunStatus(db, id, status, finished);
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

export function saveEvalRunSummary(db: WritableDB, id: number, summary: unknown): void {
  run(db, sql`UPDATE eval_runs SET summary = ${JSON.stringify(summary)} WHERE id = ${id}`);
}

/** Runs left "running" by a process that ended (not among those this process is running). */
export function markAbandonedEvalRuns(db: WritableDB, active: readonly number[]): void {
  const ids = all<{ id: number }>(db, sql`SELECT id FROM eval_runs WHERE status = 'running' AND id NOT IN ${sql.list(active.length ? [...active] : [-1])}`).map((r) => r.id);
  for (const id of ids) setEvalRunStatus(db, id, 'failed', 'The run stopped before it finished (its process ended); resume it to finish the remaining items.');
}

// ---- row mappers ---------------------------------------------------------------------------------

type StoredOptions = Partial<Pick<EvalStartRequest, 'reader' | 'judge'>> & Omit<SettingsInput, 'method'>;
type StoredSummary = {
  metrics?: Record<string, MetricSummary>;
  byType?: Record<string, Record<string, MetricSummary>>;
  usage?: UsageSummary | null;
  notes?: string[];
  readerErrors?: number;
  metricsVersion?: number;
  punkt?: string;
};

/** What a run's summary says about how it was scored, when that is not today's default. */
function scoringNotes(row: EvalRunRow, stored: StoredSummary): string[] {
  const notes: string[] = [];
  if (row.done > 0 && stored.metricsVersion === undefined && row.status !== 'running') {
    notes.push(
      'Scored under the metric conventions before issue 19 (STR-EM left out interpretations without gold answers, D-F1 and token F1 took the best short answer, ROUGE-L split sentences differently, a reader error scored 0): run it again to score it as docs/evaluation-metrics.md says.',
    );
  }
  if (stored.punkt && stored.punkt !== 'builtin') notes.push(`ROUGE-L split sentences with Punkt parameters from ${stored.punkt}.`);
  return notes;
}

function describeReader(reader: StoredOptions['reader']): string | null {
  if (!reader) return null;
  return reader.kind === 'llm' ? `llm ${reader.model.endpoint}/${reader.model.model}` : `http ${reader.url}`;
}

/** A run as the API shows it: its columns, the summary it stored, and its reader and judge described. */
export function rowToEvalRunSummary(row: EvalRunRow): EvalRunSummary {
  const options = JSON.parse(row.options) as StoredOptions;
  const stored = JSON.parse(row.summary) as StoredSummary;
  const method = row.method as EvalMethod;
  return {
    id: row.id,
    method,
    methodLabel: METHOD_INFO[method]?.label ?? row.method,
    model: row.model,
    sourceKind: row.source_kind,
    source: row.source,
    split: row.split,
    corpus: row.corpus,
    retrievalMode: row.retrieval_mode,
    k: row.k,
    status: row.status,
    statusLabel: runStatusLabel(row),
    readerErrors: stored.readerErrors ?? 0,
    total: row.total,
    done: row.done,
    failed: row.failed,
    calls: row.calls,
    cachedCalls: row.cached_calls,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    costUsd: row.cost_usd,
    error: row.error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    metrics: stored.metrics ?? {},
    byType: stored.byType ?? {},
    usage: stored.usage ?? null,
    reader: describeReader(options.reader),
    judge: options.judge ? `${options.judge.endpoint}/${options.judge.model}` : null,
    promptVersions: JSON.parse(row.prompt_versions) as Record<string, string>,
    settings: resolveSettings({ ...options, method }, METHOD_INFO[method]?.retrieves ?? false),
    notes: [...(stored.notes ?? []), ...scoringNotes(row, stored)],
  };
}

/** A run as the failure views head it. */
export function rowToFailureRunInfo(row: EvalRunRow): FailureRunInfo {
  return { id: row.id, method: row.method, model: row.model, status: row.status, total: row.total, done: row.done, failed: row.failed };
}
