import { describe, expect, it } from 'vitest';
import { checkSpan, locateAnswer } from '../../shared/checks';
import { squadNormalize, strEm } from '../../shared/eval/answer-metrics';
import { foldForMatching } from '../../shared/text';

/**
 * Two normalisations with two jobs. `squadNormalize` is the scorer's, as SQuAD's script and
 * ASQA's STR-EM define it: punctuation is deleted. `foldForMatching` compares wordings for the
 * pipeline's de-duplication: punctuation is a word break. They differ exactly where punctuation
 * sits inside a word, and the view's span check follows the scorer.
 */
describe('answer normalisation: scoring against matching', () => {
  it('agrees where no punctuation sits inside a word', () => {
    for (const text of ['The Eiffel Tower', 'an apple!', '  New   York  ', 'Paris, France']) {
      expect(foldForMatching(text)).toBe(squadNormalize(text));
    }
  });

  it('differs where punctuation joins letters: SQuAD deletes it, folding breaks the word there', () => {
    expect(squadNormalize('U.S.')).toBe('us');
    expect(foldForMatching('U.S.')).toBe('u s');
    expect(squadNormalize('F-16')).toBe('f16');
    expect(foldForMatching('F-16')).toBe('f 16');
    expect(squadNormalize("O'Brien")).toBe('obrien');
    expect(foldForMatching("O'Brien")).toBe('o brien');
  });

  it('folds Unicode forms and non-ASCII marks, which the SQuAD script leaves as they are', () => {
    // NFKC turns the ligature into "fi"; SQuAD strips only ASCII punctuation, so "«" stays.
    expect(foldForMatching('ﬁnal «cut»')).toBe('final cut');
    expect(squadNormalize('ﬁnal «cut»')).toBe('ﬁnal «cut»');
  });

  it("calls a recorded span a match only where the scorer does ('U.S.' reads as 'US')", () => {
    const passage = 'He moved to the U.S. in 1990.';
    const start = passage.indexOf('U.S.');
    expect(checkSpan(passage, start, start + 4, 'US')).toBe('normalised');
    expect(strEm(passage, [['US']])).toBe(1);
    // A span the scorer would not accept is a mismatch, even though its words fold alike.
    expect(foldForMatching('U-S')).toBe(foldForMatching('U S'));
    expect(checkSpan('the U-S border', 4, 7, 'U S')).toBe('mismatch');
    expect(strEm('the U-S border', [['U S']])).toBe(0);
  });

  it("finds an answer in a passage only where STR-EM finds it too", () => {
    const passage = 'The treaty was signed in Paris, France, in 1783.';
    for (const answer of ['Paris', 'paris, france', '1783']) {
      expect(locateAnswer(passage, answer)).not.toBeNull();
      expect(strEm(passage, [[answer]])).toBe(1);
    }
  });
});
