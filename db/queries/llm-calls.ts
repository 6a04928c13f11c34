import type { CallTrace } from '../../shared/pipeline';
import { all, get, pluck, run, groupTransaction, sql, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

/**
 * The `llm_calls` table: the content-addressed cache of model calls and their audit log (request,
 * response, tokens, latency, cost), for the pipeline and evaluation alike. The only writer of the
 * table, and the one place a stored call becomes a `CallTrace`.
 */

export interface CachedCall {
  id: number;
  response: string;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: number | null;
  /** The token log-probabilities the endpoint returned (JSON), when they were asked for. */
  logprobs: string | null;
  /** The item that used the call last (see `tagCall`). */
  item: string | null;
}

/** A completed, valid call with this request hash. */
export function cachedCall(db: ReadableDB, hash: string): CachedCall | undefined {
  return get<CachedCall>(db, sql`SELECT id, response, prompt_tokens, completion_tokens, cost_usd, logprobs, item FROM llm_calls WHERE request_hash = ${hash} AND status = 'ok'`);
}

export interface NewCall {
  hash: string;
  runId: number | null;
  endpoint: string;
  model: string;
  stage: string;
  item: string;
  request: unknown;
  response: string | null;
  status: 'ok' | 'error';
  error: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  latencyMs: number | null;
  costUsd: number | null;
  /** `batch` when a Batch API answered it (then `batchId` says which batch). */
  mode?: 'sync' | 'batch';
  batchId?: number | null;
  /** The ambiguity type the call served, where it has one. */
  ambiguityType?: string | null;
  /** Prompt tokens the provider read from its prompt cache. */
  cachedPromptTokens?: number | null;
  /** Token log-probabilities as the endpoint returned them (`choices[0].logprobs.content`), or null. */
  logprobs?: unknown;
}

/**
 * Records a call; a failed call with the same request is replaced (the last attempt is kept). The
 * row joins the turn's group commit (see groupTransaction), so answers that arrive together (64
 * in flight against a fast endpoint) share one commit: a crash loses at most the answers of the
 * event loop's last turn, never more than were in flight. Should the group be rolled back instead
 * of committed, the row is written again at once, alone; should it then get another id than the
 * one its caller holds (another process wrote a call in between), it is kept under that id and the
 * group's failure says so.
 */
export function recordCall(db: WritableDB, c: NewCall): number {
  const id: number = groupTransaction(db, () => insertCall(db, c), (): string | undefined => {
    const again = insertCall(db, c);
    return again === id ? undefined : `the answer to ${c.stage} for ${c.item} was stored again as call ${again}, not ${id}`;
  });
  return id;
}

function insertCall(db: WritableDB, c: NewCall): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO llm_calls (request_hash, run_id, endpoint, model, stage, item, request, response, status, error,
                               prompt_tokens, completion_tokens, latency_ms, cost_usd, mode, batch_id, ambiguity_type, cached_prompt_tokens, logprobs)
        VALUES (${c.hash}, ${c.runId}, ${c.endpoint}, ${c.model}, ${c.stage}, ${c.item}, ${JSON.stringify(c.request)}, ${c.response},
                ${c.status}, ${c.error}, ${c.promptTokens}, ${c.completionTokens}, ${c.latencyMs}, ${c.costUsd},
                ${c.mode ?? 'sync'}, ${c.batchId ?? null}, ${c.ambiguityType ?? null}, ${c.cachedPromptTokens ?? null},
                ${c.logprobs === undefined || c.logprobs === null ? null : JSON.stringify(c.logprobs)})
        ON CONFLICT (request_hash) DO UPDATE SET run_id = excluded.run_id, response = excluded.response, status = excluded.status,
          error = excluded.error, prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
          latency_ms = excluded.latency_ms, cost_usd = excluded.cost_usd, logprobs = excluded.logprobs, item = excluded.item, mode = excluded.mode, batch_id = excluded.batch_id,
          ambiguity_type = excluded.ambiguity_type, cached_prompt_tokens = excluded.cached_prompt_tokens, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        RETURNING id`,
  )!.id;
}

/** Marks a cached call as used for another item too (traces find it under the latest). */
export function tagCall(db: WritableDB, id: number, item: string): void {
  run(db, sql`UPDATE llm_calls SET item = ${item} WHERE id = ${id} AND (item IS NULL OR item <> ${item})`);
}

/**
 * The call a record's provenance names by hash: the stored one, or, when this database has never
 * seen it (a pipeline export imported elsewhere), a placeholder row that keeps the reference. The
 * placeholder is marked as an error, so it never answers from the cache, and a real call with the
 * same request replaces it.
 */
export function callIdForHash(db: WritableDB, hash: string, model: string | null): number {
  const found = get<{ id: number }>(db, sql`SELECT id FROM llm_calls WHERE request_hash = ${hash}`);
  if (found) return found.id;
  return get<{ id: number }>(
    db,
    sql`INSERT INTO llm_calls (request_hash, endpoint, model, request, status, error)
        VALUES (${hash}, 'imported', ${model ?? 'unknown'}, '{}', 'error', 'imported: the call itself is not in this database, only its reference')
        RETURNING id`,
  )!.id;
}

// ---- spending ------------------------------------------------------------------------------------

/** What the calls recorded under a run add up to (calls sent; cached answers are not recorded per run). */
export function runCallTotals(db: ReadableDB, runId: number): { calls: number; failedCalls: number; promptTokens: number; completionTokens: number; costUsd: number; unpricedCalls: number } {
  return get(
    db,
    sql`SELECT count(*) AS calls, coalesce(sum(status = 'error'), 0) AS failedCalls, coalesce(sum(prompt_tokens), 0) AS promptTokens,
               coalesce(sum(completion_tokens), 0) AS completionTokens, coalesce(sum(cost_usd), 0) AS costUsd,
               coalesce(sum(cost_usd IS NULL AND prompt_tokens IS NOT NULL), 0) AS unpricedCalls
        FROM llm_calls WHERE run_id = ${runId}`,
  )!;
}

/** Whether any call was recorded under the run (it has had a session before). */
export function runHasCalls(db: ReadableDB, id: number): boolean {
  return get(db, sql`SELECT 1 AS x FROM llm_calls WHERE run_id = ${id} LIMIT 1`) !== undefined;
}

/** Every call recorded or last used for an item (repair attempts included). */
export function itemCallIds(db: ReadableDB, tag: string): number[] {
  return all<{ id: number }>(db, sql`SELECT id FROM llm_calls WHERE item = ${tag}`).map((r) => r.id);
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

/** LLM calls made for the given datasets' items (all datasets when none), per stage and model; what the priced ones cost, and how many had no price. */
export function callsPerStage(db: ReadableDB, datasetIds: readonly number[]): { stage: string; model: string; calls: number; cost: number; unpriced: number }[] {
  return all(
    db,
    sql`SELECT coalesce(c.stage, '') AS stage, c.model, count(*) AS calls, coalesce(sum(c.cost_usd), 0) AS cost,
               coalesce(sum(c.cost_usd IS NULL AND c.prompt_tokens IS NOT NULL), 0) AS unpriced
        FROM llm_calls c
        WHERE ${callForItemsOf(datasetIds)}
        GROUP BY 1, 2 ORDER BY 1, 2`,
  );
}

/**
 * True for a call `c` made for a base question (`bq:<id>`) or an instance (`inst:<id>`) that exists
 * and belongs to one of the datasets (to any when none). Each item the calls name is looked up
 * once, by key (the calls grouped on their item index), so the cost follows the calls there are,
 * not the items: a dataset imported without a pipeline (a million instances, no calls) costs
 * nothing here, and a pipeline's 13 calls per question cost what the list of every item's name
 * did before. `'bq:' || id = item` keeps it the exact string match it replaces (`bq:07` names no
 * base question).
 */
export function callForItemsOf(datasetIds: readonly number[]): SqlFragment {
  const scope = (alias: SqlFragment) => (datasetIds.length ? sql`AND ${alias}.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty);
  return sql`c.item IN (
      SELECT x.item FROM llm_calls x GROUP BY x.item HAVING CASE
        WHEN x.item GLOB 'bq:*' THEN EXISTS (SELECT 1 FROM base_questions fb WHERE fb.id = CAST(substr(x.item, 4) AS INTEGER) AND 'bq:' || fb.id = x.item ${scope(sql`fb`)})
        WHEN x.item GLOB 'inst:*' THEN EXISTS (SELECT 1 FROM instances fi WHERE fi.id = CAST(substr(x.item, 6) AS INTEGER) AND 'inst:' || fi.id = x.item ${scope(sql`fi`)})
      END)`;
}

// ---- traces --------------------------------------------------------------------------------------

/** A stored call: the trace's own fields, and the rest as stored (snake case, the request as JSON). */
type CallRow = Pick<CallTrace, 'id' | 'stage' | 'endpoint' | 'model' | 'status' | 'error' | 'response'> & {
  request: string;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  latency_ms: number | null;
  cost_usd: number | null;
  created_at: string;
};

/**
 * A stored call as a trace shows it. Queue time is not part of the request sent, so it is kept
 * beside it in the stored request under `awb_queue_ms` (the request hash is computed before,
 * from what was sent).
 */
export function rowToCallTrace(c: CallRow): CallTrace {
  const request = JSON.parse(c.request) as { messages?: { role: string; content: string }[]; awb_queue_ms?: unknown };
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
}

/** The calls behind a trace, with prompt, raw output, tokens, latency and cost. */
export function callsById(db: ReadableDB, ids: readonly number[]): CallTrace[] {
  if (ids.length === 0) return [];
  return all<CallRow>(db, sql`SELECT * FROM llm_calls WHERE id IN ${sql.list([...new Set(ids)])} ORDER BY id`).map(rowToCallTrace);
}

/**
 * The calls of some items: those recorded or last used for them, and those their stored fields
 * cite (a cached call shared by several items is recorded under the latest; the others find it
 * through the provenance of what it produced for them).
 */
export function callsForItems(db: ReadableDB, items: readonly string[]): CallTrace[] {
  if (items.length === 0) return [];
  const ids = (prefix: string) => items.filter((i) => i.startsWith(prefix)).map((i) => Number(i.slice(prefix.length)));
  const questions = sql.list(ids('bq:').length ? ids('bq:') : [-1]);
  const instances = sql.list(ids('inst:').length ? ids('inst:') : [-1]);
  const cited = sql`SELECT call_id FROM provenance WHERE call_id IS NOT NULL AND id IN (
      SELECT provenance_id FROM detection_votes WHERE base_question_id IN ${questions}
      UNION SELECT question_provenance_id FROM interpretations WHERE instance_id IN ${instances}
      UNION SELECT answer_provenance_id FROM interpretations WHERE instance_id IN ${instances}
      UNION SELECT s.provenance_id FROM sub_questions s JOIN interpretations i ON i.id = s.interpretation_id WHERE i.instance_id IN ${instances}
      UNION SELECT provenance_id FROM long_answers WHERE instance_id IN ${instances}
      UNION SELECT provenance_id FROM filter_votes WHERE instance_id IN ${instances})`;
  return all<CallRow>(db, sql`SELECT * FROM llm_calls WHERE item IN ${sql.list([...items])} OR id IN (${cited}) ORDER BY id`).map(rowToCallTrace);
}

// ---- cost per kept instance ------------------------------------------------------------------------

/** Spend grouped by stage, ambiguity type, model and mode (the type of an instance's call is the instance's). */
export interface SpendRow {
  stage: string;
  type: string | null;
  model: string;
  mode: 'sync' | 'batch';
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens: number;
  costUsd: number;
  /** Calls with tokens but no cost (their model had no price). */
  unpriced: number;
}

const CALL_TYPE = sql`coalesce(c.ambiguity_type, CASE WHEN c.item LIKE 'inst:%' THEN (SELECT i.ambiguity_type FROM instances i WHERE i.id = CAST(substr(c.item, 6) AS INTEGER)) END)`;

function spendWhere(db: ReadableDB, where: ReturnType<typeof sql>): SpendRow[] {
  return all<SpendRow>(
    db,
    sql`SELECT coalesce(c.stage, '') AS stage, ${CALL_TYPE} AS type, c.model, c.mode, count(*) AS calls,
               coalesce(sum(c.prompt_tokens), 0) AS promptTokens, coalesce(sum(c.completion_tokens), 0) AS completionTokens,
               coalesce(sum(c.cached_prompt_tokens), 0) AS cachedPromptTokens, coalesce(sum(c.cost_usd), 0) AS costUsd,
               coalesce(sum(c.cost_usd IS NULL AND c.prompt_tokens IS NOT NULL), 0) AS unpriced
        FROM llm_calls c WHERE ${where} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  );
}

/** What one run's calls spent (calls answered from the cache cost it nothing and are not here). */
export function runSpend(db: ReadableDB, runId: number): SpendRow[] {
  return spendWhere(db, sql`c.run_id = ${runId}`);
}

/** What the construction of these datasets' items spent, over every run (all datasets when none). */
export function datasetSpend(db: ReadableDB, datasetIds: readonly number[]): SpendRow[] {
  return spendWhere(
    db,
    sql`c.stage IN ('detect', 'clarify', 'decompose', 'retrieve', 'answer', 'merge', 'shorten', 'collide', 'filter')
        AND ${callForItemsOf(datasetIds)}`,
  );
}

// ---- what the voting order reads (issue 26) --------------------------------------------------------

/** The newest call's id (0 when there is none): answers stored up to it were in the cache when a run started. */
export function lastCallId(db: ReadableDB): number {
  return pluck<number>(db, sql`SELECT coalesce(max(id), 0) FROM llm_calls`) ?? 0;
}

/** Which of these request hashes have a valid answer stored by call `maxId`. */
export function answeredAmong(db: ReadableDB, hashes: readonly string[], maxId: number): Set<string> {
  if (hashes.length === 0) return new Set();
  const rows = all<{ request_hash: string }>(db, sql`SELECT request_hash FROM llm_calls WHERE request_hash IN ${sql.list([...hashes])} AND status = 'ok' AND id <= ${maxId}`);
  return new Set(rows.map((r) => r.request_hash));
}

/** The mean tokens and US dollars of these calls (dollars null when one has no price). */
export function callMeans(db: ReadableDB, ids: readonly number[]): { n: number; tokens: number | null; usd: number | null } {
  return get<{ n: number; tokens: number | null; usd: number | null }>(
    db,
    sql`SELECT count(*) AS n, avg(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)) AS tokens,
               CASE WHEN count(cost_usd) = count(*) THEN avg(cost_usd) END AS usd
        FROM llm_calls WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  )!;
}
