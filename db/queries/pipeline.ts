import type { AmbiguityType } from '../../shared/domain';
import type { CallTrace, PromptName, PromptTemplate } from '../../shared/pipeline';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';
import { writeInstanceSearchRow } from './instances';

// ---- runs ----------------------------------------------------------------------------------------

export function insertRun(db: WritableDB, config: unknown): number {
  return get<{ id: number }>(db, sql`INSERT INTO runs (kind, status, config) VALUES ('pipeline', 'running', ${JSON.stringify(config)}) RETURNING id`)!.id;
}

export function finishRun(db: WritableDB, id: number, status: 'done' | 'failed' | 'cancelled', summary: unknown): void {
  run(db, sql`UPDATE runs SET status = ${status}, summary = ${JSON.stringify(summary)}, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ${id}`);
}

export function saveRunSummary(db: WritableDB, id: number, summary: unknown): void {
  run(db, sql`UPDATE runs SET summary = ${JSON.stringify(summary)} WHERE id = ${id}`);
}

export interface RunRow {
  id: number;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  config: string;
  summary: string;
  started_at: string;
  finished_at: string | null;
}

export function listRuns(db: ReadableDB, limit = 50): RunRow[] {
  return all<RunRow>(db, sql`SELECT * FROM runs WHERE kind = 'pipeline' ORDER BY id DESC LIMIT ${limit}`);
}

export function getRun(db: ReadableDB, id: number): RunRow | undefined {
  return get<RunRow>(db, sql`SELECT * FROM runs WHERE id = ${id} AND kind = 'pipeline'`);
}

/** What the calls recorded under a run add up to (calls sent; cached answers are not recorded per run). */
function runCallTotals(db: ReadableDB, runId: number): { calls: number; failedCalls: number; promptTokens: number; completionTokens: number; costUsd: number } {
  return get(
    db,
    sql`SELECT count(*) AS calls, coalesce(sum(status = 'error'), 0) AS failedCalls, coalesce(sum(prompt_tokens), 0) AS promptTokens,
               coalesce(sum(completion_tokens), 0) AS completionTokens, coalesce(sum(cost_usd), 0) AS costUsd
        FROM llm_calls WHERE run_id = ${runId}`,
  )!;
}

/**
 * Runs left "running" by a process that died: they ended, unfinished. Their summary gets the
 * calls and cost they had recorded (each call is committed as it completes), so a killed run
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
      error: stored.error ?? 'The run stopped before it finished (its process ended); the calls and cost shown are those it recorded.',
    };
    run(
      db,
      sql`UPDATE runs SET status = 'failed', summary = ${JSON.stringify(summary)}, finished_at = coalesce(finished_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) WHERE id = ${row.id}`,
    );
  }
}

// ---- the call cache --------------------------------------------------------------------------------

export interface CachedCall {
  id: number;
  response: string;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: number | null;
}

/** A completed, valid call with this request hash. */
export function cachedCall(db: ReadableDB, hash: string): CachedCall | undefined {
  return get<CachedCall>(db, sql`SELECT id, response, prompt_tokens, completion_tokens, cost_usd FROM llm_calls WHERE request_hash = ${hash} AND status = 'ok'`);
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
}

/** Records a call; a failed call with the same request is replaced (the last attempt is kept). */
export function recordCall(db: WritableDB, c: NewCall): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO llm_calls (request_hash, run_id, endpoint, model, stage, item, request, response, status, error,
                               prompt_tokens, completion_tokens, latency_ms, cost_usd)
        VALUES (${c.hash}, ${c.runId}, ${c.endpoint}, ${c.model}, ${c.stage}, ${c.item}, ${JSON.stringify(c.request)}, ${c.response},
                ${c.status}, ${c.error}, ${c.promptTokens}, ${c.completionTokens}, ${c.latencyMs}, ${c.costUsd})
        ON CONFLICT (request_hash) DO UPDATE SET run_id = excluded.run_id, response = excluded.response, status = excluded.status,
          error = excluded.error, prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
          latency_ms = excluded.latency_ms, cost_usd = excluded.cost_usd, item = excluded.item, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        RETURNING id`,
  )!.id;
}

/** Marks a cached call as used for another item too (traces find it under the latest). */
export function tagCall(db: WritableDB, id: number, item: string): void {
  run(db, sql`UPDATE llm_calls SET item = ${item} WHERE id = ${id} AND (item IS NULL OR item <> ${item})`);
}

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
 * The calls of some items: those recorded or last used for them, and those their stored fields
 * cite (a cached call shared by several items is recorded under the latest; the others find it
 * through the provenance of what it produced for them).
 */
export function callsForItems(db: ReadableDB, items: readonly string[]): CallTrace[] {
  if (items.length === 0) return [];
  const ids = (prefix: string) => items.filter((i) => i.startsWith(prefix)).map((i) => Number(i.slice(prefix.length)));
  const questions = ids('bq:');
  const instances = ids('inst:');
  const cited = sql`SELECT call_id FROM provenance WHERE call_id IS NOT NULL AND id IN (
      SELECT provenance_id FROM detection_votes WHERE base_question_id IN ${sql.list(questions.length ? questions : [-1])}
      UNION SELECT question_provenance_id FROM interpretations WHERE instance_id IN ${sql.list(instances.length ? instances : [-1])}
      UNION SELECT answer_provenance_id FROM interpretations WHERE instance_id IN ${sql.list(instances.length ? instances : [-1])}
      UNION SELECT s.provenance_id FROM sub_questions s JOIN interpretations i ON i.id = s.interpretation_id WHERE i.instance_id IN ${sql.list(instances.length ? instances : [-1])}
      UNION SELECT provenance_id FROM long_answers WHERE instance_id IN ${sql.list(instances.length ? instances : [-1])}
      UNION SELECT provenance_id FROM filter_votes WHERE instance_id IN ${sql.list(instances.length ? instances : [-1])})`;
  return all<CallRow>(db, sql`SELECT * FROM llm_calls WHERE item IN ${sql.list([...items])} OR id IN (${cited}) ORDER BY id`).map((c) => ({
    id: c.id,
    stage: c.stage,
    endpoint: c.endpoint,
    model: c.model,
    status: c.status,
    error: c.error,
    messages: (JSON.parse(c.request) as { messages?: { role: string; content: string }[] }).messages ?? [],
    response: c.response,
    promptTokens: c.prompt_tokens,
    completionTokens: c.completion_tokens,
    latencyMs: c.latency_ms,
    queueMs: queueOf(c.request),
    costUsd: c.cost_usd,
    createdAt: c.created_at,
  }));
}

// ---- stage checkpoints -----------------------------------------------------------------------------

export function markItem(db: WritableDB, stage: string, item: string, status: 'done' | 'failed', runId: number | null, reason: string | null = null, raw: string | null = null): void {
  run(
    db,
    sql`INSERT INTO pipeline_items (stage, item, status, reason, raw_output, run_id) VALUES (${stage}, ${item}, ${status}, ${reason}, ${raw}, ${runId})
        ON CONFLICT (stage, item) DO UPDATE SET status = excluded.status, reason = excluded.reason, raw_output = excluded.raw_output,
          run_id = excluded.run_id, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  );
}

export function itemStages(db: ReadableDB, items: readonly string[]): { stage: string; item: string; status: string; reason: string | null; raw_output: string | null }[] {
  if (items.length === 0) return [];
  return all(db, sql`SELECT stage, item, status, reason, raw_output FROM pipeline_items WHERE item IN ${sql.list([...items])} ORDER BY updated_at`);
}

export function stageStatusCounts(db: ReadableDB): { stage: string; status: string; n: number }[] {
  return all(db, sql`SELECT stage, status, count(*) AS n FROM pipeline_items GROUP BY stage, status`);
}

/** Every base question of the given datasets (all when none), with what `--limit` orders them by. */
export function subsetCandidates(db: ReadableDB, datasetIds: readonly number[]): { id: number; dataset: string; sourceId: string }[] {
  const scope = datasetIds.length ? sql`WHERE b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(db, sql`SELECT b.id, d.name AS dataset, b.source_id AS sourceId FROM base_questions b JOIN datasets d ON d.id = b.dataset_id ${scope}`);
}

/** Base questions detection has not finished, of the given datasets (all when none), or of the chosen ones. */
export function questionsToDetect(db: ReadableDB, datasetIds: readonly number[], limit: number, chosen: readonly number[] | null = null): { id: number; dataset_id: number; question: string; hops: number | null }[] {
  if (chosen) {
    if (chosen.length === 0) return [];
    const rows = all<{ id: number; dataset_id: number; question: string; hops: number | null }>(
      db,
      sql`SELECT b.id, b.dataset_id, b.question, b.hops FROM base_questions b
          WHERE b.id IN (SELECT value FROM json_each(${JSON.stringify(chosen)}))
            AND NOT EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'detect' AND p.item = 'bq:' || b.id AND p.status = 'done')`,
    );
    const order = new Map(chosen.map((id, i) => [id, i]));
    return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }
  const scope = datasetIds.length ? sql`AND b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(
    db,
    sql`SELECT b.id, b.dataset_id, b.question, b.hops FROM base_questions b
        WHERE NOT EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'detect' AND p.item = 'bq:' || b.id AND p.status = 'done') ${scope}
        ORDER BY b.id LIMIT ${limit}`,
  );
}

/** Instances waiting for a stage: still building, the previous stage done, this one not. */
export function instancesAt(
  db: ReadableDB,
  previous: string,
  stage: string,
  datasetIds: readonly number[],
  limit: number,
  chosen: readonly number[] | null = null,
): { id: number; base_question_id: number; ambiguity_type: AmbiguityType; question: string }[] {
  if (chosen?.length === 0) return [];
  const scope = datasetIds.length ? sql`AND i.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  // The subset travels as one JSON parameter: any size, no limit on bound variables.
  const subset = chosen ? sql`AND i.base_question_id IN (SELECT value FROM json_each(${JSON.stringify(chosen)}))` : sql.empty;
  const rows = all<{ id: number; base_question_id: number; ambiguity_type: AmbiguityType; question: string }>(
    db,
    sql`SELECT i.id, i.base_question_id, i.ambiguity_type, b.question FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.status = 'building' AND i.stage = ${previous} ${scope} ${subset}
          AND NOT EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = ${stage} AND p.item = 'inst:' || i.id AND p.status = 'done')
        ORDER BY i.id ${chosen ? sql.empty : sql`LIMIT ${limit}`}`,
  );
  if (!chosen) return rows;
  // In the subset's order: its questions, then each question's instances by type order of creation.
  const order = new Map(chosen.map((id, i) => [id, i]));
  return rows.sort((a, b) => order.get(a.base_question_id)! - order.get(b.base_question_id)! || a.id - b.id);
}

export function setInstanceStage(db: WritableDB, id: number, stage: string): void {
  run(db, sql`UPDATE instances SET stage = ${stage}, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ${id}`);
}

export function removeInstance(db: WritableDB, id: number, stage: string, reason: string): void {
  run(
    db,
    sql`UPDATE instances SET status = 'removed', stage = ${stage}, removed_stage = ${stage}, removed_reason = ${reason},
          updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ${id}`,
  );
}

export function readyInstance(db: WritableDB, id: number): void {
  run(db, sql`UPDATE instances SET status = 'ready', stage = 'filter', updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ${id}`);
}

// ---- detection votes -------------------------------------------------------------------------------

export function saveDetectionVote(
  db: WritableDB,
  v: { baseQuestionId: number; type: string; model: string; verdict: 'yes' | 'no'; phenomena: number[]; reason: string; provenanceId: number | null },
): void {
  run(
    db,
    sql`INSERT INTO detection_votes (base_question_id, ambiguity_type, model, verdict, phenomena, reason, provenance_id)
        VALUES (${v.baseQuestionId}, ${v.type}, ${v.model}, ${v.verdict}, ${JSON.stringify(v.phenomena)}, ${v.reason}, ${v.provenanceId})
        ON CONFLICT DO UPDATE SET verdict = excluded.verdict, phenomena = excluded.phenomena, reason = excluded.reason, provenance_id = excluded.provenance_id`,
  );
}

export function detectionVotes(
  db: ReadableDB,
  baseQuestionId: number,
): { ambiguity_type: 'semantic' | 'syntactic' | 'constraint'; model: string; verdict: 'yes' | 'no'; phenomena: string; reason: string; provenance_id: number | null }[] {
  return all(db, sql`SELECT ambiguity_type, model, verdict, phenomena, reason, provenance_id FROM detection_votes WHERE base_question_id = ${baseQuestionId} ORDER BY ambiguity_type, model`);
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

// ---- prompts and prices ----------------------------------------------------------------------------

interface PromptRow {
  id: number;
  stage: PromptName;
  version: number;
  system: string;
  user: string;
  built_in: number;
  created_at: string;
}

const toPrompt = (r: PromptRow): PromptTemplate => ({ id: r.id, stage: r.stage, version: r.version, system: r.system, user: r.user, builtIn: r.built_in === 1, createdAt: r.created_at });

/** The latest version of every stage's template. */
export function latestPrompts(db: ReadableDB): PromptTemplate[] {
  return all<PromptRow>(db, sql`SELECT * FROM prompt_templates p WHERE version = (SELECT max(version) FROM prompt_templates q WHERE q.stage = p.stage) ORDER BY stage`).map(toPrompt);
}

export function promptVersions(db: ReadableDB, stage: string): PromptTemplate[] {
  return all<PromptRow>(db, sql`SELECT * FROM prompt_templates WHERE stage = ${stage} ORDER BY version DESC`).map(toPrompt);
}

export function insertPrompt(db: WritableDB, p: { stage: string; system: string; user: string; builtIn: boolean }): PromptTemplate {
  const version = (get<{ v: number | null }>(db, sql`SELECT max(version) AS v FROM prompt_templates WHERE stage = ${p.stage}`)?.v ?? 0) + 1;
  return toPrompt(
    get<PromptRow>(db, sql`INSERT INTO prompt_templates (stage, version, system, user, built_in) VALUES (${p.stage}, ${version}, ${p.system}, ${p.user}, ${p.builtIn}) RETURNING *`)!,
  );
}

export function listPrices(db: ReadableDB): { model: string; input: number; output: number }[] {
  return all(db, sql`SELECT model, input_per_million AS input, output_per_million AS output FROM model_prices ORDER BY model`);
}

export function setPrice(db: WritableDB, model: string, input: number, output: number): void {
  run(db, sql`INSERT INTO model_prices (model, input_per_million, output_per_million) VALUES (${model}, ${input}, ${output}) ON CONFLICT DO UPDATE SET input_per_million = excluded.input_per_million, output_per_million = excluded.output_per_million`);
}

export function deletePrice(db: WritableDB, model: string): void {
  run(db, sql`DELETE FROM model_prices WHERE model = ${model}`);
}

// ---- the funnel --------------------------------------------------------------------------------------

export function funnelCounts(db: ReadableDB, datasetIds: readonly number[]) {
  const scope = datasetIds.length ? sql`AND b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  const instanceScope = datasetIds.length ? sql`AND i.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  const questions = get<{ n: number }>(
    db,
    sql`SELECT count(*) AS n FROM base_questions b WHERE EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'detect' AND p.item = 'bq:' || b.id AND p.status = 'done') ${scope}`,
  )!.n;
  const instances = all<{ ambiguity_type: string; stage: string; status: string; removed_stage: string | null; n: number; hops: number | null; words: number | null }>(
    db,
    sql`SELECT i.ambiguity_type, i.stage, i.status, i.removed_stage, count(*) AS n,
               avg(b.hops) AS hops, avg(length(trim(b.question)) - length(replace(trim(b.question), ' ', '')) + 1) AS words
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.ambiguity_type <> 'unspecified'
          AND EXISTS (SELECT 1 FROM detection_votes v WHERE v.base_question_id = i.base_question_id) ${instanceScope}
        GROUP BY i.ambiguity_type, i.stage, i.status, i.removed_stage`,
  );
  return { questions, instances };
}

// ---- interpretations under construction ------------------------------------------------------

export function setShortAnswer(
  db: WritableDB,
  interpretationId: number,
  a: { text: string; passageId: number; start: number; end: number; provenanceId: number | null; extra?: Record<string, unknown> },
): void {
  run(
    db,
    sql`UPDATE interpretations SET short_answer = ${a.text}, answer_passage_id = ${a.passageId}, answer_start = ${a.start}, answer_end = ${a.end},
          answer_provenance_id = ${a.provenanceId}, extra = json_patch(extra, ${JSON.stringify(a.extra ?? {})}) WHERE id = ${interpretationId}`,
  );
}

export function dropInterpretation(db: WritableDB, interpretationId: number, reason: string): void {
  run(db, sql`UPDATE interpretations SET status = 'dropped', dropped_reason = ${reason} WHERE id = ${interpretationId}`);
}

/** Recounts the active interpretations of an instance and rewrites its search row. */
export function refreshInstanceText(db: WritableDB, instanceId: number): void {
  run(
    db,
    sql`UPDATE instances SET interpretation_count = (SELECT count(*) FROM interpretations WHERE instance_id = ${instanceId} AND status = 'active')
        WHERE id = ${instanceId}`,
  );
  writeInstanceSearchRow(db, instanceId);
}

export function upsertFilterVote(db: WritableDB, instanceId: number, v: { model: string; verdict: 'aligned' | 'misaligned'; reason: string; provenanceId: number | null }): void {
  run(
    db,
    sql`INSERT INTO filter_votes (instance_id, model, verdict, reason, provenance_id) VALUES (${instanceId}, ${v.model}, ${v.verdict}, ${v.reason}, ${v.provenanceId})
        ON CONFLICT (instance_id, model) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason, provenance_id = excluded.provenance_id`,
  );
}

/** Items that failed a stage, with the question they concern. */
export function failedItems(db: ReadableDB, stage: string | null, limit: number): { item: string; stage: string; reason: string | null; question: string }[] {
  const scope = stage ? sql`AND p.stage = ${stage}` : sql.empty;
  return all(
    db,
    sql`SELECT p.item, p.stage, p.reason,
               coalesce((SELECT b.question FROM base_questions b WHERE 'bq:' || b.id = p.item),
                        (SELECT b.question FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE 'inst:' || i.id = p.item), '') AS question
        FROM pipeline_items p WHERE p.status = 'failed' ${scope} ORDER BY p.updated_at DESC LIMIT ${limit}`,
  );
}

/** The config of the latest run (for the run form). */
export function lastRunConfig(db: ReadableDB): unknown {
  const row = get<{ config: string }>(db, sql`SELECT config FROM runs WHERE kind = 'pipeline' ORDER BY id DESC LIMIT 1`);
  return row ? (JSON.parse(row.config) as unknown) : null;
}

export type RetrievalKind = 'cues' | 'evidence';

export function cachedRetrieval(db: ReadableDB, kind: RetrievalKind, queryHash: string, corpusKey: string): string | undefined {
  return get<{ value: string }>(db, sql`SELECT value FROM retrieval_cache WHERE kind = ${kind} AND query_hash = ${queryHash} AND corpus_key = ${corpusKey}`)?.value;
}

export function storeRetrieval(db: WritableDB, kind: RetrievalKind, queryHash: string, corpusKey: string, value: unknown): void {
  run(db, sql`INSERT OR REPLACE INTO retrieval_cache (kind, query_hash, corpus_key, value) VALUES (${kind}, ${queryHash}, ${corpusKey}, ${JSON.stringify(value)})`);
}

/** The state of the corpus retrieval sees: its passages and every model's vectors. */
export function corpusStateKey(db: ReadableDB, corpusId: number | null): string {
  const scope = corpusId === null ? sql.empty : sql`WHERE id = ${corpusId}`;
  const vectorScope = corpusId === null ? sql.empty : sql`WHERE corpus_id = ${corpusId}`;
  const passages = get<{ n: number }>(db, sql`SELECT coalesce(sum(passage_count), 0) AS n FROM corpora ${scope}`)!.n;
  const vectors = get<{ r: number }>(db, sql`SELECT coalesce(sum(revision), 0) AS r FROM vector_counts ${vectorScope}`)!.r;
  return `${corpusId ?? '*'}:${passages}:${vectors}`;
}

/**
 * Queue time is not part of the request sent, so it is kept beside it in the stored request
 * under `awb_queue_ms` (the request hash is computed before, from what was sent).
 */
function queueOf(request: string): number | null {
  const value = (JSON.parse(request) as { awb_queue_ms?: unknown }).awb_queue_ms;
  return typeof value === 'number' ? value : null;
}
