import { getBaseQuestion, setBaseQuestionAnswerability } from '../../../db/queries/base-questions';
import { clarificationTurns, replaceClarificationTurns } from '../../../db/queries/clarification-turns';
import { getInstance, setInstanceAnswerability, setInstanceDomain } from '../../../db/queries/instances';
import { listInterpretations } from '../../../db/queries/interpretations';
import { labelVotes } from '../../../db/queries/label-votes';
import { getOrCreateProvenance, getProvenance } from '../../../db/queries/provenance';
import { instanceLabelsOf } from '../../../db/queries/records';
import { transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import { AppError, type LabelView } from '../../../shared/api';
import { DOMAINS, domainLabel, type Answerability, type Domain } from '../../../shared/domain';
import { toProvenance } from '../browse';

/**
 * Labels by hand and as they stand: an instance's (or a base question's) answerability, an
 * instance's topic, and its clarification turns. A person's label is kept with provenance
 * `human` (the note, when given, in its detail); the labelling stage never overwrites it.
 */

/** MARCH Table 7's ratios (percent of its items), for the label list and the funnel's comparison. */
export const PAPER_DOMAIN_PERCENT: Record<Domain, number> = {
  'science-technology': 2.79,
  'math-logic': 0.07,
  history: 30.88,
  'geography-places': 20.44,
  'politics-government': 10.16,
  'business-economics': 2.49,
  'society-culture': 1.76,
  'arts-literature': 4.32,
  entertainment: 8.59,
  music: 7.48,
  sports: 6.44,
  'religion-philosophy': 2.31,
  'medicine-health': 0.18,
  'nature-environment': 1.57,
  unknown: 0.51,
};

export function domainList(): { slug: Domain; label: string; paperPercent: number }[] {
  return DOMAINS.map((d) => ({ slug: d.slug, label: d.label, paperPercent: PAPER_DOMAIN_PERCENT[d.slug] }));
}

function targetOf(db: ReadableDB, target: { instanceId?: number | undefined; baseQuestionId?: number | undefined }): { baseQuestionId: number; instanceId: number | null } {
  if (target.instanceId !== undefined) {
    const row = getInstance(db, target.instanceId);
    if (!row) throw new AppError('not_found', `No instance ${target.instanceId}`);
    return { baseQuestionId: row.base_question_id, instanceId: row.id };
  }
  if (!getBaseQuestion(db, target.baseQuestionId!)) throw new AppError('not_found', `No base question ${target.baseQuestionId}`);
  return { baseQuestionId: target.baseQuestionId!, instanceId: null };
}

export function labelView(db: ReadableDB, target: { instanceId?: number | undefined; baseQuestionId?: number | undefined }): LabelView {
  const { baseQuestionId, instanceId } = targetOf(db, target);
  const bq = getBaseQuestion(db, baseQuestionId)!;
  const own = instanceId === null ? null : instanceLabelsOf(db, [instanceId])[0]!;
  const turns = instanceId === null ? [] : clarificationTurns(db, instanceId);
  const positions = new Map(instanceId === null ? [] : listInterpretations(db, instanceId).map((i) => [i.id, i.position]));
  const provenance = getProvenance(db, [bq.answerability_provenance_id, own?.answerability_provenance_id ?? null, own?.domain_provenance_id ?? null, ...turns.map((t) => t.provenance_id)]);
  const answerability = own?.answerability
    ? { label: own.answerability, provenance: toProvenance(provenance, own.answerability_provenance_id), from: 'instance' as const }
    : bq.answerability
      ? { label: bq.answerability, provenance: toProvenance(provenance, bq.answerability_provenance_id), from: 'base-question' as const }
      : null;
  return {
    baseQuestionId,
    instanceId,
    answerability,
    domain: own?.domain ? { domain: own.domain, label: domainLabel(own.domain), provenance: toProvenance(provenance, own.domain_provenance_id) } : null,
    votes: labelVotes(db, baseQuestionId).map((v) => ({ kind: v.kind, model: v.model, verdict: v.verdict, label: v.label, reason: v.reason })),
    clarificationTurns: turns.map((t) => ({
      systemQuestion: t.system_question,
      userReply: t.user_reply,
      clarifiedQuestion: t.clarified_question,
      interpretation: t.interpretation_id === null ? null : (positions.get(t.interpretation_id) ?? null),
      provenance: toProvenance(provenance, t.provenance_id),
    })),
  };
}

const human = (db: WritableDB, note: string) => getOrCreateProvenance(db, { source: 'human', detail: note.trim() || 'set by hand', model: null, promptVersion: null, callId: null });

export function setAnswerability(db: WritableDB, request: { instanceId?: number | undefined; baseQuestionId?: number | undefined; label: Answerability | null; note: string }): LabelView {
  const target = targetOf(db, request);
  transaction(db, () => {
    const provenance = request.label === null ? null : human(db, request.note);
    if (target.instanceId !== null) setInstanceAnswerability(db, target.instanceId, request.label, provenance);
    else setBaseQuestionAnswerability(db, target.baseQuestionId, request.label, provenance);
  });
  return labelView(db, target.instanceId !== null ? { instanceId: target.instanceId } : { baseQuestionId: target.baseQuestionId });
}

export function setDomain(db: WritableDB, request: { instanceId: number; domain: Domain | null; note: string }): LabelView {
  targetOf(db, request);
  transaction(db, () => setInstanceDomain(db, { id: request.instanceId }, request.domain, request.domain === null ? null : human(db, request.note)));
  return labelView(db, { instanceId: request.instanceId });
}

export function setClarification(
  db: WritableDB,
  request: { instanceId: number; turns: { systemQuestion: string; userReply: string | null; clarifiedQuestion: string; interpretation: number | null }[] },
): LabelView {
  targetOf(db, request);
  const interpretations = listInterpretations(db, request.instanceId);
  request.turns.forEach((t, i) => {
    if (t.interpretation !== null && !interpretations.some((r) => r.position === t.interpretation)) {
      throw new AppError('invalid_input', `turns[${i}].interpretation: inst:${request.instanceId} has no interpretation ${t.interpretation} (it has ${interpretations.length}, numbered from 0)`);
    }
  });
  transaction(db, () => {
    const provenance = request.turns.length ? human(db, 'clarification turn') : null;
    replaceClarificationTurns(
      db,
      request.instanceId,
      request.turns.map((t) => ({
        system_question: t.systemQuestion,
        user_reply: t.userReply,
        clarified_question: t.clarifiedQuestion,
        interpretation_id: t.interpretation === null ? null : interpretations.find((r) => r.position === t.interpretation)!.id,
        provenance_id: provenance,
      })),
    );
  });
  return labelView(db, { instanceId: request.instanceId });
}
