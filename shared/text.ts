/** Text helpers shared by importers, the pipeline, metrics and the UI. Pure functions. */

export interface Span {
  start: number;
  end: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where `needle` occurs in `haystack`: verbatim first, then ignoring case, then also treating
 * any run of whitespace as equal. Returns null when it does not occur.
 */
export function findSpan(haystack: string, needle: string): Span | null {
  const wanted = needle.trim();
  if (wanted === '') return null;
  const exact = haystack.indexOf(wanted);
  if (exact !== -1) return { start: exact, end: exact + wanted.length };
  const pattern = wanted.split(/\s+/).map(escapeRegExp).join('\\s+');
  const match = new RegExp(pattern, 'iu').exec(haystack);
  return match ? { start: match.index, end: match.index + match[0].length } : null;
}

/**
 * A wording folded for comparing two questions or answers as the same words: NFKC, lower case,
 * every punctuation mark and symbol a word break, the articles a/an/the dropped, single spaces.
 * Used to de-duplicate clarified questions and colliding short answers.
 *
 * Not the scorer's normalisation: `squadNormalize` (shared/eval/answer-metrics.ts) deletes
 * punctuation as SQuAD's script does, so "U.S." is "us" there and "u s" here, and "F-16" is
 * "f16" there and "f 16" here. Here a mark separates words, as it does for a reader and for
 * `findAnswerSpan`'s word boundaries; there the papers' definition rules, so scores compare.
 */
export function foldForMatching(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whitespace tokens, as used for "answers over 10 tokens". */
export function countTokens(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** Removes HTML tags and decodes the common entities (AmbigNQ snippets come as HTML). */
export function htmlToText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      const lower = name.toLowerCase();
      if (lower in entities) return entities[lower]!;
      if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
      if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
      return whole;
    });
}
