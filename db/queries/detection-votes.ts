import type { DetectionVerdict } from '../../shared/domain';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `detection_votes` table: each detector model's verdict on each ambiguity type of a base
 * question, or `not_needed` where the run did not ask it (the other votes had decided). Its only writer.
 */

export interface NewDetectionVote {
  baseQuestionId: number;
  type: string;
  model: string;
  verdict: DetectionVerdict;
  phenomena: number[];
  reason: string;
  provenanceId: number | null;
  /** The run that asked (or chose not to), and the position the detector was asked in (null: not asked, or imported). */
  runId?: number | null;
  askedPosition?: number | null;
}

export function saveDetectionVote(db: WritableDB, v: NewDetectionVote): void {
  saveDetectionVotes(db, [v]);
}

/** Several votes in one statement (a question's votes on every type): each row as `saveDetectionVote` would write it, in order. */
export function saveDetectionVotes(db: WritableDB, votes: readonly NewDetectionVote[]): void {
  if (votes.length === 0) return;
  const rows = votes.map(
    (v) => sql`(${v.baseQuestionId}, ${v.type}, ${v.model}, ${v.verdict}, ${JSON.stringify(v.phenomena)}, ${v.reason}, ${v.provenanceId}, ${v.runId ?? null}, ${v.askedPosition ?? null})`,
  );
  run(
    db,
    sql`INSERT INTO detection_votes (base_question_id, ambiguity_type, model, verdict, phenomena, reason, provenance_id, run_id, asked_position)
        VALUES ${sql.join(rows)}
        ON CONFLICT DO UPDATE SET verdict = excluded.verdict, phenomena = excluded.phenomena, reason = excluded.reason, provenance_id = excluded.provenance_id,
          run_id = excluded.run_id, asked_position = excluded.asked_position`,
  );
}

export function detectionVotes(
  db: ReadableDB,
  baseQuestionId: number,
): { ambiguity_type: 'semantic' | 'syntactic' | 'constraint'; model: string; verdict: DetectionVerdict; phenomena: string; reason: string; provenance_id: number | null; asked_position: number | null }[] {
  return all(
    db,
    sql`SELECT ambiguity_type, model, verdict, phenomena, reason, provenance_id, asked_position FROM detection_votes WHERE base_question_id = ${baseQuestionId} ORDER BY ambiguity_type, model`,
  );
}

/** A run's votes per stage key (ambiguity type), model and verdict: what ordering by the run's own statistics starts from on resume. */
export function detectionVoteCounts(db: ReadableDB, runId: number): { ambiguity_type: string; model: string; verdict: DetectionVerdict; first: number; n: number }[] {
  return all(db, sql`SELECT ambiguity_type, model, verdict, asked_position = 1 AS first, count(*) AS n FROM detection_votes WHERE run_id = ${runId} GROUP BY 1, 2, 3, 4`);
}
