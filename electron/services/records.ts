import { getOrCreateCorpus } from '../../db/queries/corpora';
import { findDatasetByName, insertDataset, type DatasetRow } from '../../db/queries/datasets';
import {
  findBaseQuestionId,
  getBaseQuestion,
  getBaseQuestionPassages,
  getDecomposition,
  insertBaseQuestion,
  insertBaseQuestionPassage,
  insertDecompositionStep,
} from '../../db/queries/base-questions';
import { insertEvidence, listEvidence } from '../../db/queries/evidence';
import { insertFilterVote, listFilterVotes } from '../../db/queries/filter-votes';
import { findInstanceId, getInstance, indexInstanceText, insertInstance } from '../../db/queries/instances';
import {
  insertInterpretation,
  insertInterpretationCitation,
  insertSubQuestion,
  listInterpretationCitations,
  listInterpretations,
  listSubQuestions,
} from '../../db/queries/interpretations';
import {
  insertLongAnswer,
  insertLongAnswerCitation,
  listLongAnswerCitations,
  listLongAnswers,
} from '../../db/queries/long-answers';
import { getPassages, upsertPassage } from '../../db/queries/passages';
import { findCallByHash, getOrCreateProvenance, getProvenance, type ProvenanceRow } from '../../db/queries/provenance';
import type { ReadableDB, WritableDB } from '../../db/sql';
import { AppError } from '../../shared/api';
import { AWB_FORMAT, type AwbProvenance, type AwbRecord } from '../../shared/awb-format';

/**
 * The one place where awb-instance/1 records become rows, and rows become records again.
 * Every importer goes through `writeRecord`; export goes through `readInstanceRecord` and
 * `readBaseQuestionRecord`, so export followed by import gives back the same rows.
 */

export type WriteOutcome = 'imported' | 'duplicate';

/** Per-import caches: names to ids, so hot loops do not look them up again. */
export class WriteContext {
  readonly datasets = new Map<string, DatasetRow>();
  readonly corpora = new Map<string, number>();
  readonly provenance = new Map<string, number>();
  passagesCreated = 0;

  constructor(
    readonly db: WritableDB,
    readonly origin: string,
    /** Bulk imports index new passages once, at the end (see indexPassagesAfter). */
    readonly deferIndex = false,
  ) {}

  dataset(record: AwbRecord): DatasetRow {
    const wanted = record.dataset;
    const cached = this.datasets.get(wanted.name);
    if (cached) return cached;
    let row = findDatasetByName(this.db, wanted.name);
    if (!row) {
      insertDataset(this.db, wanted);
      row = findDatasetByName(this.db, wanted.name)!;
    } else if (row.source_format !== wanted.source_format) {
      throw new AppError(
        'conflict',
        `The dataset "${wanted.name}" already holds ${row.source_format} records, not ${wanted.source_format}; ` +
          'choose another name with --dataset.',
      );
    }
    this.datasets.set(wanted.name, row);
    return row;
  }

  corpus(name: string): number {
    let id = this.corpora.get(name);
    if (id === undefined) {
      id = getOrCreateCorpus(this.db, name);
      this.corpora.set(name, id);
    }
    return id;
  }

  provenanceId(p: AwbProvenance | null): number | null {
    if (!p) return null;
    const key = JSON.stringify([p.source, p.detail, p.model, p.prompt_version, p.call]);
    let id = this.provenance.get(key);
    if (id === undefined) {
      const callId = p.call === null ? null : (findCallByHash(this.db, p.call) ?? null);
      id = getOrCreateProvenance(this.db, {
        source: p.source,
        detail: p.detail,
        model: p.model,
        promptVersion: p.prompt_version,
        callId,
      });
      this.provenance.set(key, id);
    }
    return id;
  }
}

/** Writes one record; existing base questions and instances (same keys) are left untouched. */
export function writeRecord(context: WriteContext, record: AwbRecord): WriteOutcome {
  const db = context.db;
  const dataset = context.dataset(record);
  const bq = record.base_question;
  const instance = record.instance;
  const existingBaseQuestion = findBaseQuestionId(db, dataset.id, bq.source_id);
  const newInstance =
    instance !== null &&
    (existingBaseQuestion === undefined || findInstanceId(db, existingBaseQuestion, instance.ambiguity_type) === undefined);
  if (existingBaseQuestion !== undefined && !newInstance) return 'duplicate';

  // Every passage of the record goes in (deduplicated per corpus), referenced or not.
  const passageIds = new Map<string, number>();
  for (const passage of record.passages) {
    const result = upsertPassage(db, {
      corpusId: context.corpus(passage.corpus),
      sourceId: passage.source_id,
      title: passage.title,
      text: passage.text,
      origin: context.origin,
      deferIndex: context.deferIndex,
    });
    if (result.created) context.passagesCreated++;
    passageIds.set(passage.id, result.id);
  }
  const passageId = (ref: string): number => {
    const id = passageIds.get(ref);
    if (id === undefined) throw new AppError('invalid_input', `no passage with id "${ref}"`);
    return id;
  };

  let baseQuestionId = existingBaseQuestion;
  if (baseQuestionId === undefined) {
    baseQuestionId = insertBaseQuestion(db, {
      datasetId: dataset.id,
      sourceId: bq.source_id,
      question: bq.question,
      hops: bq.hops,
      answer: bq.answer,
      aliases: bq.aliases,
      answerable: bq.answerable,
      extra: bq.extra,
    });
    bq.paragraphs.forEach((paragraph, position) =>
      insertBaseQuestionPassage(db, baseQuestionId!, position, passageId(paragraph.passage), paragraph.is_supporting),
    );
    bq.decomposition.forEach((step, position) =>
      insertDecompositionStep(db, baseQuestionId!, {
        position,
        source_id: step.source_id,
        question: step.question,
        answer: step.answer,
        style: step.style,
        support_position: step.support,
      }),
    );
  }

  if (instance && newInstance) {
    const instanceId = insertInstance(db, {
      baseQuestionId,
      datasetId: dataset.id,
      ambiguityType: instance.ambiguity_type,
      status: instance.status,
      stage: instance.stage,
      removedStage: instance.removed_stage,
      removedReason: instance.removed_reason,
      hops: bq.hops,
      interpretationCount: instance.interpretations.length,
      extra: instance.extra,
    });
    const frozen = new Map<number, number>();
    for (const e of instance.evidence) {
      frozen.set(
        e.rank,
        insertEvidence(db, {
          instanceId,
          interpretationId: null,
          rank: e.rank,
          passageId: passageId(e.passage),
          score: e.score,
          origin: e.origin,
          provenanceId: context.provenanceId(e.provenance),
        }),
      );
    }
    const interpretationIds: number[] = [];
    const readings: string[] = [];
    instance.interpretations.forEach((interp, position) => {
      const answer = interp.short_answer;
      const interpretationId = insertInterpretation(db, {
        instanceId,
        position,
        clarifiedQuestion: interp.clarified_question,
        condition: interp.condition,
        shortAnswer: answer?.text ?? null,
        answerAliases: answer?.aliases ?? [],
        answerPassageId: answer?.passage ? passageId(answer.passage) : null,
        answerStart: answer?.start ?? null,
        answerEnd: answer?.end ?? null,
        status: interp.status,
        droppedReason: interp.dropped_reason,
        questionProvenanceId: context.provenanceId(interp.provenance),
        conditionProvenanceId: context.provenanceId(interp.condition_provenance),
        answerProvenanceId: context.provenanceId(answer?.provenance ?? null),
        extra: interp.extra,
      });
      interpretationIds.push(interpretationId);
      readings.push(interp.clarified_question ?? '', interp.condition ?? '', answer?.text ?? '');
      interp.sub_questions.forEach((sub, subPosition) =>
        insertSubQuestion(db, {
          interpretation_id: interpretationId,
          position: subPosition,
          question: sub.question,
          answer: sub.answer,
          provenance_id: context.provenanceId(sub.provenance),
        }),
      );
      for (const e of interp.evidence) {
        insertEvidence(db, {
          instanceId,
          interpretationId,
          rank: e.rank,
          passageId: passageId(e.passage),
          score: e.score,
          origin: e.origin,
          provenanceId: context.provenanceId(e.provenance),
        });
      }
      interp.citations.forEach((rank, citationPosition) =>
        insertInterpretationCitation(db, interpretationId, citationPosition, frozen.get(rank)!),
      );
    });
    instance.long_answers.forEach((longAnswer, position) => {
      const longAnswerId = insertLongAnswer(db, instanceId, position, longAnswer.text, context.provenanceId(longAnswer.provenance));
      longAnswer.citations.forEach((citation, citationPosition) =>
        insertLongAnswerCitation(db, {
          long_answer_id: longAnswerId,
          position: citationPosition,
          passage_id: passageId(citation.passage),
          interpretation_id: citation.interpretation === null ? null : (interpretationIds[citation.interpretation] ?? null),
          start: citation.start,
          end: citation.end,
        }),
      );
    });
    for (const vote of instance.filter_votes) {
      insertFilterVote(db, instanceId, {
        model: vote.model,
        verdict: vote.verdict,
        reason: vote.reason,
        provenance_id: context.provenanceId(vote.provenance),
      });
    }
    indexInstanceText(db, instanceId, bq.question, readings.filter((r) => r !== '').join('\n'));
  }
  return 'imported';
}

// ---- reading records back ---------------------------------------------------------------------

/** Assigns record-local passage ids (`p1`, `p2`, ...) in order of first use. */
class PassageRefs {
  private readonly refs = new Map<number, string>();
  private readonly order: number[] = [];

  ref(passageId: number): string {
    let ref = this.refs.get(passageId);
    if (!ref) {
      ref = `p${this.refs.size + 1}`;
      this.refs.set(passageId, ref);
      this.order.push(passageId);
    }
    return ref;
  }

  passages(db: ReadableDB): AwbRecord['passages'] {
    const rows = getPassages(db, this.order);
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

function readBaseQuestion(db: ReadableDB, baseQuestionId: number, refs: PassageRefs) {
  const row = getBaseQuestion(db, baseQuestionId);
  if (!row) throw new AppError('not_found', `No base question ${baseQuestionId}`);
  const dataset = findDatasetByName(db, row.dataset)!;
  const paragraphs = getBaseQuestionPassages(db, baseQuestionId).map((p) => ({
    passage: refs.ref(p.passage_id),
    is_supporting: p.is_supporting === 1,
  }));
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
      decomposition: getDecomposition(db, baseQuestionId).map((step) => ({
        source_id: step.source_id,
        question: step.question,
        answer: step.answer,
        style: step.style,
        support: step.support_position,
      })),
      paragraphs,
      extra: JSON.parse(row.extra) as Record<string, unknown>,
    },
  };
}

export function readBaseQuestionRecord(db: ReadableDB, baseQuestionId: number): AwbRecord {
  const refs = new PassageRefs();
  const { dataset, base_question } = readBaseQuestion(db, baseQuestionId, refs);
  return { format: AWB_FORMAT, dataset, base_question, instance: null, passages: refs.passages(db) };
}

export function readInstanceRecord(db: ReadableDB, instanceId: number): AwbRecord {
  const row = getInstance(db, instanceId);
  if (!row) throw new AppError('not_found', `No instance ${instanceId}`);
  const refs = new PassageRefs();
  const { dataset, base_question } = readBaseQuestion(db, row.base_question_id, refs);

  const interpretations = listInterpretations(db, instanceId);
  const evidence = listEvidence(db, instanceId);
  const subQuestions = listSubQuestions(db, instanceId);
  const citations = listInterpretationCitations(db, instanceId);
  const longAnswers = listLongAnswers(db, instanceId);
  const longCitations = listLongAnswerCitations(db, instanceId);
  const votes = listFilterVotes(db, instanceId);
  const provenance = getProvenance(db, [
    ...interpretations.flatMap((i) => [i.question_provenance_id, i.condition_provenance_id, i.answer_provenance_id]),
    ...evidence.map((e) => e.provenance_id),
    ...subQuestions.map((s) => s.provenance_id),
    ...longAnswers.map((a) => a.provenance_id),
    ...votes.map((v) => v.provenance_id),
  ]);
  const position = new Map(interpretations.map((i) => [i.id, i.position]));
  const toEvidence = (e: (typeof evidence)[number]) => ({
    passage: refs.ref(e.passage_id),
    rank: e.rank,
    score: e.score,
    origin: e.origin,
    provenance: toAwbProvenance(provenance, e.provenance_id),
  });

  return {
    format: AWB_FORMAT,
    dataset,
    base_question,
    instance: {
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
      extra: JSON.parse(row.extra) as Record<string, unknown>,
    },
    passages: refs.passages(db),
  };
}
