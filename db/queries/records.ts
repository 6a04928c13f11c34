import type { Answerability, ConstructionMode, DecompositionStyle, DetectionVerdict, Domain } from '../../shared/domain';
import type { ClarificationTurnRow } from './clarification-turns';
import type { LabelVoteRow } from './label-votes';
import { all, allRaw, sql, type ReadableDB, type SqlFragment } from '../sql';
import type { DatasetRow } from './datasets';
import type { EvidenceDbRow } from './evidence';
import type { FilterVoteRow } from './filter-votes';
import type { InstanceFull } from './instances';
import type { InterpretationDbRow, SubQuestionRow } from './interpretations';
import type { LongAnswerCitationRow, LongAnswerDbRow } from './long-answers';
import type { PassageWithCorpus } from './passages';
import type { ProvenanceRow } from './provenance';

/**
 * The rows of many awb-instance/1 records at once, for export and releases: one query per table
 * for a whole batch of instances (or base questions), each a lookup of the batch's ids in the
 * table's index, instead of a dozen queries per instance. Rows come back grouped by their owner
 * and, within an owner, in the order the single-record queries give them, so that the records
 * assembled from them are the same, byte for byte.
 *
 * The ids travel as one JSON array (`json_each`), so the statement text is the same for every
 * batch size and there is no limit on the number of ids.
 *
 * Why one module across tables, when every other module holds one table's queries: these reads
 * are one algorithm (a record's rows, batch by batch, in the single-record order), and split by
 * table they could drift from each other and from the record assembled from them. It only reads;
 * each table's writer is its own module.
 */

function ids(values: readonly number[]): SqlFragment {
  return sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** The instance columns a record carries. */
export type InstanceRecordRow = Pick<
  InstanceFull,
  'id' | 'base_question_id' | 'ambiguity_type' | 'status' | 'stage' | 'removed_stage' | 'removed_reason' | 'extra'
>;

// The three tables with a row or more per instance are read as arrays (`allRaw`) and made into
// objects here: half the cost of having the driver make an object of each row.

export function instancesByIds(db: ReadableDB, instanceIds: readonly number[]): InstanceRecordRow[] {
  type Raw = [number, number, InstanceFull['ambiguity_type'], InstanceFull['status'], InstanceFull['stage'], string | null, string | null, string];
  return allRaw<Raw>(
    db,
    sql`SELECT id, base_question_id, ambiguity_type, status, stage, removed_stage, removed_reason, extra FROM instances
        WHERE id IN ${ids(instanceIds)}`,
  ).map((r) => ({
    id: r[0],
    base_question_id: r[1],
    ambiguity_type: r[2],
    status: r[3],
    stage: r[4],
    removed_stage: r[5],
    removed_reason: r[6],
    extra: r[7],
  }));
}

/** The base question columns a record carries. */
export interface BaseQuestionRecordRow {
  id: number;
  dataset_id: number;
  source_id: string;
  question: string;
  hops: number | null;
  answer: string | null;
  aliases: string;
  answerable: number | null;
  extra: string;
}

export function baseQuestionsByIds(db: ReadableDB, baseQuestionIds: readonly number[]): BaseQuestionRecordRow[] {
  type Raw = [number, number, string, string, number | null, string | null, string, number | null, string];
  return allRaw<Raw>(
    db,
    sql`SELECT id, dataset_id, source_id, question, hops, answer, aliases, answerable, extra FROM base_questions
        WHERE id IN ${ids(baseQuestionIds)}`,
  ).map((r) => ({
    id: r[0],
    dataset_id: r[1],
    source_id: r[2],
    question: r[3],
    hops: r[4],
    answer: r[5],
    aliases: r[6],
    answerable: r[7],
    extra: r[8],
  }));
}

export function datasetsByIds(db: ReadableDB, datasetIds: readonly number[]): DatasetRow[] {
  return all<DatasetRow>(db, sql`SELECT * FROM datasets WHERE id IN ${ids(datasetIds)}`);
}

export interface ParagraphRow {
  base_question_id: number;
  position: number;
  passage_id: number;
  is_supporting: number;
}

export function paragraphsOf(db: ReadableDB, baseQuestionIds: readonly number[]): ParagraphRow[] {
  return all<ParagraphRow>(
    db,
    sql`SELECT base_question_id, position, passage_id, is_supporting FROM base_question_passages
        WHERE base_question_id IN ${ids(baseQuestionIds)} ORDER BY base_question_id, position`,
  );
}

export interface DecompositionRecordRow {
  base_question_id: number;
  position: number;
  source_id: string | null;
  question: string;
  answer: string | null;
  style: DecompositionStyle;
  support_position: number | null;
}

export function decompositionsOf(db: ReadableDB, baseQuestionIds: readonly number[]): DecompositionRecordRow[] {
  return all<DecompositionRecordRow>(
    db,
    sql`SELECT base_question_id, position, source_id, question, answer, style, support_position FROM decomposition_steps
        WHERE base_question_id IN ${ids(baseQuestionIds)} ORDER BY base_question_id, position`,
  );
}

export interface DetectionVoteRecordRow {
  base_question_id: number;
  ambiguity_type: 'semantic' | 'syntactic' | 'constraint';
  model: string;
  verdict: DetectionVerdict;
  phenomena: string;
  reason: string;
  provenance_id: number | null;
}

export function detectionVotesOf(db: ReadableDB, baseQuestionIds: readonly number[]): DetectionVoteRecordRow[] {
  return all<DetectionVoteRecordRow>(
    db,
    sql`SELECT base_question_id, ambiguity_type, model, verdict, phenomena, reason, provenance_id FROM detection_votes
        WHERE base_question_id IN ${ids(baseQuestionIds)} ORDER BY base_question_id, ambiguity_type, model`,
  );
}

export function interpretationsOf(db: ReadableDB, instanceIds: readonly number[]): InterpretationDbRow[] {
  type Raw = [
    number, number, number, string | null, string | null, string | null, string, number | null, number | null, number | null,
    InterpretationDbRow['status'], string | null, number | null, number | null, number | null, string,
  ];
  return allRaw<Raw>(
    db,
    sql`SELECT id, instance_id, position, clarified_question, condition, short_answer, answer_aliases, answer_passage_id,
               answer_start, answer_end, status, dropped_reason, question_provenance_id, condition_provenance_id,
               answer_provenance_id, extra
        FROM interpretations WHERE instance_id IN ${ids(instanceIds)} ORDER BY instance_id, position`,
  ).map((r) => ({
    id: r[0],
    instance_id: r[1],
    position: r[2],
    clarified_question: r[3],
    condition: r[4],
    short_answer: r[5],
    answer_aliases: r[6],
    answer_passage_id: r[7],
    answer_start: r[8],
    answer_end: r[9],
    status: r[10],
    dropped_reason: r[11],
    question_provenance_id: r[12],
    condition_provenance_id: r[13],
    answer_provenance_id: r[14],
    extra: r[15],
  }));
}

export function evidenceOf(db: ReadableDB, instanceIds: readonly number[]): EvidenceDbRow[] {
  return all<EvidenceDbRow>(
    db,
    sql`SELECT * FROM evidence WHERE instance_id IN ${ids(instanceIds)}
        ORDER BY instance_id, coalesce(interpretation_id, 0), rank`,
  );
}

export function subQuestionsOf(db: ReadableDB, instanceIds: readonly number[]): (SubQuestionRow & { instance_id: number })[] {
  return all(
    db,
    sql`SELECT i.instance_id, s.* FROM interpretations i JOIN sub_questions s ON s.interpretation_id = i.id
        WHERE i.instance_id IN ${ids(instanceIds)} ORDER BY i.instance_id, i.position, s.position`,
  );
}

export function citationsOf(
  db: ReadableDB,
  instanceIds: readonly number[],
): { instance_id: number; interpretation_id: number; position: number; rank: number }[] {
  return all(
    db,
    sql`SELECT i.instance_id, c.interpretation_id, c.position, e.rank FROM interpretations i
        JOIN interpretation_citations c ON c.interpretation_id = i.id
        JOIN evidence e ON e.id = c.evidence_id
        WHERE i.instance_id IN ${ids(instanceIds)} ORDER BY i.instance_id, i.position, c.position`,
  );
}

export function longAnswersOf(db: ReadableDB, instanceIds: readonly number[]): (LongAnswerDbRow & { instance_id: number })[] {
  return allRaw<[number, number, number, string, number | null]>(
    db,
    sql`SELECT instance_id, id, position, text, provenance_id FROM long_answers
        WHERE instance_id IN ${ids(instanceIds)} ORDER BY instance_id, position`,
  ).map((r) => ({ instance_id: r[0], id: r[1], position: r[2], text: r[3], provenance_id: r[4] }));
}

export function longAnswerCitationsOf(db: ReadableDB, instanceIds: readonly number[]): (LongAnswerCitationRow & { instance_id: number })[] {
  return all(
    db,
    sql`SELECT a.instance_id, c.* FROM long_answers a JOIN long_answer_citations c ON c.long_answer_id = a.id
        WHERE a.instance_id IN ${ids(instanceIds)} ORDER BY a.instance_id, a.position, c.position`,
  );
}

export interface FilterVoteRecordRow extends FilterVoteRow {
  instance_id: number;
}

export function filterVotesOf(db: ReadableDB, instanceIds: readonly number[]): FilterVoteRecordRow[] {
  return all<FilterVoteRecordRow>(
    db,
    sql`SELECT instance_id, model, verdict, reason, provenance_id FROM filter_votes
        WHERE instance_id IN ${ids(instanceIds)} ORDER BY instance_id, model`,
  );
}

export function provenanceByIds(db: ReadableDB, provenanceIds: readonly number[]): Map<number, ProvenanceRow> {
  if (!provenanceIds.length) return new Map();
  const rows = all<ProvenanceRow>(
    db,
    sql`SELECT p.*, c.request_hash AS call_hash FROM provenance p LEFT JOIN llm_calls c ON c.id = p.call_id
        WHERE p.id IN ${ids(provenanceIds)}`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export function passagesByIds(db: ReadableDB, passageIds: readonly number[]): Map<number, PassageWithCorpus> {
  if (!passageIds.length) return new Map();
  const rows = all<PassageWithCorpus>(
    db,
    sql`SELECT p.id, p.corpus_id, p.source_id, p.title, p.text, p.origin, p.source_line, p.char_start, p.char_end,
               c.name AS corpus
        FROM passages p JOIN corpora c ON c.id = p.corpus_id
        WHERE p.id IN ${ids(passageIds)}`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

// ---- labels (URASys answerability, MARCH domains), clarification turns ----------------------------

export interface BaseQuestionLabelRow {
  base_question_id: number;
  answerability: Answerability | null;
  answerability_provenance_id: number | null;
}

export function baseQuestionLabelsOf(db: ReadableDB, baseQuestionIds: readonly number[]): BaseQuestionLabelRow[] {
  return all(db, sql`SELECT id AS base_question_id, answerability, answerability_provenance_id FROM base_questions WHERE id IN ${ids(baseQuestionIds)}`);
}

export function labelVotesOf(db: ReadableDB, baseQuestionIds: readonly number[]): LabelVoteRow[] {
  return all(db, sql`SELECT * FROM label_votes WHERE base_question_id IN ${ids(baseQuestionIds)} ORDER BY base_question_id, kind, model`);
}

export interface InstanceLabelRow {
  id: number;
  answerability: Answerability | null;
  answerability_provenance_id: number | null;
  domain: Domain | null;
  domain_provenance_id: number | null;
  construction: ConstructionMode | null;
}

export function instanceLabelsOf(db: ReadableDB, instanceIds: readonly number[]): InstanceLabelRow[] {
  return all(
    db,
    sql`SELECT id, answerability, answerability_provenance_id, domain, domain_provenance_id, construction FROM instances WHERE id IN ${ids(instanceIds)}`,
  );
}

export function clarificationTurnsOf(db: ReadableDB, instanceIds: readonly number[]): ClarificationTurnRow[] {
  return all(db, sql`SELECT * FROM clarification_turns WHERE instance_id IN ${ids(instanceIds)} ORDER BY instance_id, position`);
}
