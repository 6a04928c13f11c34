/** Small vector helpers and ADF's retrieval-geometry signals (paper 002, section 4.2). */

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function norm(a: Float32Array): number {
  return Math.sqrt(dot(a, a));
}

export function normalize(a: Float32Array): Float32Array {
  const n = norm(a);
  if (n === 0) return a;
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! / n;
  return out;
}

function squaredDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return sum;
}

export function centroid(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]?.length ?? 0);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i]! += v[i]!;
  for (let i = 0; i < out.length; i++) out[i]! /= vectors.length || 1;
  return out;
}

/** σ²_var = (1/N) Σ ||v_i − μ||²: how spread the retrieved passages are around their centroid. */
export function dispersion(vectors: readonly Float32Array[]): number {
  if (vectors.length === 0) return 0;
  const mu = centroid(vectors);
  return vectors.reduce((sum, v) => sum + squaredDistance(v, mu), 0) / vectors.length;
}

/** 2-means with deterministic farthest-point seeding; returns each vector's cluster (0 or 1). */
export function twoMeans(vectors: readonly Float32Array[], iterations = 25): number[] {
  const n = vectors.length;
  if (n < 2) return vectors.map(() => 0);
  const mu = centroid(vectors);
  let first = 0;
  vectors.forEach((v, i) => {
    if (squaredDistance(v, mu) > squaredDistance(vectors[first]!, mu)) first = i;
  });
  let second = first === 0 ? 1 : 0;
  vectors.forEach((v, i) => {
    if (squaredDistance(v, vectors[first]!) > squaredDistance(vectors[second]!, vectors[first]!)) second = i;
  });
  let centres = [vectors[first]!, vectors[second]!];
  let labels = new Array<number>(n).fill(0);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const next = vectors.map((v) => (squaredDistance(v, centres[0]!) <= squaredDistance(v, centres[1]!) ? 0 : 1));
    const changed = next.some((label, i) => label !== labels[i]);
    labels = next;
    const groups = [0, 1].map((c) => vectors.filter((_, i) => labels[i] === c));
    if (groups.some((g) => g.length === 0)) break;
    centres = groups.map((g) => centroid(g));
    if (!changed && iteration > 0) break;
  }
  return labels;
}

/** Mean silhouette s_i = (b_i − a_i) / max(a_i, b_i) of a clustering (Euclidean distance). */
export function silhouette(vectors: readonly Float32Array[], labels: readonly number[]): number | null {
  const clusters = new Set(labels);
  if (clusters.size < 2) return null;
  const scores = vectors.map((v, i) => {
    const own = labels[i]!;
    const distances = new Map<number, number[]>();
    vectors.forEach((w, j) => {
      if (i === j) return;
      const list = distances.get(labels[j]!) ?? [];
      list.push(Math.sqrt(squaredDistance(v, w)));
      distances.set(labels[j]!, list);
    });
    const ownDistances = distances.get(own) ?? [];
    if (ownDistances.length === 0) return 0; // a singleton cluster scores 0
    const a = ownDistances.reduce((x, y) => x + y, 0) / ownDistances.length;
    let b = Infinity;
    for (const [label, list] of distances) if (label !== own) b = Math.min(b, list.reduce((x, y) => x + y, 0) / list.length);
    const denominator = Math.max(a, b);
    return denominator === 0 ? 0 : (b - a) / denominator;
  });
  return scores.reduce((x, y) => x + y, 0) / scores.length;
}

export type GeometryState = 'ambiguous' | 'uncertain' | 'unambiguous';

export interface GeometryThresholds {
  variance: number;
  separation: number;
}

/** ADF's defaults for AmbigNQ-style short answers (τ_var 0.25, τ_sep 0.1); ASQA used 0.15 and 0.05. */
export const ADF_AMBIGNQ: GeometryThresholds = { variance: 0.25, separation: 0.1 };

export interface GeometrySignals {
  passages: number;
  dispersion: number;
  separation: number | null;
  state: GeometryState;
}

/** Equation 3: ambiguous if separable, uncertain if only spread out, else unambiguous. */
export function geometrySignals(vectors: readonly Float32Array[], thresholds: GeometryThresholds = ADF_AMBIGNQ): GeometrySignals {
  const unit = vectors.map(normalize);
  const spread = dispersion(unit);
  const separation = unit.length >= 3 ? silhouette(unit, twoMeans(unit)) : null;
  const state: GeometryState =
    separation !== null && separation >= thresholds.separation
      ? 'ambiguous'
      : spread >= thresholds.variance
        ? 'uncertain'
        : 'unambiguous';
  return { passages: unit.length, dispersion: spread, separation, state };
}
