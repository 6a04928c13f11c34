import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { disambigF1, dF1, strEm } from '../../shared/eval/answer-metrics';
import { aggregateMetrics, invalidCitationNote, METRIC_NAMES, READER_METRIC_NAMES, resolveCitations, scoreItem } from '../../shared/eval/metrics';
import { asqaSentences, PUNKT_BUILTIN, punktSentences } from '../../shared/eval/punkt';
import { rougeL } from '../../shared/eval/rouge';
import { conventionsMarkdown, METRIC_CONVENTIONS } from '../../shared/eval/conventions';

/**
 * The metric conventions of issue 19, each checked against values worked out by hand (shown in
 * the comments) or produced by an independent implementation: NLTK's own Punkt tokenizer and a
 * line-for-line Python re-implementation of rouge_score's rougeLsum (scripts/punkt-fixture.py,
 * scripts/rouge-fixture.py write the fixtures these tests read).
 */

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures', name), 'utf8')) as unknown;
const asqa = JSON.parse(fs.readFileSync(path.join(__dirname, '../../resources/demo/asqa_dev_sample300.json'), 'utf8')) as { id: string; annotations: { long_answer: string }[] }[];

describe("Punkt, as ASQA's scorer splits sentences", () => {
  it('agrees with NLTK on the hand-worked cases', () => {
    // Each worked from punkt.py's rules on lower-cased text.
    expect(punktSentences('he won in 1990. she ran in 1991.')).toEqual(['he won in 1990. she ran in 1991.']); // number + lower-case word
    expect(punktSentences('she ran far. he won.')).toEqual(['she ran far.', 'he won.']);
    expect(punktSentences('it was j. k. rowling. then she left.')).toEqual(['it was j. k. rowling.', 'then she left.']); // initials
    expect(punktSentences('scores rose in 1990. 1991 was flat.')).toEqual(['scores rose in 1990.', '1991 was flat.']); // number + digit
    expect(punktSentences('see plan b. 2 options remain.')).toEqual(['see plan b.', '2 options remain.']);
    expect(punktSentences('he said "stop." then left.')).toEqual(['he said "stop."', 'then left.']); // realigned quote
    expect(punktSentences('wait... then go.')).toEqual(['wait... then go.']); // ellipsis
    expect(punktSentences('is it? yes.')).toEqual(['is it?', 'yes.']);
    expect(punktSentences('the film (1990). the sequel')).toEqual(['the film (1990).', 'the sequel']); // lone "."
    expect(punktSentences('line one\nline two.')).toEqual(['line one\nline two.']);
    expect(asqaSentences('Line one\nline two.')).toEqual(['line one', 'line two.']); // ASQA's join, rouge_score's split
  });

  it("gives NLTK's own sentence spans on 23 hard cases and the 600 ASQA sample long answers, lower-cased", () => {
    const expected = fixture('punkt-builtin.json') as {
      abbreviations: string[];
      cases: string[];
      expected: { source: 'case' | 'asqa'; record: number; annotation: number | null; spans: [number, number][] }[];
    };
    // The fixture was made with the same parameters (the script reads them from punkt.ts).
    expect(new Set(expected.abbreviations)).toEqual(PUNKT_BUILTIN.abbrevTypes);
    let sentences = 0;
    for (const e of expected.expected) {
      const text = e.source === 'case' ? expected.cases[e.record]! : asqa[e.record]!.annotations[e.annotation!]!.long_answer.toLowerCase();
      expect(punktSentences(text), `${e.source} ${e.record}`).toEqual(e.spans.map(([a, b]) => text.slice(a, b)));
      sentences += e.spans.length;
    }
    expect(sentences).toBe(1708);
  });
});

describe("ROUGE-L through ASQA's pipeline", () => {
  it('scores shuffled sentences after numbers as one sentence each (the 1.4-point difference of the issue)', () => {
    // Punkt keeps "… 1990. she …" together: one sentence each side; LCS "she ran in 1991" or
    // "he won in 1990" = 4 of 8 tokens: P = R = F = 0.5 (a naive split would union to 1.0).
    expect(rougeL('She ran in 1991. He won in 1990.', ['He won in 1990. She ran in 1991.'])).toBeCloseTo(0.5, 12);
    // A real split is kept: the union recovers both sentences.
    expect(rougeL('He won in 1990. She ran far.', ['She ran far. He won in 1990.'])).toBeCloseTo(1, 12);
  });

  it('takes the best reference (worked by hand)', () => {
    // Candidate 7 tokens; reference 1 "the war ended in 1945" (5): LCS 5 → P 5/7, R 1, F 0.833333;
    // reference 2 "it ended in 1945 in europe and in asia" (9): LCS "ended in 1945" 3 → P 3/7, R 1/3, F 0.375.
    expect(rougeL('The war in Europe ended in 1945.', ['It ended in 1945 in Europe and in Asia.'])).toBeCloseTo(0.375, 12);
    expect(rougeL('The war in Europe ended in 1945.', ['The war ended in 1945.', 'It ended in 1945 in Europe and in Asia.'])).toBeCloseTo((2 * (5 / 7)) / (5 / 7 + 1), 12);
  });

  it("matches a line-for-line Python re-implementation of ASQA's scoring on 100 ASQA records (200 scores)", () => {
    const { items } = fixture('rouge-asqa.json') as { items: { id: string; reversed: number; cross: number }[] };
    expect(items).toHaveLength(100);
    for (const item of items) {
      const record = asqa.find((r) => r.id === item.id)!;
      const [first, second] = record.annotations.map((a) => a.long_answer);
      const reversed = second!.split('. ').reverse().join('. ');
      expect(rougeL(reversed, [first!, second!]), `${item.id} reversed`).toBeCloseTo(item.reversed, 12);
      expect(rougeL(first!, [second!]), `${item.id} cross`).toBeCloseTo(item.cross, 12);
    }
  });
});

describe('STR-EM, Disambig-F1 and D-F1 count interpretations without gold answers', () => {
  it('STR-EM counts them as 0, as ASQA does', () => {
    // Of three interpretations, the first two are found, the third has no gold answer: 2/3.
    expect(strEm('Opened in 1883; the replacement opened in 2004.', [['1883'], ['2004', 'May 2004'], []])).toBeCloseTo(2 / 3, 12);
    expect(strEm('x', [['1990']])).toBe(0);
    expect(strEm('1990', [['1990'], []])).toBe(0.5);
    expect(strEm('anything', [])).toBeNull();
  });

  it('Disambig-F1 and D-F1 likewise', () => {
    expect(disambigF1(['1883', 'x'], [['1883'], []])).toBe(0.5);
    expect(dF1(['1883'], [['1883'], []])).toBe(0.5);
    expect(disambigF1([], [])).toBeNull();
  });
});

describe('token F1 and D-F1 on the answer text (SQuAD, ADF), with the short-answer forms named apart', () => {
  const gold = { interpretations: [['Paris'], ['Lyon']], longAnswers: [], citedFragments: [] };

  it('scores a two-answer text', () => {
    // "paris or lyon" vs "paris": P 1/3, R 1 → F1 0.5 (the best gold); each interpretation reaches F1 0.5 → D-F1 1.
    const item = scoreItem({ answer: 'Paris or Lyon', shortAnswers: null, citations: null }, gold);
    expect(item.token_f1).toBeCloseTo(0.5, 12);
    expect(item.d_f1).toBe(1);
    expect(item.token_f1_short).toBeNull();
    expect(item.d_f1_short).toBeNull();
  });

  it('does not reward listing candidates, while the short-answer form does', () => {
    // 4 tokens vs 1: P 1/4, R 1 → F1 0.4 for both gold answers; 0.4 < 0.5, so nothing is covered.
    const item = scoreItem({ answer: 'Paris, Lyon, Nice, Lille', shortAnswers: ['Paris', 'Lyon', 'Nice', 'Lille'], citations: null }, gold);
    expect(item.token_f1).toBeCloseTo(0.4, 12);
    expect(item.d_f1).toBe(0);
    expect(item.token_f1_short).toBe(1);
    expect(item.d_f1_short).toBe(1);
    // An explicit empty list of short answers scores 0, not "not applicable".
    expect(scoreItem({ answer: 'Paris', shortAnswers: [], citations: null }, gold).d_f1_short).toBe(0);
  });

  it('DR-F1 is the per-item geometric mean averaged over items; the corpus form is named apart', () => {
    // Items (D-F1, ROUGE-L) = (1, 0.25) and (0, 0.25): per item √0.25 = 0.5 and 0 → mean 25;
    // corpus √(0.5 × 0.25) = 35.3553.
    const items = [
      { d_f1: 1, rouge_l: 0.25, dr_f1: Math.sqrt(1 * 0.25) },
      { d_f1: 0, rouge_l: 0.25, dr_f1: 0 },
    ];
    const out = aggregateMetrics(items, { metrics: ['dr_f1', 'dr_f1_corpus'], resamples: 0 });
    expect(out.dr_f1!.value).toBeCloseTo(25, 9);
    expect(out.dr_f1_corpus!.value).toBeCloseTo(100 * Math.sqrt(0.125), 9);
    expect(out.dr_f1_corpus!.value).toBeCloseTo(35.3553, 4);
    // scoreItem computes the per-item value itself.
    const scored = scoreItem({ answer: 'Paris', shortAnswers: null, citations: null }, { ...gold, longAnswers: ['Paris and Lyon'] }, { metrics: ['dr_f1'] });
    // D-F1 1/2; ROUGE-L "paris" vs "paris and lyon": P 1, R 1/3 → F 0.5; √(0.5 × 0.5) = 0.5.
    expect(scored.dr_f1).toBeCloseTo(0.5, 12);
  });

  it("MARCH's Avg is the mean of the STR-EM and Disambig-F1 corpus values", () => {
    // Qwen No Retrieval in MARCH Table 3: (20.98 + 21.19) / 2 = 21.085.
    const out = aggregateMetrics([{ str_em: 0.2098, disambig_f1: 0.2119 }], { metrics: ['march_avg'], resamples: 0 });
    expect(out.march_avg!.value).toBeCloseTo(21.085, 9);
  });
});

describe('citations of fragments the question does not have', () => {
  const gold = { interpretations: [['a'], ['b']], longAnswers: [], citedFragments: [['2', 'Old River Bridge'], ['3', 'River crossings']], fragmentCount: 5 };

  it('citing the gold fragments by number scores 100%; a number past the list counts against precision', () => {
    expect(scoreItem({ answer: '', shortAnswers: null, citations: ['2', '3'] }, gold).citation_precision).toBe(1);
    expect(scoreItem({ answer: '', shortAnswers: null, citations: ['2', '9'] }, gold).citation_precision).toBe(0.5);
    const resolved = resolveCitations(['2', '9', '0', '9'], gold);
    expect(resolved.keys).toEqual(['gold:0', 'invalid:9', 'invalid:0', 'invalid:9']);
    expect(resolved.invalid).toEqual([9, 0]);
    expect(invalidCitationNote([9], 5)).toBe('cited fragment 9; the question has 5 fragments (counted as wrong citations)');
  });

  it('counts a run\'s unresolvable citation (a method keeps it as invalid:N) against precision', () => {
    // Gold cites the fragment keyed wiki/A; the method cited it and a number the list does not have.
    const item = scoreItem({ answer: '', shortAnswers: null, citations: ['wiki/A', 'invalid:9'] }, { interpretations: [['a']], longAnswers: [], citedFragments: [['wiki/A']] });
    expect(item.citation_precision).toBe(0.5);
  });
});

describe('every convention in one place', () => {
  it('documents every metric a table can show', () => {
    const documented = new Set(METRIC_CONVENTIONS.map((c) => c.metric));
    for (const name of [...METRIC_NAMES, ...READER_METRIC_NAMES, 'judge_mean', 'condition_score', 'answer_score', 'condqa_combined']) expect(documented.has(name), name).toBe(true);
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/evaluation-metrics.md'), 'utf8');
    expect(doc, 'docs/evaluation-metrics.md is stale: run `npm run docs:metrics`').toContain(conventionsMarkdown());
  });
});
