import { findSpan, normalizeAnswer, type Span } from './text';

/**
 * The checks the side-by-side view shows in place: is a short answer where it should be?
 * Pure functions, so the same rules can back tests, the UI and later the pipeline.
 */

export interface AnswerLike {
  text: string;
  aliases: readonly string[];
}

/** Where the answer (or, failing that, one of its aliases) occurs in `text`. */
export function locateAnswer(text: string, answer: AnswerLike): (Span & { alias: string | null }) | null {
  const direct = findSpan(text, answer.text);
  if (direct) return { ...direct, alias: null };
  for (const alias of answer.aliases) {
    const span = findSpan(text, alias);
    if (span) return { ...span, alias };
  }
  return null;
}

export type SpanCheck = 'verbatim' | 'normalised' | 'mismatch' | 'out_of_range';

/** Whether the recorded span of a passage reads as the short answer. */
export function checkSpan(passage: string, start: number, end: number, answer: string): SpanCheck {
  if (start < 0 || end > passage.length || end < start) return 'out_of_range';
  const slice = passage.slice(start, end);
  if (slice === answer) return 'verbatim';
  return normalizeAnswer(slice) === normalizeAnswer(answer) ? 'normalised' : 'mismatch';
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
