/**
 * The bootstrap interval of Fleiss' kappa, the one the agreement report draws for every row,
 * computed without allocating per resample: each resample's pattern weights go into one reused
 * typed array, and what does not depend on the weights (each pattern's ratings, agreeing pairs and
 * category counts) is worked out once. The draws and the arithmetic are those of
 * `patternBootstrapInterval` over `fleissFromPatterns`, in the same order, so the same seed gives
 * the same interval, bound for bound (test/unit/agreement-fast.test.ts holds it to that).
 */

import { agreementInterval, resampleInto, type AgreementInterval, type Patterns } from './agreement';
import { bootstrapValues, type BootstrapOptions } from './statistics';

/**
 * Fleiss' kappa as a function of the pattern weights (null where undefined), with the patterns'
 * own figures computed once. Patterns with fewer than two ratings take no part in kappa.
 */
function fleissKappaOfWeights(p: Patterns): (weights: Float64Array) => number | null {
  const q = p.categories.length;
  const pairable = p.counts.flatMap((vector, i) => (vector.reduce((a, b) => a + b, 0) >= 2 ? [i] : []));
  const m = pairable.length;
  const index = Int32Array.from(pairable);
  const ratings = new Float64Array(m);
  const pairs = new Float64Array(m);
  const denominators = new Float64Array(m);
  const counts = new Float64Array(m * q);
  pairable.forEach((i, k) => {
    const vector = p.counts[i]!;
    let n = 0;
    let agreeing = 0;
    for (let j = 0; j < q; j++) {
      const c = vector[j]!;
      n += c;
      agreeing += c * (c - 1);
      counts[k * q + j] = c;
    }
    ratings[k] = n;
    pairs[k] = agreeing;
    denominators[k] = n * (n - 1);
  });
  const perCategory = new Float64Array(q);
  return (weights) => {
    let items = 0;
    let rated = 0;
    let agreement = 0;
    perCategory.fill(0);
    for (let k = 0; k < m; k++) {
      const w = weights[index[k]!]!;
      if (w === 0) continue;
      items += w;
      rated += w * ratings[k]!;
      for (let j = 0; j < q; j++) perCategory[j]! += w * counts[k * q + j]!;
      agreement += (w * pairs[k]!) / denominators[k]!;
    }
    if (items === 0) return null;
    let pBarE = 0;
    for (let j = 0; j < q; j++) {
      const share = perCategory[j]! / rated;
      pBarE += share * share;
    }
    if (1 - pBarE < 1e-12) return null;
    const kappa = (agreement / items - pBarE) / (1 - pBarE);
    return Number.isFinite(kappa) ? kappa : null;
  };
}

/** The percentile bootstrap interval of Fleiss' kappa over items: `patternBootstrapInterval(p, w => fleissFromPatterns(p, w).kappa.value)`, faster. */
export function fleissKappaInterval(p: Patterns, options: BootstrapOptions = {}): AgreementInterval {
  const resamples = options.resamples ?? 1000;
  if (resamples === 0) return { low: null, high: null, resamples, reason: 'no interval asked for (0 resamples)' };
  const kappa = fleissKappaOfWeights(p);
  const items = p.weights.reduce((a, b) => a + b, 0);
  const drawn = new Float64Array(p.weights.length);
  const values = bootstrapValues((random) => kappa(resampleInto(p.weights, items, random, drawn)), options);
  return agreementInterval(values, resamples, options.level);
}
