import { describe, expect, it } from 'vitest';
import { cohenKappa, fleissFromPatterns, patternBootstrapInterval, toPatterns, type Rating } from '../../shared/agreement';
import { allItems, encodeRatings, mostRatings, pairKappas, subsetPatterns } from '../../shared/agreement-matrix';
import { fleissKappaInterval } from '../../shared/agreement-bootstrap';
import { agreementReport, type AgreementInput } from '../../shared/agreement-report';
import { AMBIGUITY_TYPES } from '../../shared/domain';
import type { Scale } from '../../shared/protocols';
import { seededRandom } from '../../shared/statistics';
import { referenceAgreementReport } from '../helpers/agreement-report-reference';

/**
 * The agreement report's fast path (typed arrays, patterns grouped once per criterion, the
 * bootstrap on reused buffers) against the straightforward implementation it replaced, kept in
 * test/helpers as the oracle: the same seed must give the same report, every figure identical.
 */

const CRITERIA: { id: string; label: string; scale: Scale }[] = [
  { id: 'valid', label: 'Valid', scale: { kind: 'yesno' } },
  { id: 'quality', label: 'Quality', scale: { kind: 'ordinal', min: 0, max: 5, anchors: {} } },
  { id: 'verdict', label: 'Verdict', scale: { kind: 'categorical', options: ['accept', 'revise', 'reject'].map((value) => ({ value, label: value })) } },
  { id: 'notes', label: 'Notes', scale: { kind: 'text' } },
];
const VALUES: Record<string, string[]> = { valid: ['yes', 'no'], quality: ['0', '1', '2', '3', '4', '5'], verdict: ['accept', 'revise', 'reject'] };

interface Shape {
  items: number;
  raters: number;
  /** Share of ratings left out. */
  missing: number;
  /** How often a rater follows the item's true value (the rest are uniform). */
  agreement: number;
  statuses: string[];
  /** Share of items with an adjudicated value. */
  adjudicated?: number;
}

function randomInput(seed: number, shape: Shape): AgreementInput {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const raters = Array.from({ length: shape.raters }, (_, i) => `r${i}`);
  const items = Array.from({ length: shape.items }, (_, i) => ({ id: 100 + i, type: pick(AMBIGUITY_TYPES), status: pick(shape.statuses) }));
  const ratings = new Map<string, Rating[][]>();
  const adjudications = new Map<string, Map<number, string>>();
  for (const criterion of CRITERIA) {
    const values = VALUES[criterion.id] ?? ['free text'];
    const matrix = items.map(() => {
      const truth = pick(values);
      return raters.map((): Rating => (random() < shape.missing ? null : random() < shape.agreement ? truth : pick(values)));
    });
    ratings.set(criterion.id, matrix);
    const adjudicated = new Map<number, string>();
    for (const item of items) if (random() < (shape.adjudicated ?? 0)) adjudicated.set(item.id, pick(values));
    if (adjudicated.size) adjudications.set(criterion.id, adjudicated);
  }
  return { criteria: CRITERIA, items, raters, ratings, adjudications };
}

const OPTIONS = { resamples: 200, seed: 11 };
const CAMPAIGN = { id: 1, name: 'equivalence', protocol: 'p' };

function expectSameReport(input: AgreementInput, options = OPTIONS) {
  const expected = referenceAgreementReport(input, options, CAMPAIGN);
  expect(agreementReport(input, options, CAMPAIGN)).toEqual(expected);
  return expected;
}

describe('the agreement report fast path', () => {
  it.each([1, 2, 3, 4, 5])('gives the reference report on random ratings (seed %i)', (seed) => {
    const report = expectSameReport(randomInput(seed, { items: 300, raters: 5, missing: 0.1, agreement: 0.7, statuses: ['ready', 'removed'], adjudicated: 0.1 }));
    // The comparison covered real figures, not a report of nulls.
    expect(report.rows.filter((r) => r.kappaCiLow !== null).length).toBeGreaterThan(6);
    expect(report.rows.some((r) => r.weightedKappa !== null)).toBe(true);
    expect(report.statusRows.length).toBeGreaterThan(0);
  });

  it('gives the reference report with many missing ratings, uneven raters per item and one status', () => {
    for (const seed of [6, 7]) {
      const report = expectSameReport(randomInput(seed, { items: 120, raters: 3, missing: 0.55, agreement: 0.5, statuses: ['ready'] }));
      expect(report.rows.some((r) => r.items < 120)).toBe(true);
    }
  });

  it('gives the reference report for one item, for no items and with no ratings at all', () => {
    const one = expectSameReport(randomInput(8, { items: 1, raters: 4, missing: 0, agreement: 0.5, statuses: ['ready'] }));
    expect(one.rows[0]!.kappaCiLow).toBeNull();
    const none = expectSameReport(randomInput(9, { items: 0, raters: 4, missing: 0, agreement: 0.5, statuses: ['ready'] }));
    expect(none.rows.every((r) => r.items === 0)).toBe(true);
    const blank = expectSameReport(randomInput(10, { items: 20, raters: 3, missing: 1, agreement: 0.5, statuses: ['ready', 'removed'] }));
    expect(blank.rows.every((r) => r.fleissKappa === null)).toBe(true);
  });

  it('gives the reference report when every rating is the same (kappa undefined)', () => {
    const input = randomInput(12, { items: 60, raters: 5, missing: 0.1, agreement: 1, statuses: ['ready'] });
    const same = new Map([...input.ratings].map(([id, matrix]) => [id, matrix.map((row) => row.map((r) => (r === null ? null : VALUES[id]?.[0] ?? r)))]));
    const report = expectSameReport({ ...input, ratings: same });
    expect(report.rows[0]!.fleissKappa).toBeNull();
    expect(report.rows[0]!.undefinedReasons.fleissKappa).toMatch(/same category/);
  });

  it('gives the reference report for rows shorter than the list of raters', () => {
    const input = randomInput(13, { items: 80, raters: 4, missing: 0.1, agreement: 0.6, statuses: ['ready', 'removed'] });
    const ragged = new Map([...input.ratings].map(([id, matrix]) => [id, matrix.map((row, i) => row.slice(0, 2 + (i % 3)))]));
    expectSameReport({ ...input, ratings: ragged });
  });

  it('gives the reference report with the bootstrap off, and at another seed', () => {
    const input = randomInput(14, { items: 150, raters: 5, missing: 0.05, agreement: 0.8, statuses: ['ready', 'removed'] });
    expect(expectSameReport(input, { resamples: 0, seed: 1 }).rows[0]!.undefinedReasons.kappa_ci).toMatch(/0 resamples/);
    expectSameReport(input, { resamples: 300, seed: 0 });
  });

  it('refuses a rating outside the scale as the reference does', () => {
    const input = randomInput(15, { items: 10, raters: 3, missing: 0, agreement: 0.5, statuses: ['ready'] });
    input.ratings.get('valid')![4]![1] = 'maybe';
    expect(() => referenceAgreementReport(input, OPTIONS, CAMPAIGN)).toThrow(/Rating "maybe" is not one of the categories yes, no/);
    expect(() => agreementReport(input, OPTIONS, CAMPAIGN)).toThrow(/Rating "maybe" is not one of the categories yes, no/);
  });
});
describe('a ratings matrix that does not match the items', () => {
  it('is refused, naming the criterion, whether rows are missing or extra', () => {
    const input = randomInput(19, { items: 10, raters: 3, missing: 0, agreement: 0.5, statuses: ['ready'] });
    const short = new Map(input.ratings).set('quality', input.ratings.get('quality')!.slice(0, 9));
    expect(() => agreementReport({ ...input, ratings: short }, OPTIONS, CAMPAIGN)).toThrow('The ratings of criterion quality have 9 rows for 10 items');
    const long = new Map(input.ratings).set('valid', [...input.ratings.get('valid')!, ['yes', 'no', 'yes']]);
    expect(() => agreementReport({ ...input, ratings: long }, OPTIONS, CAMPAIGN)).toThrow('The ratings of criterion valid have 11 rows for 10 items');
    const none = new Map(input.ratings);
    none.delete('verdict');
    expect(() => agreementReport({ ...input, ratings: none }, OPTIONS, CAMPAIGN)).toThrow('The ratings of criterion verdict have 0 rows for 10 items');
  });
});

describe("the bootstrap interval of Fleiss' kappa", () => {
  const general = (patterns: ReturnType<typeof toPatterns>, options: { resamples: number; seed: number }) =>
    patternBootstrapInterval(patterns, (w) => fleissFromPatterns(patterns, w).kappa.value, options);

  it.each([
    [16, 'quality', 0.1],
    [17, 'verdict', 0.6],
    [18, 'valid', 0.3],
  ])('equals the general pattern bootstrap, bound for bound (seed %i, %s, %f missing)', (seed, criterion, missing) => {
    const input = randomInput(seed, { items: 500, raters: 5, missing, agreement: 0.7, statuses: ['ready'] });
    const patterns = toPatterns(input.ratings.get(criterion)!, VALUES[criterion]!);
    // Some items carry a single rating, so some patterns take no part in kappa.
    expect(patterns.counts.some((v) => v.reduce((a, b) => a + b, 0) === 1)).toBe(missing > 0.2);
    for (const options of [{ resamples: 500, seed }, { resamples: 37, seed: 0 }]) {
      const expected = general(patterns, options);
      expect(expected.low).not.toBeNull();
      expect(fleissKappaInterval(patterns, options)).toEqual(expected);
    }
  });

  it('refuses the interval as the general bootstrap does when kappa is mostly undefined', () => {
    // Kappa is defined only when a resample draws both pairable items (43% of resamples).
    const patterns = toPatterns([['yes'], ['yes'], ['yes', 'yes'], ['no', 'no']], ['yes', 'no']);
    const expected = general(patterns, { resamples: 400, seed: 2 });
    expect(expected.reason).toMatch(/undefined in most resamples/);
    expect(fleissKappaInterval(patterns, { resamples: 400, seed: 2 })).toEqual(expected);
  });
});

describe('ratings read into typed arrays', () => {
  // Long scales and many raters key patterns by a table, by an exact number and by spelled-out counts.
  it.each([
    [2, 5],
    [6, 12],
    [14, 12],
    [25, 5],
    [40, 9],
  ])('group items into the same patterns as toPatterns (%i categories, %i raters)', (q, raters) => {
    const random = seededRandom(q * 100 + raters);
    const categories = Array.from({ length: q }, (_, i) => `c${i}`);
    const matrix = Array.from({ length: 400 }, () => {
      const truth = Math.floor(random() * q);
      return Array.from({ length: raters }, (): Rating => (random() < 0.2 ? null : categories[random() < 0.6 ? truth : Math.floor(random() * q)]!));
    });
    const encoded = encodeRatings(matrix, categories);
    const all = allItems(matrix.length);
    const expected = toPatterns(matrix, categories);
    expect(expected.counts.length).toBeGreaterThan(q === 2 ? 10 : 100);
    expect(subsetPatterns(encoded, all)).toEqual(expected);
    const odd = all.filter((i) => i % 2 === 1);
    expect(subsetPatterns(encoded, odd)).toEqual(toPatterns(matrix.filter((_, i) => i % 2 === 1), categories));
    expect(mostRatings(encoded, all)).toBe(Math.max(...matrix.map((row) => row.filter((r) => r !== null).length)));
    for (const [a, b] of [[0, 1], [3, 2], [1, raters + 2]] as const) {
      expect(pairKappas(encoded, all, raters + 3, 'none')[a]![b]).toEqual(cohenKappa(matrix.map((r) => r[a] ?? null), matrix.map((r) => r[b] ?? null), categories));
    }
  });
});
