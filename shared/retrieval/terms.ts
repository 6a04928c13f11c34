/**
 * Words for retrieval: the same folding FTS5's unicode61 tokenizer applies (lower case,
 * diacritics removed), English stopwords left out. Pure, shared by the query builder, the
 * offline embedder and the ambiguity cues.
 */

// Function words that say nothing about a passage's topic (our own list).
const STOPWORDS_TEXT = `
a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing down during each either else ever few for from further had has have having he her
here hers herself him himself his how however i if in into is it its itself just least less let like made make many
may me might more most much must my myself neither no nor not now of off often on once one only or other ought our
ours ourselves out over own per rather same shall she should since so some such than that the their theirs them
themselves then there these they this those though through thus to too under until up upon us very was we were what
whatever when whence where whether which while who whom whose why will with within without would yet you your yours
yourself yourselves name named called
`;
export const STOPWORDS: ReadonlySet<string> = new Set(STOPWORDS_TEXT.split(/\s+/).filter(Boolean));

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case without diacritics, as FTS5's `unicode61 remove_diacritics 2` sees text. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Every word of the text, folded, in order (stopwords included). */
export function words(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}

/** The distinct content words of a query, in order of first use. */
export function contentTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const word of words(text)) {
    if (STOPWORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
  }
  return [...seen];
}
