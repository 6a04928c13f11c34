import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import wilcoxon from '@stdlib/stats-wilcoxon';
import { bootstrapInterval, bootstrapValues, mean, percentileInterval, type BootstrapOptions, type Interval } from '../statistics';

/**
 * Paired statistics: two runs on the same items, or the LLM judge and people on the same items.
 * Pure functions over arrays; the distributions and the Wilcoxon test come from stdlib (pure
 * JavaScript), the bootstrap from shared/statistics.ts.
 *
 * Paired tests (two runs on the same items):
 * - paired bootstrap of the mean difference (seeded percentile interval, two-sided p-value);
 * - McNemar on per-item correctness: exact binomial when the discordant pairs number fewer than
 *   25, else chi-square with Edwards' continuity correction;
 * - Wilcoxon signed-rank on per-item scores (stdlib: zero differences dropped, ties mid-ranked,
 *   exact distribution up to 50 non-zero differences, normal approximation with continuity
 *   correction beyond).
 *
 * Agreement of judge and people (MARCH appendix F): Pearson r with a Fisher-z interval; Spearman ρ,
 * Kendall τ-b (ties corrected) and quadratic weighted kappa with seeded percentile bootstrap
 * intervals over items.
 */

function checkPaired(a: readonly unknown[], b: readonly unknown[], what: string): void {
  if (a.length !== b.length) throw new Error(`${what}: the two runs have ${a.length} and ${b.length} items; pair them on the same items`);
}

// ---- paired comparison of two runs -------------------------------------------------------------------

export interface PairedBootstrapResult {
  n: number;
  /** mean(b) − mean(a). */
  difference: number;
  ci: Interval | null;
  /** Two-sided: twice the share of resampled differences on the far side of 0 (at most 1). */
  pValue: number;
  resamples: number;
}

/** Paired bootstrap of mean(b) − mean(a) over the same items, resampling items with replacement. */
export function pairedBootstrap(a: readonly number[], b: readonly number[], options: BootstrapOptions = {}): PairedBootstrapResult {
  checkPaired(a, b, 'paired bootstrap');
  const n = a.length;
  const resamples = options.resamples ?? 1000;
  const d = a.map((x, i) => b[i]! - x);
  const difference = n ? mean(d) : Number.NaN;
  const values = n
    ? bootstrapValues((random) => {
        let sum = 0;
        for (let i = 0; i < n; i++) sum += d[Math.floor(random() * n)]!;
        return sum / n;
      }, { ...options, resamples })
    : [];
  const ci = percentileInterval(values, options.level);
  const atOrBelow = values.filter((v) => v <= 0).length / (values.length || 1);
  const atOrAbove = values.filter((v) => v >= 0).length / (values.length || 1);
  return { n, difference, ci, pValue: n ? Math.min(1, 2 * Math.min(atOrBelow, atOrAbove)) : 1, resamples };
}

export interface McNemarResult {
  n: number;
  /** Items right in run A only. */
  onlyA: number;
  /** Items right in run B only. */
  onlyB: number;
  method: 'exact binomial' | 'chi-square with continuity correction';
  /** χ² for the chi-square method; for the exact test, the smaller discordant count. */
  statistic: number;
  pValue: number;
}

/** Below this many discordant pairs McNemar's test uses the exact binomial distribution. */
export const MCNEMAR_EXACT_BELOW = 25;

/** McNemar's test on per-item correctness of two runs on the same items (two-sided). */
export function mcnemar(a: readonly boolean[], b: readonly boolean[]): McNemarResult {
  checkPaired(a, b, 'McNemar');
  let onlyA = 0;
  let onlyB = 0;
  a.forEach((x, i) => {
    if (x && !b[i]) onlyA++;
    else if (!x && b[i]) onlyB++;
  });
  return mcnemarCounts(onlyA, onlyB, a.length);
}

/** McNemar from the discordant counts. */
export function mcnemarCounts(onlyA: number, onlyB: number, n = onlyA + onlyB): McNemarResult {
  const discordant = onlyA + onlyB;
  if (discordant < MCNEMAR_EXACT_BELOW) {
    const k = Math.min(onlyA, onlyB);
    const p = discordant === 0 ? 1 : Math.min(1, 2 * binomialCdf(k, discordant, 0.5));
    return { n, onlyA, onlyB, method: 'exact binomial', statistic: k, pValue: p };
  }
  const statistic = (Math.abs(onlyA - onlyB) - 1) ** 2 / discordant;
  return { n, onlyA, onlyB, method: 'chi-square with continuity correction', statistic, pValue: 1 - chisquareCdf(statistic, 1) };
}

export interface WilcoxonResult {
  /** Items paired. */
  n: number;
  /** Pairs with a non-zero difference (the ones ranked). */
  nonZero: number;
  /** V: the sum of the ranks of the positive differences b − a. */
  statistic: number;
  pValue: number;
  method: string;
}

/** Wilcoxon signed-rank test of b − a over the same items (two-sided), by stdlib. */
export function wilcoxonSignedRank(a: readonly number[], b: readonly number[]): WilcoxonResult {
  checkPaired(a, b, 'Wilcoxon');
  const d = a.map((x, i) => b[i]! - x);
  const nonZero = d.filter((v) => v !== 0).length;
  if (nonZero === 0) return { n: a.length, nonZero, statistic: 0, pValue: 1, method: 'no non-zero differences' };
  // One non-zero difference: its signed rank is +1 or −1 with probability ½ each, so the exact
  // two-sided p is 1 (the library needs two values).
  if (nonZero === 1) return { n: a.length, nonZero, statistic: d.some((v) => v > 0) ? 1 : 0, pValue: 1, method: 'exact (one non-zero difference)' };
  const result = wilcoxon(d);
  return { n: a.length, nonZero, statistic: result.statistic, pValue: result.pValue, method: result.method };
}

// ---- judge against people ------------------------------------------------------------------------------

export interface Correlation {
  value: number | null;
  ci: Interval | null;
  n: number;
  /** How the interval was computed. */
  interval: 'Fisher z' | 'percentile bootstrap';
}

function pearsonValue(x: ArrayLike<number>, y: ArrayLike<number>, indices?: ArrayLike<number>): number {
  const n = indices ? indices.length : x.length;
  let sx = 0;
  let sy = 0;
  for (let k = 0; k < n; k++) {
    const i = indices ? indices[k]! : k;
    sx += x[i]!;
    sy += y[i]!;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let k = 0; k < n; k++) {
    const i = indices ? indices[k]! : k;
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}

/** Pearson's r with a Fisher-z interval (tanh(atanh r ± z/√(n − 3)); none below n = 4). */
export function pearson(x: readonly number[], y: readonly number[], options: { level?: number } = {}): Correlation {
  checkPaired(x, y, 'Pearson');
  const n = x.length;
  const r = n >= 2 ? pearsonValue(x, y) : Number.NaN;
  if (!Number.isFinite(r)) return { value: null, ci: null, n, interval: 'Fisher z' };
  let ci: Interval | null = null;
  if (n > 3) {
    const z = Math.atanh(Math.min(Math.max(r, -0.9999999999), 0.9999999999));
    const half = normalQuantile(1 - (1 - (options.level ?? 0.95)) / 2, 0, 1) / Math.sqrt(n - 3);
    ci = { low: Math.tanh(z - half), high: Math.tanh(z + half) };
  }
  return { value: r, ci, n, interval: 'Fisher z' };
}

/** Ranks 1..n with ties given their mean rank. */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]!] = rank;
    i = j + 1;
  }
  return ranks;
}

function pick(values: readonly number[], indices: ArrayLike<number>): number[] {
  const out = new Array<number>(indices.length);
  for (let k = 0; k < indices.length; k++) out[k] = values[indices[k]!]!;
  return out;
}

function withBootstrap(x: readonly number[], y: readonly number[], stat: (x: readonly number[], y: readonly number[]) => number, options: BootstrapOptions): Correlation {
  const n = x.length;
  const value = n >= 2 ? stat(x, y) : Number.NaN;
  if (!Number.isFinite(value)) return { value: null, ci: null, n, interval: 'percentile bootstrap' };
  const ci = bootstrapInterval(n, (indices) => stat(pick(x, indices), pick(y, indices)), { resamples: 1000, seed: 1, ...options });
  return { value, ci, n, interval: 'percentile bootstrap' };
}

/** Spearman's ρ: Pearson's r of the mid-ranks (ties handled), bootstrap interval. */
export function spearman(x: readonly number[], y: readonly number[], options: BootstrapOptions = {}): Correlation {
  checkPaired(x, y, 'Spearman');
  return withBootstrap(x, y, (a, b) => pearsonValue(averageRanks(a), averageRanks(b)), options);
}

/**
 * Kendall's τ-b: (concordant − discordant) / √((n0 − n1)(n0 − n2)), n0 = n(n−1)/2 and n1, n2
 * the pairs tied in x and in y. O(n²), fine for the few hundred items a validation has.
 */
export function kendallTauBValue(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[j]! - x[i]!);
      const dy = Math.sign(y[j]! - y[i]!);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiedX) * (n0 - tiedY));
  return denominator === 0 ? Number.NaN : (concordant - discordant) / denominator;
}

/** Kendall's τ-b with a bootstrap interval. */
export function kendallTauB(x: readonly number[], y: readonly number[], options: BootstrapOptions = {}): Correlation {
  checkPaired(x, y, 'Kendall');
  return withBootstrap(x, y, kendallTauBValue, options);
}

/**
 * Quadratic weighted kappa of two ratings on the integer scale min..max (0-5 for the judge):
 * 1 − Σ w·O / Σ w·E with w = (i − j)² / (K − 1)², O the observed joint proportions and E the
 * product of the marginals.
 */
export function quadraticWeightedKappaValue(a: readonly number[], b: readonly number[], min: number, max: number): number {
  const k = max - min + 1;
  const n = a.length;
  if (n === 0 || k < 2) return Number.NaN;
  const observed = new Float64Array(k * k);
  const rowTotals = new Float64Array(k);
  const colTotals = new Float64Array(k);
  for (let t = 0; t < n; t++) {
    const i = a[t]! - min;
    const j = b[t]! - min;
    observed[i * k + j]! += 1;
    rowTotals[i]! += 1;
    colTotals[j]! += 1;
  }
  let numerator = 0;
  let denominator = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = ((i - j) * (i - j)) / ((k - 1) * (k - 1));
      numerator += (w * observed[i * k + j]!) / n;
      denominator += (w * rowTotals[i]! * colTotals[j]!) / (n * n);
    }
  }
  return denominator === 0 ? Number.NaN : 1 - numerator / denominator;
}

/** Quadratic weighted kappa with a bootstrap interval; ratings must be whole numbers on the scale. */
export function quadraticWeightedKappa(a: readonly number[], b: readonly number[], scale: { min: number; max: number } = { min: 0, max: 5 }, options: BootstrapOptions = {}): Correlation {
  checkPaired(a, b, 'weighted kappa');
  for (const [name, list] of [['first', a], ['second', b]] as const) {
    const bad = list.findIndex((v) => !Number.isInteger(v) || v < scale.min || v > scale.max);
    if (bad >= 0) throw new Error(`weighted kappa: the ${name} rating of item ${bad + 1} (${list[bad]}) is not a whole number from ${scale.min} to ${scale.max}`);
  }
  return withBootstrap(a, b, (x, y) => quadraticWeightedKappaValue(x, y, scale.min, scale.max), options);
}

export interface JudgeAgreement {
  n: number;
  pearson: Correlation;
  spearman: Correlation;
  kendallTauB: Correlation;
  quadraticWeightedKappa: Correlation;
}

/**
 * The four agreement figures of MARCH appendix F for one criterion: the judge's score and the
 * people's rating of the same items. Human ratings may be means of several annotators (not whole
 * numbers): weighted kappa then uses them rounded half up.
 */
export function judgeAgreement(judge: readonly number[], human: readonly number[], scale = { min: 0, max: 5 }, options: BootstrapOptions = {}): JudgeAgreement {
  checkPaired(judge, human, 'judge agreement');
  const round = (v: number) => Math.floor(v + 0.5);
  return {
    n: judge.length,
    pearson: pearson(judge, human, options),
    spearman: spearman(judge, human, options),
    kendallTauB: kendallTauB(judge, human, options),
    quadraticWeightedKappa: quadraticWeightedKappa(judge.map(round), human.map(round), scale, options),
  };
}
