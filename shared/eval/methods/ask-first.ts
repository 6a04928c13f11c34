import type { Answerability } from '../../domain';
import { maxOverGold, squadNormalize, tokenF1 } from '../answer-metrics';

/**
 * The ask-before-answer setting (URASys §3.2, Table 2): on each item a method answers, asks a
 * clarifying question, or says there is no answer. Scored by the item's gold label: an answerable
 * item is right when the method answers correctly; an unanswerable one when it says there is no
 * answer; an ambiguous one when it asks (and, strictly, when its answer after the user's reply is
 * right for the reading the reply selects). Correctness of an answer is by SQuAD token F1 ≥ 0.5
 * against any gold answer, or the gold answer contained in it (URASys uses an LLM judge).
 */

export const ASK_ACTIONS = ['answer', 'clarify', 'no_answer'] as const;
export type AskAction = (typeof ASK_ACTIONS)[number];

export interface AskGold {
  label: Answerability;
  answers: string[];
  /** Ambiguous items with a clarification turn: what the user replies, and the answers of the reading it selects. */
  clarification: { reply: string; clarifiedQuestion: string; answers: string[] } | null;
}

export interface AskOutput {
  action: AskAction;
  answer: string;
  clarifyingQuestion: string;
  /** The answer after the user's reply (ambiguous items the method asked about). */
  afterReply: string | null;
}

export const F1_THRESHOLD = 0.5;

export function answerMatches(prediction: string, gold: readonly string[]): boolean {
  if (!prediction.trim() || gold.length === 0) return false;
  const said = squadNormalize(prediction);
  return maxOverGold(tokenF1, prediction, gold) >= F1_THRESHOLD || gold.some((g) => squadNormalize(g) !== '' && said.includes(squadNormalize(g)));
}

/** An item's scores: `correct` as Table 2 counts it; `strict` for ambiguous items (null when it cannot be told). */
export function scoreAsk(gold: AskGold, out: AskOutput): { correct: boolean; strict: boolean | null } {
  if (gold.label === 'answerable') return { correct: out.action === 'answer' && answerMatches(out.answer, gold.answers), strict: null };
  if (gold.label === 'unanswerable') return { correct: out.action === 'no_answer', strict: null };
  const asked = out.action === 'clarify';
  const strict = gold.clarification === null ? null : asked && answerMatches(out.afterReply ?? '', gold.clarification.answers);
  return { correct: asked, strict };
}

export interface AskCell {
  n: number;
  correct: number;
  accuracy: number | null;
}

export interface AskTable {
  overall: AskCell;
  byLabel: Record<Answerability, AskCell>;
  /** Ambiguous items whose answer after the reply was right, of those with a clarification turn. */
  ambiguousStrict: AskCell;
  /** Gold label × action. */
  confusion: Record<Answerability, Record<AskAction, number>>;
}

const cell = (n: number, correct: number): AskCell => ({ n, correct, accuracy: n ? correct / n : null });

export function askTable(items: readonly { label: Answerability; action: AskAction | null; correct: boolean | null; strict: boolean | null }[]): AskTable {
  const scored = items.filter((i) => i.correct !== null);
  const of = (label: Answerability) => scored.filter((i) => i.label === label);
  const confusion = Object.fromEntries(
    (['answerable', 'ambiguous', 'unanswerable'] as const).map((label) => [label, Object.fromEntries(ASK_ACTIONS.map((a) => [a, scored.filter((i) => i.label === label && i.action === a).length]))]),
  ) as AskTable['confusion'];
  const strict = scored.filter((i) => i.label === 'ambiguous' && i.strict !== null);
  return {
    overall: cell(scored.length, scored.filter((i) => i.correct).length),
    byLabel: {
      answerable: cell(of('answerable').length, of('answerable').filter((i) => i.correct).length),
      ambiguous: cell(of('ambiguous').length, of('ambiguous').filter((i) => i.correct).length),
      unanswerable: cell(of('unanswerable').length, of('unanswerable').filter((i) => i.correct).length),
    },
    ambiguousStrict: cell(strict.length, strict.filter((i) => i.strict).length),
    confusion,
  };
}
