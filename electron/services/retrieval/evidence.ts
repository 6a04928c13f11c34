import type { CollectedPassage, PassageView, SearchMode } from '../../../shared/api';
import { contentTerms } from '../../../shared/retrieval/terms';
import type { Retriever } from './search';

/**
 * MARCH's evidence collection (paper 000, section 3.1, step 2): retrieve up to k passages for
 * every atomic sub-question of a clarified question, pool them; when the pool holds fewer than
 * k, back-fill with passages retrieved for the clarified question itself; then re-rank the pool
 * by embedding similarity to the clarified question. Every passage says where it came from.
 */

export interface EvidenceRequest {
  clarifiedQuestion: string;
  subQuestions: readonly string[];
  k?: number;
  mode?: SearchMode;
  corpus?: string;
  model?: string;
}

export type { CollectedPassage };

export async function collectEvidence(retriever: Retriever, request: EvidenceRequest): Promise<CollectedPassage[]> {
  const k = request.k ?? 10;
  const mode = request.mode ?? 'hybrid';
  const pool = new Map<number, { passage: PassageView; origins: string[]; retrievalRank: number }>();
  const add = (hits: { rank: number; passage: PassageView }[], origin: string, limit = Infinity) => {
    for (const hit of hits) {
      const entry = pool.get(hit.passage.id);
      if (entry) {
        if (!entry.origins.includes(origin)) entry.origins.push(origin);
        entry.retrievalRank = Math.min(entry.retrievalRank, hit.rank);
      } else if (pool.size < limit) {
        pool.set(hit.passage.id, { passage: hit.passage, origins: [origin], retrievalRank: hit.rank });
      }
    }
  };
  const options = { mode, k, corpus: request.corpus, model: request.model };
  for (const [i, sub] of request.subQuestions.entries()) {
    // A sub-question with no content words cannot be searched: it adds nothing to the pool.
    if (contentTerms(sub).length === 0) continue;
    add((await retriever.search({ ...options, query: sub })).hits, `sub-question ${i + 1}`);
  }
  if (pool.size < k) add((await retriever.search({ ...options, query: request.clarifiedQuestion })).hits, 'back-fill', k);
  const ids = [...pool.keys()];
  const similarity = ids.length ? await retriever.similarity(request.clarifiedQuestion, ids, { model: request.model, corpus: request.corpus }) : new Map<number, number>();
  return [...pool.entries()]
    .map(([id, entry]) => ({ ...entry, score: similarity.get(id) ?? 0 }))
    .sort((a, b) => b.score - a.score || a.retrievalRank - b.retrievalRank || a.passage.id - b.passage.id)
    .map((entry, i) => ({ rank: i + 1, ...entry }));
}
