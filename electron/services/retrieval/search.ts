import { corpusKind, countCorpusPassages, findCorpusByName, qaLayerIds } from '../../../db/queries/corpora';
import { countEmbeddings, exactNeighbours, getVectors, rescore, type EmbeddingModelRow } from '../../../db/queries/embeddings';
import { bm25Passages } from '../../../db/queries/passages-fts';
import { readSnapshot, type WritableDB } from '../../../db/sql';
import { AppError, type DenseMethod, type ErrorHint, type SearchMode, type SearchResult } from '../../../shared/api';
import { reciprocalRankFusion } from '../../../shared/retrieval/fusion';
import { contentTerms } from '../../../shared/retrieval/terms';
import { denseCandidates } from './code-index';
import { defaultModelFor, embedderFor } from './models';
import { termStatistics } from './term-stats';
import { canonicalOnly, hitsOf, layersOf, qaLayerCorpus, type LayerRankings, type Ranking } from './layers';

/**
 * Passage search over the embedded corpus: BM25 on FTS5, dense on sqlite-vec, and their
 * reciprocal rank fusion. `Retriever` is the seam where an external engine (for corpora beyond
 * one machine) can replace this one: the evidence collector and the evaluation only use it.
 */

export interface SearchRequest {
  query: string;
  mode: SearchMode;
  k: number;
  /** Corpus name; all corpora when absent. */
  corpus?: string | undefined;
  /** Embedding model name; the best-covering model when absent. */
  model?: string | undefined;
  /** HyDE: a hypothetical answer passage, used as the dense query instead of the question. */
  hyde?: string | undefined;
  /** The RRF constant (default 60). */
  rrfK?: number | undefined;
  /** Hybrid: how many top BM25 passages feed back into the dense query (0: none), and how much. */
  feedbackDepth?: number | undefined;
  feedbackWeight?: number | undefined;
  /** What to search: the corpus's passages, its QA layer (qa-index:build), or both, fused (default: passages). */
  layers?: readonly ('passages' | 'qa')[] | undefined;
}

/** Rocchio-style defaults: the top 5 BM25 passages, with weight 1 (classic Rocchio uses β ≈ 0.75-1). */
const FEEDBACK_DEPTH = 5;
const FEEDBACK_WEIGHT = 1;

export interface Retriever {
  search(request: SearchRequest): Promise<SearchResult>;
  /** Similarity of passages to a text (for re-ranking), 1 = same direction. */
  similarity(text: string, passageIds: readonly number[], options?: { model?: string | undefined; corpus?: string | undefined }): Promise<Map<number, number>>;
}

/** Terms in more documents than this share of the corpus are left out of question queries. */
const FREQUENT_SHARE = 0.05;
/** ... and in more than this many: below 40,000 passages, words in up to 2,000 are kept (there they cost little). */
const FREQUENT_FLOOR = 2000;
/** Corpora up to this size are searched exactly; larger ones by their codes, then exactly (code-index.ts). */
const EXACT_LIMIT = 5_000;

export interface Bm25Query {
  match: string | null;
  terms: string[];
  dropped: string[];
}

function documentFrequencies(db: WritableDB, terms: readonly string[]): Map<string, number> {
  return new Map([...termStatistics(db, terms)].map(([term, stat]) => [term, stat.doc]));
}

const passageCount = countCorpusPassages;

/**
 * Turns a question into an FTS5 query that is always valid and stays fast: content words only
 * (stopwords out), each quoted (so no input is read as FTS syntax), OR-ed, minus the words found
 * in more than 5% of the passages (they weigh little in BM25 and would make the query walk a
 * large share of the index). If every word is that frequent, the two rarest are kept.
 */
export function bm25Query(db: WritableDB, query: string): Bm25Query {
  const terms = contentTerms(query).slice(0, 32);
  if (terms.length === 0) return { match: null, terms: [], dropped: [] };
  const df = documentFrequencies(db, terms);
  const size = passageCount(db, null);
  const limit = Math.max(FREQUENT_FLOOR, size * FREQUENT_SHARE);
  let kept = terms.filter((t) => (df.get(t) ?? 0) <= limit);
  if (kept.length === 0) kept = [...terms].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0)).slice(0, 2);
  // Words no passage contains cannot match: leave them out of the query.
  const present = kept.filter((t) => (df.get(t) ?? 0) > 0);
  const dropped = terms.filter((t) => !present.includes(t));
  if (present.length === 0) return { match: null, terms: [], dropped };
  return { match: present.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR '), terms: present, dropped };
}

/** True when the corpus holds every passage there is (then no corpus filter is needed). */
function isOnlyCorpus(db: WritableDB, corpusId: number): boolean {
  return countCorpusPassages(db, corpusId) === countCorpusPassages(db, null);
}

export function bm25Search(db: WritableDB, query: string, corpusId: number | null, k: number, exclude: readonly number[] = []): { ids: number[]; scores: number[]; query: Bm25Query } {
  const q = bm25Query(db, query);
  if (!q.match) return { ids: [], scores: [], query: q };
  // bm25() is lower-is-better. Confining to one corpus joins the matches to their passages:
  // cheap, since the query's words were chosen to match few passages.
  const rows = bm25Passages(db, q.match, corpusId === null || isOnlyCorpus(db, corpusId) ? null : corpusId, k, corpusId === null ? exclude : []);
  return { ids: rows.map((r) => r.id), scores: rows.map((r) => -r.score), query: q };
}

/**
 * Dense search. With `feedback`, the query vector is moved toward the mean vector of those
 * passages (Rocchio pseudo-relevance feedback, q' = q + β·mean(d)): in hybrid mode the top BM25
 * passages supply them, which brings in words the question does not use, such as the bridge
 * entity of a multi-hop question.
 */
async function denseSearch(
  db: WritableDB,
  text: string,
  corpusId: number | null,
  k: number,
  model: EmbeddingModelRow,
  feedback: { passageIds: readonly number[]; weight: number } | null = null,
  exclude: readonly number[] = [],
): Promise<{ ids: number[]; scores: number[]; method: DenseMethod; note: string | null }> {
  let [vector] = await embedderFor(db, model).embedQueries([text]);
  // A zero vector has no direction: every passage would tie (and score as a perfect match).
  if (!vector!.some((v) => v !== 0)) throw new AppError('invalid_input', `The embedder ${model.name} gives the query "${text.slice(0, 80)}" an empty vector: it has no words it knows.`);
  if (feedback && feedback.weight > 0 && feedback.passageIds.length) {
    const vectors = [...getVectors(db, model.id, feedback.passageIds).values()];
    if (vectors.length) {
      const moved = Float32Array.from(vector!);
      for (const v of vectors) for (let i = 0; i < moved.length; i++) moved[i]! += (feedback.weight * v[i]!) / vectors.length;
      vector = moved;
    }
  }
  // One snapshot for the counts, the codes and the exact scores: another process may be adding vectors.
  return readSnapshot(db, () => {
    const size = countEmbeddings(db, model.id, corpusId);
    const candidates = size <= EXACT_LIMIT ? null : denseCandidates(db, model, vector!, corpusId, k, size);
    const rows = candidates ? rescore(db, model.id, vector!, candidates, k, exclude) : exactNeighbours(db, model.id, vector!, corpusId, k, exclude);
    const method: DenseMethod = candidates ? 'codes' : 'exact';
    const note =
      !candidates && size > EXACT_LIMIT
        ? `the codes of some of the ${size.toLocaleString('en-US')} vectors are missing, so every vector was scored exactly (slower); embedding the corpus again restores them`
        : null;
    return { ids: rows.map((r) => r.id), scores: rows.map((r) => 1 - r.distance), method, note };
  });
}

function resolveCorpus(db: WritableDB, name: string | undefined): number | null {
  if (!name) return null;
  const corpus = findCorpusByName(db, name);
  if (!corpus) throw new AppError('not_found', `No corpus named "${name}"`);
  return corpus.id;
}

export class EmbeddedRetriever implements Retriever {
  constructor(private readonly db: WritableDB) {}

  async search(request: SearchRequest): Promise<SearchResult> {
    const started = performance.now();
    const db = this.db;
    if (request.query.trim() === '' && !request.hyde?.trim()) throw new AppError('invalid_input', 'The query is empty.');
    if (!request.hyde?.trim() && contentTerms(request.query).length === 0) {
      // Nothing to rank by: BM25 would match nothing and a query vector would carry no direction.
      throw new AppError('invalid_input', `The query "${request.query.slice(0, 80)}" has no words to search for: only stopwords, punctuation or symbols.`);
    }
    const corpusId = resolveCorpus(db, request.corpus);
    const k = request.k;
    // Hybrid fuses the top 30 of each ranking (or k, if more): deeper ranks add almost nothing to RRF.
    const depth = request.mode === 'hybrid' || layersOf(request).length > 1 ? Math.max(k, 30) : k;
    const notes: string[] = [];
    const layers = layersOf(request);
    const qaCorpus = layers.includes('qa') ? qaLayerCorpus(db, corpusId, request.corpus) : null;
    const passages = layers.includes('passages') ? await this.rankings(request, corpusId, depth, notes, corpusId === null ? qaLayerIds(db) : []) : null;
    const qa = qaCorpus === null ? null : canonicalOnly(db, await this.rankings(request, qaCorpus.id, depth, notes, []));
    const lists: Ranking[] = [passages, qa].flatMap((r) => (r ? [r.bm25, r.dense].flatMap((l) => (l ? [l] : [])) : []));
    let ranked: { id: number; score: number }[];
    if (lists.length === 1) ranked = lists[0]!.ids.map((id, i) => ({ id, score: lists[0]!.scores[i]! }));
    else ranked = reciprocalRankFusion(lists.map((l) => l.ids), request.rrfK ?? 60);
    ranked = ranked.slice(0, k);
    const hits = hitsOf(db, ranked, [passages, qa]);
    const main = passages ?? qa!;
    return {
      query: request.query,
      mode: request.mode,
      k,
      corpus: request.corpus ?? null,
      model: main.model?.name ?? null,
      lexicalModel: main.model ? main.model.lexical === 1 : null,
      terms: main.bm25?.query.terms ?? [],
      denseMethod: main.dense?.method ?? null,
      hits,
      notes,
      milliseconds: Number((performance.now() - started).toFixed(2)),
    };
  }

  /** One corpus's BM25 and dense rankings (as the mode asks), to `depth`. */
  private async rankings(request: SearchRequest, corpusId: number | null, depth: number, notes: string[], exclude: readonly number[]): Promise<LayerRankings> {
    const db = this.db;
    let bm25: ReturnType<typeof bm25Search> | null = null;
    if (request.mode !== 'dense') {
      bm25 = bm25Search(db, request.query, corpusId, depth, exclude);
      if (bm25.query.dropped.length) notes.push(`left out of the BM25 query (too frequent, or in no passage): ${bm25.query.dropped.join(', ')}`);
    }
    let dense: Awaited<ReturnType<typeof denseSearch>> | null = null;
    let model: EmbeddingModelRow | null = null;
    if (request.mode !== 'bm25') {
      model = defaultModelFor(db, corpusId, request.model);
      if (!model) {
        const name = corpusId === null ? null : (request.corpus && findCorpusByName(db, request.corpus)?.id === corpusId ? request.corpus : `#${corpusId}`);
        throw new AppError(
          'conflict',
          `${name ? `The corpus "${name}" has no vectors yet` : 'No corpus has vectors yet'}: embed it first (the offline embedder needs no network).`,
          undefined,
          { kind: 'operation', operation: 'corpus:embed', input: request.corpus ? { corpus: request.corpus, provider: 'offline' } : { provider: 'offline' } },
        );
      }
      const covered = countEmbeddings(db, model.id, corpusId);
      const total = passageCount(db, corpusId);
      if (covered < total) notes.push(`vectors cover ${covered} of ${total} passages; embedding the corpus again finishes the rest`);
      const feedback =
        request.mode === 'hybrid' && bm25
          ? { passageIds: bm25.ids.slice(0, request.feedbackDepth ?? FEEDBACK_DEPTH), weight: request.feedbackWeight ?? FEEDBACK_WEIGHT }
          : null;
      dense = await denseSearch(db, request.hyde?.trim() || request.query, corpusId, depth, model, feedback, exclude);
      if (dense.note) notes.push(dense.note);
    }
    return { bm25, dense, model, layer: corpusId !== null && corpusKind(db, corpusId) === 'qa' ? 'qa' : 'passages' };
  }

  async similarity(text: string, passageIds: readonly number[], options: { model?: string | undefined; corpus?: string | undefined } = {}): Promise<Map<number, number>> {
    // The model with vectors for this corpus: the one its passages were searched with.
    const model = defaultModelFor(this.db, resolveCorpus(this.db, options.corpus), options.model);
    if (!model) {
      const embed: ErrorHint = { kind: 'operation', operation: 'corpus:embed', input: options.corpus ? { corpus: options.corpus } : {} };
      throw new AppError('conflict', `${options.corpus ? `The corpus "${options.corpus}" has no vectors yet` : 'No corpus has vectors yet'}: embed it first.`, undefined, embed);
    }
    const [vector] = await embedderFor(this.db, model).embedQueries([text]);
    const rows = rescore(this.db, model.id, vector!, passageIds, passageIds.length);
    return new Map(rows.map((r) => [r.id, 1 - r.distance]));
  }
}
