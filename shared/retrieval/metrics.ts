/** Retrieval metrics with binary relevance. */

export function recallAtK<Id>(ranked: readonly Id[], relevant: ReadonlySet<Id>, k: number): number | null {
  if (relevant.size === 0) return null;
  let hits = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) hits++;
  return hits / relevant.size;
}

/** nDCG@k: DCG = Σ rel_i / log2(i + 1) over the top k, normalised by the ideal ranking's DCG. */
export function ndcgAtK<Id>(ranked: readonly Id[], relevant: ReadonlySet<Id>, k: number): number | null {
  if (relevant.size === 0) return null;
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}
