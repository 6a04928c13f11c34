import {
  getBaseQuestion,
  getBaseQuestionPassages,
  getDecomposition,
  listBaseQuestions,
  rowToBaseQuestion,
} from '../../db/queries/base-questions';
import { datasetNames, listDatasets } from '../../db/queries/datasets';
import { listEvidence } from '../../db/queries/evidence';
import { listFilterVotes } from '../../db/queries/filter-votes';
import { baseQuestionFacetSteps } from '../../db/queries/base-questions-facets';
import { instanceFacetSteps } from '../../db/queries/instances-facets';
import { getInstance, instancesOfBaseQuestion, readInstancePage } from '../../db/queries/instances';
import { listInterpretationCitations, listInterpretations, listSubQuestions } from '../../db/queries/interpretations';
import { listLongAnswerCitations, listLongAnswers } from '../../db/queries/long-answers';
import { getPassages, type PassageWithCorpus } from '../../db/queries/passages';
import { getProvenance, type ProvenanceRow } from '../../db/queries/provenance';
import type { ReadableDB } from '../../db/sql';
import {
  AppError,
  type BaseQuestionDetail,
  type BaseQuestionFacets,
  type BaseQuestionFilter,
  type BaseQuestionQuery,
  type BaseQuestionRow,
  type DatasetSummary,
  type EvidenceView,
  type InstanceDetail,
  type InstanceFacets,
  type InstanceFilter,
  type InstancePage,
  type InstanceQuery,
  type Page,
  type PassageView,
  type Provenance,
} from '../../shared/api';
import { domainLabel } from '../../shared/domain';
import { withBreaks } from './steps';

function toPassageView(p: PassageWithCorpus): PassageView {
  return { id: p.id, corpus: p.corpus, sourceId: p.source_id, title: p.title, text: p.text };
}

export function toProvenance(map: Map<number, ProvenanceRow>, id: number | null): Provenance | null {
  if (id === null) return null;
  const row = map.get(id);
  return row
    ? { source: row.source, detail: row.detail, model: row.model, promptVersion: row.prompt_version, call: row.call_hash }
    : null;
}

export function listDatasetSummaries(db: ReadableDB): DatasetSummary[] {
  return listDatasets(db).map((d) => ({
    id: d.id,
    name: d.name,
    sourceFormat: d.source_format,
    description: d.description,
    licence: d.licence,
    attribution: d.attribution,
    url: d.url,
    baseQuestions: d.base_questions,
    instances: d.instances,
  }));
}

export function instancePage(db: ReadableDB, query: InstanceQuery): InstancePage {
  return { ...readInstancePage(db, query), offset: query.offset };
}

const hopsLabel = (hops: number | null) => (hops === null ? 'none' : `${hops} hops`);

/**
 * The counts beside the instance table. Under a search they take a pass over its matches, in
 * steps: other requests run between the steps, so a broad search does not hold them up.
 */
export async function instanceFacets(db: ReadableDB, filter: InstanceFilter): Promise<InstanceFacets> {
  const counts = await withBreaks(instanceFacetSteps(db, filter));
  const names = datasetNames(db);
  return {
    total: counts.total,
    datasets: counts.datasets.map((d) => ({ ...d, label: names.get(d.value) ?? `#${d.value}` })),
    types: counts.types.map((t) => ({ ...t, label: t.value })),
    statuses: counts.statuses.map((s) => ({ ...s, label: s.value })),
    hops: counts.hops.map((h) => ({ ...h, label: hopsLabel(h.value) })),
    domains: counts.domains.map((d) => ({ ...d, label: d.value === 'none' ? 'no domain' : domainLabel(d.value) })),
  };
}

export function baseQuestionPage(db: ReadableDB, query: BaseQuestionQuery): Page<BaseQuestionRow> {
  return { rows: listBaseQuestions(db, query), offset: query.offset };
}

export async function baseQuestionFacetsView(db: ReadableDB, filter: BaseQuestionFilter): Promise<BaseQuestionFacets> {
  const counts = await withBreaks(baseQuestionFacetSteps(db, filter));
  const names = datasetNames(db);
  return {
    total: counts.total,
    datasets: counts.datasets.map((d) => ({ ...d, label: names.get(d.value) ?? `#${d.value}` })),
    hops: counts.hops.map((h) => ({ ...h, label: hopsLabel(h.value) })),
    answerability: counts.answerability.map((a) => ({ ...a, label: a.value })),
  };
}

export function baseQuestionDetail(db: ReadableDB, id: number): BaseQuestionDetail {
  const row = getBaseQuestion(db, id);
  if (!row) throw new AppError('not_found', `No base question ${id}`);
  const paragraphs = getBaseQuestionPassages(db, id);
  const passages = getPassages(db, paragraphs.map((p) => p.passage_id));
  const instances = instancesOfBaseQuestion(db, id);
  return {
    ...rowToBaseQuestion(row),
    aliases: JSON.parse(row.aliases) as string[],
    answerable: row.answerable === null ? null : row.answerable === 1,
    decomposition: getDecomposition(db, id).map((s) => ({
      position: s.position,
      sourceId: s.source_id,
      question: s.question,
      answer: s.answer,
      style: s.style,
      supportPosition: s.support_position,
    })),
    paragraphs: paragraphs.map((p) => ({
      position: p.position,
      isSupporting: p.is_supporting === 1,
      passage: toPassageView(passages.get(p.passage_id)!),
    })),
    instances: instances.map((i) => ({ id: i.id, ambiguityType: i.ambiguity_type, status: i.status })),
    extra: JSON.parse(row.extra) as Record<string, unknown>,
    licence: row.licence,
    attribution: row.attribution,
  };
}

/** Everything the side-by-side view shows, in one call. */
export function instanceDetail(db: ReadableDB, id: number): InstanceDetail {
  const row = getInstance(db, id);
  if (!row) throw new AppError('not_found', `No instance ${id}`);
  const bq = getBaseQuestion(db, row.base_question_id)!;
  const interpretations = listInterpretations(db, id);
  const evidence = listEvidence(db, id);
  const subQuestions = listSubQuestions(db, id);
  const citations = listInterpretationCitations(db, id);
  const longAnswers = listLongAnswers(db, id);
  const longCitations = listLongAnswerCitations(db, id);
  const votes = listFilterVotes(db, id);
  const passages = getPassages(db, [
    ...evidence.map((e) => e.passage_id),
    ...interpretations.flatMap((i) => (i.answer_passage_id === null ? [] : [i.answer_passage_id])),
    ...longCitations.map((c) => c.passage_id),
  ]);
  const provenance = getProvenance(db, [
    ...interpretations.flatMap((i) => [i.question_provenance_id, i.condition_provenance_id, i.answer_provenance_id]),
    ...evidence.map((e) => e.provenance_id),
    ...subQuestions.map((s) => s.provenance_id),
    ...longAnswers.map((a) => a.provenance_id),
  ]);
  const toEvidence = (e: (typeof evidence)[number]): EvidenceView => ({
    id: e.id,
    rank: e.rank,
    score: e.score,
    origin: e.origin,
    passage: toPassageView(passages.get(e.passage_id)!),
    provenance: toProvenance(provenance, e.provenance_id),
  });

  return {
    id: row.id,
    baseQuestion: rowToBaseQuestion(bq),
    ambiguityType: row.ambiguity_type,
    status: row.status,
    stage: row.stage,
    removedStage: row.removed_stage,
    removedReason: row.removed_reason,
    evidence: evidence.filter((e) => e.interpretation_id === null).map(toEvidence),
    interpretations: interpretations.map((i) => {
      const own = evidence.filter((e) => e.interpretation_id === i.id).map(toEvidence);
      const answerInEvidence = i.answer_passage_id !== null && own.some((e) => e.passage.id === i.answer_passage_id);
      return {
        id: i.id,
        position: i.position,
        clarifiedQuestion: i.clarified_question,
        condition: i.condition,
        status: i.status,
        droppedReason: i.dropped_reason,
        provenance: toProvenance(provenance, i.question_provenance_id),
        conditionProvenance: toProvenance(provenance, i.condition_provenance_id),
        subQuestions: subQuestions
          .filter((s) => s.interpretation_id === i.id)
          .map((s) => ({ question: s.question, answer: s.answer, provenance: toProvenance(provenance, s.provenance_id) })),
        evidence: own,
        citations: citations.filter((c) => c.interpretation_id === i.id).map((c) => c.rank),
        shortAnswer:
          i.short_answer === null
            ? null
            : {
                text: i.short_answer,
                aliases: JSON.parse(i.answer_aliases) as string[],
                passageId: i.answer_passage_id,
                start: i.answer_start,
                end: i.answer_end,
                provenance: toProvenance(provenance, i.answer_provenance_id),
              },
        answerPassage:
          i.answer_passage_id !== null && !answerInEvidence ? toPassageView(passages.get(i.answer_passage_id)!) : null,
        extra: JSON.parse(i.extra) as Record<string, unknown>,
      };
    }),
    longAnswers: longAnswers.map((a) => ({
      id: a.id,
      position: a.position,
      text: a.text,
      provenance: toProvenance(provenance, a.provenance_id),
      citations: longCitations
        .filter((c) => c.long_answer_id === a.id)
        .map((c) => ({
          passage: toPassageView(passages.get(c.passage_id)!),
          interpretationId: c.interpretation_id,
          start: c.start,
          end: c.end,
        })),
    })),
    filterVotes: votes.map((v) => ({ model: v.model, verdict: v.verdict, reason: v.reason })),
    extra: JSON.parse(row.extra) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
