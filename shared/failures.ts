import { locateAnswer } from './checks';
import { squadNormalize, strEm } from './eval/answer-metrics';
import type { GoldInterpretation, MethodInterpretation, RetrievedPassage } from './eval/types';

/**
 * What the failure view says about one item, as pure functions: which gold interpretations the
 * long answer covers (each short answer found or missing, where), how many interpretations the
 * prediction commits to (MARCH appendix G.1's "collapsed"), the overlap of each method interpretation's retrieved passages with the gold evidence, and the text
 * rules behind the "refusal or format error" tag.
 */

export interface InterpretationCoverage {
  /** Index into the gold interpretations. */
  index: number;
  found: boolean;
  /** Where the short answer (or the alias matched) sits in the long answer; null when found only after ASQA normalisation. */
  span: { start: number; end: number; alias: string | null } | null;
}

export type CoverageVerdict = 'covered' | 'partial' | 'missed' | 'no-gold' | 'error';

export interface Coverage {
  interpretations: InterpretationCoverage[];
  covered: number;
  /** Gold interpretations that have a short answer. */
  withAnswers: number;
  /**
   * covered: every interpretation; partial: some but not all; missed: none; no-gold: nothing to
   * check; error: the method failed on the item, so there is no answer. Whether the prediction
   * collapsed the interpretations is a separate question (`committedInterpretations`).
   */
  verdict: CoverageVerdict;
}

export function answerCoverage(longAnswer: string | null, gold: readonly GoldInterpretation[], options: { failed?: boolean } = {}): Coverage {
  const text = longAnswer ?? '';
  const interpretations = gold.map((g, index) => {
    if (g.answers.length === 0 || options.failed) return { index, found: false, span: null };
    const located = locateAnswer(text, { text: g.answers[0]!, aliases: g.answers.slice(1) });
    const found = located !== null || strEm(text, [g.answers]) === 1;
    return { index, found, span: located ? { start: located.start, end: located.end, alias: located.alias } : null };
  });
  const withAnswers = gold.filter((g) => g.answers.length > 0).length;
  const covered = interpretations.filter((c) => c.found).length;
  let verdict: CoverageVerdict;
  if (options.failed) verdict = 'error';
  else if (withAnswers === 0) verdict = 'no-gold';
  else if (covered === withAnswers) verdict = 'covered';
  else if (covered === 0) verdict = 'missed';
  else verdict = 'partial';
  return { interpretations, covered, withAnswers, verdict };
}

/** Distinct answers after SQuAD normalisation, empty ones left out. */
function distinctAnswers(answers: readonly (string | null)[]): number {
  return new Set(answers.map((a) => squadNormalize(a ?? '')).filter((a) => a !== '')).size;
}

/**
 * How many interpretations a prediction commits to (MARCH appendix G.1): the distinct non-empty
 * answers it gives, as short answers or as answered interpretations; for a method that gives
 * neither (a standard baseline, a prediction without short answers), the distinct non-empty
 * answers the reader found in its long answer for the gold clarified questions. Null when none of
 * these is known. A method's explicit empty list of short answers commits to none (0).
 */
export function committedInterpretations(
  out: { shortAnswers: readonly string[] | null; interpretations: readonly { answer: string | null }[] },
  readerAnswers: readonly (string | null)[] | null,
): number | null {
  const short = out.shortAnswers;
  if (short && distinctAnswers(short) > 0) return distinctAnswers(short);
  const answered = out.interpretations.map((i) => i.answer);
  if (distinctAnswers(answered) > 0) return distinctAnswers(answered);
  if (readerAnswers && readerAnswers.some((a) => a !== null)) return distinctAnswers(readerAnswers);
  return short ? 0 : null;
}

/** G.1's collapse: the gold has several interpretations and the prediction commits to at most one (null when either is unknown). */
export function isCollapsed(goldInterpretations: number, committed: number | null): boolean | null {
  if (committed === null || goldInterpretations < 2) return null;
  return committed <= 1;
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

/** What a method records on an item that the appendix-G rules read (CLARION's planner and hop checks). */
interface RecordedSteps {
  detected_ambiguous?: unknown;
  hop_verdicts?: unknown;
}

/**
 * The appendix-G tags a rule can suggest from what the method recorded, each with its reason:
 * `detection-miss` when the planner judged the question unambiguous although the gold has several
 * interpretations; `hop-inconsistency` when a hop check failed and was not recovered;
 * `needs-clarification` when a hop entity was missing. Methods that record none of these get none.
 */
export function appendixGTags(metrics: RecordedSteps, goldInterpretations: number): { tag: 'detection-miss' | 'hop-inconsistency' | 'needs-clarification'; note: string }[] {
  const out: { tag: 'detection-miss' | 'hop-inconsistency' | 'needs-clarification'; note: string }[] = [];
  if (metrics.detected_ambiguous === false && goldInterpretations >= 2) out.push({ tag: 'detection-miss', note: `judged unambiguous; the gold has ${goldInterpretations} interpretations` });
  const hops = (typeof metrics.hop_verdicts === 'object' && metrics.hop_verdicts !== null ? metrics.hop_verdicts : {}) as { fail?: unknown; recovered?: unknown; blocked?: unknown };
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const unrecovered = count(hops.fail) - count(hops.recovered);
  if (unrecovered > 0) out.push({ tag: 'hop-inconsistency', note: `${unrecovered} interpretation${unrecovered === 1 ? '' : 's'} failed the hop check and were not recovered` });
  if (count(hops.blocked) > 0) out.push({ tag: 'needs-clarification', note: `${count(hops.blocked)} interpretation${count(hops.blocked) === 1 ? '' : 's'} missing a hop entity (left for the user)` });
  return out;
}

// ---- grouped failure reasons ------------------------------------------------------------------

export interface FailureReasonGroup {
  /** The reason with what varies item to item (numbers, quoted text) blanked: "clarify: the output was not valid JSON (position #)". */
  reason: string;
  count: number;
  /** The first failed item with this reason, and its reason word for word. */
  example: { id: number; error: string };
}

const MAX_REASON = 160;

/**
 * The pattern of a failure reason, so that items that failed the same way group together: quoted
 * text becomes "…" and numbers become "#", except an HTTP status where the reason names one
 * ("429 Rate limit", "HTTP 500", "status 503": different reasons); white space is collapsed and
 * the text is cut at 160 characters.
 */
export function reasonPattern(error: string): string {
  const isStatus = (n: string, before: string) => /^[1-5]\d\d$/.test(n) && /(^|: |HTTP |status |code )$/.test(before);
  const text = error
    .replace(/"[^"\n]*"|“[^”\n]*”/g, '"…"')
    .replace(/\d+(?:\.\d+)?/g, (n: string, at: number, whole: string) => (isStatus(n, whole.slice(0, at)) ? n : '#'))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text || 'no reason recorded';
}

/** Failed items grouped by reason pattern, most frequent first (ties: the earlier example first). */
export function groupFailureReasons(items: Iterable<{ id: number; error: string | null }>): FailureReasonGroup[] {
  const groups = new Map<string, FailureReasonGroup>();
  for (const item of items) {
    const error = item.error ?? '';
    const reason = reasonPattern(error);
    const group = groups.get(reason);
    if (group) group.count++;
    else groups.set(reason, { reason, count: 1, example: { id: item.id, error } });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.example.id - b.example.id);
}
