import type { InstanceRow } from '../../shared/api';
import type { Answerability, AmbiguityType, Domain, InstanceStage, InstanceStatus } from '../../shared/domain';
import { sql, type SqlFragment } from '../sql';

/**
 * The instance table's rows as the list shows them: the columns read (from `instances i` and its
 * base question `b`; the dataset's name is looked up for each row kept, a walk's skipped rows
 * not), the row SQLite returns for them in raw mode, and the row
 * the API gives. A page reads a hundred rows; an object made per row only to be copied into
 * another cost about as much as reading them, so the rows come as arrays of values.
 */

/** The row columns with the question's text and source id read from `question` (base_questions, or a table that copies them). */
export const rowColumns = (question: SqlFragment) => sql`i.id, i.base_question_id, i.dataset_id, (SELECT d.name FROM datasets d WHERE d.id = i.dataset_id) AS dataset,
                               ${question}.source_id, ${question}.question,
                               i.ambiguity_type, i.status, i.stage, i.hops, i.interpretation_count, i.removed_reason,
                               i.updated_at, i.domain, i.answerability`;

export const ROW_COLUMNS = rowColumns(sql`b`);

/** One row's values, in the order of ROW_COLUMNS. */
export type InstanceDbRow = [
  id: number,
  baseQuestionId: number,
  datasetId: number,
  dataset: string,
  sourceId: string,
  question: string,
  ambiguityType: AmbiguityType,
  status: InstanceStatus,
  stage: InstanceStage,
  hops: number | null,
  interpretationCount: number,
  removedReason: string | null,
  updatedAt: string,
  domain: Domain | null,
  answerability: Answerability | null,
];

export function rowToInstance(row: InstanceDbRow): InstanceRow {
  const [id, baseQuestionId, datasetId, dataset, sourceId, question, ambiguityType, status, stage, hops, interpretationCount, removedReason, updatedAt, domain, answerability] = row;
  return { id, baseQuestionId, datasetId, dataset, sourceId, question, ambiguityType, status, stage, hops, interpretationCount, removedReason, updatedAt, domain, answerability };
}
