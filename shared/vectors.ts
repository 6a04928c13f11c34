/**
 * Vector arithmetic and the two spread measures ADF's gate reads (paper 002, section 4.2), on any
 * array of numbers (plain arrays from the evaluation methods, Float32Array embeddings from
 * retrieval). Sums are taken in double precision whatever the input. Pure functions.
 */

export type Vector = ArrayLike<number>;

export function dot(a: Vector, b: Vector): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function norm(a: Vector): number {
  return Math.sqrt(dot(a, a));
}

/** The unit vector along `a` (a zero vector stays zero). */
export function normalize(a: Vector): number[] {
  const n = norm(a);
  return Array.from(a, (v) => (n === 0 ? v : v / n));
}

export function squaredDistance(a: Vector, b: Vector): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return sum;
}

export function distance(a: Vector, b: Vector): number {
  return Math.sqrt(squaredDistance(a, b));
}

/** Cosine similarity; 0 when either vector is zero. */
export function cosine(a: Vector, b: Vector): number {
  const n = norm(a) * norm(b);
  return n === 0 ? 0 : dot(a, b) / n;
}

/** The mean vector (empty for no vectors). */
export function centroid(vectors: readonly Vector[]): number[] {
  const out = new Array<number>(vectors[0]?.length ?? 0).fill(0);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i]! += v[i]!;
  return out.map((x) => x / (vectors.length || 1));
}

/** σ²_var = (1/N) Σ ||v_i − μ||²: how spread the vectors are around their centroid (0 for none). */
export function dispersion(vectors: readonly Vector[]): number {
  if (vectors.length === 0) return 0;
  const mu = centroid(vectors);
  return vectors.reduce((sum, v) => sum + squaredDistance(v, mu), 0) / vectors.length;
}

/**
 * The mean silhouette s_i = (b_i − a_i) / max(a_i, b_i) of a clustering (Euclidean distance); a
 * vector alone in its cluster scores 0. Null when there are fewer than two clusters, where the
 * silhouette is undefined.
 */
export function silhouette(vectors: readonly Vector[], labels: readonly number[]): number | null {
  if (new Set(labels).size < 2) return null;
  let total = 0;
  vectors.forEach((v, i) => {
    const own = labels[i]!;
    const sums = new Map<number, { sum: number; count: number }>();
    vectors.forEach((w, j) => {
      if (i === j) return;
      const entry = sums.get(labels[j]!) ?? { sum: 0, count: 0 };
      entry.sum += distance(v, w);
      entry.count++;
      sums.set(labels[j]!, entry);
    });
    const mine = sums.get(own);
    if (!mine) return; // a singleton cluster scores 0
    const a = mine.sum / mine.count;
    let b = Infinity;
    for (const [label, e] of sums) if (label !== own) b = Math.min(b, e.sum / e.count);
    const denominator = Math.max(a, b);
    total += denominator === 0 ? 0 : (b - a) / denominator;
  });
  return total / vectors.length;
}
