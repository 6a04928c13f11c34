/**
 * The statistics every domain shares, in one place: the mean, the sample SD, quantiles, a seeded
 * generator and the percentile bootstrap. Scoring (eval/metrics), run comparison (eval/paired),
 * annotator agreement (agreement) and retrieval evaluation all draw on these, so an interval or a
 * seed means the same thing on every screen. Pure functions.
 */

/** The arithmetic mean; NaN for no values (a mean of nothing is undefined, not 0). */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length ? sum / values.length : Number.NaN;
}

/** The mean of the finite values among `values`, leaving out nulls ("not applicable"); null when none is left. */
export function meanOfDefined(values: readonly (number | null)[]): number | null {
  const defined = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return defined.length ? mean(defined) : null;
}

/** Sample standard deviation (n − 1); 0 for a single value, NaN for none. */
export function standardDeviation(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  if (values.length === 1) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return Math.sqrt(ss / (values.length - 1));
}

/** The q-th quantile (0-1) by linear interpolation between order statistics (R type 7, NumPy's default); null for no data. */
export function quantile(values: ArrayLike<number>, q: number): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * A seeded generator of numbers in [0, 1) (mulberry32), so that every resample, shuffle and
 * assignment reproduces. The seed is taken as an unsigned 32-bit integer; seed 0 stands for
 * 0x9e3779b9 (the golden-ratio constant), which is how campaigns and judge validations drawn with
 * seed 0 have always been assigned, so they still reproduce.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapOptions {
  /** Resamples drawn (default 1000). */
  resamples?: number;
  /** Seed of the generator (default 1). */
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * The statistic on each of `resamples` seeded resamples: `draw(random)` makes one resample with
 * the generator and returns its value (NaN or null when undefined there; those are left out).
 */
export function bootstrapValues(draw: (random: () => number) => number | null, options: BootstrapOptions = {}): number[] {
  const resamples = options.resamples ?? 1000;
  const random = seededRandom(options.seed ?? 1);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const value = draw(random);
    if (value !== null && Number.isFinite(value)) values.push(value);
  }
  return values;
}

/** The percentile interval of resampled values: their (1 − level)/2 and (1 + level)/2 quantiles (non-finite values left out); null when none is finite. */
export function percentileInterval(values: ArrayLike<number>, level = 0.95): Interval | null {
  const finite = Array.from(values).filter((v) => Number.isFinite(v));
  if (finite.length === 0) return null;
  return { low: quantile(finite, (1 - level) / 2)!, high: quantile(finite, (1 + level) / 2)! };
}

/**
 * Percentile bootstrap interval of a statistic of n items: `statistic(indices)` is computed on
 * resamples of the item indices drawn with replacement (seeded). Null for n = 0 or when the
 * statistic is undefined (NaN) on every resample.
 */
export function bootstrapInterval(n: number, statistic: (indices: Int32Array) => number, options: BootstrapOptions = {}): Interval | null {
  if (n === 0) return null;
  const indices = new Int32Array(n);
  const values = bootstrapValues((random) => {
    for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
    return statistic(indices);
  }, options);
  return percentileInterval(values, options.level);
}
