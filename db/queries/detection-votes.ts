import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `detection_votes` table: each detector model's verdict on each ambiguity type of a base question. Its only writer. */

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
