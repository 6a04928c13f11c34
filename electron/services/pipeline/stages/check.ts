import { listInterpretations } from '../../../../db/queries/interpretations';
import { listLongAnswers } from '../../../../db/queries/long-answers';
import { getPassages } from '../../../../db/queries/passages';
import { dropInterpretation } from '../../../../db/queries/interpretations';
import { markItem } from '../../../../db/queries/pipeline-items';
import { readyInstance, refreshInstanceText } from '../../../../db/queries/instances';
import { upsertFilterVote } from '../../../../db/queries/filter-votes';
import { groupTransaction } from '../../../../db/sql';
import { decided, planCollisions } from '../../../../shared/pipeline-rules';
import { active, ask, failed, finish, modelName, provenance, remove, requestOf, subjectOf, type InstanceItem, type Outcome, type StageContext } from './context';
import { voteInOrder } from './vote';

/** The last checks: colliding short answers, then the filter models' vote on the whole instance. */

/**
 * Interpretations whose short answers are the same after normalisation: the later one of each
 * pair is removed, with the reason; the instance is removed only when fewer than two distinct
 * answers remain (with two interpretations, any collision removes it).
 */
export function collide(ctx: StageContext, inst: InstanceItem): Outcome {
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const { collisions, distinct } = planCollisions(interpretations.map((r) => ({ position: r.position, answer: r.short_answer })));
  return groupTransaction(ctx.db, () => {
    if (distinct < 2) {
      const pairs = collisions.map((c) => `interpretations ${c.sameAs + 1} and ${c.position + 1} have the same short answer after normalisation ("${c.answer}")`);
      return remove(ctx, 'collide', inst.id, `collide: ${pairs.join('; ')}; fewer than 2 distinct answers remain`);
    }
    for (const c of collisions) {
      const interpretation = interpretations.find((r) => r.position === c.position)!;
      dropInterpretation(ctx.db, interpretation.id, `collide: the same short answer as interpretation ${c.sameAs + 1} after normalisation ("${c.answer}")`);
    }
    if (collisions.length) refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'collide', inst.id);
    return 'done' as const;
  });
}

export async function filter(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const passages = getPassages(ctx.db, interpretations.map((r) => r.answer_passage_id!));
  const long = listLongAnswers(ctx.db, inst.id).at(-1)?.text ?? '(none)';
  const values = {
    question: inst.question,
    type: inst.ambiguity_type,
    interpretations: interpretations
      .map((r, i) => `Interpretation ${i + 1}: ${r.clarified_question ?? r.condition}\nShort answer: ${r.short_answer}\nSupporting passage: ${passages.get(r.answer_passage_id!)?.text ?? '(missing)'}`)
      .join('\n\n'),
    long_answer: long,
  };
  const rule = ctx.config.filter.rule;
  const voters = ctx.config.filters.length;
  const tally = await voteInOrder(ctx, {
    stage: 'filter',
    key: '',
    item,
    identity: `bq:${inst.base_question_id}|${inst.ambiguity_type}`,
    voters: ctx.config.filters,
    ask: (ref) => ask(ctx, 'filter', 'filter', subjectOf(inst), ref, values),
    request: (ref) => requestOf(ctx, 'filter', 'filter', subjectOf(inst), ref, values),
    rejects: (v: { aligned: boolean }) => !v.aligned,
    decide: (votes, n) => decided(rule, votes.filter((v) => v.aligned).length, votes.filter((v) => !v.aligned).length, n),
    stopOn: 'any',
  });
  if (tally.outcome === null) return failed(ctx, 'filter', item, tally.asked.map((b) => b.result));
  return groupTransaction(ctx.db, () => {
    const against: string[] = [];
    for (const { ref, position, result } of tally.asked) {
      if (!result.ok) continue;
      upsertFilterVote(ctx.db, inst.id, {
        model: modelName(ref), verdict: result.value.aligned ? 'aligned' : 'misaligned', reason: result.value.reason,
        provenanceId: provenance(ctx, 'filter', ref, result.prompt, result.callId), runId: ctx.runId, askedPosition: position,
      });
      if (!result.value.aligned) against.push(`${modelName(ref)}: ${result.value.reason}`);
    }
    const skipped = tally.notNeeded.length
      ? `; ${tally.notNeeded.length} vote${tally.notNeeded.length === 1 ? '' : 's'} not needed (decided after ${tally.asked.length} of ${voters})`
      : '';
    for (const ref of tally.notNeeded) {
      upsertFilterVote(ctx.db, inst.id, {
        model: modelName(ref), verdict: 'not_needed', provenanceId: null, runId: ctx.runId, askedPosition: null,
        reason: `not asked: the ${tally.asked.length} vote${tally.asked.length === 1 ? '' : 's'} given already decided (${tally.outcome === 'pass' ? 'kept' : `rejected by ${against.map((a) => a.slice(0, a.indexOf(':'))).join(' and ')}`})`,
      });
    }
    if (tally.outcome === 'fail') return remove(ctx, 'filter', inst.id, `filter: ${against.length} of ${voters} filter models judged it misaligned (${against.join(' | ').slice(0, 400)})${skipped}`);
    readyInstance(ctx.db, inst.id);
    markItem(ctx.db, 'filter', item, 'done', ctx.runId);
    return 'done' as const;
  });
}
