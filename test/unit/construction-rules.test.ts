import { describe, expect, it } from 'vitest';
import { CONSTRUCTION_SCHEMAS } from '../../shared/construction-schemas';
import { citationProblems, decideReview, draftProblem, labelConsensus, labelTables, mergeTuples, roundFunnel, type Tuple } from '../../shared/construction';
import { DOMAINS, effectiveAnswerability } from '../../shared/domain';
import { placeholders, render } from '../../electron/services/pipeline/prompts';
import { revisionText } from '../../electron/services/construction/draft';

const tuple = (condition: string, answers: string[], citations: number[], extra: Partial<Tuple> = {}): Tuple => ({
  condition,
  answers,
  citations,
  preconditions: [],
  statements: [],
  reason: '',
  lowCredibility: false,
  ...extra,
});

describe('a CondAmbigQA draft', () => {
  it('merges conditions that read the same, uniting answers and citations in order', () => {
    const merged = mergeTuples([
      tuple('If the 1961 prize is meant', ['Ada Ward'], [1, 3]),
      tuple('If the second award is meant', ['Bram Holt'], [2]),
      tuple('if the 1961 prize is meant.', ['Ada Ward', 'A. Ward'], [3, 4]),
      tuple('  ', ['nobody'], [5]),
    ]);
    expect(merged.map((t) => [t.condition, t.answers, t.citations])).toEqual([
      ['If the 1961 prize is meant', ['Ada Ward', 'A. Ward'], [1, 3, 4]],
      ['If the second award is meant', ['Bram Holt'], [2]],
    ]);
  });

  it('names every fragment number outside the list, and what a merged draft lacks', () => {
    expect(citationProblems('condition_cite', 10, [{ where: 'interpretation 2', fragments: [3, 14, 0] }])).toEqual([
      'condition_cite: interpretation 2 cites fragment 14; this question has 10 fragments',
      'condition_cite: interpretation 2 cites fragment 0; this question has 10 fragments',
    ]);
    expect(draftProblem([tuple('a', ['x'], [1])], 2)).toBe('condition_cite: 1 distinct condition after merging; a round needs at least 2');
    expect(draftProblem([tuple('a', ['x'], [1]), tuple('b', [], [2])], 2)).toBe('condition_cite: interpretation 2 has no answer in the fragments');
    expect(draftProblem([tuple('a', ['x'], [1]), tuple('b', ['y'], [2])], 2)).toBeNull();
  });

  it('shows the model its rejected tuples and the feedback, with the round they came from', () => {
    expect(revisionText(null, 1)).toBe('');
    const text = revisionText({ draft: { tuples: [tuple('If A', ['x'], [1, 2])], flags: [] }, feedback: 'cite the 1984 source' }, 3);
    expect(text).toContain('Your tuples from round 2:\n1. Condition: If A\n   Answers: x\n   Citations: [1, 2]');
    expect(text).toContain('Reviewer feedback:\ncite the 1984 source');
  });

  it('has versioned templates whose placeholders the steps fill', () => {
    expect(placeholders('condition_draft').sort()).toEqual(['fragments', 'min_interpretations', 'question', 'revision']);
    expect(placeholders('condition_check').sort()).toEqual(['fragments', 'interpretations', 'question']);
    expect(placeholders('condition_cite').sort()).toEqual(['fragments', 'interpretation', 'question', 'revision']);
    expect(placeholders('label_domain').sort()).toEqual(['labels', 'question']);
    expect(render('Q: {{question}}{{revision}}', { question: 'Who?', revision: '' })).toBe('Q: Who?');
    expect(CONSTRUCTION_SCHEMAS.condition_draft.safeParse({ interpretations: [] }).success).toBe(false);
    expect(CONSTRUCTION_SCHEMAS.label_domain.safeParse({ domain: 'gardening', reason: '' }).success).toBe(false);
    expect(CONSTRUCTION_SCHEMAS.condition_cite.safeParse({ condition: 'If A', answers: ['x'], citations: [1], reason: 'r' }).success).toBe(true);
  });
});

describe('the review decision', () => {
  const vote = (annotator: string, decision: string | null, feedback = '') => ({ annotator, decision, feedback });

  it('accepts when every reviewer who decided accepted, rejects with the reviewers\' feedback, and waits otherwise', () => {
    expect(decideReview([vote('ann', 'accept'), vote('bob', null)], null, false)).toEqual({ outcome: 'accepted', by: 'ann' });
    expect(decideReview([vote('ann', null)], null, false)).toEqual({ outcome: 'pending' });
    expect(decideReview([vote('ann', 'accept'), vote('bob', 'reject', 'fragment 3 says 1983')], null, false)).toEqual({ outcome: 'rejected', by: 'bob', feedback: 'fragment 3 says 1983' });
    expect(decideReview([vote('ann', 'reject', 'vague'), vote('bob', 'reject', 'wrong year')], null, true)).toEqual({
      outcome: 'rejected',
      by: 'reviewer 1, reviewer 2',
      feedback: 'reviewer 1: vague\nreviewer 2: wrong year',
    });
    expect(decideReview([vote('ann', 'reject')], null, false)).toEqual({ outcome: 'needs_feedback', by: 'ann' });
  });

  it('lets an adjudication decide', () => {
    expect(decideReview([vote('ann', 'reject', 'no')], { value: 'accept', reason: 'fine after all', adjudicator: 'lead' }, false)).toEqual({ outcome: 'accepted', by: 'adjudicated by lead' });
    expect(decideReview([vote('ann', 'accept')], { value: 'reject', reason: 'condition 2 is vague', adjudicator: 'lead' }, false)).toEqual({
      outcome: 'rejected',
      by: 'adjudicated by lead',
      feedback: 'condition 2 is vague',
    });
  });
});

describe('the round funnel', () => {
  it('gives acceptance per round, cumulative acceptance over the items started, and cost and time per item', () => {
    const row = (round: number, status: string, n: number, cost: number, llm: number, review: number) => ({ round, status, n, cost_usd: cost, prompt_tokens: n * 100, completion_tokens: n * 10, llm_ms: llm, review_ms: review });
    const f = roundFunnel('d', { total: 10, accepted: 8, removed: 1, building: 1 }, [
      row(1, 'accepted', 4, 0.4, 4000, 40_000),
      row(1, 'rejected', 6, 0.6, 6000, 60_000),
      row(2, 'accepted', 4, 0.3, 3000, 30_000),
      row(2, 'rejected', 1, 0.1, 500, 5000),
      row(2, 'in_review', 1, 0.05, 500, 0),
    ]);
    expect(f.rounds[0]).toMatchObject({ drafted: 10, reviewed: 10, acceptance: 0.4, cumulativeAcceptance: 0.4, costUsd: 1, tokens: 1100, llmMsPerItem: 1000, reviewMsPerItem: 10_000 });
    expect(f.rounds[0]!.costPerItem).toBeCloseTo(0.1, 12);
    expect(f.rounds[1]).toMatchObject({ drafted: 6, reviewed: 5, pending: 1, acceptance: 0.8, cumulativeAcceptance: 0.8 });
    expect(f.rounds[1]!.costPerItem).toBeCloseTo(0.45 / 6, 12);
    expect(f.costPerAccepted).toBeCloseTo(1.45 / 8, 12);
  });
});

describe('consensus of labelling models', () => {
  it('decides as soon as a label has enough votes, and gives up as soon as none can', () => {
    expect(labelConsensus('all', ['ambiguous'], 3)).toEqual({ state: 'open' });
    expect(labelConsensus('all', ['ambiguous', 'answerable'], 3)).toEqual({ state: 'none', reason: 'no consensus under rule "all"' });
    expect(labelConsensus('all', ['x', 'x', 'x'], 3)).toEqual({ state: 'decided', label: 'x' });
    expect(labelConsensus('majority', ['history', 'history'], 3)).toEqual({ state: 'decided', label: 'history' });
    expect(labelConsensus('majority', ['history', 'music'], 3)).toEqual({ state: 'open' });
    expect(labelConsensus('majority', ['history', 'music', 'sports'], 3)).toMatchObject({ state: 'none' });
    expect(labelConsensus('majority', ['a', 'b'], 4)).toEqual({ state: 'open' });
    expect(labelConsensus('majority', ['a', 'b', 'c'], 4)).toMatchObject({ state: 'none' });
    expect(labelConsensus({ atLeast: 2 }, ['a', 'b', 'a'], 5)).toEqual({ state: 'decided', label: 'a' });
    expect(labelConsensus({ atLeast: 4 }, ['a'], 3)).toEqual({ state: 'none', reason: 'no consensus under rule "at least 4"' });
  });
});

describe('the topic and answerability tables', () => {
  it('lay out MARCH Table 7\'s labels in order, with ratios over the tagged instances', () => {
    const t = labelTables(
      [
        { ambiguity_type: 'semantic', domain: 'history', answerability: 'ambiguous', n: 3 },
        { ambiguity_type: 'syntactic', domain: 'history', answerability: 'ambiguous', n: 1 },
        { ambiguity_type: 'semantic', domain: 'music', answerability: null, n: 4 },
        { ambiguity_type: 'semantic', domain: null, answerability: 'answerable', n: 2 },
      ],
      DOMAINS,
    );
    expect(t.domains.map((d) => d.label)).toEqual(DOMAINS.map((d) => d.label));
    expect(t.domains.find((d) => d.slug === 'history')).toMatchObject({ counts: { semantic: 3, syntactic: 1 }, total: 4, ratio: 0.5 });
    expect(t.untagged).toBe(2);
    expect(t.answerability).toEqual({ ambiguous: 4, unlabelled: 4, answerable: 2 });
  });

  it('count an instance with two interpretations as ambiguous unless it is labelled', () => {
    expect(effectiveAnswerability(null, 2, 'answerable')).toBe('ambiguous');
    expect(effectiveAnswerability('unanswerable', 3, null)).toBe('unanswerable');
    expect(effectiveAnswerability(undefined, 1, 'unanswerable')).toBe('unanswerable');
    expect(effectiveAnswerability(null, 0, null)).toBeNull();
  });
});
