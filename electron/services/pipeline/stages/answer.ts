import { listEvidence } from '../../../../db/queries/evidence';
import { listInterpretations, listSubQuestions, type InterpretationDbRow } from '../../../../db/queries/interpretations';
import { insertLongAnswer, insertLongAnswerCitation, listLongAnswers } from '../../../../db/queries/long-answers';
import { getPassages, type PassageWithCorpus } from '../../../../db/queries/passages';
import { dropInterpretation, setShortAnswer } from '../../../../db/queries/interpretations';
import { refreshInstanceText } from '../../../../db/queries/instances';
import { groupTransaction } from '../../../../db/sql';
import { locateAnswer, locateInPassages } from '../../../../shared/checks';
import { active, ask, failed, finish, provenance, remove, subjectOf, type InstanceItem, type Outcome, type StageContext } from './context';

/** Answers: a short answer per interpretation, found as a span of a retrieved passage, then one long answer that merges them with citations. */

/** Passages as the prompts number them: [1] Title: text. */
function numbered(passages: { title: string; text: string }[]): string {
  return passages.map((p, i) => `[${i + 1}] ${p.title ? `${p.title}: ` : ''}${p.text}`).join('\n\n');
}

type Check = { supported: true; passage: PassageWithCorpus; start: number; end: number; extra: Record<string, unknown> } | { supported: false; reason: string };

/** Whether a short answer is supported: not empty, and a span of a retrieved passage (the one the model named, or another, noted). */
function checkAnswer(inst: InstanceItem, interpretation: InterpretationDbRow, list: PassageWithCorpus[], value: { answer: string; passage: number }): Check {
  const text = value.answer.trim();
  if (!text) return { supported: false, reason: 'answer: no retrieved passage supports an answer' };
  const named = value.passage;
  // The same check as the instance view's "answer found": word boundaries, NFKC, white space.
  const found = locateInPassages(list, text, named);
  if (!found) {
    const question = interpretation.clarified_question ?? interpretation.condition ?? '';
    const inPrompt = locateAnswer(`${question}\n${inst.question}`, text) ? ' (its words come from the question, not from a passage)' : '';
    return { supported: false, reason: `answer: "${text.slice(0, 80)}" is not a span of any retrieved passage${inPrompt}` };
  }
  const extra = found.inNamed
    ? {}
    : {
        answer_check: {
          named_passage: named,
          found_in_passage: found.index + 1,
          note: named >= 1 && named <= list.length ? `not in passage ${named}, the one the model named; found in passage ${found.index + 1}` : `the model named no retrieved passage (${named}); found in passage ${found.index + 1}`,
        },
      };
  return { supported: true, passage: list[found.index]!, start: found.start, end: found.end, extra };
}

/**
 * A short answer per interpretation. An instance needs two supported answers, so with early exit
 * the interpretations are answered `earlyExit.wave` at a time, and asking stops once too few can
 * still be supported: the instance is removed either way, and the answers not asked are not paid for.
 */
export async function answer(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const subject = subjectOf(inst);
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
  const askOne = (i: number) => {
    const r = interpretations[i]!;
    return ask(ctx, 'short_answer', 'answer', subject, ctx.config.generator, {
      question: r.clarified_question ?? r.condition ?? '',
      sub_questions: subs.filter((s) => s.interpretation_id === r.id).map((s, n) => `${n + 1}. ${s.question}`).join('\n') || '(none)',
      passages: numbered(perInterpretation[i]!) || '(no passage was retrieved)',
    });
  };
  const n = interpretations.length;
  const early = ctx.config.earlyExit.enabled;
  const wave = early ? ctx.config.earlyExit.wave : Math.max(1, n);
  const results: Awaited<ReturnType<typeof askOne>>[] = [];
  const checks: Check[] = [];
  let unsupported = 0;
  while (results.length < n && (!early || n - unsupported >= 2)) {
    const next = Array.from({ length: Math.min(wave, n - results.length) }, (_, k) => results.length + k);
    const answered = await Promise.all(next.map(askOne));
    results.push(...answered);
    if (answered.some((r) => !r.ok)) return failed(ctx, 'answer', subject.tag, results);
    for (const i of next) {
      const check = checkAnswer(inst, interpretations[i]!, perInterpretation[i]!, (results[i] as { value: { answer: string; passage: number } }).value);
      checks.push(check);
      if (!check.supported) unsupported++;
    }
  }
  return groupTransaction(ctx.db, () => {
    checks.forEach((check, i) => {
      const interpretation = interpretations[i]!;
      const result = results[i]!;
      if (!check.supported) return dropInterpretation(ctx.db, interpretation.id, check.reason);
      if (!result.ok) return;
      setShortAnswer(ctx.db, interpretation.id, {
        text: check.passage.text.slice(check.start, check.end), passageId: check.passage.id, start: check.start, end: check.end,
        provenanceId: provenance(ctx, 'answer', ctx.config.generator, result.prompt, result.callId), extra: check.extra,
      });
    });
    refreshInstanceText(ctx.db, inst.id);
    const left = n - unsupported;
    const skipped = n - results.length;
    if (left < 2) {
      const notAsked = skipped ? `; ${skipped} not asked (no answer could bring it to 2)` : '';
      return remove(ctx, 'answer', inst.id, `answer: ${left} interpretation${left === 1 ? ' has' : 's have'} a supported short answer, fewer than 2${notAsked}`);
    }
    finish(ctx, 'answer', inst.id);
    return 'done' as const;
  });
}

/**
 * The interpretations as the answer stage left them (the active ones and those dropped since by
 * shortening or a collision, each with the short answer it had before shortening): what merge
 * writes from, so its prompt is the same whether it runs before shortening and collisions or after.
 */
function asAnswered(rows: InterpretationDbRow[]): InterpretationDbRow[] {
  return rows
    .filter((r) => r.status === 'active' || /^(shorten|collide): /.test(r.dropped_reason ?? ''))
    .map((r) => {
      const before = (JSON.parse(r.extra || '{}') as { shortened_from?: string }).shortened_from;
      return before === undefined ? r : { ...r, short_answer: before };
    });
}

/**
 * One long answer covering every interpretation, with citations. With early exit merge runs after
 * shortening and collisions (only instances that survive them are merged), from the answers as the
 * answer stage left them; an instance that already has a long answer (merged before) is not asked again.
 */
export async function merge(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const subject = subjectOf(inst);
  const item = subject.tag;
  if (listLongAnswers(ctx.db, inst.id).length) {
    groupTransaction(ctx.db, () => finish(ctx, 'merge', inst.id));
    return 'done';
  }
  const interpretations = asAnswered(listInterpretations(ctx.db, inst.id));
  const passageIds = [...new Set(interpretations.map((r) => r.answer_passage_id!).filter(Boolean))];
  const passages = getPassages(ctx.db, passageIds);
  const list = passageIds.map((id) => passages.get(id)!);
  const result = await ask(ctx, 'long_answer', 'merge', subject, ctx.config.generator, {
    question: inst.question,
    interpretations: interpretations.map((r, i) => `${i + 1}. ${r.clarified_question ?? r.condition} Answer: ${r.short_answer} (passage ${passageIds.indexOf(r.answer_passage_id!) + 1})`).join('\n'),
    passages: numbered(list),
  });
  if (!result.ok) return failed(ctx, 'merge', item, [result]);
  groupTransaction(ctx.db, () => {
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
