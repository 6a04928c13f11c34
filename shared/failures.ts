import { locateAnswer } from './checks';
import { strEm } from './eval/answer-metrics';
import type { GoldInterpretation, MethodInterpretation, RetrievedPassage } from './eval/types';

/**
 * What the failure view says about one item, as pure functions: which gold interpretations the
 * long answer covers (each short answer found or missing, where), whether it collapsed them, the
 * overlap of each method interpretation's retrieved passages with the gold evidence, and the text
 * rules behind the "refusal or format error" tag.
 */

export interface InterpretationCoverage {
  /** Index into the gold interpretations. */
  index: number;
  found: boolean;
  /** Where the short answer (or the alias matched) sits in the long answer; null when found only after ASQA normalisation. */
  span: { start: number; end: number; alias: string | null } | null;
}

export type CoverageVerdict = 'covered' | 'partial' | 'collapsed' | 'missed' | 'no-gold';

export interface Coverage {
  interpretations: InterpretationCoverage[];
  covered: number;
  /** Gold interpretations that have a short answer. */
  withAnswers: number;
  /**
   * covered: every interpretation; partial: more than one but not all; collapsed: at most one of
   * several; missed: the only one is missing; no-gold: nothing to check.
   */
  verdict: CoverageVerdict;
}

export function answerCoverage(longAnswer: string | null, gold: readonly GoldInterpretation[]): Coverage {
  const text = longAnswer ?? '';
  const interpretations = gold.map((g, index) => {
    if (g.answers.length === 0) return { index, found: false, span: null };
    const located = locateAnswer(text, { text: g.answers[0]!, aliases: g.answers.slice(1) });
    const found = located !== null || strEm(text, [g.answers]) === 1;
    return { index, found, span: located ? { start: located.start, end: located.end, alias: located.alias } : null };
  });
  const withAnswers = gold.filter((g) => g.answers.length > 0).length;
  const covered = interpretations.filter((c) => c.found).length;
  let verdict: CoverageVerdict;
  if (withAnswers === 0) verdict = 'no-gold';
  else if (covered === withAnswers) verdict = 'covered';
  else if (withAnswers >= 2 && covered <= 1) verdict = 'collapsed';
  else if (covered === 0) verdict = 'missed';
  else verdict = 'partial';
  return { interpretations, covered, withAnswers, verdict };
}

export interface RetrievalOverlap {
  /** The method's interpretation (null: passages retrieved for the question as a whole). */
  interpretation: string | null;
  passages: (RetrievedPassage & { gold: boolean })[];
  /** Retrieved passages that are gold evidence. */
  hits: number;
}

/** Per method interpretation (and for the question as a whole), which retrieved passages are gold evidence. */
export function retrievalOverlap(gold: readonly GoldInterpretation[], retrieved: readonly RetrievedPassage[], interpretations: readonly MethodInterpretation[]): { groups: RetrievalOverlap[]; goldEvidence: number; goldFound: number } {
  const evidence = new Set(gold.flatMap((g) => g.evidence));
  const group = (interpretation: string | null, passages: readonly RetrievedPassage[]): RetrievalOverlap => {
    const marked = passages.map((p) => ({ ...p, gold: evidence.has(p.key) }));
    return { interpretation, passages: marked, hits: marked.filter((p) => p.gold).length };
  };
  const groups = [...(retrieved.length ? [group(null, retrieved)] : []), ...interpretations.filter((i) => i.retrieved.length).map((i) => group(i.question, i.retrieved))];
  const seen = new Set(groups.flatMap((g) => g.passages.filter((p) => p.gold).map((p) => p.key)));
  return { groups, goldEvidence: evidence.size, goldFound: seen.size };
}

/** A failed item whose reason says the output could not be read (malformed, unparsable, missing fields). */
export function isFormatFailure(error: string | null): boolean {
  return error !== null && /json|pars(e|ing)|format|schema|malformed|invalid|expected|no usable answer|missing field|no answer after/i.test(error);
}

/** A finished answer that declines to answer. */
export function isRefusal(longAnswer: string | null): boolean {
  if (longAnswer === null || longAnswer.trim() === '') return true;
  return /\b(i (cannot|can ?not|can't|am unable to|am not able to)|unable to (answer|determine|find)|i don'?t know|not enough information|cannot be determined)\b/i.test(longAnswer);
}
