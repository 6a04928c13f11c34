import { findInstanceId, insertInstance } from '../../../../db/queries/instances';
import { markItem } from '../../../../db/queries/pipeline-items';
import { refreshInstanceText } from '../../../../db/queries/instances';
import { saveDetectionVote } from '../../../../db/queries/detection-votes';
import { transaction } from '../../../../db/sql';
import { ask, cachedCompute, failed, modelName, passes, provenance, type Outcome, type QuestionItem, type StageContext } from './context';

/** MARCH's first stage: detectors vote per ambiguity type whether a base question is ambiguous; a passing vote makes an instance. */

export async function detect(ctx: StageContext, q: QuestionItem): Promise<Outcome> {
  const item = `bq:${q.id}`;
  const types = ctx.config.detection.types;
  const k = ctx.config.retrieval.k;
  const cues = types.includes('constraint') ? await cachedCompute(ctx, 'cues', { question: q.question, k }, () => ctx.work.cues(q.question, ctx.corpusId, k)) : null;
  const jobs = types.flatMap((type) =>
    ctx.config.detectors.map(async (ref) => {
      const values: Record<string, string | number> = { question: q.question };
      if (type === 'constraint' && cues) {
        values.total_hits = cues.totalHits;
        values.kl_divergence = cues.klDivergence === null ? 'undefined (no passages)' : cues.klDivergence.toFixed(3);
        values.relax_delta_ratio = cues.relaxDeltaRatio.toFixed(2);
      }
      const result = await ask(ctx, `detect_${type}` as const, 'detect', item, ref, values);
      return { type, ref, result };
    }),
  );
  const answers = await Promise.all(jobs);
  if (answers.some((a) => !a.result.ok)) return failed(ctx, 'detect', item, answers.map((a) => a.result));
  transaction(ctx.db, () => {
    for (const { type, ref, result } of answers) {
      if (!result.ok) continue;
      const value = result.value as { ambiguous: boolean; reason: string; phenomena?: number[] };
      saveDetectionVote(ctx.db, {
        baseQuestionId: q.id,
        type,
        model: modelName(ref),
        verdict: value.ambiguous ? 'yes' : 'no',
        phenomena: value.phenomena ?? [],
        reason: value.reason,
        provenanceId: provenance(ctx, 'detect', ref, result.prompt, result.callId),
      });
    }
    for (const type of types) {
      const votes = answers.filter((a) => a.type === type);
      const yes = votes.filter((a) => a.result.ok && (a.result.value as { ambiguous: boolean }).ambiguous).length;
      if (!passes(ctx.config.detection.rule, yes, votes.length) || findInstanceId(ctx.db, q.id, type) !== undefined) continue;
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
        extra: { detection: { yes, voters: votes.length, rule: ctx.config.detection.rule } },
      });
      refreshInstanceText(ctx.db, id);
    }
    markItem(ctx.db, 'detect', item, 'done', ctx.runId);
  });
  return 'done';
}
