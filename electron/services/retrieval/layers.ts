import { findCorpusByName, qaLayerOf } from '../../../db/queries/corpora';
import type { EmbeddingModelRow } from '../../../db/queries/embeddings';
import { getPassages } from '../../../db/queries/passages';
import { getProvenance } from '../../../db/queries/provenance';
import { qaPairsOf } from '../../../db/queries/qa-pairs';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type SearchHit } from '../../../shared/api';
import type { Bm25Query } from './search';

/**
 * Searching a corpus's QA layer beside its passages (URASys §2.5-2.6): the layer's rows (a
 * generated question, its answer) are ranked by BM25 and dense search like passages, each
 * question's paraphrases collapsed to their best-ranked row (one intent fills one slot, not k), and
 * every list fused by reciprocal rank fusion. A QA hit carries its canonical question and the
 * passage it was generated from, with provenance.
 */

export interface Ranking {
  ids: number[];
  scores: number[];
}

export interface LayerRankings {
  bm25: (Ranking & { query: Bm25Query }) | null;
  dense: (Ranking & { method: 'exact' | 'codes' }) | null;
  model: EmbeddingModelRow | null;
  layer: 'passages' | 'qa';
}

export function layersOf(request: { layers?: readonly ('passages' | 'qa')[] | undefined }): readonly ('passages' | 'qa')[] {
  return request.layers?.length ? request.layers : ['passages'];
}

/** The QA layer of the named corpus; a clear refusal when there is none. */
export function qaLayerCorpus(db: ReadableDB, corpusId: number | null, corpus: string | undefined): { id: number; name: string } {
  if (corpusId === null) throw new AppError('invalid_input', 'Searching the QA layer needs a corpus: name the corpus whose layer to search.', undefined, { kind: 'field', field: 'corpus' });
  const layer = qaLayerOf(db, corpusId);
  if (!layer) {
    throw new AppError('conflict', `The corpus "${corpus}" has no QA layer yet: build it first (qa-index:build).`, undefined, {
      kind: 'operation',
      operation: 'qa-index:build',
      input: { corpus: corpus! },
    });
  }
  return layer;
}

/**
 * Each row stands for its canonical pair, ranked where its best row (the pair or a rephrasing of
 * it) ranks: so the lists agree on one id per intent, and fusion counts it once.
 */
export function canonicalOnly(db: ReadableDB, rankings: LayerRankings): LayerRankings {
  const ids = [...(rankings.bm25?.ids ?? []), ...(rankings.dense?.ids ?? [])];
  const canonical = new Map(qaPairsOf(db, ids).map((q) => [q.passage_id, q.canonical_id ?? q.passage_id]));
  const collapse = <R extends Ranking>(list: R | null): R | null => {
    if (!list) return null;
    const seen = new Set<number>();
    const kept = list.ids.map((id, i) => ({ id: canonical.get(id) ?? id, score: list.scores[i]! })).filter((r) => !seen.has(r.id) && seen.add(r.id));
    return { ...list, ids: kept.map((r) => r.id), scores: kept.map((r) => r.score) };
  };
  return { ...rankings, bm25: collapse(rankings.bm25), dense: collapse(rankings.dense) };
}

/** The hits, in order, with each list's own rank; a QA row also with its pair and source passage. */
export function hitsOf(db: ReadableDB, ranked: readonly { id: number; score: number }[], layers: readonly (LayerRankings | null)[]): SearchHit[] {
  const pairs = new Map(qaPairsOf(db, ranked.map((r) => r.id)).map((q) => [q.passage_id, q]));
  const passages = getPassages(db, [...ranked.map((r) => r.id), ...[...pairs.values()].map((q) => q.source_passage_id)]);
  const provenance = getProvenance(db, [...pairs.values()].map((q) => q.provenance_id));
  const rankIn = (list: Ranking | null, id: number) => {
    if (!list) return null;
    const index = list.ids.indexOf(id);
    return index === -1 ? null : { rank: index + 1, score: list.scores[index]! };
  };
  return ranked.map((r, i) => {
    const p = passages.get(r.id)!;
    const pair = pairs.get(r.id);
    const own = layers.find((l) => l && (l.bm25?.ids.includes(r.id) || l.dense?.ids.includes(r.id))) ?? null;
    const hit: SearchHit = {
      rank: i + 1,
      score: r.score,
      passage: { id: p.id, corpus: p.corpus, sourceId: p.source_id, title: p.title, text: p.text },
      bm25: rankIn(own?.bm25 ?? null, r.id),
      dense: rankIn(own?.dense ?? null, r.id),
    };
    if (!pair) return hit;
    const source = passages.get(pair.source_passage_id)!;
    const made = pair.provenance_id === null ? undefined : provenance.get(pair.provenance_id);
    return {
      ...hit,
      layer: 'qa',
      qa: {
        question: p.title,
        answer: p.text,
        canonicalQuestion: pair.canonical_question,
        grounded: pair.grounded === 1,
        source: { id: source.id, corpus: source.corpus, sourceId: source.source_id, title: source.title, text: source.text },
        provenance: made ? { source: made.source, detail: made.detail, model: made.model, promptVersion: made.prompt_version, call: made.call_hash } : null,
      },
    };
  });
}

export function corpusIdOf(db: ReadableDB, name: string): number {
  const row = findCorpusByName(db, name);
  if (!row) throw new AppError('not_found', `No corpus named "${name}"`);
  return row.id;
}
