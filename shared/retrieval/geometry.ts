import { centroid, dispersion, normalize, silhouette, squaredDistance, type Vector } from '../vectors';

/**
 * ADF's retrieval-geometry gate (paper 002, sections 4.2-4.3): k-means with deterministic
 * farthest-point seeding (so a run reproduces), the query state of eq. 3 and the adaptive k of
 * eq. 4. Retrieval's cues and the evaluation methods (ADF, CLARION) both read it from here.
 */

/** The vector farthest from the centroid: the first seed of 2-means, as the cue computes it. */
export function farthestFromCentroid(vectors: readonly Vector[]): number {
  const mu = centroid(vectors);
  let first = 0;
  vectors.forEach((v, i) => {
    if (squaredDistance(v, mu) > squaredDistance(vectors[first]!, mu)) first = i;
  });
  return first;
}

/**
 * Lloyd's k-means; returns each vector's cluster. Seeds: vector `first` (default the first one),
 * then repeatedly the vector farthest from the seeds so far. A cluster left empty keeps its centre.
 */
export function kMeans(vectors: readonly Vector[], k: number, options: { iterations?: number; first?: number } = {}): number[] {
  const n = vectors.length;
  if (n === 0) return [];
  const centres: number[][] = [Array.from(vectors[options.first ?? 0]!)];
  while (centres.length < Math.min(k, n)) {
    let best = 0;
    let bestDistance = -1;
    vectors.forEach((v, i) => {
      const d = Math.min(...centres.map((c) => squaredDistance(v, c)));
      if (d > bestDistance) {
        bestDistance = d;
        best = i;
      }
    });
    centres.push(Array.from(vectors[best]!));
  }
  let assignment = new Array<number>(n).fill(0);
  for (let round = 0; round < (options.iterations ?? 50); round++) {
    const next = vectors.map((v) => {
      let best = 0;
      centres.forEach((c, j) => {
        if (squaredDistance(v, c) < squaredDistance(v, centres[best]!)) best = j;
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

/** 2-means seeded from the vector farthest from the centroid (each vector's cluster, 0 or 1). */
export function twoMeans(vectors: readonly Vector[], iterations = 25): number[] {
  if (vectors.length < 2) return vectors.map(() => 0);
  return kMeans(vectors, 2, { iterations, first: farthestFromCentroid(vectors) });
}

export type GeometryState = 'ambiguous' | 'uncertain' | 'unambiguous';

export interface GeometryThresholds {
  /** τ_var, on the dispersion σ²_var. */
  variance: number;
  /** τ_sep, on the 2-means silhouette σ_sep. */
  separation: number;
}

/** ADF's defaults for AmbigNQ-style short answers (τ_var 0.25, τ_sep 0.1); ASQA used 0.15 and 0.05. */
export const ADF_AMBIGNQ: GeometryThresholds = { variance: 0.25, separation: 0.1 };

/** ADF eq. 3: ambiguous when σ_sep ≥ τ_sep, uncertain when only σ²_var ≥ τ_var, else unambiguous. */
export function queryState(variance: number, separation: number | null, thresholds: GeometryThresholds): GeometryState {
  if (separation !== null && separation >= thresholds.separation) return 'ambiguous';
  if (variance >= thresholds.variance) return 'uncertain';
  return 'unambiguous';
}

/** ADF eq. 4: k = min(max(2, ⌊|D| / 2⌋), 4). */
export function adaptiveK(documents: number): number {
  return Math.min(Math.max(2, Math.floor(documents / 2)), 4);
}

export interface GeometrySignals {
  passages: number;
  dispersion: number;
  separation: number | null;
  state: GeometryState;
}

/** The gate on retrieved passages' embeddings: unit vectors, their dispersion, the 2-means silhouette (from three passages) and eq. 3. */
export function geometrySignals(vectors: readonly Vector[], thresholds: GeometryThresholds = ADF_AMBIGNQ): GeometrySignals {
  const unit = vectors.map(normalize);
  const spread = dispersion(unit);
  const separation = unit.length >= 3 ? silhouette(unit, twoMeans(unit)) : null;
  return { passages: unit.length, dispersion: spread, separation, state: queryState(spread, separation, thresholds) };
}
