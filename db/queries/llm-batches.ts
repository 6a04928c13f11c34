import { all, get, run, sql, transaction, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `llm_batches` and `llm_batch_requests` tables: every batch a run sent to a provider's Batch
 * API, with its provider id, files and state, and every line of it (custom_id = the request hash),
 * with the answer once read back. Their only writer. Each step of a batch's life is committed
 * before the next network call, so a run that dies at any point resumes from here.
 */

export const OPEN_BATCH_STATES = ['planned', 'uploaded', 'submitted', 'validating', 'in_progress', 'finalizing', 'cancelling'] as const;
export const FINISHED_BATCH_STATES = ['completed', 'failed', 'expired', 'cancelled'] as const;
/** A batch's last known state at the provider; `ingested_at` says when its files were read back. */
export type BatchState = (typeof OPEN_BATCH_STATES)[number] | (typeof FINISHED_BATCH_STATES)[number];

export interface BatchRow {
  id: number;
  run_id: number;
  stage: string;
  endpoint: string;
  base_url: string;
  model: string;
  state: BatchState;
  provider_batch_id: string | null;
  input_file_id: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  requests: number;
  completed: number;
  failed: number;
  attempt: number;
  errors: string;
  created_at: string;
  submitted_at: string | null;
  finished_at: string | null;
  ingested_at: string | null;
}

export interface BatchLineRow {
  request_hash: string;
  line: number;
  item: string;
  stage: string;
  ambiguity_type: string | null;
  body: string;
}

const NOW = sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** A new batch and its lines, in one transaction (state `planned`: nothing sent yet). */
export function planBatch(
  db: WritableDB,
  b: { runId: number; stage: string; endpoint: string; baseUrl: string; model: string; attempt: number },
  lines: readonly Omit<BatchLineRow, 'line'>[],
): number {
  return transaction(db, () => {
    const id = get<{ id: number }>(
      db,
      sql`INSERT INTO llm_batches (run_id, stage, endpoint, base_url, model, state, requests, attempt)
          VALUES (${b.runId}, ${b.stage}, ${b.endpoint}, ${b.baseUrl}, ${b.model}, 'planned', ${lines.length}, ${b.attempt}) RETURNING id`,
    )!.id;
    lines.forEach((l, i) =>
      run(
        db,
        sql`INSERT INTO llm_batch_requests (batch_id, request_hash, line, item, stage, ambiguity_type, body, state)
            VALUES (${id}, ${l.request_hash}, ${i + 1}, ${l.item}, ${l.stage}, ${l.ambiguity_type}, ${l.body}, 'pending')`,
      ),
    );
    return id;
  });
}

/*
 * What the provider holds (an uploaded file, a submitted batch, a poll's state) is written in a
 * transaction of its own, committed on return: never inside a group of pipeline items that may
 * commit later, since a lost batch id would send the same paid batch again on resume.
 */

export function batchUploaded(db: WritableDB, id: number, inputFileId: string): void {
  transaction(db, () => run(db, sql`UPDATE llm_batches SET state = 'uploaded', input_file_id = ${inputFileId} WHERE id = ${id}`));
}

export function batchSubmitted(db: WritableDB, id: number, providerBatchId: string): void {
  transaction(db, () => run(db, sql`UPDATE llm_batches SET state = 'submitted', provider_batch_id = ${providerBatchId}, submitted_at = ${NOW} WHERE id = ${id}`));
}

/** What a poll saw: the provider's status, counts and files. */
export function batchPolled(
  db: WritableDB,
  id: number,
  p: { state: BatchState; completed: number; failed: number; outputFileId: string | null; errorFileId: string | null; errors: unknown[] },
): void {
  const finished = (FINISHED_BATCH_STATES as readonly string[]).includes(p.state);
  transaction(db, () =>
    run(
      db,
      sql`UPDATE llm_batches SET state = ${p.state}, completed = ${p.completed}, failed = ${p.failed}, output_file_id = ${p.outputFileId},
          error_file_id = ${p.errorFileId}, errors = ${JSON.stringify(p.errors)}, finished_at = ${finished ? NOW : null} WHERE id = ${id}`,
    ),
  );
}

/** A batch that could not be sent at all (no Batch API, a refused file): failed, its lines with the reason. */
export function batchRefused(db: WritableDB, id: number, reason: string): void {
  transaction(db, () => {
    run(db, sql`UPDATE llm_batches SET state = 'failed', errors = ${JSON.stringify([{ message: reason }])}, finished_at = ${NOW}, ingested_at = ${NOW} WHERE id = ${id}`);
    run(db, sql`UPDATE llm_batch_requests SET state = 'failed', error = ${reason} WHERE batch_id = ${id} AND state = 'pending'`);
  });
}

/** The answers and errors read back from a finished batch, and the batch marked ingested, in one transaction. */
export function ingestBatch(db: WritableDB, id: number, answered: ReadonlyMap<string, string>, failed: ReadonlyMap<string, string>): void {
  transaction(db, () => {
    for (const [hash, response] of answered) run(db, sql`UPDATE llm_batch_requests SET state = 'done', response = ${response}, error = NULL WHERE batch_id = ${id} AND request_hash = ${hash}`);
    for (const [hash, error] of failed) run(db, sql`UPDATE llm_batch_requests SET state = 'failed', error = ${error} WHERE batch_id = ${id} AND request_hash = ${hash}`);
    run(db, sql`UPDATE llm_batch_requests SET state = 'failed', error = 'the batch gave no answer and no error for this line' WHERE batch_id = ${id} AND state = 'pending'`);
    run(db, sql`UPDATE llm_batches SET ingested_at = ${NOW} WHERE id = ${id}`);
  });
}

export function getBatch(db: ReadableDB, id: number): BatchRow | undefined {
  return get<BatchRow>(db, sql`SELECT * FROM llm_batches WHERE id = ${id}`);
}

export function batchLines(db: ReadableDB, id: number): BatchLineRow[] {
  return all<BatchLineRow>(db, sql`SELECT request_hash, line, item, stage, ambiguity_type, body FROM llm_batch_requests WHERE batch_id = ${id} ORDER BY line`);
}

/** Batches not yet read back, of any run (paid work waiting): what a new or resumed run polls first. */
export function unfinishedBatches(db: ReadableDB): BatchRow[] {
  return all<BatchRow>(db, sql`SELECT * FROM llm_batches WHERE ingested_at IS NULL ORDER BY id`);
}

/** The latest line for a request: pending in an open batch, answered, or failed (with the batch's attempt). */
export function latestBatchLine(db: ReadableDB, hash: string): { batch_id: number; state: 'pending' | 'done' | 'failed'; response: string | null; error: string | null; attempt: number } | undefined {
  return get(
    db,
    sql`SELECT r.batch_id, r.state, r.response, r.error, b.attempt FROM llm_batch_requests r JOIN llm_batches b ON b.id = r.batch_id
        WHERE r.request_hash = ${hash} ORDER BY r.batch_id DESC LIMIT 1`,
  );
}

/** A run's batches, newest first (the run page and `awb pipeline show`). */
export function runBatches(db: ReadableDB, runId: number): BatchRow[] {
  return all<BatchRow>(db, sql`SELECT * FROM llm_batches WHERE run_id = ${runId} ORDER BY id DESC`);
}

/** How many batches each of these runs still waits for. */
export function openBatchCounts(db: ReadableDB, runIds: readonly number[]): Map<number, number> {
  if (!runIds.length) return new Map();
  const rows = all<{ run_id: number; n: number }>(
    db,
    sql`SELECT run_id, count(*) AS n FROM llm_batches WHERE ingested_at IS NULL AND run_id IN ${sql.list([...runIds])} GROUP BY run_id`,
  );
  return new Map(rows.map((r) => [r.run_id, r.n]));
}
