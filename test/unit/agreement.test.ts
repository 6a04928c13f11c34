import { describe, expect, it } from 'vitest';
import {
  agreementRates,
  binomial,
  cohenKappa,
  fleissFromPatterns,
  fleissKappa,
  gwetAC1,
  kappaFromTable,
  krippendorffAlpha,
  majorityLabel,
  patternBootstrapInterval,
  toPatterns,
  type Rating,
} from '../../shared/agreement';
import { seededRandom } from '../../shared/statistics';
import { agreementReport, agreementTable, statusTable, validityTable, withCriterionLabels, type AgreementInput } from '../../shared/agreement-report';
import { toLatex } from '../../shared/tables';

/** Expands a table of category counts per item into a ratings matrix. */
function fromCounts(counts: number[][], categories: string[]): string[][] {
  return counts.map((row) => row.flatMap((c, j) => Array<string>(c).fill(categories[j]!)));
}

// Wikipedia's Fleiss example: 10 items, 14 raters, 5 categories.
const WIKIPEDIA = [
  [0, 0, 0, 0, 14],
  [0, 2, 6, 4, 2],
  [0, 0, 3, 5, 6],
  [0, 3, 9, 2, 0],
  [2, 2, 8, 1, 1],
  [7, 7, 0, 0, 0],
  [3, 2, 6, 3, 0],
  [2, 5, 3, 2, 2],
  [6, 5, 2, 1, 0],
  [0, 2, 2, 3, 7],
];

// Fleiss (1971): 30 patients, 6 psychiatrists, 5 diagnoses (the data as in statsmodels' tests).
const DIAGNOSES = [
  [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
  [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
  [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
  [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
  [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
  [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
].map((row) => row.map(String));

// Gwet (2014) / Krippendorff (2011) example C: 12 units, 4 raters, categories 1-5, missing ratings.
const N = null;
const FOUR_RATERS: Rating[][] = [
  [1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
  [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, N, 3, N],
].map((row) => row.map((v) => (v === null ? null : String(v))));

// Krippendorff's alpha on Wikipedia: 15 units, 3 coders, values 1-4 (rows are units).
const KRIPPENDORFF_WIKI: Rating[][] = [
  [N, 1, N], [N, N, N], [N, 2, 2], [N, 1, 1], [N, 3, 3], [3, 3, 4], [4, 4, 4], [1, 3, N],
  [2, N, 2], [1, N, 1], [1, N, 1], [3, N, 3], [3, N, 3], [N, N, N], [3, N, 4],
].map((row) => row.map((v) => (v === null ? null : String(v))));

const FIVE = ['1', '2', '3', '4', '5'];

describe("Fleiss' kappa", () => {
  it('reproduces the Wikipedia example (κ 0.210, P̄ 0.378)', () => {
    const categories = ['a', 'b', 'c', 'd', 'e'];
    const result = fleissKappa(fromCounts(WIKIPEDIA, categories), categories);
    expect(result.kappa.value).toBeCloseTo(0.21, 3);
    expect(result.pBar.value).toBeCloseTo(0.378, 3);
    expect(result.items).toBe(10);
    expect(result.raters).toBe(14);
  });

  it('reproduces Fleiss (1971): κ 0.4302445 and z 17.65183 under H0', () => {
    const result = fleissKappa(DIAGNOSES, FIVE);
    expect(result.kappa.value).toBeCloseTo(0.4302445, 7);
    expect(result.z.value).toBeCloseTo(17.65183, 4);
  });

  it('is undefined, with the reason, when every rating is the same', () => {
    const result = fleissKappa([['yes', 'yes'], ['yes', 'yes']], ['yes', 'no']);
    expect(result.kappa).toEqual({ value: null, reason: expect.stringMatching(/every rating is the same category/) });
    expect(result.pBar.value).toBe(1);
    expect(fleissKappa([['yes', null]], ['yes', 'no']).kappa.reason).toMatch(/no item has two or more ratings/);
  });

  it('gives a seeded, reproducible bootstrap interval around κ', () => {
    const patterns = toPatterns(DIAGNOSES, FIVE);
    const statistic = (w: readonly number[]) => fleissFromPatterns(patterns, w).kappa.value;
    const a = patternBootstrapInterval(patterns, statistic, { resamples: 2000, seed: 7 });
    const b = patternBootstrapInterval(patterns, statistic, { resamples: 2000, seed: 7 });
    expect(a).toEqual(b);
    expect(a.low!).toBeLessThan(0.4302445);
    expect(a.high!).toBeGreaterThan(0.4302445);
    expect(a.high! - a.low!).toBeGreaterThan(0.05);
    expect(a.high! - a.low!).toBeLessThan(0.4);
    const other = patternBootstrapInterval(patterns, statistic, { resamples: 2000, seed: 8 });
    expect(other.low).not.toBe(a.low);
  });

  it('says no interval was asked for when resamples is 0, rather than blaming the data', () => {
    const patterns = toPatterns(DIAGNOSES, FIVE);
    const none = patternBootstrapInterval(patterns, (w) => fleissFromPatterns(patterns, w).kappa.value, { resamples: 0 });
    expect(none).toEqual({ low: null, high: null, resamples: 0, reason: 'no interval asked for (0 resamples)' });
  });
});

describe('agreement rates', () => {
  it('counts strict and majority agreement and majority labels', () => {
    const ratings = [
      ['yes', 'yes', 'yes', 'yes', 'yes'],
      ['yes', 'yes', 'yes', 'no', 'no'],
      ['yes', 'yes', 'no', 'no', null],
    ];
    const rates = agreementRates(toPatterns(ratings, ['yes', 'no']));
    expect(rates.strict.value).toBeCloseTo(1 / 3, 12);
    expect(rates.majority.value).toBeCloseTo(2 / 3, 12);
    expect(rates.majorityShare.value).toBeCloseTo((1 + 3 / 5 + 2 / 4) / 3, 12);
    expect(ratings.map(majorityLabel)).toEqual(['yes', 'yes', null]);
  });
});

describe("Krippendorff's alpha", () => {
  it('reproduces the Wikipedia example (nominal 0.691)', () => {
    expect(krippendorffAlpha(KRIPPENDORFF_WIKI, ['1', '2', '3', '4'], 'nominal').value).toBeCloseTo(0.691358, 6);
  });

  it("reproduces Gwet's four-rater example with missing ratings (nominal 0.743)", () => {
    expect(krippendorffAlpha(FOUR_RATERS, FIVE, 'nominal').value).toBeCloseTo(0.743, 3);
  });

  it('reproduces Krippendorff (2011) example A, binary data (0.095)', () => {
    const a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0];
    const b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0];
    expect(krippendorffAlpha(a.map((v, i) => [String(v), String(b[i])]), ['0', '1']).value).toBeCloseTo(0.095, 3);
  });

  it('weighs ordinal distances: near misses cost less than far ones', () => {
    const near = krippendorffAlpha([['1', '2'], ['2', '3'], ['4', '5'], ['1', '1'], ['5', '5']], FIVE, 'ordinal').value!;
    const far = krippendorffAlpha([['1', '5'], ['2', '5'], ['5', '1'], ['1', '1'], ['5', '5']], FIVE, 'ordinal').value!;
    expect(near).toBeGreaterThan(far);
    expect(krippendorffAlpha([['1', '1'], ['1', '1']], FIVE).reason).toMatch(/expected disagreement is 0/);
  });
});

describe("Gwet's AC1", () => {
  it("reproduces Gwet's four-rater example with missing ratings (0.775)", () => {
    expect(gwetAC1(FOUR_RATERS, FIVE).value).toBeCloseTo(0.77544, 4);
  });

  it('stays high when agreement is high but kappa collapses (the prevalence paradox)', () => {
    const ratings = Array.from({ length: 100 }, (_, i) => (i === 0 ? ['yes', 'no', 'yes'] : ['yes', 'yes', 'yes']));
    const fleiss = fleissKappa(ratings, ['yes', 'no']);
    expect(fleiss.pBar.value!).toBeGreaterThan(0.99);
    expect(fleiss.kappa.value!).toBeLessThan(0.1);
    expect(gwetAC1(ratings, ['yes', 'no']).value!).toBeGreaterThan(0.99);
  });
});

describe("Cohen's kappa", () => {
  it('reproduces the SAS example of statsmodels (0.4842; linear weights 0.4701)', () => {
    const table = [
      [0, 4, 1],
      [0, 8, 0],
      [0, 1, 5],
    ];
    expect(kappaFromTable(table).value).toBeCloseTo(0.4842, 4);
    expect(kappaFromTable(table, 'linear').value).toBeCloseTo(0.4701, 4);
  });

  it("reproduces R irr's kappa2 on the anxiety ratings (unweighted -0.0063, squared 0.2520)", () => {
    const anxiety = [
      3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3, 3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4, 2,
      1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2,
    ];
    // Column-major 20 x 3: rater 2 is items 20-39, rater 3 items 40-59. R drops the unused level 4... of raters 2 and 3.
    const r2 = anxiety.slice(20, 40).map(String);
    const r3 = anxiety.slice(40, 60).map(String);
    const used = [...new Set([...r2, ...r3])].sort();
    expect(cohenKappa(r2, r3, used).value).toBeCloseTo(-0.006289308, 6);
    expect(cohenKappa(r2, r3, used, 'quadratic').value).toBeCloseTo(0.2520325, 6);
    expect(cohenKappa(r2, r3, used, 'linear').value).toBeCloseTo(0.1459075, 6);
  });

  it('uses only the items both raters judged', () => {
    const result = cohenKappa(['yes', 'no', null, 'yes'], ['yes', 'no', 'yes', null], ['yes', 'no']);
    expect(result.items).toBe(2);
    expect(result.value).toBe(1);
    expect(cohenKappa([null], ['yes'], ['yes', 'no']).reason).toMatch(/share no item/);
  });
});

describe('sampling', () => {
  it('draws binomials with the right mean and spread, small and large', () => {
    const random = seededRandom(3);
    for (const [n, p] of [
      [5, 0.3],
      [100_000, 0.25],
      [40, 0.9],
    ] as const) {
      const draws = Array.from({ length: 4000 }, () => binomial(n, p, random));
      const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
      const variance = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / draws.length;
      expect(Math.abs(mean - n * p) / Math.sqrt(n * p * (1 - p))).toBeLessThan(0.1);
      expect(variance / (n * p * (1 - p))).toBeGreaterThan(0.9);
      expect(variance / (n * p * (1 - p))).toBeLessThan(1.1);
      expect(draws.every((d) => Number.isInteger(d) && d >= 0 && d <= n)).toBe(true);
    }
  });
});

describe('agreement tables', () => {
  // Three raters, six items of two types and two statuses, one yes/no criterion.
  const votes: Rating[][] = [
    ['yes', 'yes', 'no'],
    ['yes', 'yes', 'yes'],
    ['no', 'no', 'yes'],
    ['yes', 'no', 'yes'],
    ['no', 'no', 'no'],
    ['yes', 'yes', 'yes'],
  ];
  const input: AgreementInput = {
    criteria: [{ id: 'long_answer', label: 'Long answer consistent', scale: { kind: 'yesno' } }],
    items: votes.map((_, i) => ({ id: i + 1, type: i % 2 ? 'semantic' : 'syntactic', status: i < 3 ? 'building' : 'ready' })),
    raters: ['a', 'b', 'c'],
    ratings: new Map([['long_answer', votes]]),
    adjudications: new Map(),
  };
  const report = agreementReport(input, { resamples: 50, seed: 1 }, { id: 1, name: 'test', protocol: 'p' });

  it('shows κ with the same three decimals in every table', () => {
    const kappa = report.rows.find((r) => r.ambiguityType === 'all')!.fleissKappa!.toFixed(3);
    expect(agreementTable(report).rows[0]![1]).toBe(kappa);
    expect(validityTable(report).rows[0]!.at(-1)).toBe(kappa);
    for (const row of statusTable(report).rows) expect(row[4]).toMatch(/^-?\d\.\d{3}$|^—$/);
  });

  it('says which columns hold numbers, and names the status column for what it holds', () => {
    const status = statusTable(report);
    expect(status.header.slice(0, 2)).toEqual(['Criterion', 'Status']);
    expect(status.align).toEqual(['l', 'l', 'r', 'r', 'r', 'r', 'r']);
    expect(status.rows.map((r) => r[1])).toEqual(['building', 'ready']);
    expect(agreementTable(report).align).toEqual(['l', ...Array<string>(8).fill('r')]);
    expect(toLatex(status, 'By status')).toContain('\\begin{tabular}{llrrrrr}');
  });

  it('names criteria by their protocol labels, leaving other first cells alone', () => {
    const labelled = withCriterionLabels(validityTable(report), { long_answer: 'Long answer consistent' });
    expect(labelled.rows.map((r) => r[0])).toEqual(['Long answer consistent', 'All fields valid']);
    expect(labelled.rows[0]!.slice(1)).toEqual(validityTable(report).rows[0]!.slice(1));
  });
});
