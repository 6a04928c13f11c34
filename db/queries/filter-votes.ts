import type { FilterVerdict } from '../../shared/domain';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `filter_votes` table: each filter model's vote on an instance, or `not_needed` where the run did not ask it. Its only writer. */

export interface FilterVoteRow {
  model: string;
  verdict: FilterVerdict;
  reason: string;
  provenance_id: number | null;
}

export function insertFilterVote(db: WritableDB, instanceId: number, vote: FilterVoteRow): void {
  run(
    db,
    sql`INSERT INTO filter_votes (instance_id, model, verdict, reason, provenance_id)
        VALUES (${instanceId}, ${vote.model}, ${vote.verdict}, ${vote.reason}, ${vote.provenance_id})`,
  );
}

/** A filter model's vote on an instance; a second vote by the same model replaces the first. */
export function upsertFilterVote(
  db: WritableDB,
  instanceId: number,
  v: { model: string; verdict: FilterVerdict; reason: string; provenanceId: number | null; runId?: number | null; askedPosition?: number | null },
): void {
  run(
    db,
    sql`INSERT INTO filter_votes (instance_id, model, verdict, reason, provenance_id, run_id, asked_position)
        VALUES (${instanceId}, ${v.model}, ${v.verdict}, ${v.reason}, ${v.provenanceId}, ${v.runId ?? null}, ${v.askedPosition ?? null})
        ON CONFLICT (instance_id, model) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason, provenance_id = excluded.provenance_id,
          run_id = excluded.run_id, asked_position = excluded.asked_position`,
  );
}

export function listFilterVotes(db: ReadableDB, instanceId: number): FilterVoteRow[] {
  return all<FilterVoteRow>(
    db,
    sql`SELECT model, verdict, reason, provenance_id FROM filter_votes WHERE instance_id = ${instanceId} ORDER BY model`,
  );
}

/** A run's filter votes per model and verdict (statistics for the voting order on resume). */
export function filterVoteCounts(db: ReadableDB, runId: number): { model: string; verdict: FilterVerdict; first: number; n: number }[] {
  return all(db, sql`SELECT model, verdict, asked_position = 1 AS first, count(*) AS n FROM filter_votes WHERE run_id = ${runId} GROUP BY 1, 2, 3`);
}

/** A run's filter votes not asked, per ambiguity type of the instance and model. */
export function filterNotNeeded(db: ReadableDB, runId: number): { type: string; model: string; n: number }[] {
  return all(
    db,
    sql`SELECT i.ambiguity_type AS type, v.model, count(*) AS n FROM filter_votes v JOIN instances i ON i.id = v.instance_id
        WHERE v.run_id = ${runId} AND v.verdict = 'not_needed' GROUP BY 1, 2`,
  );
}
