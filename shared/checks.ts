import { squadNormalize } from './eval/answer-metrics';
import type { Span } from './text';

/**
 * The checks the side-by-side view shows in place: is a short answer where it should be?
 * Pure functions: the UI's "answer found" check and the pipeline's span check both use
 * `locateAnswer`, so an answer counts as found in exactly the same cases everywhere.
 */

export interface AnswerLike {
  text: string;
  aliases: readonly string[];
}

/** A located answer: the span in the original text, and the alias that matched (null: the answer itself). */
export type LocatedAnswer = Span & { alias: string | null };

/**
 * A text folded for matching (NFKC, whitespace runs as one space, optionally lower case), with
 * each folded character's span in the original, so a match maps back to the original text.
 */
interface Folded {
  text: string;
  starts: number[];
  ends: number[];
}

const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;

/** A base character with the combining marks after it: NFKC is applied per cluster. */
const CLUSTER = /\P{M}\p{M}*|\p{M}+/gsu;

function fold(original: string, lower: boolean): Folded {
  const out: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let lastSpace = true; // leading white space is dropped
  for (const match of original.matchAll(CLUSTER)) {
    const start = match.index;
    const end = start + match[0].length;
    let piece = match[0].normalize('NFKC');
    if (lower) piece = piece.toLowerCase();
    for (const ch of piece) {
      if (SPACE.test(ch)) {
        if (lastSpace) {
          // One space stands for the whole run: it ends where the run ends.
          if (out.length && out[out.length - 1] === ' ') ends[ends.length - 1] = end;
          continue;
        }
        lastSpace = true;
        out.push(' ');
      } else {
        lastSpace = false;
        out.push(ch);
      }
      // One entry per UTF-16 unit, so indexes into the folded string map straight back.
      for (let unit = 0; unit < ch.length; unit++) {
        starts.push(start);
        ends.push(end);
      }
    }
  }
  while (out.length && out[out.length - 1] === ' ') {
    out.pop();
    starts.pop();
    ends.pop();
  }
  return { text: out.join(''), starts, ends };
}

const isWordChar = (ch: string | undefined) => ch !== undefined && WORD.test(ch);

function codePointAt(s: string, i: number): string | undefined {
  return i < s.length ? String.fromCodePoint(s.codePointAt(i)!) : undefined;
}

function codePointBefore(s: string, i: number): string | undefined {
  if (i <= 0) return undefined;
  const unit = s.charCodeAt(i - 1);
  return unit >= 0xdc00 && unit <= 0xdfff && i >= 2 ? String.fromCodePoint(s.codePointAt(i - 2)!) : s[i - 1];
}

/** The first occurrence of `needle` in `haystack` that starts and ends on word boundaries. */
function findOnBoundaries(haystack: Folded, needle: string): Span | null {
  if (needle === '') return null;
  const chars = haystack.text;
  const needsStart = isWordChar([...needle][0]);
  const needsEnd = isWordChar([...needle].at(-1));
  for (let at = chars.indexOf(needle); at !== -1; at = chars.indexOf(needle, at + 1)) {
    if (needsStart && isWordChar(codePointBefore(chars, at))) continue;
    if (needsEnd && isWordChar(codePointAt(chars, at + needle.length))) continue;
    const last = at + needle.length - 1;
    return { start: haystack.starts[at]!, end: haystack.ends[last]! };
  }
  return null;
}

/**
 * Where one candidate occurs in `text`, as a span of the original text: on word boundaries
 * ("Ford" is not found inside "Bradford", "1998" not inside "19985"), after Unicode (NFKC) and
 * white-space normalisation of both sides, preferring an occurrence with the same case.
 */
export function findAnswerSpan(text: string, candidate: string): Span | null {
  const needle = fold(candidate, false).text;
  if (needle === '') return null;
  return findOnBoundaries(fold(text, false), needle) ?? findOnBoundaries(fold(text, true), fold(candidate, true).text);
}

/** Where the answer (or, failing that, one of its aliases) occurs in `text`. */
export function locateAnswer(text: string, answer: AnswerLike | string): LocatedAnswer | null {
  const { text: wanted, aliases } = typeof answer === 'string' ? { text: answer, aliases: [] as readonly string[] } : answer;
  const direct = findAnswerSpan(text, wanted);
  if (direct) return { ...direct, alias: null };
  for (const alias of aliases) {
    const span = findAnswerSpan(text, alias);
    if (span) return { ...span, alias };
  }
  return null;
}

/** Where an answer was found among numbered passages, and whether it was the passage named. */
export interface PassageMatch extends LocatedAnswer {
  /** Index into the passages given. */
  index: number;
  /** True when found in the passage named (1-based `named`); false when another one had it. */
  inNamed: boolean;
}

/**
 * The answer in the passage the model named (1-based; 0 or out of range names none), else in
 * the first other passage that has it; the caller records a fall-back (`inNamed: false`).
 */
export function locateInPassages(passages: readonly { text: string }[], answer: AnswerLike | string, named: number): PassageMatch | null {
  const namedIndex = named >= 1 && named <= passages.length ? named - 1 : -1;
  if (namedIndex !== -1) {
    const span = locateAnswer(passages[namedIndex]!.text, answer);
    if (span) return { ...span, index: namedIndex, inNamed: true };
  }
  for (let index = 0; index < passages.length; index++) {
    if (index === namedIndex) continue;
    const span = locateAnswer(passages[index]!.text, answer);
    if (span) return { ...span, index, inNamed: false };
  }
  return null;
}

export type SpanCheck = 'verbatim' | 'normalised' | 'mismatch' | 'out_of_range';

/**
 * Whether the recorded span of a passage reads as the short answer: the same characters
 * ('verbatim'), or the same answer as the scorer sees it ('normalised': equal under SQuAD's
 * normalisation, so "U.S." reads as "US"), so the view never claims a match the scorer denies.
 */
export function checkSpan(passage: string, start: number, end: number, answer: string): SpanCheck {
  if (start < 0 || end > passage.length || end < start) return 'out_of_range';
  const slice = passage.slice(start, end);
  if (slice === answer) return 'verbatim';
  return squadNormalize(slice) === squadNormalize(answer) ? 'normalised' : 'mismatch';
}

/** The sentence (or sentences) around a span, for showing a long passage collapsed. */
export function sentenceAround(text: string, span: Span): Span {
  const before = text.slice(0, span.start);
  const boundary = Math.max(before.lastIndexOf('. '), before.lastIndexOf('? '), before.lastIndexOf('! '), before.lastIndexOf('\n'));
  const start = boundary === -1 ? 0 : boundary + 2;
  const after = /[.!?](\s|$)/.exec(text.slice(span.end));
  const end = after ? span.end + after.index + 1 : text.length;
  return { start: Math.max(0, Math.min(start, span.start)), end: Math.max(end, span.end) };
}
