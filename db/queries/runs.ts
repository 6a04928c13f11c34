import type { RunSummary } from '../../shared/pipeline';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';
import { runCallTotals } from './llm-calls';
import { openBatchCounts } from './llm-batches';

/**
 * The `runs` table: one row per pipeline or evaluation run, with its config and summary. The
 * only writer of the table; an evaluation run's own details live in `eval_runs` (same id).
 */

export type RunKind = 'pipeline' | 'evaluation';
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

interface RunRow {
  id: number;
  status: RunStatus;
  config: string;
  summary: string;
  started_at: string;
  finished_at: string | null;
}

export function insertRun(db: WritableDB, kind: RunKind, config: unknown): number {
  return get<{ id: number }>(db, sql`INSERT INTO runs (kind, status, config) VALUES (${kind}, 'running', ${JSON.stringify(config)}) RETURNING id`)!.id;
}

export function finishRun(db: WritableDB, id: number, status: Exclude<RunStatus, 'running'>, summary: unknown): void {
  run(db, sql`UPDATE runs SET status = ${status}, summary = ${JSON.stringify(summary)}, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ${id}`);
}

/** Status alone (an evaluation run keeps its summary in `eval_runs`); `finishedAt` null while it runs. */
export function setRunStatus(db: WritableDB, id: number, status: RunStatus, finishedAt: string | null): void {
  run(db, sql`UPDATE runs SET status = ${status}, finished_at = ${finishedAt} WHERE id = ${id}`);
}

/** A stored run taken up again (`pipeline:resume`): running, not finished. */
export function reopenRun(db: WritableDB, id: number): void {
  run(db, sql`UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ${id} AND kind = 'pipeline'`);
}

export function saveRunSummary(db: WritableDB, id: number, summary: unknown): void {
  run(db, sql`UPDATE runs SET summary = ${JSON.stringify(summary)} WHERE id = ${id}`);
}

/**
 * A pipeline run as the API shows it: the summary it stored, or an empty one. A run that is not
 * done and still has batches open at a provider is `waiting` (resume takes it up).
 */
export function rowToRunSummary(row: RunRow, openBatches = 0): RunSummary {
  const stored = JSON.parse(row.summary) as Partial<RunSummary>;
  return {
    ...(stored.voting ? { voting: stored.voting } : {}),
    id: row.id,
    status: row.status !== 'done' && openBatches > 0 ? 'waiting' : row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    stages: stored.stages ?? [],
    calls: stored.calls ?? 0,
    cachedCalls: stored.cachedCalls ?? 0,
    promptTokens: stored.promptTokens ?? 0,
    completionTokens: stored.completionTokens ?? 0,
    costUsd: stored.costUsd ?? 0,
    ...(stored.unpricedCalls ? { unpricedCalls: stored.unpricedCalls } : {}),
    error: stored.error ?? null,
    retrieval: stored.retrieval ?? null,
    rerank: stored.rerank ?? null,
    log: stored.log ?? [],
    config: JSON.parse(row.config) as unknown,
  };
}

export function listRuns(db: ReadableDB, limit = 50): RunSummary[] {
  const rows = all<RunRow>(db, sql`SELECT * FROM runs WHERE kind = 'pipeline' ORDER BY id DESC LIMIT ${limit}`);
  const open = openBatchCounts(db, rows.map((r) => r.id));
  return rows.map((row) => rowToRunSummary(row, open.get(row.id) ?? 0));
}

export function getRun(db: ReadableDB, id: number): RunSummary | undefined {
  const row = get<RunRow>(db, sql`SELECT * FROM runs WHERE id = ${id} AND kind = 'pipeline'`);
  return row && rowToRunSummary(row, openBatchCounts(db, [id]).get(id) ?? 0);
}

/** The config of the latest pipeline run (for the run form). */
export function lastRunConfig(db: ReadableDB): unknown {
  const row = get<{ config: string }>(db, sql`SELECT config FROM runs WHERE kind = 'pipeline' ORDER BY id DESC LIMIT 1`);
  return row ? (JSON.parse(row.config) as unknown) : null;
}

/**
 * Pipeline runs left "running" by a process that died: they ended, unfinished. Their summary gets
 * the calls and cost they had recorded (each call is committed as it completes), so a killed run
 * still says what it spent.
 */
export function markAbandonedRuns(db: WritableDB): void {
  const abandoned = all<{ id: number; summary: string }>(db, sql`SELECT id, summary FROM runs WHERE kind = 'pipeline' AND status = 'running'`);
  for (const row of abandoned) {
    const totals = runCallTotals(db, row.id);
    const stored = JSON.parse(row.summary) as Record<string, unknown>;
    const summary = {
      ...stored,
      calls: Math.max(Number(stored.calls ?? 0), totals.calls),
      promptTokens: Math.max(Number(stored.promptTokens ?? 0), totals.promptTokens),
      completionTokens: Math.max(Number(stored.completionTokens ?? 0), totals.completionTokens),
      costUsd: Math.max(Number(stored.costUsd ?? 0), totals.costUsd),
      unpricedCalls: Math.max(Number(stored.unpricedCalls ?? 0), totals.unpricedCalls),
      error: stored.error ?? 'The run stopped before it finished (its process ended); the calls and cost shown are those it recorded.',
    };
    run(
      db,
      sql`UPDATE runs SET status = 'failed', summary = ${JSON.stringify(summary)}, finished_at = coalesce(finished_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) WHERE id = ${row.id}`,
    );
  }
}
