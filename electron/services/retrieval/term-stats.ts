import { countCorpusPassages } from '../../../db/queries/corpora';
import { vocabularyStatistics, vocabularyTotals } from '../../../db/queries/passages-fts';
import type { WritableDB } from '../../../db/sql';

/**
 * Corpus-wide statistics of the full-text index's terms: in how many passages each occurs (for
 * BM25 query building) and how often (for the cues' word distribution), plus the index's word
 * total and vocabulary size. fts5vocab answers a term by walking its postings and the totals by
 * scanning the whole vocabulary, so both are kept per database and dropped when the number of
 * passages changes (passages are only ever added, by imports).
 */

export interface TermStatistic {
  /** Passages containing the term. */
  doc: number;
  /** Occurrences of the term. */
  cnt: number;
}

interface Cache {
  passages: number;
  terms: Map<string, TermStatistic>;
  totals: { total: number; vocabulary: number } | null;
}

const caches = new WeakMap<WritableDB, Cache>();
/** Past this many cached terms the cache starts again (a bound on memory, not a tuning knob). */
const MAX_CACHED_TERMS = 500_000;
const ABSENT: TermStatistic = { doc: 0, cnt: 0 };

function cacheFor(db: WritableDB): Cache {
  const passages = countCorpusPassages(db, null);
  let cache = caches.get(db);
  if (!cache || cache.passages !== passages) {
    cache = { passages, terms: new Map(), totals: null };
    caches.set(db, cache);
  }
  return cache;
}

/** Statistics of some terms; a term the index does not hold has zeros. */
export function termStatistics(db: WritableDB, terms: readonly string[]): Map<string, TermStatistic> {
  const cache = cacheFor(db);
  const missing = [...new Set(terms)].filter((t) => !cache.terms.has(t));
  if (missing.length) {
    const rows = vocabularyStatistics(db, missing);
    if (cache.terms.size + missing.length > MAX_CACHED_TERMS) cache.terms.clear();
    for (const term of missing) cache.terms.set(term, ABSENT);
    for (const row of rows) cache.terms.set(row.term, { doc: row.doc, cnt: row.cnt });
  }
  return new Map(terms.map((t) => [t, cache.terms.get(t) ?? ABSENT]));
}

/** The index's word total and vocabulary size. */
export function indexTotals(db: WritableDB): { total: number; vocabulary: number } {
  const cache = cacheFor(db);
  cache.totals ??= vocabularyTotals(db);
  return cache.totals;
}
