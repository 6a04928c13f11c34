/** Reciprocal rank fusion (Cormack, Clarke and Buettcher 2009): score = Σ 1 / (k + rank). */
export function reciprocalRankFusion<Id>(rankings: readonly (readonly Id[])[], k = 60): { id: Id; score: number }[] {
  const scores = new Map<Id, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
