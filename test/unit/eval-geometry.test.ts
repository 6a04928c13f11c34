import { describe, expect, it } from 'vitest';
import { adaptiveK, kMeans, queryState } from '../../shared/retrieval/geometry';
import { centroid, cosine, dispersion, silhouette } from '../../shared/vectors';
import { cleanAnswers, conditionalLongAnswer, numberedPassages } from '../../shared/eval/methods/format';
import { EVAL_PROMPTS, EVAL_PROMPT_NAMES, evalPlaceholders, fillTemplate } from '../../shared/eval/methods/prompts';
import { EVAL_SCHEMAS, evalJsonSchema } from '../../shared/eval/methods/schemas';

/** The ADF gate's geometry (paper 002, eqs. 1-4) and the methods' pure helpers, on hand-computed cases. */

describe('the retrieval-geometry gate', () => {
  it('computes dispersion as the mean squared distance from the centroid', () => {
    // Centroid (1, 0); squared distances 1 and 1.
    expect(
      centroid([
        [0, 0],
        [2, 0],
      ]),
    ).toEqual([1, 0]);
    expect(
      dispersion([
        [0, 0],
        [2, 0],
      ]),
    ).toBe(1);
    expect(dispersion([[3, 4]])).toBe(0);
  });

  it('separates two clear groups with k-means and scores their silhouette by hand', () => {
    const points = [
      [0, 0],
      [0, 1],
      [10, 0],
      [10, 1],
    ];
    const assignment = kMeans(points, 2);
    expect(assignment[0]).toBe(assignment[1]);
    expect(assignment[2]).toBe(assignment[3]);
    expect(assignment[0]).not.toBe(assignment[2]);
    // Point (0,0): a = 1 (to (0,1)); b = mean(10, √101) ; s = (b − a) / b. All four points are symmetric.
    const b = (10 + Math.sqrt(101)) / 2;
    expect(silhouette(points, assignment)).toBeCloseTo((b - 1) / b, 10);
    // One cluster only: the silhouette is undefined.
    expect(silhouette(points, [0, 0, 0, 0])).toBeNull();
  });

  it('classifies the query state as in eq. 3 and picks k as in eq. 4', () => {
    const t = { variance: 0.25, separation: 0.1 };
    expect(queryState(0, 0.1, t)).toBe('ambiguous');
    expect(queryState(0.3, 0.05, t)).toBe('uncertain');
    expect(queryState(0.2, 0.05, t)).toBe('unambiguous');
    expect([1, 4, 6, 20].map(adaptiveK)).toEqual([2, 2, 3, 4]);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1);
  });
});

describe("the methods' helpers", () => {
  it('numbers passages, resolves cited numbers to keys and drops numbers outside the list', () => {
    const passages = [
      { key: 'c/a', title: 'A', text: 'alpha' },
      { key: 'c/b', title: '', text: 'beta' },
    ];
    expect(numberedPassages(passages)).toBe('[1] A: alpha\n[2] beta');
    expect(numberedPassages(passages, { from: 4 })).toBe('[4] A: alpha\n[5] beta');
    const long = [{ title: 'L', text: 'x'.repeat(1300) }];
    expect(numberedPassages(long)).toBe(`[1] L: ${'x'.repeat(1200)}…`);
    expect(numberedPassages(long, { full: true })).toBe(`[1] L: ${'x'.repeat(1300)}`);
    expect(cleanAnswers([' Paris ', 'paris', '', 'Lyon'])).toEqual(['Paris', 'Lyon']);
    expect(
      conditionalLongAnswer([
        { condition: 'the old bridge.', answer: '1883' },
        { condition: '', answer: '2004' },
        { condition: 'x', answer: ' ' },
      ]),
    ).toBe('If the old bridge: 1883. 2004.');
  });

  it('has a schema for every prompt, JSON Schemas without range keywords, and placeholders that fill', () => {
    for (const name of EVAL_PROMPT_NAMES) expect(EVAL_SCHEMAS[EVAL_PROMPTS[name].schema]).toBeDefined();
    expect(JSON.stringify(evalJsonSchema('judge'))).not.toMatch(/"maximum"|"minimum"/);
    expect(evalPlaceholders('eval_rag')).toEqual(['question', 'passages']);
    expect(fillTemplate('Q: {{question}} {{other}}', { question: 'why?' })).toBe('Q: why? {{other}}');
    // A judge grade outside 0-5 is refused by our own validation.
    expect(EVAL_SCHEMAS.judge.safeParse({ relevance: 6, faithfulness: 1, informativeness: 1, correctness: 1, rationale: '' }).success).toBe(false);
  });
});
