import { getOrCreateCorpus } from '../../db/queries/corpora';
import { findDatasetByName, insertDataset, type DatasetRow } from '../../db/queries/datasets';
import { findBaseQuestionId, insertBaseQuestion, insertBaseQuestionPassages, insertDecompositionStep } from '../../db/queries/base-questions';
import { insertEvidence } from '../../db/queries/evidence';
import { insertFilterVote } from '../../db/queries/filter-votes';
import { findInstanceId, insertInstance, writeInstanceSearchRow } from '../../db/queries/instances';
import { insertInterpretation, insertInterpretationCitation, insertSubQuestion } from '../../db/queries/interpretations';
import { insertLongAnswer, insertLongAnswerCitation } from '../../db/queries/long-answers';
import { upsertPassages } from '../../db/queries/passages';
import { callIdForHash } from '../../db/queries/llm-calls';
import { saveDetectionVote } from '../../db/queries/detection-votes';
import { getOrCreateProvenance } from '../../db/queries/provenance';
import { replaceLabelVotes } from '../../db/queries/label-votes';
import { replaceClarificationTurns } from '../../db/queries/clarification-turns';
import { insertRoundRecord } from '../../db/queries/construction-rounds';
import type { WritableDB } from '../../db/sql';
import { AppError } from '../../shared/api';
import type { AwbInstance, AwbInterpretation, AwbProvenance, AwbRecord } from '../../shared/awb-format';

type AwbEvidence = AwbInstance['evidence'][number];

/**
 * The one place where a record (an awb-instance/1 record: one base question, at most one
 * instance, and the passages they cite) becomes rows. Every importer goes through `writeRecord`;
 * record-reader.ts turns the rows back into the same records, so export followed by import gives
 * back the same rows.
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
        `The dataset "${wanted.name}" already holds ${row.source_format} records, not ${wanted.source_format}; choose another dataset name.`,
        undefined,
        { kind: 'field', field: 'dataset' },
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
      // A call this database does not hold keeps its reference (see callIdForHash).
      const callId = p.call === null ? null : callIdForHash(this.db, p.call, p.model);
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
  const dataset = context.dataset(record);
  const existingBaseQuestion = findBaseQuestionId(context.db, dataset.id, record.base_question.source_id);
  const instance = record.instance;
  const newInstance =
    instance !== null &&
    (existingBaseQuestion === undefined || findInstanceId(context.db, existingBaseQuestion, instance.ambiguity_type) === undefined);
  if (existingBaseQuestion !== undefined && !newInstance) return 'duplicate';
  const passageId = writePassages(context, record.passages);
  const baseQuestionId = existingBaseQuestion ?? writeBaseQuestion(context, dataset.id, record.base_question, passageId);
  if (instance && newInstance) writeInstance(context, { baseQuestionId, datasetId: dataset.id, hops: record.base_question.hops }, instance, passageId);
  return 'imported';
}

/** A record-local passage id ("p1") to the row id it was stored under. */
type PassageIds = (ref: string) => number;

/** Every passage of the record goes in (deduplicated per corpus), referenced or not. */
function writePassages(context: WriteContext, passages: AwbRecord['passages']): PassageIds {
  const ids = new Map<string, number>();
  const results = upsertPassages(
    context.db,
    passages.map((passage) => ({
      corpusId: context.corpus(passage.corpus),
      sourceId: passage.source_id,
      title: passage.title,
      text: passage.text,
      origin: context.origin,
      deferIndex: context.deferIndex,
    })),
  );
  results.forEach((result, i) => {
    if (result.created) context.passagesCreated++;
    ids.set(passages[i]!.id, result.id);
  });
  return (ref) => {
    const id = ids.get(ref);
    if (id === undefined) throw new AppError('invalid_input', `no passage with id "${ref}"`);
    return id;
  };
}

/** The base question with its paragraphs, decomposition and detection votes. */
function writeBaseQuestion(context: WriteContext, datasetId: number, bq: AwbRecord['base_question'], passageId: PassageIds): number {
  const db = context.db;
  const baseQuestionId = insertBaseQuestion(db, {
    datasetId,
    sourceId: bq.source_id,
    question: bq.question,
    hops: bq.hops,
    answer: bq.answer,
    aliases: bq.aliases,
    answerable: bq.answerable,
    extra: bq.extra,
    answerability: bq.answerability ? { label: bq.answerability, provenanceId: context.provenanceId(bq.answerability_provenance ?? null) } : null,
  });
  insertBaseQuestionPassages(db, baseQuestionId, bq.paragraphs.map((p) => ({ passageId: passageId(p.passage), isSupporting: p.is_supporting })));
  bq.decomposition.forEach((step, position) =>
    insertDecompositionStep(db, baseQuestionId, {
      position,
      source_id: step.source_id,
      question: step.question,
      answer: step.answer,
      style: step.style,
      support_position: step.support,
    }),
  );
  for (const vote of bq.detection_votes ?? []) {
    saveDetectionVote(db, {
      baseQuestionId,
      type: vote.ambiguity_type,
      model: vote.model,
      verdict: vote.verdict,
      phenomena: vote.phenomena,
      reason: vote.reason,
      provenanceId: context.provenanceId(vote.provenance),
    });
  }
  for (const kind of ['answerability', 'domain'] as const) {
    const votes = (bq.label_votes ?? []).filter((v) => v.kind === kind);
    if (votes.length) {
      replaceLabelVotes(db, kind, baseQuestionId, votes.map((v) => ({ model: v.model, verdict: v.verdict, label: v.label, reason: v.reason, provenance_id: context.provenanceId(v.provenance) })));
    }
  }
  return baseQuestionId;
}

/** The instance under its base question: frozen evidence, interpretations, long answers, filter votes, then its search row. */
function writeInstance(context: WriteContext, owner: { baseQuestionId: number; datasetId: number; hops: number | null }, instance: AwbInstance, passageId: PassageIds): void {
  const instanceId = insertInstance(context.db, {
    baseQuestionId: owner.baseQuestionId,
    datasetId: owner.datasetId,
    ambiguityType: instance.ambiguity_type,
    status: instance.status,
    stage: instance.stage,
    removedStage: instance.removed_stage,
    removedReason: instance.removed_reason,
    hops: owner.hops,
    interpretationCount: instance.interpretations.length,
    extra: instance.extra,
    answerability: instance.answerability ? { label: instance.answerability, provenanceId: context.provenanceId(instance.answerability_provenance ?? null) } : null,
    domain: instance.domain ? { domain: instance.domain, provenanceId: context.provenanceId(instance.domain_provenance ?? null) } : null,
    construction: instance.construction ?? null,
  });
  const write = (e: AwbEvidence, interpretationId: number | null) => writeEvidence(context, instanceId, interpretationId, e, passageId);
  // The instance's own (frozen) evidence, by rank: interpretations cite it by rank.
  const frozen = new Map(instance.evidence.map((e) => [e.rank, write(e, null)]));
  const interpretationIds = instance.interpretations.map((interpretation, position) => {
    const interpretationId = writeInterpretation(context, instanceId, position, interpretation, passageId);
    for (const e of interpretation.evidence) write(e, interpretationId);
    interpretation.citations.forEach((rank, citationPosition) => insertInterpretationCitation(context.db, interpretationId, citationPosition, frozen.get(rank)!));
    return interpretationId;
  });
  writeLongAnswers(context, instanceId, instance.long_answers, interpretationIds, passageId);
  for (const vote of instance.filter_votes) {
    insertFilterVote(context.db, instanceId, { model: vote.model, verdict: vote.verdict, reason: vote.reason, provenance_id: context.provenanceId(vote.provenance) });
  }
  writeTurnsAndRounds(context, instanceId, instance, interpretationIds);
  writeInstanceSearchRow(context.db, instanceId);
}

function writeEvidence(context: WriteContext, instanceId: number, interpretationId: number | null, e: AwbEvidence, passageId: PassageIds): number {
  return insertEvidence(context.db, {
    instanceId,
    interpretationId,
    rank: e.rank,
    passageId: passageId(e.passage),
    score: e.score,
    origin: e.origin,
    provenanceId: context.provenanceId(e.provenance),
  });
}

/** One interpretation with its short answer and sub-questions. */
function writeInterpretation(context: WriteContext, instanceId: number, position: number, interp: AwbInterpretation, passageId: PassageIds): number {
  const answer = interp.short_answer;
  const interpretationId = insertInterpretation(context.db, {
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
  interp.sub_questions.forEach((sub, subPosition) =>
    insertSubQuestion(context.db, {
      interpretation_id: interpretationId,
      position: subPosition,
      question: sub.question,
      answer: sub.answer,
      provenance_id: context.provenanceId(sub.provenance),
    }),
  );
  return interpretationId;
}

/** The long answers and their citations (an interpretation cited by its position in the record). */
function writeLongAnswers(context: WriteContext, instanceId: number, longAnswers: AwbInstance['long_answers'], interpretationIds: readonly number[], passageId: PassageIds): void {
  longAnswers.forEach((longAnswer, position) => {
    const longAnswerId = insertLongAnswer(context.db, instanceId, position, longAnswer.text, context.provenanceId(longAnswer.provenance));
    longAnswer.citations.forEach((citation, citationPosition) =>
      insertLongAnswerCitation(context.db, {
        long_answer_id: longAnswerId,
        position: citationPosition,
        passage_id: passageId(citation.passage),
        interpretation_id: citation.interpretation === null ? null : (interpretationIds[citation.interpretation] ?? null),
        start: citation.start,
        end: citation.end,
      }),
    );
  });
}

/** URASys clarification turns (an interpretation named by its position) and CondAmbigQA rounds. */
function writeTurnsAndRounds(context: WriteContext, instanceId: number, instance: AwbInstance, interpretationIds: readonly number[]): void {
  if (instance.clarification_turns?.length) {
    replaceClarificationTurns(
      context.db,
      instanceId,
      instance.clarification_turns.map((t) => ({
        system_question: t.system_question,
        user_reply: t.user_reply,
        clarified_question: t.clarified_question,
        interpretation_id: t.interpretation === null ? null : (interpretationIds[t.interpretation] ?? null),
        provenance_id: context.provenanceId(t.provenance),
      })),
    );
  }
  for (const r of instance.rounds ?? []) {
    insertRoundRecord(context.db, instanceId, {
      round: r.round,
      status: r.status,
      draft: JSON.stringify(r.draft),
      check_result: JSON.stringify(r.check),
      feedback: r.feedback,
      decided_by: r.decided_by,
      prompt_versions: JSON.stringify(r.prompt_versions),
      calls: r.calls,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      cost_usd: r.cost_usd,
      llm_ms: r.llm_ms,
      review_ms: r.review_ms,
      created_at: r.created_at ?? '',
      decided_at: r.decided_at,
    });
  }
}
