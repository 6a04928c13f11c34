import { describe, expect, it } from 'vitest';
import { checkSpan, locateAnswer, sentenceAround } from '../../shared/checks';
import { AMBIGUITY_TYPES, decompositionStyle } from '../../shared/domain';
import { BUILT_IN_PROTOCOLS, ProtocolDocument, questionFor } from '../../shared/protocols';
import { matchRanges, searchTerms, toFtsQuery } from '../../shared/search';
import { countTokens, findSpan, foldForMatching, htmlToText } from '../../shared/text';
import { listStateToSearch, parseBaseQuestionParams, parseInstanceParams } from '../../renderer/list-params';
import { InstanceQuery } from '../../shared/api';
import { all, sql } from '../../db/sql';
import { memoryDb } from '../helpers/db';

describe('text', () => {
  it('finds spans verbatim, then ignoring case and spacing', () => {
    expect(findSpan('The F-Series truck', 'F-Series')).toEqual({ start: 4, end: 12 });
    expect(findSpan('The F-Series truck', 'f-series')).toEqual({ start: 4, end: 12 });
    expect(findSpan('born in  New\nYork city', 'new york')).toEqual({ start: 9, end: 17 });
    expect(findSpan('abc', 'x')).toBeNull();
    expect(findSpan('abc', '  ')).toBeNull();
    expect(findSpan('cost (in $)', '(in $)')).toEqual({ start: 5, end: 11 });
  });

  it('folds wordings for matching: punctuation breaks words, articles go', () => {
    expect(foldForMatching('The  F-Series!')).toBe('f series');
    expect(foldForMatching('an Apple')).toBe('apple');
    expect(countTokens('  one two\tthree ')).toBe(3);
    expect(countTokens('')).toBe(0);
  });

  it('turns HTML snippets into text', () => {
    expect(htmlToText('The <b>NBA</b> adopted&nbsp;it &#39;79 &amp; more')).toBe("The NBA adopted it '79 & more");
  });

  it('tells the two decomposition styles apart', () => {
    expect(decompositionStyle('Hello Love >> performer')).toBe('relation');
    expect(decompositionStyle('Who was the first president of #1 ?')).toBe('natural');
  });
});

describe('search queries', () => {
  it('quotes every word so any input is a valid FTS5 query', () => {
    expect(toFtsQuery('star wars')).toBe('"star" "wars"');
    expect(toFtsQuery('darth vad', { prefixLast: true })).toBe('"darth" "vad"*');
    expect(toFtsQuery('  ')).toBeNull();
    expect(toFtsQuery('"" AND OR NOT ( ) * : ^ -')).toBe('"AND" "OR" "NOT"');
    expect(searchTerms('Zürich – Straße 12')).toEqual(['Zürich', 'Straße', '12']);
  });

  it('never breaks FTS5, whatever is typed', () => {
    const db = memoryDb();
    db.exec(`INSERT INTO datasets (id, name, source_format) VALUES (1, 'd', 'awb');
             INSERT INTO base_questions (dataset_id, source_id, question, answer) VALUES (1, 'a', 'Who voiced Darth Vader (1977)?', 'James Earl Jones');`);
    const nasty = ['"', "'", 'a OR', 'NEAR(a b)', 'question:Darth', '*', 'vader)', '(((', 'AND AND', 'Vader"', '\u0000', '日本語', 'darth^'];
    for (const text of nasty) {
      const q = toFtsQuery(text, { prefixLast: true });
      if (q === null) continue;
      expect(() => all(db, sql`SELECT rowid FROM base_questions_fts WHERE base_questions_fts MATCH ${q}`), text).not.toThrow();
    }
    const q = toFtsQuery('vader', { prefixLast: true })!;
    expect(all(db, sql`SELECT rowid FROM base_questions_fts WHERE base_questions_fts MATCH ${q}`)).toHaveLength(1);
    expect(all(db, sql`SELECT rowid FROM base_questions_fts WHERE base_questions_fts MATCH ${toFtsQuery('earl')!}`)).toHaveLength(1);
  });

  it('marks the matching words for highlighting', () => {
    expect(matchRanges('Star Wars: A New Hope', 'wars new')).toEqual([
      { start: 5, end: 9 },
      { start: 13, end: 16 },
    ]);
  });
});

describe('checks', () => {
  it('locates an answer or one of its aliases', () => {
    expect(locateAnswer('voiced by Benjamin Burtt Jr.', { text: 'Ben Burtt', aliases: ['Benjamin Burtt Jr.'] })).toEqual({
      start: 10,
      end: 28,
      alias: 'Benjamin Burtt Jr.',
    });
    expect(locateAnswer('nothing', { text: 'x', aliases: [] })).toBeNull();
  });

  it('checks recorded spans', () => {
    expect(checkSpan('in 1883 it opened', 3, 7, '1883')).toBe('verbatim');
    expect(checkSpan('The Beatles', 0, 11, 'beatles')).toBe('normalised');
    expect(checkSpan('in 1883 it opened', 0, 2, '1883')).toBe('mismatch');
    expect(checkSpan('short', 2, 50, 'x')).toBe('out_of_range');
  });

  it('finds the sentence around a span', () => {
    const text = 'First one. The answer is here. Last one.';
    const span = { start: text.indexOf('answer'), end: text.indexOf('answer') + 6 };
    expect(text.slice(sentenceAround(text, span).start, sentenceAround(text, span).end)).toBe('The answer is here.');
  });
});

describe('list URL state', () => {
  it('round-trips instance list state through the query string', () => {
    const state = parseInstanceParams('?type=semantic,constraint&status=ready&hops=2,3&dataset=4&domain=history,none,gardening&q=ford&sort=hops&dir=desc');
    expect(state).toEqual({
      datasets: [4],
      types: ['semantic', 'constraint'],
      statuses: ['ready'],
      hops: [2, 3],
      domains: ['history', 'none'],
      search: 'ford',
      sort: 'hops',
      direction: 'desc',
    });
    expect(parseInstanceParams(listStateToSearch(state))).toEqual(state);
  });

  it('drops unknown values and keeps the table\'s order (the operations\' default) for a search', () => {
    const state = parseInstanceParams('?type=bogus&sort=nope&q=x&hops=-1,a');
    expect(state.types).toEqual([]);
    expect(state.hops).toEqual([]);
    expect(state.sort).toBe(InstanceQuery.parse({ search: 'x' }).sort);
    expect(state.sort).toBe('id');
    expect(listStateToSearch(state)).toBe('?q=x');
    expect(parseBaseQuestionParams('?q=x').sort).toBe('id');
    // Best match is a sort of its own, kept in the URL.
    const best = parseInstanceParams('?q=x&sort=relevance');
    expect(best.sort).toBe('relevance');
    expect(listStateToSearch(best)).toBe('?q=x&sort=relevance');
  });
});

describe('built-in protocols', () => {
  it('are valid documents, and ask the ambiguity question in terms of each type, type-less instances included', () => {
    for (const document of BUILT_IN_PROTOCOLS) expect(ProtocolDocument.safeParse(document).success).toBe(true);
    const ambiguity = BUILT_IN_PROTOCOLS.find((p) => p.key === 'march-validation')!.criteria.find((c) => c.id === 'ambiguity')!;
    const questions = AMBIGUITY_TYPES.map((type) => questionFor(ambiguity, type));
    expect(new Set(questions).size).toBe(AMBIGUITY_TYPES.length);
    expect(questionFor(ambiguity, 'unspecified')).not.toMatch(/its type/);
  });
});
