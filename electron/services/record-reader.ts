import { findDatasetByName, type DatasetRow } from '../../db/queries/datasets';
import { getBaseQuestion, getBaseQuestionPassages, getDecomposition, type DecompositionStepRow } from '../../db/queries/base-questions';
import { listEvidence, type EvidenceDbRow } from '../../db/queries/evidence';
import { listFilterVotes, type FilterVoteRow } from '../../db/queries/filter-votes';
import { getInstance } from '../../db/queries/instances';
import { listInterpretationCitations, listInterpretations, listSubQuestions, type InterpretationDbRow, type SubQuestionRow } from '../../db/queries/interpretations';
import { listLongAnswerCitations, listLongAnswers, type LongAnswerCitationRow, type LongAnswerDbRow } from '../../db/queries/long-answers';
import { getPassages, type PassageWithCorpus } from '../../db/queries/passages';
import { detectionVotes } from '../../db/queries/detection-votes';
import { getProvenance, type ProvenanceRow } from '../../db/queries/provenance';

import {
  baseQuestionsByIds,
  citationsOf,
  datasetsByIds,
  decompositionsOf,
  detectionVotesOf,
  evidenceOf,
  filterVotesOf,
  instancesByIds,
  interpretationsOf,
  longAnswerCitationsOf,
  longAnswersOf,
  paragraphsOf,
  passagesByIds,
  provenanceByIds,
  subQuestionsOf,
  type BaseQuestionRecordRow,
  type DetectionVoteRecordRow,
  type InstanceRecordRow,
} from '../../db/queries/records';
import type { ReadableDB } from '../../db/sql';
import {
  assembleBaseQuestionLabels,
  assembleInstanceLabels,
  baseQuestionLabelProvenance,
  baseQuestionLabels,
  baseQuestionLabelsBatch,
  instanceLabelProvenance,
  instanceLabels,
  instanceLabelsBatch,
  type BaseQuestionLabels,
  type InstanceLabels,
} from './record-labels';
import { AppError } from '../../shared/api';
import { AWB_FORMAT, type AwbProvenance, type AwbRecord } from '../../shared/awb-format';

/**
 * Records (awb-instance/1: a base question, at most one instance, the passages they cite) read
 * back from rows, as record-writer.ts stored them. Export, releases and team sync read here.
 *
 * Reading is split in two: fetching the rows of a record (one instance's rows with per-instance
 * queries, or a whole batch's rows with one query per table, see db/queries/records.ts), and
 * assembling records from rows, which both ways share, so that they give the same records, field
 * for field and byte for byte once serialised.
 */

/** Records read per batch by export and releases: memory holds one batch's rows and records. */
export const RECORD_BATCH = 500;

/** The rows of a record's dataset and base question. */
interface BaseQuestionRows {
  row: BaseQuestionRecordRow;
  dataset: DatasetRow;
  paragraphs: { passage_id: number; is_supporting: number }[];
  decomposition: DecompositionStepRow[];
  votes: Omit<DetectionVoteRecordRow, 'base_question_id'>[];
  labels: BaseQuestionLabels;
}

/** The rows of a record's instance. */
interface InstanceRows {
  row: InstanceRecordRow;
  interpretations: InterpretationDbRow[];
  evidence: EvidenceDbRow[];
  subQuestions: SubQuestionRow[];
  citations: { interpretation_id: number; rank: number }[];
  longAnswers: LongAnswerDbRow[];
  longCitations: LongAnswerCitationRow[];
  votes: FilterVoteRow[];
  labels: InstanceLabels;
}

/** Assigns record-local passage ids (`p1`, `p2`, ...) in order of first use. */
class PassageRefs {
  private readonly refs = new Map<number, string>();
  /** Passage ids in order of first use. */
  readonly order: number[] = [];

  ref(passageId: number): string {
    let ref = this.refs.get(passageId);
    if (!ref) {
      ref = `p${this.refs.size + 1}`;
      this.refs.set(passageId, ref);
      this.order.push(passageId);
    }
    return ref;
  }

  passages(rows: Map<number, PassageWithCorpus>): AwbRecord['passages'] {
    return this.order.map((id) => {
      const row = rows.get(id)!;
      return { id: this.refs.get(id)!, corpus: row.corpus, source_id: row.source_id, title: row.title, text: row.text };
    });
  }
}

function toAwbProvenance(map: Map<number, ProvenanceRow>, id: number | null): AwbProvenance | null {
  if (id === null) return null;
  const row = map.get(id);
  if (!row) return null;
  return { source: row.source, detail: row.detail, model: row.model, prompt_version: row.prompt_version, call: row.call_hash };
}

/** Every provenance id the rows name (with repeats and nulls). */
function provenanceIds(bq: BaseQuestionRows, instance: InstanceRows | null): (number | null)[] {
  const ids = [...bq.votes.map((v) => v.provenance_id), ...baseQuestionLabelProvenance(bq.labels)];
  if (!instance) return ids;
  ids.push(...instanceLabelProvenance(instance.labels));
  for (const i of instance.interpretations) ids.push(i.question_provenance_id, i.condition_provenance_id, i.answer_provenance_id);
  for (const e of instance.evidence) ids.push(e.provenance_id);
  for (const s of instance.subQuestions) ids.push(s.provenance_id);
  for (const a of instance.longAnswers) ids.push(a.provenance_id);
  for (const v of instance.votes) ids.push(v.provenance_id);
  return ids;
}

function assembleBaseQuestion(rows: BaseQuestionRows, refs: PassageRefs, provenance: Map<number, ProvenanceRow>) {
  const { row, dataset, votes } = rows;
  const paragraphs = rows.paragraphs.map((p) => ({ passage: refs.ref(p.passage_id), is_supporting: p.is_supporting === 1 }));
  return {
    dataset: {
      name: dataset.name,
      source_format: dataset.source_format,
      description: dataset.description,
      licence: dataset.licence,
      attribution: dataset.attribution,
      url: dataset.url,
    },
    base_question: {
      source_id: row.source_id,
      question: row.question,
      hops: row.hops,
      answer: row.answer,
      aliases: JSON.parse(row.aliases) as string[],
      answerable: row.answerable === null ? null : row.answerable === 1,
      decomposition: rows.decomposition.map((step) => ({
        source_id: step.source_id,
        question: step.question,
        answer: step.answer,
        style: step.style,
        support: step.support_position,
      })),
      paragraphs,
      // Only base questions the pipeline screened carry votes.
      ...(votes.length
        ? {
            detection_votes: votes.map((v) => ({
              ambiguity_type: v.ambiguity_type,
              model: v.model,
              verdict: v.verdict,
              phenomena: JSON.parse(v.phenomena) as number[],
              reason: v.reason,
              provenance: toAwbProvenance(provenance, v.provenance_id),
            })),
          }
        : {}),
      ...assembleBaseQuestionLabels(rows.labels, provenance, toAwbProvenance),
      extra: JSON.parse(row.extra) as Record<string, unknown>,
    },
  };
}

function assembleInstance(rows: InstanceRows, refs: PassageRefs, provenance: Map<number, ProvenanceRow>): NonNullable<AwbRecord['instance']> {
  const { row, interpretations, evidence, subQuestions, citations, longAnswers, longCitations, votes } = rows;
  const position = new Map(interpretations.map((i) => [i.id, i.position]));
  const toEvidence = (e: EvidenceDbRow) => ({
    passage: refs.ref(e.passage_id),
    rank: e.rank,
    score: e.score,
    origin: e.origin,
    provenance: toAwbProvenance(provenance, e.provenance_id),
  });
  return {
    ambiguity_type: row.ambiguity_type,
    status: row.status,
    stage: row.stage,
    removed_stage: row.removed_stage,
    removed_reason: row.removed_reason,
    evidence: evidence.filter((e) => e.interpretation_id === null).map(toEvidence),
    interpretations: interpretations.map((i) => ({
      clarified_question: i.clarified_question,
      condition: i.condition,
      status: i.status,
      dropped_reason: i.dropped_reason,
      provenance: toAwbProvenance(provenance, i.question_provenance_id),
      condition_provenance: toAwbProvenance(provenance, i.condition_provenance_id),
      sub_questions: subQuestions
        .filter((s) => s.interpretation_id === i.id)
        .map((s) => ({ question: s.question, answer: s.answer, provenance: toAwbProvenance(provenance, s.provenance_id) })),
      evidence: evidence.filter((e) => e.interpretation_id === i.id).map(toEvidence),
      citations: citations.filter((c) => c.interpretation_id === i.id).map((c) => c.rank),
      short_answer:
        i.short_answer === null
          ? null
          : {
              text: i.short_answer,
              aliases: JSON.parse(i.answer_aliases) as string[],
              passage: i.answer_passage_id === null ? null : refs.ref(i.answer_passage_id),
              start: i.answer_start,
              end: i.answer_end,
              provenance: toAwbProvenance(provenance, i.answer_provenance_id),
            },
      extra: JSON.parse(i.extra) as Record<string, unknown>,
    })),
    long_answers: longAnswers.map((a) => ({
      text: a.text,
      citations: longCitations
        .filter((c) => c.long_answer_id === a.id)
        .map((c) => ({
          passage: refs.ref(c.passage_id),
          interpretation: c.interpretation_id === null ? null : (position.get(c.interpretation_id) ?? null),
          start: c.start,
          end: c.end,
        })),
      provenance: toAwbProvenance(provenance, a.provenance_id),
    })),
    filter_votes: votes.map((v) => ({
      model: v.model,
      verdict: v.verdict,
      reason: v.reason,
      provenance: toAwbProvenance(provenance, v.provenance_id),
    })),
    ...assembleInstanceLabels(rows.labels, position, provenance, toAwbProvenance),
    extra: JSON.parse(row.extra) as Record<string, unknown>,
  };
}

/** A record whose passages are still to be looked up (they are known only once it is assembled). */
interface Assembled {
  record: AwbRecord;
  refs: PassageRefs;
}

function assemble(bq: BaseQuestionRows, instance: InstanceRows | null, provenance: Map<number, ProvenanceRow>): Assembled {
  const refs = new PassageRefs();
  // Passages are numbered in order of first use: the base question's first, then the instance's.
  const { dataset, base_question } = assembleBaseQuestion(bq, refs, provenance);
  const record: AwbRecord = {
    format: AWB_FORMAT,
    dataset,
    base_question,
    instance: instance ? assembleInstance(instance, refs, provenance) : null,
    passages: [],
  };
  return { record, refs };
}

// ---- one record: per-instance queries -----------------------------------------------------------

function baseQuestionRows(db: ReadableDB, baseQuestionId: number): BaseQuestionRows {
  const row = getBaseQuestion(db, baseQuestionId);
  if (!row) throw new AppError('not_found', `No base question ${baseQuestionId}`);
  return {
    row,
    dataset: findDatasetByName(db, row.dataset)!,
    paragraphs: getBaseQuestionPassages(db, baseQuestionId),
    decomposition: getDecomposition(db, baseQuestionId),
    votes: detectionVotes(db, baseQuestionId),
    labels: baseQuestionLabels(db, baseQuestionId),
  };
}

function finishOne(db: ReadableDB, bq: BaseQuestionRows, instance: InstanceRows | null): AwbRecord {
  const { record, refs } = assemble(bq, instance, getProvenance(db, provenanceIds(bq, instance)));
  record.passages = refs.passages(getPassages(db, refs.order));
  return record;
}

export function readBaseQuestionRecord(db: ReadableDB, baseQuestionId: number): AwbRecord {
  return finishOne(db, baseQuestionRows(db, baseQuestionId), null);
}

export function readInstanceRecord(db: ReadableDB, instanceId: number): AwbRecord {
  const row = getInstance(db, instanceId);
  if (!row) throw new AppError('not_found', `No instance ${instanceId}`);
  return finishOne(db, baseQuestionRows(db, row.base_question_id), {
    row,
    interpretations: listInterpretations(db, instanceId),
    evidence: listEvidence(db, instanceId),
    subQuestions: listSubQuestions(db, instanceId),
    citations: listInterpretationCitations(db, instanceId),
    longAnswers: listLongAnswers(db, instanceId),
    longCitations: listLongAnswerCitations(db, instanceId),
    votes: listFilterVotes(db, instanceId),
    labels: instanceLabels(db, instanceId),
  });
}

// ---- many records: one query per table per batch ------------------------------------------------

/** Rows grouped by their owner's id, keeping the order they came in. */
function groupBy<Row>(rows: readonly Row[], owner: (row: Row) => number): Map<number, Row[]> {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    const key = owner(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

const none: never[] = [];

function baseQuestionBatch(db: ReadableDB, baseQuestionIds: readonly number[]): Map<number, BaseQuestionRows> {
  const rows = baseQuestionsByIds(db, baseQuestionIds);
  const datasets = new Map(datasetsByIds(db, [...new Set(rows.map((r) => r.dataset_id))]).map((d) => [d.id, d]));
  const paragraphs = groupBy(paragraphsOf(db, baseQuestionIds), (p) => p.base_question_id);
  const steps = groupBy(decompositionsOf(db, baseQuestionIds), (s) => s.base_question_id);
  const votes = groupBy(detectionVotesOf(db, baseQuestionIds), (v) => v.base_question_id);
  const labels = baseQuestionLabelsBatch(db, baseQuestionIds);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        row,
        dataset: datasets.get(row.dataset_id)!,
        paragraphs: paragraphs.get(row.id) ?? none,
        decomposition: steps.get(row.id) ?? none,
        votes: votes.get(row.id) ?? none,
        labels: labels.get(row.id)!,
      },
    ]),
  );
}

function finishBatch(db: ReadableDB, parts: readonly { bq: BaseQuestionRows; instance: InstanceRows | null }[]): AwbRecord[] {
  const wanted = new Set<number>();
  for (const { bq, instance } of parts) for (const id of provenanceIds(bq, instance)) if (id !== null) wanted.add(id);
  const provenance = provenanceByIds(db, [...wanted]);
  const assembled = parts.map(({ bq, instance }) => assemble(bq, instance, provenance));
  const passageIds = new Set<number>();
  for (const { refs } of assembled) for (const id of refs.order) passageIds.add(id);
  const passages = passagesByIds(db, [...passageIds]);
  return assembled.map(({ record, refs }) => {
    record.passages = refs.passages(passages);
    return record;
  });
}

/**
 * The records of the given instances, in the order given, the same as `readInstanceRecord` gives
 * one by one, read with one query per table. Memory grows with the number of ids: read a long
 * list `RECORD_BATCH` ids at a time (see `readInBatches`).
 */
export function readInstanceRecords(db: ReadableDB, instanceIds: readonly number[]): AwbRecord[] {
  if (!instanceIds.length) return [];
  const unique = [...new Set(instanceIds)];
  const rows = new Map(instancesByIds(db, unique).map((row) => [row.id, row]));
  const missing = unique.find((id) => !rows.has(id));
  if (missing !== undefined) throw new AppError('not_found', `No instance ${missing}`);
  const bqs = baseQuestionBatch(db, [...new Set([...rows.values()].map((r) => r.base_question_id))]);
  const interpretations = groupBy(interpretationsOf(db, unique), (r) => r.instance_id);
  const evidence = groupBy(evidenceOf(db, unique), (r) => r.instance_id);
  const subQuestions = groupBy(subQuestionsOf(db, unique), (r) => r.instance_id);
  const citations = groupBy(citationsOf(db, unique), (r) => r.instance_id);
  const longAnswers = groupBy(longAnswersOf(db, unique), (r) => r.instance_id);
  const longCitations = groupBy(longAnswerCitationsOf(db, unique), (r) => r.instance_id);
  const votes = groupBy(filterVotesOf(db, unique), (r) => r.instance_id);
  const labels = instanceLabelsBatch(db, unique);
  return finishBatch(
    db,
    instanceIds.map((id) => {
      const row = rows.get(id)!;
      return {
        bq: bqs.get(row.base_question_id)!,
        instance: {
          row,
          interpretations: interpretations.get(id) ?? none,
          evidence: evidence.get(id) ?? none,
          subQuestions: subQuestions.get(id) ?? none,
          citations: citations.get(id) ?? none,
          longAnswers: longAnswers.get(id) ?? none,
          longCitations: longCitations.get(id) ?? none,
          votes: votes.get(id) ?? none,
          labels: labels.get(id)!,
        },
      };
    }),
  );
}

/** The records (with `instance: null`) of the given base questions, in the order given. */
export function readBaseQuestionRecords(db: ReadableDB, baseQuestionIds: readonly number[]): AwbRecord[] {
  if (!baseQuestionIds.length) return [];
  const bqs = baseQuestionBatch(db, [...new Set(baseQuestionIds)]);
  return finishBatch(
    db,
    baseQuestionIds.map((id) => {
      const bq = bqs.get(id);
      if (!bq) throw new AppError('not_found', `No base question ${id}`);
      return { bq, instance: null };
    }),
  );
}

/**
 * Items in batches of `size` (in order), each with its records: `read` gets the ids of one batch
 * at a time, so only one batch's rows and records are held at once.
 */
export function* readInBatches<Item>(
  db: ReadableDB,
  items: Iterable<Item>,
  idOf: (item: Item) => number,
  read: (db: ReadableDB, ids: readonly number[]) => AwbRecord[],
  size = RECORD_BATCH,
): Generator<{ item: Item; record: AwbRecord }[]> {
  let batch: Item[] = [];
  const flush = () => {
    const records = read(db, batch.map(idOf));
    const out = batch.map((item, i) => ({ item, record: records[i]! }));
    batch = [];
    return out;
  };
  for (const item of items) {
    batch.push(item);
    if (batch.length >= size) yield flush();
  }
  if (batch.length) yield flush();
}
