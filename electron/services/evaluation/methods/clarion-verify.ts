import { numberedPassages } from '../../../../shared/eval/methods/format';
import type { EvalSchemaOutput } from '../../../../shared/eval/methods/schemas';
import type { MethodInterpretation, MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';
import type { ItemRun } from '../context';
import type { ActingState, Reading } from './clarion';
import { output } from './common';

/**
 * CLARION's hop-consistency verification and recovery (MARCH App. G.2, Table 16). Each answered
 * interpretation's hop chain is checked: the first hop's entity must be supported by a cited
 * passage, and each later hop's evidence must be about the entity resolved before it. Pass →
 * answer; fail → one targeted search (from the step budget), a re-answer and a re-check, else
 * "not safely answerable"; blocked (a hop entity is missing) → left for the user, as batch
 * evaluation has no user to ask. The final answer gives the verified answers only.
 */

export interface AnsweredReading {
  index: number;
  reading: Reading;
  answer: string;
  hops: { hop: number; entity: string; passages: RetrievedPassage[] }[];
}

type Verdict = EvalSchemaOutput<'hop_verify'>['verdicts'][number];
type Final = NonNullable<MethodInterpretation['verdict']>;

function describeChain(a: AnsweredReading, number: (p: RetrievedPassage) => number): string {
  const hops = a.hops.length ? a.hops.map((h) => `  H${h.hop}: ${h.entity || '(missing)'} (passages ${h.passages.map((p) => `[${number(p)}]`).join(', ') || 'none'})`).join('\n') : '  (no hops given)';
  const cited = [...new Map(a.hops.flatMap((h) => h.passages).map((p) => [p.key, p])).values()];
  const passages = cited.map((p) => numberedPassages([p], { from: number(p) })).join('\n') || '(none cited)';
  return `Interpretation ${a.index}: ${a.reading.question}\nAnswer: ${a.answer}\nHops:\n${hops}\nCited passages:\n${passages}`;
}

/** One verification call over some answered readings; null when the reply is unusable. */
async function check(run: ItemRun, state: ActingState, answers: readonly AnsweredReading[], label: string): Promise<Map<number, Verdict> | null> {
  const reply = await run.ask(
    'eval_clarion_verify',
    { question: run.question, answers: answers.map((a) => describeChain(a, (p) => state.numberOf(p))).join('\n\n') },
    { kind: 'observation', label, sampling: { temperature: 0 } },
  );
  return reply ? new Map(reply.verdicts.map((v) => [v.interpretation, v])) : null;
}

/** A failed chain: one search from the budget, a re-answer from the reading's passages, a re-check. */
async function recover(run: ItemRun, state: ActingState, a: AnsweredReading, verdict: Verdict): Promise<'recovered' | 'unverified'> {
  if (state.left <= 0) {
    run.note(`interpretation ${a.index}: hop check failed (${verdict.reason}); no search left to recover it`);
    return 'unverified';
  }
  state.steps++;
  state.searches++;
  const query = verdict.recovery_query.trim() || a.reading.question;
  state.gather(await run.search(query, { label: `recover interpretation ${a.index}` }), a.reading);
  const passages = a.reading.found;
  const again = await run.ask(
    'eval_clarion_recover',
    { interpretation: a.reading.question, answer: a.answer, reason: verdict.reason, passages: numberedPassages(passages) },
    { kind: 'action', label: `recover interpretation ${a.index}` },
  );
  if (!again?.answer.trim()) return 'unverified';
  a.answer = again.answer.trim();
  a.hops = again.hops.map((h) => ({ hop: h.hop, entity: h.entity, passages: h.passages.map((n) => passages[n - 1]).filter((p): p is RetrievedPassage => !!p) }));
  const recheck = await check(run, state, [a], `re-check interpretation ${a.index}`);
  return recheck?.get(a.index)?.verdict === 'pass' ? 'recovered' : 'unverified';
}

/** The verdict of every answered reading, recovering failed ones while the budget lasts; counts as `hop_verdicts`. */
async function verify(run: ItemRun, state: ActingState, answers: AnsweredReading[]): Promise<Map<number, Final>> {
  const finals = new Map<number, Final>();
  const counts = { pass: 0, fail: 0, blocked: 0, recovered: 0 };
  const given = answers.filter((a) => a.answer);
  for (const a of answers) if (!a.answer) finals.set(a.index, 'unverified');
  const verdicts = given.length ? await check(run, state, given, 'hop-consistency check') : new Map<number, Verdict>();
  if (!verdicts) run.note('the hop-consistency check gave no usable reply: the answers were kept unchecked');
  for (const a of given) {
    const v = verdicts?.get(a.index);
    if (!v || v.verdict === 'pass') {
      if (verdicts && !v) run.note(`interpretation ${a.index}: the hop check gave no verdict; the answer was kept unchecked`);
      counts.pass++;
      finals.set(a.index, 'pass');
    } else if (v.verdict === 'blocked') {
      counts.blocked++;
      finals.set(a.index, 'needs-user');
    } else {
      counts.fail++;
      const outcome = await recover(run, state, a, v);
      if (outcome === 'recovered') counts.recovered++;
      finals.set(a.index, outcome);
    }
  }
  run.metric('hop_verdicts', counts);
  return finals;
}

const list = (items: readonly AnsweredReading[]) => items.map((a) => `${a.index}. ${a.reading.question}`).join('\n') || '(none)';

/** Verification, then the final answer: the acting agent's own when everything passed, else one written from the verified answers. */
export async function verifyAndCompose(run: ItemRun, state: ActingState, answers: AnsweredReading[], longAnswer: string): Promise<MethodOutput> {
  const finals = await verify(run, state, answers);
  const ok = (a: AnsweredReading) => finals.get(a.index) === 'pass' || finals.get(a.index) === 'recovered';
  const verified = answers.filter(ok);
  let text = longAnswer.trim();
  if (!answers.every((a) => finals.get(a.index) === 'pass') || !text) {
    const composed = await run.mustAsk(
      'eval_clarion_compose',
      {
        question: run.question,
        verified: verified.map((a) => `${a.index}. ${a.reading.question} → ${a.answer}`).join('\n') || '(none)',
        unverified: list(answers.filter((a) => finals.get(a.index) === 'unverified')),
        blocked: list(answers.filter((a) => finals.get(a.index) === 'needs-user')),
      },
      { label: 'compose the final answer' },
    );
    text = composed.long_answer;
  }
  const interpretations: MethodInterpretation[] = answers.map((a) => ({
    question: a.reading.question,
    condition: null,
    answer: ok(a) ? a.answer : null,
    citations: ok(a) ? [...new Set(a.hops.flatMap((h) => h.passages.map((p) => p.key)))] : [],
    retrieved: a.reading.found,
    hops: a.hops.map((h) => ({ hop: h.hop, entity: h.entity, passages: h.passages.map((p) => p.key) })),
    verdict: finals.get(a.index)!,
  }));
  return output({
    longAnswer: text,
    shortAnswers: verified.map((a) => a.answer),
    citations: [...new Set(interpretations.flatMap((i) => i.citations))],
    interpretations,
    retrieved: state.passages,
  });
}
