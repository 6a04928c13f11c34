import { describe, expect, it } from 'vitest';
import { answerCoverage, committedInterpretations, isCollapsed } from '../../shared/failures';
import type { GoldInterpretation } from '../../shared/eval/types';

// MARCH appendix G.1: a prediction collapses when it commits to at most one interpretation while
// the gold has several. Gold here: the bridge opened in 1883 (old) and 2004 (new).

const gold: GoldInterpretation[] = [
  { question: 'When did the old bridge open?', condition: null, answers: ['1883'], evidence: [], cited: [] },
  { question: 'When did the new bridge open?', condition: null, answers: ['2004'], evidence: [], cited: [] },
];
const committed = (shortAnswers: string[] | null, reader: (string | null)[] | null = null, answers: (string | null)[] = []) =>
  committedInterpretations({ shortAnswers, interpretations: answers.map((answer) => ({ answer })) }, reader);

describe('collapsed, as appendix G.1 defines it', () => {
  it('is about what the prediction commits to, not how much of the gold it covers', () => {
    // Two answers, one of them wrong: half-right, not collapsed (it used to be, on gold coverage).
    expect(committed(['1883', '1885'])).toBe(2);
    expect(isCollapsed(gold.length, committed(['1883', '1885']))).toBe(false);
    expect(answerCoverage('It opened in 1883, or in 1885.', gold).verdict).toBe('partial');
    // One answer: collapsed.
    expect(isCollapsed(gold.length, committed(['1883']))).toBe(true);
    // The same answer twice, after normalisation, is one commitment.
    expect(committed(['1883', ' 1883.'])).toBe(1);
    // Answered interpretations count when there are no short answers.
    expect(committed(null, null, ['1883', '2004', null])).toBe(2);
  });

  it('falls back on what the reader finds for a baseline that gives no short answers', () => {
    expect(committed(null, ['1883', '1883'])).toBe(1);
    expect(isCollapsed(2, committed(null, ['1883', '1883']))).toBe(true);
    expect(committed(null, ['1883', '2004'])).toBe(2);
    // A reader that failed on every question tells nothing: unknown, not collapsed.
    expect(committed(null, [null, null])).toBeNull();
    expect(isCollapsed(2, null)).toBeNull();
    // An explicit empty list commits to nothing.
    expect(committed([])).toBe(0);
  });

  it('does not apply to a single-interpretation gold, and a failed item has no answer rather than a collapse', () => {
    expect(isCollapsed(1, 1)).toBeNull();
    const failed = answerCoverage(null, gold, { failed: true });
    expect(failed.verdict).toBe('error');
    expect(failed.interpretations.every((i) => !i.found)).toBe(true);
    expect(answerCoverage('Nothing about it.', gold).verdict).toBe('missed');
  });
});
