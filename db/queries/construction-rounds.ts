import type { RoundStatus } from '../../shared/domain';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `construction_rounds` table: one row per instance and round of CondAmbigQA-style
 * construction (draft → review → accept, or reject with feedback and draft again). Its only writer.
 */

export interface RoundRow {
  instance_id: number;
  round: number;
  status: RoundStatus;
  run_id: number | null;
  campaign_id: number | null;
  draft: string;
  check_result: string;
  feedback: string | null;
  decided_by: string | null;
  judgments_seen: number;
  prompt_versions: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  llm_ms: number;
  review_ms: number;
  created_at: string;
  decided_at: string | null;
}

/** What drafting a round spent and produced. */
export interface DraftedRound {
  draft: unknown;
  check: unknown;
  promptVersions: Record<string, string>;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  llmMs: number;
}

const now = sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** A drafted round, written with the draft it produced (a drafting that fails writes no row). */
export function insertDraftedRound(db: WritableDB, instanceId: number, round: number, runId: number | null, d: DraftedRound): void {
  run(
    db,
    sql`INSERT INTO construction_rounds (instance_id, round, status, run_id, draft, check_result, prompt_versions, calls, prompt_tokens,
          completion_tokens, cost_usd, llm_ms)
        VALUES (${instanceId}, ${round}, 'drafted', ${runId}, ${JSON.stringify(d.draft)}, ${JSON.stringify(d.check)}, ${JSON.stringify(d.promptVersions)},
          ${d.calls}, ${d.promptTokens}, ${d.completionTokens}, ${d.costUsd}, ${d.llmMs})`,
  );
}

export function markRoundsInReview(db: WritableDB, keys: readonly { instanceId: number; round: number }[], campaignId: number): void {
  for (const k of keys) {
    run(db, sql`UPDATE construction_rounds SET status = 'in_review', campaign_id = ${campaignId} WHERE instance_id = ${k.instanceId} AND round = ${k.round} AND status = 'drafted'`);
  }
}

/** The reviewers' decision; false when the round was already decided (nothing changes then). */
export function decideRound(
  db: WritableDB,
  instanceId: number,
  round: number,
  decision: { status: 'accepted' | 'rejected'; feedback: string | null; decidedBy: string; reviewMs: number; judgmentsSeen: number },
): boolean {
  return (
    run(
      db,
      sql`UPDATE construction_rounds SET status = ${decision.status}, feedback = ${decision.feedback}, decided_by = ${decision.decidedBy},
            review_ms = ${Math.round(decision.reviewMs)}, judgments_seen = ${decision.judgmentsSeen}, decided_at = ${now}
          WHERE instance_id = ${instanceId} AND round = ${round} AND status IN ('drafted', 'in_review')`,
    ).changes === 1
  );
}

/** A round as a record carries it, written back by import. */
export function insertRoundRecord(db: WritableDB, instanceId: number, r: Omit<RoundRow, 'instance_id' | 'run_id' | 'campaign_id' | 'judgments_seen'>): void {
  run(
    db,
    sql`INSERT INTO construction_rounds (instance_id, round, status, draft, check_result, feedback, decided_by, prompt_versions, calls,
          prompt_tokens, completion_tokens, cost_usd, llm_ms, review_ms, created_at, decided_at)
        VALUES (${instanceId}, ${r.round}, ${r.status}, ${r.draft}, ${r.check_result}, ${r.feedback}, ${r.decided_by}, ${r.prompt_versions},
          ${r.calls}, ${r.prompt_tokens}, ${r.completion_tokens}, ${r.cost_usd}, ${r.llm_ms}, ${r.review_ms},
          coalesce(nullif(${r.created_at}, ''), ${now}), ${r.decided_at})`,
  );
}

export function roundsOfInstance(db: ReadableDB, instanceId: number): RoundRow[] {
  return all(db, sql`SELECT * FROM construction_rounds WHERE instance_id = ${instanceId} ORDER BY round`);
}

/** The rounds of many instances (records read in batches), by instance and round. */
export function roundsOf(db: ReadableDB, instanceIds: readonly number[]): RoundRow[] {
  return all(
    db,
    sql`SELECT * FROM construction_rounds WHERE instance_id IN (SELECT value FROM json_each(${JSON.stringify(instanceIds)})) ORDER BY instance_id, round`,
  );
}

export function latestRound(db: ReadableDB, instanceId: number): RoundRow | undefined {
  return get(db, sql`SELECT * FROM construction_rounds WHERE instance_id = ${instanceId} ORDER BY round DESC LIMIT 1`);
}

/** The latest round of every construction instance of a dataset (none yet: round null), with the instance's status. */
export function latestRounds(db: ReadableDB, datasetId: number): (RoundRow & { instance_status: string; question: string })[] {
  return all(
    db,
    sql`SELECT r.*, i.status AS instance_status, b.question FROM instances i
        JOIN base_questions b ON b.id = i.base_question_id
        JOIN construction_rounds r ON r.instance_id = i.id AND r.round = (SELECT max(round) FROM construction_rounds x WHERE x.instance_id = i.id)
        WHERE i.dataset_id = ${datasetId} AND i.construction = 'condambigqa'
        ORDER BY i.id`,
  );
}

/** Rounds of a dataset, filtered, for listing. */
export function listRounds(db: ReadableDB, filter: { datasetId: number | null; instanceId: number | null; round: number | null; status: RoundStatus | null }, limit: number): (RoundRow & { question: string })[] {
  const parts = [sql`1 = 1`];
  if (filter.datasetId !== null) parts.push(sql`i.dataset_id = ${filter.datasetId}`);
  if (filter.instanceId !== null) parts.push(sql`r.instance_id = ${filter.instanceId}`);
  if (filter.round !== null) parts.push(sql`r.round = ${filter.round}`);
  if (filter.status !== null) parts.push(sql`r.status = ${filter.status}`);
  return all(
    db,
    sql`SELECT r.*, b.question FROM construction_rounds r JOIN instances i ON i.id = r.instance_id JOIN base_questions b ON b.id = i.base_question_id
        WHERE ${sql.join(parts, sql` AND `)} ORDER BY r.round, r.instance_id LIMIT ${limit}`,
  );
}

/** Per round of a dataset: items per status, and what drafting and review cost. */
export function roundTotals(
  db: ReadableDB,
  datasetId: number,
): { round: number; status: RoundStatus; n: number; cost_usd: number; prompt_tokens: number; completion_tokens: number; llm_ms: number; review_ms: number }[] {
  return all(
    db,
    sql`SELECT r.round, r.status, count(*) AS n, sum(r.cost_usd) AS cost_usd, sum(r.prompt_tokens) AS prompt_tokens,
               sum(r.completion_tokens) AS completion_tokens, sum(r.llm_ms) AS llm_ms, sum(r.review_ms) AS review_ms
        FROM construction_rounds r JOIN instances i ON i.id = r.instance_id
        WHERE i.dataset_id = ${datasetId} AND i.construction = 'condambigqa'
        GROUP BY r.round, r.status ORDER BY r.round`,
  );
}

/** Decided rounds of a dataset that a campaign reviewed, with the campaign's latest judgment at decision time. */
export function reviewedDecidedRounds(db: ReadableDB, datasetId: number): { instance_id: number; round: number; status: RoundStatus; campaign_id: number; judgments_seen: number }[] {
  return all(
    db,
    sql`SELECT r.instance_id, r.round, r.status, r.campaign_id, r.judgments_seen FROM construction_rounds r JOIN instances i ON i.id = r.instance_id
        WHERE i.dataset_id = ${datasetId} AND r.campaign_id IS NOT NULL AND r.status IN ('accepted', 'rejected')`,
  );
}
