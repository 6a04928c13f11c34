import { findInstanceId, insertInstance } from '../../../../db/queries/instances';
import { markItem } from '../../../../db/queries/pipeline-items';
import { refreshInstanceText } from '../../../../db/queries/instances';
import { saveDetectionVotes, type NewDetectionVote } from '../../../../db/queries/detection-votes';
import { groupTransaction } from '../../../../db/sql';
import type { DetectableType } from '../../../../shared/pipeline';
import { decided } from '../../../../shared/pipeline-rules';
import { ask, cachedCompute, failed, modelName, provenance, requestOf, type Outcome, type QuestionItem, type StageContext } from './context';
import { voteInOrder, type Tally } from './vote';

/**
 * MARCH's first stage: detectors vote per ambiguity type whether a base question is ambiguous; a
 * passing vote makes an instance. The types are screened at once, each type's detectors in order
 * until a rejection decides it (a type that passes has every vote asked: clarification reads the
 * reasons of every detector that said yes).
 */

type Verdict = { ambiguous: boolean; reason: string; phenomena?: number[] };

export async function detect(ctx: StageContext, q: QuestionItem): Promise<Outcome> {
  const item = `bq:${q.id}`;
  const types = ctx.config.detection.types;
  const rule = ctx.config.detection.rule;
  const k = ctx.config.retrieval.k;
  const cues = types.includes('constraint') ? await cachedCompute(ctx, 'cues', { question: q.question, k }, () => ctx.work.cues(q.question, ctx.corpusId, k)) : null;
  const valuesFor = (type: DetectableType) => {
    const values: Record<string, string | number> = { question: q.question };
    if (type === 'constraint' && cues) {
      values.total_hits = cues.totalHits;
      values.kl_divergence = cues.klDivergence === null ? 'undefined (no passages)' : cues.klDivergence.toFixed(3);
      values.relax_delta_ratio = cues.relaxDeltaRatio.toFixed(2);
    }
    return values;
  };
  const tallies = await Promise.all(
    types.map(async (type) => {
      const values = valuesFor(type);
      const tally = await voteInOrder(ctx, {
        stage: 'detect',
        key: type,
        item,
        identity: item,
        voters: ctx.config.detectors,
        ask: (ref) => ask(ctx, `detect_${type}` as const, 'detect', { tag: item, type }, ref, values),
        request: (ref) => requestOf(ctx, `detect_${type}` as const, 'detect', { tag: item, type }, ref, values),
        rejects: (v: Verdict) => !v.ambiguous,
        decide: (verdicts, voters) => decided(rule, verdicts.filter((v) => v.ambiguous).length, verdicts.filter((v) => !v.ambiguous).length, voters),
        stopOn: 'fail',
      });
      return { type, tally };
    }),
  );
  if (tallies.some((t) => t.tally.outcome === null)) return failed(ctx, 'detect', item, tallies.flatMap((t) => t.tally.asked.map((b) => b.result)));
  groupTransaction(ctx.db, () => {
    saveDetectionVotes(ctx.db, tallies.flatMap(({ type, tally }) => votesOf(ctx, q.id, type, tally)));
    for (const { type, tally } of tallies) {
      if (tally.outcome !== 'pass' || findInstanceId(ctx.db, q.id, type) !== undefined) continue;
      const yes = tally.asked.filter((b) => b.result.ok && (b.result.value as Verdict).ambiguous).length;
      const id = insertInstance(ctx.db, {
        baseQuestionId: q.id,
        datasetId: q.dataset_id,
        ambiguityType: type,
        status: 'building',
        stage: 'detect',
        removedStage: null,
        removedReason: null,
        hops: q.hops,
        interpretationCount: 0,
        extra: { detection: { yes, voters: ctx.config.detectors.length, rule } },
      });
      refreshInstanceText(ctx.db, id);
    }
    markItem(ctx.db, 'detect', item, 'done', ctx.runId);
  });
  return 'done';
}

type DetectBallot = Awaited<ReturnType<typeof ask<'detect_semantic'>>>;

/** Every vote asked, in the order asked, and one `not_needed` row per detector the outcome made unnecessary, saying what decided it. */
function votesOf(ctx: StageContext, questionId: number, type: DetectableType, tally: Tally<DetectBallot>): NewDetectionVote[] {
  const votes: NewDetectionVote[] = [];
  for (const { ref, position, result } of tally.asked) {
    if (!result.ok) continue;
    const value = result.value as Verdict;
    votes.push({
      baseQuestionId: questionId,
      type,
      model: modelName(ref),
      verdict: value.ambiguous ? 'yes' : 'no',
      phenomena: value.phenomena ?? [],
      reason: value.reason,
      provenanceId: provenance(ctx, 'detect', ref, result.prompt, result.callId),
      runId: ctx.runId,
      askedPosition: position,
    });
  }
  if (!tally.notNeeded.length) return votes;
  const deciding = tally.asked.filter((b) => b.result.ok && !(b.result.value as Verdict).ambiguous).map((b) => modelName(b.ref));
  const reason = `not asked: ${deciding.join(' and ')} said no, which decided ${type} ambiguity after ${tally.asked.length} of ${ctx.config.detectors.length} detectors`;
  for (const ref of tally.notNeeded) {
    votes.push({ baseQuestionId: questionId, type, model: modelName(ref), verdict: 'not_needed', phenomena: [], reason, provenanceId: null, runId: ctx.runId, askedPosition: null });
  }
  return votes;
}
