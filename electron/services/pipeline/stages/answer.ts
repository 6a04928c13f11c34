import { listEvidence } from '../../../../db/queries/evidence';
import { listInterpretations, listSubQuestions } from '../../../../db/queries/interpretations';
import { insertLongAnswer, insertLongAnswerCitation, listLongAnswers } from '../../../../db/queries/long-answers';
import { getPassages } from '../../../../db/queries/passages';
import { dropInterpretation, setShortAnswer } from '../../../../db/queries/interpretations';
import { refreshInstanceText } from '../../../../db/queries/instances';
import { transaction } from '../../../../db/sql';
import { locateAnswer, locateInPassages } from '../../../../shared/checks';
import { active, ask, failed, finish, provenance, remove, type InstanceItem, type Outcome, type StageContext } from './context';

/** Answers: a short answer per interpretation, found as a span of a retrieved passage, then one long answer that merges them with citations. */

/** Passages as the prompts number them: [1] Title: text. */
function numbered(passages: { title: string; text: string }[]): string {
  return passages.map((p, i) => `[${i + 1}] ${p.title ? `${p.title}: ` : ''}${p.text}`).join('\n\n');
}

export async function answer(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const evidence = listEvidence(ctx.db, inst.id);
  const passages = getPassages(ctx.db, evidence.map((e) => e.passage_id));
  const subs = listSubQuestions(ctx.db, inst.id);
  const perInterpretation = interpretations.map((r) =>
    evidence
      .filter((e) => e.interpretation_id === r.id)
      .sort((a, b) => a.rank - b.rank)
      .map((e) => passages.get(e.passage_id)!)
      .filter(Boolean),
  );
  const results = await Promise.all(
    interpretations.map((r, i) =>
      ask(ctx, 'short_answer', 'answer', item, ctx.config.generator, {
        question: r.clarified_question ?? r.condition ?? '',
        sub_questions: subs.filter((s) => s.interpretation_id === r.id).map((s, n) => `${n + 1}. ${s.question}`).join('\n') || '(none)',
        passages: numbered(perInterpretation[i]!) || '(no passage was retrieved)',
      }),
    ),
  );
  if (results.some((r) => !r.ok)) return failed(ctx, 'answer', item, results);
  return transaction(ctx.db, () => {
    interpretations.forEach((interpretation, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const text = result.value.answer.trim();
      if (!text) {
        dropInterpretation(ctx.db, interpretation.id, 'answer: no retrieved passage supports an answer');
        return;
      }
      const list = perInterpretation[i]!;
      const named = result.value.passage;
      // The same check as the instance view's "answer found": word boundaries, NFKC, white space.
      const found = locateInPassages(list, text, named);
      if (!found) {
        const question = interpretation.clarified_question ?? interpretation.condition ?? '';
        const inPrompt = locateAnswer(`${question}\n${inst.question}`, text) ? ' (its words come from the question, not from a passage)' : '';
        dropInterpretation(ctx.db, interpretation.id, `answer: "${text.slice(0, 80)}" is not a span of any retrieved passage${inPrompt}`);
        return;
      }
      const passage = list[found.index]!;
      const fallback = found.inNamed
        ? {}
        : {
            answer_check: {
              named_passage: named,
              found_in_passage: found.index + 1,
              note: named >= 1 && named <= list.length ? `not in passage ${named}, the one the model named; found in passage ${found.index + 1}` : `the model named no retrieved passage (${named}); found in passage ${found.index + 1}`,
            },
          };
      setShortAnswer(ctx.db, interpretation.id, {
        text: passage.text.slice(found.start, found.end),
        passageId: passage.id,
        start: found.start,
        end: found.end,
        provenanceId: provenance(ctx, 'answer', ctx.config.generator, result.prompt, result.callId),
        extra: fallback,
      });
    });
    refreshInstanceText(ctx.db, inst.id);
    const left = active(listInterpretations(ctx.db, inst.id)).length;
    if (left < 2) return remove(ctx, 'answer', inst.id, `answer: ${left} interpretation${left === 1 ? ' has' : 's have'} a supported short answer, fewer than 2`);
    finish(ctx, 'answer', inst.id);
    return 'done' as const;
  });
}

export async function merge(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const passageIds = [...new Set(interpretations.map((r) => r.answer_passage_id!).filter(Boolean))];
  const passages = getPassages(ctx.db, passageIds);
  const list = passageIds.map((id) => passages.get(id)!);
  const result = await ask(ctx, 'long_answer', 'merge', item, ctx.config.generator, {
    question: inst.question,
    interpretations: interpretations.map((r, i) => `${i + 1}. ${r.clarified_question ?? r.condition} Answer: ${r.short_answer} (passage ${passageIds.indexOf(r.answer_passage_id!) + 1})`).join('\n'),
    passages: numbered(list),
  });
  if (!result.ok) return failed(ctx, 'merge', item, [result]);
  transaction(ctx.db, () => {
    const position = listLongAnswers(ctx.db, inst.id).length;
    const id = insertLongAnswer(ctx.db, inst.id, position, result.value.long_answer.trim(), provenance(ctx, 'merge', ctx.config.generator, result.prompt, result.callId));
    let n = 0;
    const seen = new Set<string>();
    for (const c of result.value.citations) {
      const passageId = passageIds[c.passage - 1];
      const interpretation = interpretations[c.interpretation - 1];
      if (passageId === undefined || seen.has(`${c.interpretation}:${c.passage}`)) continue;
      seen.add(`${c.interpretation}:${c.passage}`);
      insertLongAnswerCitation(ctx.db, { long_answer_id: id, position: n++, passage_id: passageId, interpretation_id: interpretation?.id ?? null, start: null, end: null });
    }
    // The long answer is searchable from now on, not only after a later stage refreshes the row.
    refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'merge', inst.id);
  });
  return 'done';
}
