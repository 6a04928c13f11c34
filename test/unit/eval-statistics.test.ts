import { describe, expect, it } from 'vitest';
import {
  averageRanks,
  judgeAgreement,
  kendallTauB,
  kendallTauBValue,
  mcnemar,
  mcnemarCounts,
  pairedBootstrap,
  pearson,
  quadraticWeightedKappa,
  quadraticWeightedKappaValue,
  spearman,
  wilcoxonSignedRank,
} from '../../shared/eval/paired';

// Reference values marked "Python" come from a standalone Python 3 script (standard library only:
// statistics.correlation, statistics.NormalDist, math.comb, brute-force pair counts and an exact
// enumeration of the signed-rank distribution), pasted here as numbers.

describe('paired tests of two runs', () => {
  it("Wilcoxon signed-rank reproduces R's wilcox.test documentation example (V = 40)", () => {
    // R: x <- c(1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30)
    //    y <- c(0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29)
    //    wilcox.test(x, y, paired = TRUE, alternative = "greater"): V = 40, p = 0.01953.
    // Two-sided exact p = 2 × 10/512 (Python: enumeration of the 2^9 sign patterns).
    const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
    const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
    const result = wilcoxonSignedRank(y, x);
    expect(result.statistic).toBe(40);
    expect(result.pValue).toBeCloseTo(0.0390625, 6);
    expect(result.nonZero).toBe(9);
    expect(wilcoxonSignedRank([1, 2], [1, 2]).pValue).toBe(1);
    // One non-zero difference (one pair, or one pair that differs): the sign patterns are + and −,
    // each with probability ½, so the exact two-sided p is 1 (R: wilcox.test(2, 1, paired = TRUE) gives V = 1, p = 1).
    expect(wilcoxonSignedRank([1], [2])).toMatchObject({ nonZero: 1, statistic: 1, pValue: 1 });
    expect(wilcoxonSignedRank([3, 5], [1, 5])).toMatchObject({ nonZero: 1, statistic: 0, pValue: 1 });
  });

  it("McNemar uses chi-square with continuity correction on Agresti's approval data", () => {
    // Agresti, Categorical Data Analysis, approval of the President in two surveys:
    // 794 approve/approve, 150 approve/disapprove, 86 disapprove/approve, 570 disapprove/disapprove.
    // χ² = (|150 − 86| − 1)² / 236 = 16.8178, p = 4.1146e-5 (Python: erfc(√(χ²/2))).
    const result = mcnemarCounts(150, 86, 1600);
    expect(result.method).toBe('chi-square with continuity correction');
    expect(result.statistic).toBeCloseTo(16.81779661016949, 10);
    expect(result.pValue).toBeCloseTo(4.1145622813459415e-5, 9);
  });

  it('McNemar is exact binomial for few discordant pairs', () => {
    // 1 vs 9 discordant: p = 2 × P(X ≤ 1 | 10, ½) = 2 × 11/1024 (Python: math.comb).
    const a = [true, ...Array<boolean>(9).fill(false), true, true];
    const b = [false, ...Array<boolean>(9).fill(true), true, false];
    // The last two pairs: one concordant, one more right only in A → 2 vs 9.
    const result = mcnemar(a, b);
    expect(result).toMatchObject({ onlyA: 2, onlyB: 9, method: 'exact binomial', n: 12 });
    expect(result.pValue).toBeCloseTo((2 * (1 + 11 + 55)) / 2048, 12);
    expect(mcnemarCounts(1, 9).pValue).toBeCloseTo(0.021484375, 12);
    expect(mcnemarCounts(0, 0).pValue).toBe(1);
    expect(() => mcnemar([true], [true, false])).toThrow(/pair them on the same items/);
  });

  it('paired bootstrap finds a real difference and not a null one', () => {
    const a: number[] = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);
    const better = a.map((v, i) => (i % 4 === 1 ? 1 : v));
    const result = pairedBootstrap(a, better, { seed: 3 });
    expect(result.difference).toBeCloseTo(sum(better) / 200 - sum(a) / 200, 12);
    expect(result.ci!.low).toBeGreaterThan(0);
    expect(result.pValue).toBeLessThan(0.01);
    const same = pairedBootstrap(a, a, { seed: 3 });
    expect(same.difference).toBe(0);
    expect(same.pValue).toBe(1);
    expect(pairedBootstrap(a, better, { seed: 3 })).toEqual(result);
  });
});

describe('judge against people', () => {
  // Anscombe's quartet, set I.
  const x = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5];
  const y = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68];

  it("Pearson r on Anscombe's set I with a Fisher-z interval (Python)", () => {
    const r = pearson(x, y);
    expect(r.value).toBeCloseTo(0.81642051634484, 12);
    expect(r.ci!.low).toBeCloseTo(0.42439121339321667, 9);
    expect(r.ci!.high).toBeCloseTo(0.9506932537865606, 9);
    expect(r.n).toBe(11);
    expect(r.interval).toBe('Fisher z');
    expect(pearson([1, 1, 1], [1, 2, 3]).value).toBeNull();
  });

  it('Spearman ρ is Pearson on mid-ranks (Python)', () => {
    expect(spearman(x, y).value).toBeCloseTo(0.8181818181818182, 12);
    expect(Array.from(averageRanks([1, 2, 2, 3, 3, 4]))).toEqual([1, 2.5, 2.5, 4.5, 4.5, 6]);
    expect(spearman([1, 2, 2, 3, 3, 4], [1, 3, 2, 2, 4, 4]).value).toBeCloseTo(0.7727272727272727, 12);
  });

  it('Kendall τ-b with ties, counted by hand', () => {
    // x = 1 2 2 3 3 4, y = 1 3 2 2 4 4: 15 pairs, 10 concordant, 1 discordant, 2 tied in x, 2 in y:
    // τ-b = 9 / √(13 × 13) = 9/13 (Python brute force agrees).
    expect(kendallTauBValue([1, 2, 2, 3, 3, 4], [1, 3, 2, 2, 4, 4])).toBeCloseTo(9 / 13, 12);
    const tau = kendallTauB([1, 2, 2, 3, 3, 4], [1, 3, 2, 2, 4, 4]);
    expect(tau.interval).toBe('percentile bootstrap');
    expect(tau.ci!.low).toBeLessThanOrEqual(9 / 13);
  });

  it('quadratic weighted kappa on a small table, by hand', () => {
    // Ratings on 0..3: observed disagreements (0,0)(1,2)(2,2)(2,1)(3,3)(3,2); weights (i−j)²/9.
    // Σw·O/n = (1/9 + 1/9 + 1/9)/6 = 1/18; Σw·E/n² from the marginals = 0.228395…; κ = 0.756757
    // (Python, and by hand: 1 − (3/54)/(37/162) = 1 − 9/37 = 28/37).
    expect(quadraticWeightedKappaValue([0, 1, 2, 2, 3, 3], [0, 2, 2, 1, 3, 2], 0, 3)).toBeCloseTo(28 / 37, 12);
    expect(quadraticWeightedKappaValue([0, 1, 2], [0, 1, 2], 0, 5)).toBeCloseTo(1, 12);
    expect(() => quadraticWeightedKappa([0, 6], [0, 1])).toThrow(/item 2 \(6\) is not a whole number from 0 to 5/);
  });

  it('reports all four with n, kappa on rounded means of several people', () => {
    const judge = [5, 4, 4, 3, 2, 5, 1, 0, 3, 4];
    const human = [4.6, 4, 3.4, 3, 2.2, 5, 1.4, 0.2, 2.6, 4.4];
    const out = judgeAgreement(judge, human);
    expect(out.n).toBe(10);
    expect(out.pearson.value!).toBeGreaterThan(0.9);
    expect(out.quadraticWeightedKappa.value).toBeCloseTo(
      quadraticWeightedKappaValue(judge, [5, 4, 3, 3, 2, 5, 1, 0, 3, 4], 0, 5),
      12,
    );
    expect(out.spearman.ci).not.toBeNull();
  });
});
