import { findCorpusByName } from '../../../db/queries/corpora';
import { getVectors } from '../../../db/queries/embeddings';
import { getPassages } from '../../../db/queries/passages';
import { countPassageMatches } from '../../../db/queries/passages-fts';
import type { WritableDB } from '../../../db/sql';
import { AppError, type AmbiguityCues, type ConstraintCues, type GeometryCues } from '../../../shared/api';
import { findConstraints, relax, type Constraint } from '../../../shared/retrieval/constraints';
import { contentTerms, words } from '../../../shared/retrieval/terms';
import { geometrySignals } from '../../../shared/retrieval/geometry';
import { defaultModelFor } from './models';
import { bm25Search, type Retriever } from './search';
import { indexTotals, termStatistics } from './term-stats';

/**
 * Corpus cues for the ambiguity detectors.
 *
 * Constraint ambiguity (MARCH, appendix I):
 * - total hits H(q): passages matching every content word of the literal query (quoted spans as
 *   phrases), as a search engine counts results;
 * - KL divergence D_KL(P_top || P_corpus) between the word distribution of the top-k BM25
 *   passages and that of the whole index (add-one smoothing on the corpus side);
 * - relax-delta ratio: the largest fold increase in hits, H(relax(q)) / H(q), when exactly one
 *   number, date or quoted span is removed (1 when the query has none; H(q) = 0 counts as 1).
 *
 * Retrieval geometry (ADF, paper 002, equations 1-3): the dispersion of the top-k passage
 * vectors around their centroid, the mean silhouette of a 2-means split, and the resulting state.
 */

function literalQuery(query: string): string | null {
  const parts: string[] = [];
  let rest = query;
  for (const quoted of findConstraints(query).filter((c) => c.kind === 'quoted')) {
    const phrase = words(quoted.text);
    if (phrase.length) parts.push(`"${phrase.join(' ')}"`);
    rest = rest.replace(quoted.text, ' ');
  }
  for (const term of contentTerms(rest)) parts.push(`"${term}"`);
  if (parts.length === 0) return null;
  return parts.join(' AND ');
}

function hits(db: WritableDB, query: string, corpusId: number | null): { literal: string | null; count: number } {
  const literal = literalQuery(query);
  if (!literal) return { literal: null, count: 0 };
  return { literal, count: countPassageMatches(db, literal, corpusId) };
}

/** Corpus counts of some terms, with the index's word total and vocabulary size. */
function corpusDistribution(db: WritableDB, terms: readonly string[]): { counts: Map<string, number>; total: number; vocabulary: number } {
  const stats = termStatistics(db, terms);
  return { counts: new Map(terms.map((t) => [t, stats.get(t)!.cnt])), ...indexTotals(db) };
}

export function constraintCues(db: WritableDB, query: string, corpusId: number | null, k: number): ConstraintCues {
  const literal = hits(db, query, corpusId);
  const constraints: (Constraint & { hits_without: number })[] = findConstraints(query).map((c) => ({
    ...c,
    hits_without: hits(db, relax(query, c), corpusId).count,
  }));
  const base = Math.max(1, literal.count);
  // Zero hits either way is no increase: both sides count as 1.
  const ratio = constraints.length ? Math.max(...constraints.map((c) => Math.max(1, c.hits_without) / base)) : 1;

  const top = bm25Search(db, query, corpusId, k);
  let kl: number | null = null;
  if (top.ids.length) {
    const passages = getPassages(db, top.ids);
    const counts = new Map<string, number>();
    let n = 0;
    for (const p of passages.values()) {
      for (const word of words(`${p.title} ${p.text}`)) {
        counts.set(word, (counts.get(word) ?? 0) + 1);
        n++;
      }
    }
    const corpus = corpusDistribution(db, [...counts.keys()]);
    kl = 0;
    for (const [word, count] of counts) {
      const p = count / n;
      const q = ((corpus.counts.get(word) ?? 0) + 1) / (corpus.total + corpus.vocabulary);
      kl += p * Math.log(p / q);
    }
  }
  return {
    query,
    literal: literal.literal,
    totalHits: literal.count,
    klDivergence: kl,
    relaxDeltaRatio: ratio,
    constraints: constraints.map((c) => ({ kind: c.kind, text: c.text, hits_without: c.hits_without })),
    topK: top.ids.length,
  };
}

async function geometryCues(
  db: WritableDB,
  retriever: Retriever,
  query: string,
  corpus: string | undefined,
  k: number,
  thresholds: { variance: number; separation: number },
  modelName?: string,
): Promise<GeometryCues | null> {
  const corpusId = corpus ? (findCorpusByName(db, corpus)?.id ?? null) : null;
  const model = defaultModelFor(db, corpusId, modelName);
  if (!model) return null;
  const result = await retriever.search({ query, mode: 'dense', k, corpus, model: model.name });
  const vectors = getVectors(db, model.id, result.hits.map((h) => h.passage.id));
  const signals = geometrySignals([...vectors.values()], thresholds);
  return { ...signals, thresholds, model: model.name };
}

export async function ambiguityCues(
  db: WritableDB,
  retriever: Retriever,
  request: { query: string; corpus?: string | undefined; model?: string | undefined; k: number; varianceThreshold: number; separationThreshold: number },
): Promise<AmbiguityCues> {
  let corpusId: number | null = null;
  if (request.corpus) {
    const corpus = findCorpusByName(db, request.corpus);
    if (!corpus) throw new AppError('not_found', `No corpus named "${request.corpus}"`);
    corpusId = corpus.id;
  }
  return {
    constraint: constraintCues(db, request.query, corpusId, request.k),
    geometry: await geometryCues(
      db,
      retriever,
      request.query,
      request.corpus,
      request.k,
      { variance: request.varianceThreshold, separation: request.separationThreshold },
      request.model,
    ),
  };
}
