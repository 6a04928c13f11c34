/**
 * Inter-annotator agreement. Pure functions over a ratings matrix: one row per item, one column
 * per rater, a category (or null for a missing rating) in each cell.
 *
 * - Fleiss' kappa (Fleiss 1971), with its standard error under H0: κ = 0 (Fleiss, Nee and Landis
 *   1979) and a percentile bootstrap confidence interval over items;
 * - observed agreement P̄, strict agreement (every rating the same) and majority agreement (more
 *   than half the ratings the same);
 * - Krippendorff's alpha (nominal, ordinal or interval difference), missing ratings allowed;
 * - Gwet's AC1 (Gwet 2008), missing ratings allowed;
 * - Cohen's kappa for each pair of raters, and weighted kappa (linear or quadratic) for ordinal
 *   scales.
 *
 * An undefined value is null with a reason (for example when every rating is the same, chance
 * agreement is 1 and kappa is 0/0), never 0 or 1. Items are grouped by their pattern of category
 * counts, so the statistics (and each bootstrap resample, a multinomial draw over the patterns)
 * cost time in the number of distinct patterns, not of items.
 */

import { bootstrapValues, percentileInterval, type BootstrapOptions } from './statistics';

export type Rating = string | null;
export type RatingMatrix = readonly (readonly Rating[])[];

export interface Value {
  value: number | null;
  reason?: string;
}

const defined = (value: number): Value => (Number.isFinite(value) ? { value } : { value: null, reason: 'not a finite number' });
const undefinedBecause = (reason: string): Value => ({ value: null, reason });

// ---- items as count patterns -----------------------------------------------------------------

export interface Patterns {
  categories: readonly string[];
  /** Distinct count vectors (counts per category) of the items with at least one rating. */
  counts: number[][];
  /** How many items have each pattern. */
  weights: number[];
  /** Items with at least one rating. */
  items: number;
}

export function toPatterns(matrix: RatingMatrix, categories: readonly string[]): Patterns {
  const index = new Map(categories.map((c, i) => [c, i]));
  const byKey = new Map<string, number>();
  const counts: number[][] = [];
  const weights: number[] = [];
  let items = 0;
  for (const row of matrix) {
    const vector = new Array<number>(categories.length).fill(0);
    let rated = 0;
    for (const rating of row) {
      if (rating === null) continue;
      const i = index.get(rating);
      if (i === undefined) throw new Error(`Rating ${JSON.stringify(rating)} is not one of the categories ${categories.join(', ')}`);
      vector[i]!++;
      rated++;
    }
    if (rated === 0) continue;
    items++;
    const key = vector.join(',');
    const at = byKey.get(key);
    if (at === undefined) {
      byKey.set(key, counts.length);
      counts.push(vector);
      weights.push(1);
    } else weights[at]!++;
  }
  return { categories, counts, weights, items };
}

const total = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);

// ---- Fleiss' kappa ---------------------------------------------------------------------------

export interface FleissResult {
  kappa: Value;
  /** Observed agreement P̄: mean over items of the share of agreeing rater pairs. */
  pBar: Value;
  /** Chance agreement P̄e = Σ p_j². */
  pBarE: Value;
  /** Standard error of κ under H0: κ = 0, and the z statistic κ / se. */
  se0: Value;
  z: Value;
  items: number;
  raters: number;
}

/** Fleiss' statistics from patterns (items with fewer than two ratings are left out). */
export function fleissFromPatterns(p: Patterns, weights: readonly number[] = p.weights): FleissResult {
  let items = 0;
  let ratings = 0;
  let agreement = 0;
  const perCategory = new Array<number>(p.categories.length).fill(0);
  let raterTotal = 0;
  p.counts.forEach((vector, i) => {
    const w = weights[i]!;
    if (w === 0) return;
    const n = total(vector);
    if (n < 2) return;
    items += w;
    ratings += w * n;
    raterTotal += w * n;
    let pairs = 0;
    vector.forEach((c, j) => {
      pairs += c * (c - 1);
      perCategory[j]! += w * c;
    });
    agreement += (w * pairs) / (n * (n - 1));
  });
  const raters = items ? raterTotal / items : 0;
  if (items === 0) {
    const none = undefinedBecause('no item has two or more ratings');
    return { kappa: none, pBar: none, pBarE: none, se0: none, z: none, items: 0, raters: 0 };
  }
  const pj = perCategory.map((c) => c / ratings);
  const pBar = agreement / items;
  const pBarE = pj.reduce((s, v) => s + v * v, 0);
  if (1 - pBarE < 1e-12) {
    const reason = 'every rating is the same category, so chance agreement is 1 and kappa is 0/0';
    return { kappa: undefinedBecause(reason), pBar: defined(pBar), pBarE: defined(pBarE), se0: undefinedBecause(reason), z: undefinedBecause(reason), items, raters };
  }
  const kappa = (pBar - pBarE) / (1 - pBarE);
  // Fleiss, Nee and Landis (1979), for m raters per item (the mean when it varies).
  const pq = pj.reduce((s, v) => s + v * (1 - v), 0);
  const inner = pq * pq - pj.reduce((s, v) => s + v * (1 - v) * (1 - 2 * v), 0);
  const se0 = (Math.SQRT2 / (pq * Math.sqrt(items * raters * (raters - 1)))) * Math.sqrt(Math.max(0, inner));
  return {
    kappa: defined(kappa),
    pBar: defined(pBar),
    pBarE: defined(pBarE),
    se0: defined(se0),
    z: se0 > 0 ? defined(kappa / se0) : undefinedBecause('the standard error is 0'),
    items,
    raters,
  };
}

export function fleissKappa(matrix: RatingMatrix, categories: readonly string[]): FleissResult {
  return fleissFromPatterns(toPatterns(matrix, categories));
}

// ---- the bootstrap over rating patterns ----------------------------------------------------

function normal(random: () => number): number {
  const u = random() || Number.MIN_VALUE;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * A Binomial(n, p) draw: by inversion when n·p is small, else by the normal approximation with a
 * continuity correction (n·p·(1−p) ≥ 10 there, where it is accurate to well under a count).
 */
export function binomial(n: number, p: number, random: () => number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const flip = p > 0.5;
  const q = flip ? 1 - p : p;
  let draw: number;
  if (n * q < 10) {
    // Inversion: walk the CDF from 0.
    const ratio = q / (1 - q);
    let probability = Math.pow(1 - q, n);
    let cumulative = probability;
    const u = random();
    draw = 0;
    while (u > cumulative && draw < n) {
      probability *= (ratio * (n - draw)) / (draw + 1);
      cumulative += probability;
      draw++;
    }
  } else {
    draw = Math.round(n * q + Math.sqrt(n * q * (1 - q)) * normal(random));
    draw = Math.min(n, Math.max(0, draw));
  }
  return flip ? n - draw : draw;
}

/** Resampling items with replacement: a Multinomial(N, weights/N) draw over the patterns. */
export function resamplePatterns(weights: readonly number[], random: () => number): number[] {
  return Array.from(resampleInto(weights, total(weights), random, new Float64Array(weights.length)));
}

/** The same draw into `out` (reused from one resample to the next), given N, the sum of the weights. */
export function resampleInto(weights: readonly number[], items: number, random: () => number, out: Float64Array): Float64Array {
  out.fill(0);
  let left = items;
  let mass = items;
  const last = weights.length - 1;
  for (let i = 0; i <= last && left > 0; i++) {
    if (i === last) {
      out[i] = left;
      break;
    }
    const draw = binomial(left, weights[i]! / mass, random);
    out[i] = draw;
    left -= draw;
    mass -= weights[i]!;
  }
  return out;
}

/** A bootstrap interval of an agreement statistic: null bounds, with the reason, when it cannot be given. */
export interface AgreementInterval {
  low: number | null;
  high: number | null;
  resamples: number;
  reason?: string;
}

/**
 * Percentile bootstrap interval of a statistic over items (seeded, so it reproduces). Items are
 * resampled with replacement as a multinomial draw over their rating patterns, so a campaign of
 * thousands of items with a few hundred distinct patterns resamples in time proportional to the
 * patterns. Refused when the statistic is undefined on half the resamples or more.
 */
export function patternBootstrapInterval(
  p: Patterns,
  statistic: (weights: readonly number[]) => number | null,
  options: BootstrapOptions = {},
): AgreementInterval {
  const resamples = options.resamples ?? 1000;
  if (resamples === 0) return { low: null, high: null, resamples, reason: 'no interval asked for (0 resamples)' };
  const values = bootstrapValues((random) => statistic(resamplePatterns(p.weights, random)), options);
  return agreementInterval(values, resamples, options.level);
}

/** The percentile interval of bootstrap values, refused when the statistic was undefined on half the resamples or more. */
export function agreementInterval(values: number[], resamples: number, level?: number): AgreementInterval {
  const interval = values.length < resamples * 0.5 ? null : percentileInterval(values, level);
  if (!interval) return { low: null, high: null, resamples, reason: 'the statistic is undefined in most resamples (too few items, or too little variation)' };
  return { ...interval, resamples };
}

// ---- simple agreement rates ----------------------------------------------------------------------

export interface AgreementRates {
  /** Items where every rating is the same (of those with two or more ratings). */
  strict: Value;
  /** Items where more than half the ratings are one category. */
  majority: Value;
  /**
   * The mean share of an item's ratings that agree with its most common category. Unlike
   * `majority`, which an odd number of raters on a yes/no scale always reaches, it falls below 1
   * with every dissenting rating.
   */
  majorityShare: Value;
}

export function agreementRates(p: Patterns): AgreementRates {
  let items = 0;
  let strict = 0;
  let majority = 0;
  let share = 0;
  p.counts.forEach((vector, i) => {
    const n = total(vector);
    if (n < 2) return;
    const w = p.weights[i]!;
    items += w;
    const top = Math.max(...vector);
    if (top === n) strict += w;
    if (top > n / 2) majority += w;
    share += (w * top) / n;
  });
  if (items === 0) {
    const none = undefinedBecause('no item has two or more ratings');
    return { strict: none, majority: none, majorityShare: none };
  }
  return { strict: defined(strict / items), majority: defined(majority / items), majorityShare: defined(share / items) };
}

/** The category more than half an item's ratings chose, or null when none did. */
export function majorityLabel(row: readonly Rating[]): string | null {
  const counts = new Map<string, number>();
  let n = 0;
  for (const r of row) {
    if (r === null) continue;
    counts.set(r, (counts.get(r) ?? 0) + 1);
    n++;
  }
  for (const [label, count] of counts) if (count > n / 2) return label;
  return null;
}

// ---- Krippendorff's alpha -------------------------------------------------------------------------

export type AlphaLevel = 'nominal' | 'ordinal' | 'interval';

/** δ² between categories c and k (indexes into the ordered categories), given the marginals n. */
function difference(level: AlphaLevel, c: number, k: number, marginals: readonly number[]): number {
  if (c === k) return 0;
  if (level === 'nominal') return 1;
  if (level === 'interval') return (c - k) ** 2;
  const [lo, hi] = c < k ? [c, k] : [k, c];
  let sum = 0;
  for (let g = lo; g <= hi; g++) sum += marginals[g]!;
  return (sum - (marginals[lo]! + marginals[hi]!) / 2) ** 2;
}

/** Krippendorff's alpha from the coincidence matrix; items with one rating are not pairable. */
export function krippendorffFromPatterns(p: Patterns, level: AlphaLevel = 'nominal', weights: readonly number[] = p.weights): Value {
  const q = p.categories.length;
  const o = Array.from({ length: q }, () => new Array<number>(q).fill(0));
  p.counts.forEach((vector, i) => {
    const w = weights[i]!;
    const m = total(vector);
    if (w === 0 || m < 2) return;
    for (let c = 0; c < q; c++) {
      if (vector[c] === 0) continue;
      for (let k = 0; k < q; k++) {
        const pairs = c === k ? vector[c]! * (vector[c]! - 1) : vector[c]! * vector[k]!;
        if (pairs) o[c]![k]! += (w * pairs) / (m - 1);
      }
    }
  });
  const marginals = o.map((row) => total(row));
  const n = total(marginals);
  if (n < 2) return undefinedBecause('fewer than two pairable ratings');
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < q; c++) {
    for (let k = 0; k < q; k++) {
      const d = difference(level, c, k, marginals);
      observed += o[c]![k]! * d;
      expected += marginals[c]! * marginals[k]! * d;
    }
  }
  expected /= n - 1;
  if (expected === 0) return undefinedBecause('every pairable rating is the same category, so expected disagreement is 0 and alpha is 0/0');
  return defined(1 - observed / expected);
}

export function krippendorffAlpha(matrix: RatingMatrix, categories: readonly string[], level: AlphaLevel = 'nominal'): Value {
  return krippendorffFromPatterns(toPatterns(matrix, categories), level);
}

// ---- Gwet's AC1 ---------------------------------------------------------------------------------

/**
 * Gwet's AC1 (Gwet 2008) for several raters with missing ratings: observed agreement over items
 * with two or more ratings; chance agreement Pe = Σ π_k (1 − π_k) / (q − 1), where π_k is the
 * mean over rated items of the share of an item's ratings in category k.
 */
export function gwetFromPatterns(p: Patterns, weights: readonly number[] = p.weights): Value {
  const q = p.categories.length;
  if (q < 2) return undefinedBecause('the scale has a single category');
  let pairable = 0;
  let agreement = 0;
  let rated = 0;
  const pi = new Array<number>(q).fill(0);
  p.counts.forEach((vector, i) => {
    const w = weights[i]!;
    const r = total(vector);
    if (w === 0 || r === 0) return;
    rated += w;
    vector.forEach((c, k) => (pi[k]! += (w * c) / r));
    if (r >= 2) {
      pairable += w;
      agreement += (w * vector.reduce((s, c) => s + c * (c - 1), 0)) / (r * (r - 1));
    }
  });
  if (pairable === 0) return undefinedBecause('no item has two or more ratings');
  const pa = agreement / pairable;
  const pe = pi.reduce((s, v) => s + (v / rated) * (1 - v / rated), 0) / (q - 1);
  if (1 - pe < 1e-12) return undefinedBecause('chance agreement is 1');
  return defined((pa - pe) / (1 - pe));
}

export function gwetAC1(matrix: RatingMatrix, categories: readonly string[]): Value {
  return gwetFromPatterns(toPatterns(matrix, categories));
}

// ---- Cohen's kappa (pairs of raters) ------------------------------------------------------------

export type KappaWeights = 'none' | 'linear' | 'quadratic';

/**
 * Cohen's kappa between two raters over the items both rated; with weights, the weighted kappa
 * of an ordinal scale (disagreement |i − j| or (i − j)², categories in scale order).
 */
export function cohenKappa(a: readonly Rating[], b: readonly Rating[], categories: readonly string[], weights: KappaWeights = 'none'): Value & { items: number } {
  const q = categories.length;
  const index = new Map(categories.map((c, i) => [c, i]));
  const table = Array.from({ length: q }, () => new Array<number>(q).fill(0));
  let n = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === null || b[i] === null || a[i] === undefined || b[i] === undefined) continue;
    table[index.get(a[i]!)!]![index.get(b[i]!)!]!++;
    n++;
  }
  if (n === 0) return { ...undefinedBecause('the two raters share no item'), items: 0 };
  return { ...kappaFromTable(table, weights), items: n };
}

/** Cohen's (weighted) kappa from a contingency table of two raters. */
export function kappaFromTable(table: readonly (readonly number[])[], weights: KappaWeights = 'none'): Value {
  const q = table.length;
  const n = table.reduce((s, row) => s + total(row), 0);
  if (n === 0) return undefinedBecause('no items');
  const rows = table.map((row) => total(row) / n);
  const cols = table[0]!.map((_, j) => table.reduce((s, row) => s + row[j]!, 0) / n);
  const disagreement = (i: number, j: number) =>
    weights === 'none' ? (i === j ? 0 : 1) : weights === 'linear' ? Math.abs(i - j) : (i - j) ** 2;
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < q; j++) {
      observed += (disagreement(i, j) * table[i]![j]!) / n;
      expected += disagreement(i, j) * rows[i]! * cols[j]!;
    }
  }
  if (expected === 0) return undefinedBecause('both raters used one and the same category throughout, so kappa is 0/0');
  return defined(1 - observed / expected);
}
