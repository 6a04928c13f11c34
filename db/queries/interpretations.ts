import type { InterpretationStatus } from '../../shared/domain';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export interface NewInterpretation {
  instanceId: number;
  position: number;
  clarifiedQuestion: string | null;
  condition: string | null;
  shortAnswer: string | null;
  answerAliases: string[];
  answerPassageId: number | null;
  answerStart: number | null;
  answerEnd: number | null;
  status: InterpretationStatus;
  droppedReason: string | null;
  questionProvenanceId: number | null;
  conditionProvenanceId: number | null;
  answerProvenanceId: number | null;
  extra: Record<string, unknown>;
}

export function insertInterpretation(db: WritableDB, i: NewInterpretation): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO interpretations (instance_id, position, clarified_question, condition, short_answer, answer_aliases,
                                     answer_passage_id, answer_start, answer_end, status, dropped_reason,
                                     question_provenance_id, condition_provenance_id, answer_provenance_id, extra)
        VALUES (${i.instanceId}, ${i.position}, ${i.clarifiedQuestion}, ${i.condition}, ${i.shortAnswer},
                ${JSON.stringify(i.answerAliases)}, ${i.answerPassageId}, ${i.answerStart}, ${i.answerEnd}, ${i.status},
                ${i.droppedReason}, ${i.questionProvenanceId}, ${i.conditionProvenanceId}, ${i.answerProvenanceId},
                ${JSON.stringify(i.extra)})
        RETURNING id`,
  )!.id;
}

/** Every interpretation of an instance goes (their sub-questions, evidence and citations with them): a new draft replaces them. */
export function deleteInterpretations(db: WritableDB, instanceId: number): void {
  run(db, sql`DELETE FROM interpretations WHERE instance_id = ${instanceId}`);
}

export interface InterpretationDbRow {
  id: number;
  instance_id: number;
  position: number;
  clarified_question: string | null;
  condition: string | null;
  short_answer: string | null;
  answer_aliases: string;
  answer_passage_id: number | null;
  answer_start: number | null;
  answer_end: number | null;
  status: InterpretationStatus;
  dropped_reason: string | null;
  question_provenance_id: number | null;
  condition_provenance_id: number | null;
  answer_provenance_id: number | null;
  extra: string;
}

export function listInterpretations(db: ReadableDB, instanceId: number): InterpretationDbRow[] {
  return all<InterpretationDbRow>(db, sql`SELECT * FROM interpretations WHERE instance_id = ${instanceId} ORDER BY position`);
}


// ---- sub-questions ---------------------------------------------------------------------------

export interface SubQuestionRow {
  interpretation_id: number;
  position: number;
  question: string;
  answer: string | null;
  provenance_id: number | null;
}

export function insertSubQuestion(db: WritableDB, row: SubQuestionRow): void {
  run(
    db,
    sql`INSERT INTO sub_questions (interpretation_id, position, question, answer, provenance_id)
        VALUES (${row.interpretation_id}, ${row.position}, ${row.question}, ${row.answer}, ${row.provenance_id})`,
  );
}

export function listSubQuestions(db: ReadableDB, instanceId: number): SubQuestionRow[] {
  return all<SubQuestionRow>(
    db,
    sql`SELECT s.* FROM sub_questions s JOIN interpretations i ON i.id = s.interpretation_id
        WHERE i.instance_id = ${instanceId} ORDER BY s.interpretation_id, s.position`,
  );
}

// ---- citations into the instance's frozen evidence list ---------------------------------------

export function insertInterpretationCitation(db: WritableDB, interpretationId: number, position: number, evidenceId: number): void {
  run(
    db,
    sql`INSERT INTO interpretation_citations (interpretation_id, position, evidence_id)
        VALUES (${interpretationId}, ${position}, ${evidenceId})`,
  );
}

export function listInterpretationCitations(
  db: ReadableDB,
  instanceId: number,
): { interpretation_id: number; position: number; rank: number }[] {
  return all(
    db,
    sql`SELECT c.interpretation_id, c.position, e.rank FROM interpretation_citations c
        JOIN evidence e ON e.id = c.evidence_id
        JOIN interpretations i ON i.id = c.interpretation_id
        WHERE i.instance_id = ${instanceId} ORDER BY c.interpretation_id, c.position`,
  );
}

// ---- under construction (the pipeline) ---------------------------------------------------------

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
