/**
 * Turning what a person types into an FTS5 query that is always valid and never does
 * something surprising: words are extracted (letters and digits in any script), each is quoted,
 * so FTS operators, quotes, parentheses and column filters in the input are plain text.
 */

const WORD = /[\p{L}\p{N}]+/gu;

export function searchTerms(text: string): string[] {
  return [...text.normalize('NFKC').matchAll(WORD)].map((m) => m[0]);
}

/**
 * All words must match (implicit AND); the last word also matches as a prefix when
 * `prefixLast` is set, for search-as-you-type. Returns null when there is nothing to search.
 */
export function toFtsQuery(text: string, options: { prefixLast?: boolean } = {}): string | null {
  const terms = searchTerms(text).slice(0, 32);
  if (terms.length === 0) return null;
  return terms
    .map((term, i) => `"${term}"${options.prefixLast && i === terms.length - 1 ? '*' : ''}`)
    .join(' ');
}

const foldWord = (word: string) => word.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();

/**
 * Ranges of `text` whose words match the search terms (for highlighting), ignoring case and
 * diacritics. With `prefix`, a word matches when it starts with a term (search-as-you-type).
 */
export function matchRanges(text: string, query: string, options: { prefix?: boolean } = { prefix: true }): { start: number; end: number }[] {
  const terms = searchTerms(query).map(foldWord);
  if (terms.length === 0) return [];
  const ranges: { start: number; end: number }[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = foldWord(match[0]);
    if (terms.some((term) => (options.prefix ? word.startsWith(term) : word === term))) ranges.push({ start: match.index, end: match.index + match[0].length });
  }
  return ranges;
}
