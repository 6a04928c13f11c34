import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export function insertLongAnswer(
  db: WritableDB,
  instanceId: number,
  position: number,
  text: string,
  provenanceId: number | null,
): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO long_answers (instance_id, position, text, provenance_id)
        VALUES (${instanceId}, ${position}, ${text}, ${provenanceId}) RETURNING id`,
  )!.id;
}

export interface LongAnswerCitationRow {
  long_answer_id: number;
  position: number;
  passage_id: number;
  interpretation_id: number | null;
  start: number | null;
  end: number | null;
}

export function insertLongAnswerCitation(db: WritableDB, c: LongAnswerCitationRow): void {
  run(
    db,
    sql`INSERT INTO long_answer_citations (long_answer_id, position, passage_id, interpretation_id, start, end)
        VALUES (${c.long_answer_id}, ${c.position}, ${c.passage_id}, ${c.interpretation_id}, ${c.start}, ${c.end})`,
  );
}

export interface LongAnswerDbRow {
  id: number;
  position: number;
  text: string;
  provenance_id: number | null;
}

export function listLongAnswers(db: ReadableDB, instanceId: number): LongAnswerDbRow[] {
  return all<LongAnswerDbRow>(
    db,
    sql`SELECT id, position, text, provenance_id FROM long_answers WHERE instance_id = ${instanceId} ORDER BY position`,
  );
}

export function listLongAnswerCitations(db: ReadableDB, instanceId: number): LongAnswerCitationRow[] {
  return all<LongAnswerCitationRow>(
    db,
    sql`SELECT c.* FROM long_answer_citations c JOIN long_answers a ON a.id = c.long_answer_id
        WHERE a.instance_id = ${instanceId} ORDER BY c.long_answer_id, c.position`,
  );
}
