/**
 * The retrieval-geometry gate of ADF (paper 002, section 4.2-4.3), on plain vectors: dispersion
 * around the centroid, 2-means silhouette, adaptive k-means and cosine to a centroid. K-means is
 * seeded deterministically (farthest-point from the first vector) so a run is reproducible.
 */

export type Vector = readonly number[];

function sub(a: Vector, b: Vector): number[] {
  return a.map((v, i) => v - b[i]!);
}
function norm2(a: Vector): number {
  return a.reduce((s, v) => s + v * v, 0);
}
function distance(a: Vector, b: Vector): number {
  return Math.sqrt(norm2(sub(a, b)));
}

export function centroid(vectors: readonly Vector[]): number[] {
  const out = new Array<number>(vectors[0]?.length ?? 0).fill(0);
  for (const v of vectors) v.forEach((x, i) => (out[i]! += x / vectors.length));
  return out;
}

export function cosine(a: Vector, b: Vector): number {
  const dot = a.reduce((s, v, i) => s + v * b[i]!, 0);
  const n = Math.sqrt(norm2(a) * norm2(b));
  return n === 0 ? 0 : dot / n;
}

/** σ²_var: the mean squared distance of the vectors from their centroid. */
export function dispersion(vectors: readonly Vector[]): number {
  if (vectors.length === 0) return 0;
  const mu = centroid(vectors);
  return vectors.reduce((s, v) => s + norm2(sub(v, mu)), 0) / vectors.length;
}

/** Lloyd's k-means with farthest-point seeding; returns each vector's cluster. */
export function kMeans(vectors: readonly Vector[], k: number, iterations = 50): number[] {
  const n = vectors.length;
  if (n === 0) return [];
  const kk = Math.min(k, n);
  const centres: number[][] = [[...vectors[0]!]];
  while (centres.length < kk) {
    let best = 0;
    let bestDistance = -1;
    vectors.forEach((v, i) => {
      const d = Math.min(...centres.map((c) => distance(v, c)));
      if (d > bestDistance) {
        bestDistance = d;
        best = i;
      }
    });
    centres.push([...vectors[best]!]);
  }
  let assignment = new Array<number>(n).fill(0);
  for (let round = 0; round < iterations; round++) {
    const next = vectors.map((v) => {
      let best = 0;
      centres.forEach((c, j) => {
        if (distance(v, c) < distance(v, centres[best]!)) best = j;
      });
      return best;
    });
    const changed = next.some((c, i) => c !== assignment[i]) || round === 0;
    assignment = next;
    centres.forEach((_, j) => {
      const members = vectors.filter((__, i) => assignment[i] === j);
      if (members.length) centres[j] = centroid(members);
    });
    if (!changed) break;
  }
  return assignment;
}

/** The mean silhouette s = (b − a) / max(a, b) over all vectors (0 for a vector alone in its cluster). */
export function silhouette(vectors: readonly Vector[], assignment: readonly number[]): number {
  const n = vectors.length;
  if (n < 2 || new Set(assignment).size < 2) return 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const own = assignment[i]!;
    const sums = new Map<number, { sum: number; count: number }>();
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const entry = sums.get(assignment[j]!) ?? { sum: 0, count: 0 };
      entry.sum += distance(vectors[i]!, vectors[j]!);
      entry.count++;
      sums.set(assignment[j]!, entry);
    }
    const mine = sums.get(own);
    if (!mine) continue; // alone in its cluster: s = 0
    const a = mine.sum / mine.count;
    const b = Math.min(...[...sums.entries()].filter(([c]) => c !== own).map(([, e]) => e.sum / e.count));
    total += Math.max(a, b) === 0 ? 0 : (b - a) / Math.max(a, b);
  }
  return total / n;
}

export type QueryState = 'ambiguous' | 'uncertain' | 'unambiguous';

/** ADF eq. 3: ambiguous when σ_sep ≥ τ_sep, uncertain when only σ²_var ≥ τ_var, else unambiguous. */
export function queryState(variance: number, separability: number, thresholds: { variance: number; separability: number }): QueryState {
  if (separability >= thresholds.separability) return 'ambiguous';
  if (variance >= thresholds.variance) return 'uncertain';
  return 'unambiguous';
}

/** ADF eq. 4: k = min(max(2, ⌊|D| / 2⌋), 4). */
export function adaptiveK(documents: number): number {
  return Math.min(Math.max(2, Math.floor(documents / 2)), 4);
}
