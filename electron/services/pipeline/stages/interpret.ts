import { insertInterpretation, insertSubQuestion, listInterpretations } from '../../../../db/queries/interpretations';
import { detectionVotes } from '../../../../db/queries/detection-votes';
import { refreshInstanceText } from '../../../../db/queries/instances';
import { groupTransaction } from '../../../../db/sql';
import { type DetectableType } from '../../../../shared/pipeline';
import { fillBridges } from '../../../../shared/pipeline-rules';
import { foldForMatching } from '../../../../shared/text';
import { active, ask, failed, finish, provenance, remove, subjectOf, type InstanceItem, type Outcome, type StageContext } from './context';

/** The interpretations of an instance: clarified questions (one prompt per ambiguity type), then each one's sub-questions. */

export async function clarify(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const notes = detectionVotes(ctx.db, inst.base_question_id)
    .filter((v) => v.ambiguity_type === inst.ambiguity_type && v.verdict === 'yes')
    .map((v) => `- ${v.reason}${v.phenomena !== '[]' ? ` (phenomena ${JSON.parse(v.phenomena as string).join(', ')})` : ''}`);
  const minimum = ctx.config.clarify.minInterpretations;
  // Each type has its own instructions: interpret a name, resolve a parse, generalise a condition.
  const prompt = `clarify_${inst.ambiguity_type as DetectableType}` as const;
  const result = await ask(ctx, prompt, 'clarify', subjectOf(inst), ctx.config.generator, {
    question: inst.question,
    detector_notes: notes.length ? `What the detectors noticed:\n${notes.join('\n')}` : '',
    min_interpretations: minimum,
  });
  if (!result.ok) return failed(ctx, 'clarify', item, [result]);
  const seen = new Set<string>();
  const questions = result.value.clarified_questions.map((q) => q.trim()).filter((q) => {
    const key = foldForMatching(q);
    if (seen.has(key) || key === foldForMatching(inst.question)) return false;
    seen.add(key);
    return true;
  });
  return groupTransaction(ctx.db, () => {
    if (questions.length < minimum) {
      const given = result.value.clarified_questions.length;
      return remove(
        ctx,
        'clarify',
        inst.id,
        `clarify: ${questions.length} distinct clarified question${questions.length === 1 ? '' : 's'} (of ${given} given; repeats and the original question do not count), fewer than ${minimum}`,
      );
    }
    const provenanceId = provenance(ctx, 'clarify', ctx.config.generator, result.prompt, result.callId);
    questions.forEach((question, position) =>
      insertInterpretation(ctx.db, {
        instanceId: inst.id, position, clarifiedQuestion: question, condition: null, shortAnswer: null, answerAliases: [],
        answerPassageId: null, answerStart: null, answerEnd: null, status: 'active', droppedReason: null,
        questionProvenanceId: provenanceId, conditionProvenanceId: null, answerProvenanceId: null, extra: {},
      }),
    );
    refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'clarify', inst.id);
    return 'done' as const;
  });
}

export async function decompose(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const results = await Promise.all(interpretations.map((r) => ask(ctx, 'decompose', 'decompose', subjectOf(inst), ctx.config.generator, { question: r.clarified_question ?? r.condition ?? '' })));
  if (results.some((r) => !r.ok)) return failed(ctx, 'decompose', item, results);
  groupTransaction(ctx.db, () => {
    interpretations.forEach((interpretation, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const provenanceId = provenance(ctx, 'decompose', ctx.config.generator, result.prompt, result.callId);
      // Sub-questions are stored self-contained: a "#1" the model left is filled in (see fillBridges).
      fillBridges(result.value.sub_questions.map((q) => q.trim())).forEach((question, position) =>
        insertSubQuestion(ctx.db, { interpretation_id: interpretation.id, position, question, answer: null, provenance_id: provenanceId }),
      );
    });
    finish(ctx, 'decompose', inst.id);
  });
  return 'done';
}
