import type { BaseQuestionFilter, BaseQuestionQuery, BaseQuestionRow } from '../../shared/api';
import type { Answerability, DecompositionStyle } from '../../shared/domain';
import { toFtsQuery } from '../../shared/search';
import { all, get, insertChunks, run, sql, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

export interface NewBaseQuestion {
  datasetId: number;
  sourceId: string;
  question: string;
  hops: number | null;
  answer: string | null;
  aliases: string[];
  answerable: boolean | null;
  extra: Record<string, unknown>;
  answerability?: { label: Answerability; provenanceId: number | null } | null;
}

export function findBaseQuestionId(db: ReadableDB, datasetId: number, sourceId: string): number | undefined {
  return get<{ id: number }>(
    db,
    sql`SELECT id FROM base_questions WHERE dataset_id = ${datasetId} AND source_id = ${sourceId}`,
  )?.id;
}

export function insertBaseQuestion(db: WritableDB, bq: NewBaseQuestion): number {
  const row = get<{ id: number }>(
    db,
    sql`INSERT INTO base_questions (dataset_id, source_id, question, hops, answer, aliases, answerable, extra, answerability, answerability_provenance_id)
        VALUES (${bq.datasetId}, ${bq.sourceId}, ${bq.question}, ${bq.hops}, ${bq.answer},
                ${JSON.stringify(bq.aliases)}, ${bq.answerable}, ${JSON.stringify(bq.extra)},
                ${bq.answerability?.label ?? null}, ${bq.answerability?.provenanceId ?? null})
        RETURNING id`,
  );
  return row!.id;
}

/** A base question's answerability (null clears it), with where it came from. */
export function setBaseQuestionAnswerability(db: WritableDB, id: number, label: Answerability | null, provenanceId: number | null): void {
  run(db, sql`UPDATE base_questions SET answerability = ${label}, answerability_provenance_id = ${label === null ? null : provenanceId} WHERE id = ${id}`);
}

/** A base question's paragraphs, in order from position 0, in multi-row INSERTs. */
export function insertBaseQuestionPassages(db: WritableDB, baseQuestionId: number, paragraphs: readonly { passageId: number; isSupporting: boolean }[]): void {
  let position = 0;
  for (const chunk of insertChunks(paragraphs)) {
    const rows = chunk.map((p) => sql`(${baseQuestionId}, ${position++}, ${p.passageId}, ${p.isSupporting})`);
    run(db, sql`INSERT INTO base_question_passages (base_question_id, position, passage_id, is_supporting) VALUES ${sql.join(rows)}`);
  }
}

export interface DecompositionStepRow {
  position: number;
  source_id: string | null;
  question: string;
  answer: string | null;
  style: DecompositionStyle;
  support_position: number | null;
}

export function insertDecompositionStep(db: WritableDB, baseQuestionId: number, step: DecompositionStepRow): void {
  run(
    db,
    sql`INSERT INTO decomposition_steps (base_question_id, position, source_id, question, answer, style, support_position)
        VALUES (${baseQuestionId}, ${step.position}, ${step.source_id}, ${step.question}, ${step.answer},
                ${step.style}, ${step.support_position})`,
  );
}

interface BaseQuestionDbRow {
  id: number;
  dataset_id: number;
  dataset: string;
  source_id: string;
  question: string;
  hops: number | null;
  answer: string | null;
  instance_count: number;
  answerability: Answerability | null;
}

export function rowToBaseQuestion(row: BaseQuestionDbRow): BaseQuestionRow {
  return {
    id: row.id,
    datasetId: row.dataset_id,
    dataset: row.dataset,
    sourceId: row.source_id,
    question: row.question,
    hops: row.hops,
    answer: row.answer,
    instanceCount: row.instance_count,
    answerability: row.answerability,
  };
}

function hopsCondition(hops: readonly number[]): SqlFragment {
  // 0 stands for "no hop count" (single-hop datasets).
  const values = hops.filter((h) => h > 0);
  const parts = [];
  if (values.length) parts.push(sql`b.hops IN ${sql.list(values)}`);
  if (hops.includes(0)) parts.push(sql`b.hops IS NULL`);
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/** The filters other than the search. */
function filterConditions(filter: BaseQuestionFilter): SqlFragment[] {
  const conditions: SqlFragment[] = [];
  if (filter.datasets.length) conditions.push(sql`b.dataset_id IN ${sql.list(filter.datasets)}`);
  if (filter.hops.length) conditions.push(hopsCondition(filter.hops));
  if (filter.answerability.length) conditions.push(sql`coalesce(b.answerability, 'unlabelled') IN ${sql.list(filter.answerability)}`);
  return conditions;
}

const where = (conditions: SqlFragment[]) => (conditions.length ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : sql.empty);

const ORDER: Record<Exclude<BaseQuestionQuery['sort'], 'relevance'>, SqlFragment> = {
  id: sql`b.id`,
  question: sql`b.question`,
  source_id: sql`b.source_id`,
  answer: sql`b.answer`,
  hops: sql`b.hops`,
  dataset: sql`b.dataset_id`,
};

const SELECT_ROWS = sql`SELECT b.id, b.dataset_id, d.name AS dataset, b.source_id, b.question, b.hops, b.answer, b.answerability,
                               (SELECT count(*) FROM instances i WHERE i.base_question_id = b.id) AS instance_count`;

/**
 * One page of base questions. The dataset's name is joined to each row found (CROSS JOIN keeps
 * the base questions first: left to itself the planner started from the few datasets and sorted
 * every base question of each, 30-170 ms a page at 434,617 base questions, where an index walk
 * takes under a millisecond). With a search, the full-text index's matches come first, then the
 * other filters on each: in rowid order for the id sort, so the page's LIMIT ends the walk, and
 * sorted for any other (bm25 for best match). Sorting a broad search's matches by a column costs
 * in proportion to them: the instance table walks the column's index instead, testing each row
 * against the search, which needs prefix indexes this table's search does not have.
 */
export function listBaseQuestions(db: ReadableDB, query: BaseQuestionQuery): BaseQuestionRow[] {
  return all<BaseQuestionDbRow>(db, baseQuestionPageQuery(query)).map(rowToBaseQuestion);
}

/** The query of one page of base questions (see `listBaseQuestions`). */
export function baseQuestionPageQuery(query: BaseQuestionQuery): SqlFragment {
  const fts = toFtsQuery(query.search, { prefixLast: true });
  const direction = sql.keyword(query.direction === 'desc' ? 'DESC' : 'ASC');
  const page = (from: SqlFragment, list: SqlFragment[], order: SqlFragment) =>
    sql`${SELECT_ROWS} FROM ${from} CROSS JOIN datasets d ON d.id = b.dataset_id ${where(list)} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}`;
  if (fts === null) return page(sql`base_questions b`, filterConditions(query), sql`${ORDER[query.sort === 'relevance' ? 'id' : query.sort]} ${direction}, b.id ${direction}`);
  const order =
    query.sort === 'relevance' ? sql`f.rank ${direction}, b.id` : query.sort === 'id' ? sql`f.rowid ${direction}` : sql`${ORDER[query.sort]} ${direction}, b.id ${direction}`;
  return page(sql`base_questions_fts f CROSS JOIN base_questions b ON b.id = f.rowid`, [sql`base_questions_fts MATCH ${fts}`, ...filterConditions(query)], order);
}

export interface BaseQuestionFull extends BaseQuestionDbRow {
  answerability_provenance_id: number | null;
  aliases: string;
  answerable: number | null;
  extra: string;
  licence: string;
  attribution: string;
}

export function getBaseQuestion(db: ReadableDB, id: number): BaseQuestionFull | undefined {
  return get<BaseQuestionFull>(
    db,
    sql`SELECT b.*, d.name AS dataset, d.licence, d.attribution,
               (SELECT count(*) FROM instances i WHERE i.base_question_id = b.id) AS instance_count
        FROM base_questions b JOIN datasets d ON d.id = b.dataset_id WHERE b.id = ${id}`,
  );
}

export function getDecomposition(db: ReadableDB, baseQuestionId: number): DecompositionStepRow[] {
  return all<DecompositionStepRow>(
    db,
    sql`SELECT position, source_id, question, answer, style, support_position FROM decomposition_steps
        WHERE base_question_id = ${baseQuestionId} ORDER BY position`,
  );
}

export function getBaseQuestionPassages(
  db: ReadableDB,
  baseQuestionId: number,
): { position: number; passage_id: number; is_supporting: number }[] {
  return all(
    db,
    sql`SELECT position, passage_id, is_supporting FROM base_question_passages
        WHERE base_question_id = ${baseQuestionId} ORDER BY position`,
  );
}

/** Base questions of the given datasets (all when empty) that have no instance, in id order. */
export function baseQuestionsWithoutInstances(db: ReadableDB, datasetIds: readonly number[]): Iterable<{ id: number }> {
  const scope = datasetIds.length ? sql`AND b.dataset_id IN ${sql.list(datasetIds)}` : sql.empty;
  return all<{ id: number }>(
    db,
    sql`SELECT b.id FROM base_questions b
        WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.base_question_id = b.id) ${scope} ORDER BY b.id`,
  );
}

// ---- the pipeline's view -----------------------------------------------------------------------

const detected = sql`EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'detect' AND p.item = 'bq:' || b.id AND p.status = 'done')`;

/** Every base question of the given datasets (all when none), with what `--limit` orders them by. */
export function subsetCandidates(db: ReadableDB, datasetIds: readonly number[]): { id: number; dataset: string; sourceId: string }[] {
  const scope = datasetIds.length ? sql`WHERE b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(db, sql`SELECT b.id, d.name AS dataset, b.source_id AS sourceId FROM base_questions b JOIN datasets d ON d.id = b.dataset_id ${scope}`);
}

type QuestionToDetect = { id: number; dataset_id: number; question: string; hops: number | null };

/** Base questions detection has not finished, of the given datasets (all when none), or of the chosen ones (in their order). */
export function questionsToDetect(db: ReadableDB, datasetIds: readonly number[], limit: number, chosen: readonly number[] | null = null): QuestionToDetect[] {
  if (chosen) {
    if (chosen.length === 0) return [];
    const rows = all<QuestionToDetect>(
      db,
      sql`SELECT b.id, b.dataset_id, b.question, b.hops FROM base_questions b
          WHERE b.id IN (SELECT value FROM json_each(${JSON.stringify(chosen)})) AND NOT ${detected}`,
    );
    const order = new Map(chosen.map((id, i) => [id, i]));
    return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }
  const scope = datasetIds.length ? sql`AND b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(db, sql`SELECT b.id, b.dataset_id, b.question, b.hops FROM base_questions b WHERE NOT ${detected} ${scope} ORDER BY b.id LIMIT ${limit}`);
}

/** Base questions detection has finished, of the given datasets (all when none): the funnel's first step. */
export function detectedQuestionCount(db: ReadableDB, datasetIds: readonly number[]): number {
  const scope = datasetIds.length ? sql`AND b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  // From the detection rows: the cost follows the questions the pipeline saw, not the table.
  return get<{ n: number }>(
    db,
    sql`SELECT count(*) AS n FROM pipeline_items p CROSS JOIN base_questions b ON b.id = CAST(substr(p.item, 4) AS INTEGER) AND 'bq:' || b.id = p.item
        WHERE p.stage = 'detect' AND p.status = 'done' AND p.item GLOB 'bq:*' ${scope}`,
  )!.n;
}

// ---- CondAmbigQA construction -----------------------------------------------------------------------

/** The base questions of a dataset with their unspecified instance, if any (built in rounds or imported), in id order. */
export function constructionCandidates(
  db: ReadableDB,
  datasetId: number,
): { id: number; question: string; hops: number | null; fragments: number; instance_id: number | null; construction: string | null }[] {
  return all(
    db,
    sql`SELECT b.id, b.question, b.hops, (SELECT count(*) FROM base_question_passages p WHERE p.base_question_id = b.id) AS fragments,
               i.id AS instance_id, i.construction
        FROM base_questions b LEFT JOIN instances i ON i.base_question_id = b.id AND i.ambiguity_type = 'unspecified'
        WHERE b.dataset_id = ${datasetId} ORDER BY b.id`,
  );
}

/**
 * Base questions for the labelling stage: of the given datasets (all when none), without a label
 * of that kind, or (`relabel`) also those a model labelled, never those a person or the dataset
 * did. Topics are kept on instances, so only base questions with instances are taken for them.
 */
export function questionsToLabel(db: ReadableDB, kind: 'answerability' | 'domain', datasetIds: readonly number[], relabel: boolean): { id: number; dataset: string; source_id: string; question: string }[] {
  const scope = datasetIds.length ? sql`AND b.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  const open =
    kind === 'answerability'
      ? sql`(b.answerability IS NULL ${relabel ? sql`OR (SELECT source FROM provenance p WHERE p.id = b.answerability_provenance_id) = 'llm'` : sql.empty})`
      : sql`EXISTS (SELECT 1 FROM instances i WHERE i.base_question_id = b.id AND (i.domain IS NULL ${relabel ? sql`OR (SELECT source FROM provenance p WHERE p.id = i.domain_provenance_id) = 'llm'` : sql.empty}))`;
  return all(db, sql`SELECT b.id, d.name AS dataset, b.source_id, b.question FROM base_questions b JOIN datasets d ON d.id = b.dataset_id WHERE ${open} ${scope} ORDER BY b.id`);
}

/** A dataset's base questions with what an ask-first evaluation needs: labels, answers, and their first kept instance. */
export function askFirstCandidates(
  db: ReadableDB,
  datasetId: number,
): { id: number; source_id: string; question: string; answer: string | null; aliases: string; answerability: Answerability | null; instance_id: number | null; instance_answerability: Answerability | null; interpretations: number }[] {
  return all(
    db,
    sql`SELECT b.id, b.source_id, b.question, b.answer, b.aliases, b.answerability, i.id AS instance_id, i.answerability AS instance_answerability,
               coalesce(i.interpretation_count, 0) AS interpretations
        FROM base_questions b
        LEFT JOIN instances i ON i.id = (SELECT min(x.id) FROM instances x WHERE x.base_question_id = b.id AND x.status <> 'removed')
        WHERE b.dataset_id = ${datasetId} ORDER BY b.source_id`,
  );
}

/** A base question's own paragraphs (its frozen fragments), in order: the evidence when no corpus is searched. */
export function baseQuestionPassageTexts(db: ReadableDB, baseQuestionId: number): { passage_id: number; title: string; text: string }[] {
  return all(
    db,
    sql`SELECT p.id AS passage_id, p.title, p.text FROM base_question_passages bp JOIN passages p ON p.id = bp.passage_id
        WHERE bp.base_question_id = ${baseQuestionId} ORDER BY bp.position`,
  );
}
