import type { FilterVerdict } from '../../shared/domain';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

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
export function upsertFilterVote(db: WritableDB, instanceId: number, v: { model: string; verdict: FilterVerdict; reason: string; provenanceId: number | null }): void {
  run(
    db,
    sql`INSERT INTO filter_votes (instance_id, model, verdict, reason, provenance_id) VALUES (${instanceId}, ${v.model}, ${v.verdict}, ${v.reason}, ${v.provenanceId})
        ON CONFLICT (instance_id, model) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason, provenance_id = excluded.provenance_id`,
  );
}

export function listFilterVotes(db: ReadableDB, instanceId: number): FilterVoteRow[] {
  return all<FilterVoteRow>(
    db,
    sql`SELECT model, verdict, reason, provenance_id FROM filter_votes WHERE instance_id = ${instanceId} ORDER BY model`,
  );
}
