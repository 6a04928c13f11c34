import { listInterpretations, type InterpretationDbRow } from '../../../../db/queries/interpretations';
import { getPassages, type PassageWithCorpus } from '../../../../db/queries/passages';
import { dropInterpretation, setShortAnswer } from '../../../../db/queries/interpretations';
import { refreshInstanceText } from '../../../../db/queries/instances';
import { groupTransaction } from '../../../../db/sql';
import { locateAnswer } from '../../../../shared/checks';
import { shorteningProblem } from '../../../../shared/pipeline-rules';
import { countTokens } from '../../../../shared/text';
import { active, ask, failed, finish, provenance, remove, subjectOf, type InstanceItem, type Subject, type Outcome, type StageContext } from './context';

/**
 * Short answers over the limit are shortened by the generator; a shortening that is not a span
 * of the answer's passage, still too long, or no shorter is shown to the model with what is
 * wrong, once. If the second try fails too, the interpretation is removed with the reason (and
 * the instance, when fewer than two remain): no answer over the limit is kept silently.
 */
export async function shorten(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const limit = ctx.config.shortenOver;
  const long = active(listInterpretations(ctx.db, inst.id)).filter((r) => r.short_answer && countTokens(r.short_answer) > limit);
  if (long.length === 0) {
    groupTransaction(ctx.db, () => finish(ctx, 'shorten', inst.id));
    return 'done';
  }
  const passages = getPassages(ctx.db, long.map((r) => r.answer_passage_id!));
  const attempts = await Promise.all(long.map((r) => shortenOne(ctx, subjectOf(inst), r, passages.get(r.answer_passage_id!))));
  const failures = attempts.flatMap((a) => ('failure' in a ? [a.failure] : []));
  if (failures.length) return failed(ctx, 'shorten', item, failures);
  return groupTransaction(ctx.db, () => {
    long.forEach((interpretation, i) => {
      const outcome = attempts[i]!;
      if ('attempt' in outcome) keepShortening(ctx, interpretation, passages.get(interpretation.answer_passage_id!)!, outcome.attempt);
    });
    refreshInstanceText(ctx.db, inst.id);
    const left = active(listInterpretations(ctx.db, inst.id)).length;
    if (left < 2) return remove(ctx, 'shorten', inst.id, `shorten: ${left} interpretation${left === 1 ? ' has' : 's have'} a short answer of at most ${limit} tokens, fewer than 2`);
    finish(ctx, 'shorten', inst.id);
    return 'done' as const;
  });
}

type Span = { start: number; end: number };
type Attempt = { ok: true; text: string; span: Span; prompt: string; callId: number } | { ok: false; problem: string };
type CallFailure = { ok: false; reason: string; raw: string | null };

/** Where a shortening sits in the passage: inside the current answer's span where it is there, else anywhere in the passage. */
function spanOf(r: InterpretationDbRow, passage: PassageWithCorpus | undefined, candidate: string): Span | null {
  if (!passage) return null;
  if (r.answer_start !== null && r.answer_end !== null) {
    const inner = locateAnswer(passage.text.slice(r.answer_start, r.answer_end), candidate);
    if (inner) return { start: r.answer_start + inner.start, end: r.answer_start + inner.end };
  }
  return locateAnswer(passage.text, candidate);
}

/** One interpretation's shortening: ask, check, and ask once more with the problem shown. */
async function shortenOne(ctx: StageContext, item: Subject, r: InterpretationDbRow, passage: PassageWithCorpus | undefined): Promise<{ attempt: Attempt } | { failure: CallFailure }> {
  const limit = ctx.config.shortenOver;
  const values = { question: r.clarified_question ?? r.condition ?? '', answer: r.short_answer!, passage: passage?.text ?? '', max_tokens: limit };
  const check = (candidate: string) => {
    const span = spanOf(r, passage, candidate);
    return { problem: shorteningProblem(candidate, r.short_answer!, limit, span !== null), span };
  };
  const first = await ask(ctx, 'shorten', 'shorten', item, ctx.config.generator, values);
  if (!first.ok) return { failure: first };
  const { problem, span } = check(first.value.answer.trim());
  if (!problem) return { attempt: { ok: true, text: first.value.answer.trim(), span: span!, prompt: first.prompt, callId: first.callId } };
  const retry = await ask(ctx, 'shorten', 'shorten', item, ctx.config.generator, values, [
    { role: 'assistant', content: JSON.stringify(first.value) },
    { role: 'user', content: `That cannot be used: ${problem}. Give a span of the passage, copied exactly, of at most ${limit} words.` },
  ]);
  if (!retry.ok) return { failure: retry };
  const second = check(retry.value.answer.trim());
  if (second.problem) return { attempt: { ok: false, problem: `shortened twice without success: first ${problem}; then ${second.problem}` } };
  return { attempt: { ok: true, text: retry.value.answer.trim(), span: second.span!, prompt: retry.prompt, callId: retry.callId } };
}

/** Stores a usable shortening as the new short answer (keeping the old one in `extra`), or drops the interpretation with the reason. */
function keepShortening(ctx: StageContext, interpretation: InterpretationDbRow, passage: PassageWithCorpus, attempt: Attempt): void {
  if (!attempt.ok) {
    dropInterpretation(ctx.db, interpretation.id, `shorten: the answer has ${countTokens(interpretation.short_answer!)} tokens, more than ${ctx.config.shortenOver}, and was ${attempt.problem}`);
    return;
  }
  setShortAnswer(ctx.db, interpretation.id, {
    text: passage.text.slice(attempt.span.start, attempt.span.end),
    passageId: passage.id,
    start: attempt.span.start,
    end: attempt.span.end,
    provenanceId: provenance(ctx, 'shorten', ctx.config.generator, attempt.prompt, attempt.callId),
    extra: { shortened_from: interpretation.short_answer },
  });
}
