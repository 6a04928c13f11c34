import { describe, expect, it } from 'vitest';
import { findAnswerSpan, locateAnswer, locateInPassages } from '../../shared/checks';

/**
 * `locateAnswer`: the one "is the answer in this text?" check, used by the instance view and by
 * the pipeline's span check alike. Each case names the trap it guards against.
 */

const at = (text: string, span: { start: number; end: number } | null) => (span ? text.slice(span.start, span.end) : null);

describe('locateAnswer', () => {
  it('matches whole words only: "Ford" is not inside "Bradford", "1998" not inside "19985"', () => {
    expect(locateAnswer('Bradford is a city in Yorkshire.', 'Ford')).toBeNull();
    const text = 'Bradford City played Ford United.';
    expect(at(text, locateAnswer(text, 'Ford'))).toBe('Ford');
    expect(locateAnswer(text, 'Ford')).toMatchObject({ start: 21 });
    expect(at('In 19985 and then in 1998.', locateAnswer('In 19985 and then in 1998.', '1998'))).toBe('1998');
    expect(locateAnswer('Fordham University', 'Ford')).toBeNull();
    expect(locateAnswer('the Ford-built truck', 'Ford')).toMatchObject({ start: 4, end: 8 });
    expect(locateAnswer("Ford's best seller", 'Ford')).toMatchObject({ start: 0, end: 4 });
  });

  it('lets punctuation at the edge of the answer stand for the boundary', () => {
    expect(locateAnswer('cost (in $) here', '(in $)')).toMatchObject({ start: 5, end: 11 });
    expect(locateAnswer('voiced by Benjamin Burtt Jr. in 1977', 'Benjamin Burtt Jr.')).toMatchObject({ start: 10, end: 28 });
  });

  it('normalises Unicode (NFKC) on both sides and returns the span of the original text', () => {
    const fullWidth = 'Made by Ｆｏｒｄ in Detroit';
    expect(at(fullWidth, locateAnswer(fullWidth, 'Ford'))).toBe('Ｆｏｒｄ');
    // A decomposed "é" (e + combining accent) matches a composed one, and the span keeps the accent.
    const decomposed = 'the Cafe\u0301 Müller piece';
    expect(at(decomposed, locateAnswer(decomposed, 'Café Müller'))).toBe('Cafe\u0301 Müller');
    // A ligature folds to its letters: "ﬁ" is "fi".
    const ligature = 'the ﬁnal score';
    expect(at(ligature, locateAnswer(ligature, 'final'))).toBe('ﬁnal');
    // Characters outside the basic plane do not shift the span.
    const emoji = '😀😀 then Paris';
    expect(at(emoji, locateAnswer(emoji, 'Paris'))).toBe('Paris');
    // Non-breaking spaces are white space.
    const nbsp = 'born in New\u00a0York City';
    expect(at(nbsp, locateAnswer(nbsp, 'New York'))).toBe('New\u00a0York');
  });

  it('treats any run of white space as one space, and trims the answer', () => {
    const text = 'born in  New\nYork city';
    expect(at(text, locateAnswer(text, '  new   york '))).toBe('New\nYork');
    expect(locateAnswer(text, '   ')).toBeNull();
    expect(locateAnswer(text, '')).toBeNull();
  });

  it('prefers an occurrence with the same case, then ignores case', () => {
    const text = 'they crossed the ford below the Ford plant';
    expect(locateAnswer(text, 'Ford')).toMatchObject({ start: 32, end: 36 });
    expect(locateAnswer('they crossed the ford', 'Ford')).toMatchObject({ start: 17, end: 21 });
  });

  it('tries the aliases when the answer itself is absent, and says which matched', () => {
    expect(locateAnswer('voiced by Benjamin Burtt Jr.', { text: 'Ben Burtt', aliases: ['Burt', 'Benjamin Burtt Jr.'] })).toEqual({ start: 10, end: 28, alias: 'Benjamin Burtt Jr.' });
    // An alias obeys the same word boundaries ("Burt" above is not a word of "Burtt").
    expect(locateAnswer('Bradford', { text: 'Brad', aliases: ['ford'] })).toBeNull();
    expect(locateAnswer('anything', { text: 'x', aliases: [] })).toBeNull();
  });

  it('finds a later whole-word occurrence after a part-word one', () => {
    expect(findAnswerSpan('Oxford and Ford', 'Ford')).toEqual({ start: 11, end: 15 });
  });
});

describe('locateInPassages', () => {
  const passages = [{ text: 'Bradford is in Yorkshire.' }, { text: 'The Ford Motor Company makes the Mustang.' }];

  it('looks in the named passage first and marks a fall-back to another one', () => {
    expect(locateInPassages(passages, 'Ford', 1)).toEqual({ index: 1, start: 4, end: 8, alias: null, inNamed: false });
    expect(locateInPassages(passages, 'Ford', 2)).toEqual({ index: 1, start: 4, end: 8, alias: null, inNamed: true });
    expect(locateInPassages(passages, 'Ford', 0)).toMatchObject({ index: 1, inNamed: false });
    expect(locateInPassages(passages, 'Chevrolet', 2)).toBeNull();
  });
});
