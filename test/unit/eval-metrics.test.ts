import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bestTokenScores, citationPrecision, dF1, disambigF1, geometricMean, squadNormalize, strEm, tokenExactMatch, tokenF1 } from '../../shared/eval/answer-metrics';
import { aggregateByGroup, aggregateMetrics, isPercentMetric, scoreItem, summarizeUsage } from '../../shared/eval/metrics';
import { asqaSentences } from '../../shared/eval/punkt';
import { lcsLength, rougeL, rougeLsumTokens, rougeTokens } from '../../shared/eval/rouge';
import { bootstrapInterval, quantile, seededRandom } from '../../shared/statistics';
import { porterStem } from '../../shared/eval/porter';
import { parsePredictions, PredictionsError } from '../../shared/eval/predictions';
import { comparisonTable, toCsv, toLatex, toMarkdown } from '../../shared/eval/tables';

// Reference values marked "Python" were computed with a short standalone Python 3 script (standard
// library only) that re-implements the official SQuAD 1.1 normalisation/F1, LCS, and the
// statistics by brute force; they are pasted here as numbers.

describe('SQuAD normalisation, EM and F1', () => {
  it('lower-cases, strips punctuation and articles, collapses spaces (Python: official normalize_answer)', () => {
    expect(squadNormalize("The  Quick, brown fox's AN apple! a")).toBe('quick brown foxs apple');
    expect(squadNormalize('Theatre of the Absurd')).toBe('theatre of absurd');
  });

  it('scores the SQuAD examples (Python: official f1_score)', () => {
    expect(tokenExactMatch('the Denver Broncos', 'Denver Broncos')).toBe(1);
    expect(tokenF1('the Denver Broncos', 'Denver Broncos')).toBe(1);
    expect(tokenF1('Broncos won in 2016', 'Denver Broncos')).toBeCloseTo(1 / 3, 12);
    expect(tokenF1('New York City', 'York')).toBeCloseTo(0.5, 12);
    expect(tokenF1('Carolina Panthers', 'Denver Broncos')).toBe(0);
    // Multiset overlap: "b c b" and "b b" share two tokens (P 2/3, R 1).
    expect(tokenF1('b c b', 'b b')).toBeCloseTo((2 * (2 / 3) * 1) / (2 / 3 + 1), 12);
  });

  it('takes the best over every predicted and gold answer (ADF F1)', () => {
    const best = bestTokenScores(['Broncos', 'Denver Broncos'], [['Carolina Panthers'], ['the Denver Broncos']]);
    expect(best).toEqual({ em: 1, f1: 1 });
    expect(bestTokenScores([], [['x']])).toEqual({ em: 0, f1: 0 });
  });
});

describe('STR-EM on a real ASQA record', () => {
  const records = JSON.parse(fs.readFileSync(path.join(__dirname, '../../resources/demo/asqa_dev_sample300.json'), 'utf8')) as {
    id: string;
    qa_pairs: { short_answers: string[] }[];
    annotations: { long_answer: string }[];
  }[];
  const pirates = records.find((r) => r.id === '8224675151111585010')!;
  const gold = pirates.qa_pairs.map((p) => p.short_answers);

  it('finds one of the two release dates (hand computed: 1 of 2 pairs = 0.5)', () => {
    // Normalised answer "june 28 2003" is in the normalised answer; "july 9 2003" is not.
    expect(strEm('The first film premiered at Disneyland on June 28, 2003.', gold)).toBe(0.5);
  });

  it('finds both in a reference long answer and none in an unrelated one', () => {
    expect(strEm(pirates.annotations[0]!.long_answer, gold)).toBe(1);
    expect(strEm('It came out in 2003.', gold)).toBe(0);
  });

  it('is a plain substring test after normalisation, like the official scorer', () => {
    expect(strEm('in 1990', [['1'], ['199']])).toBe(1);
    expect(strEm('anything', [])).toBeNull();
  });
});

describe('Disambig-F1 and D-F1', () => {
  it('averages the token F1 of the reader answers per interpretation', () => {
    const gold = [['June 28, 2003'], ['July 9, 2003', '9 July 2003']];
    // "28 June 2003" vs "june 28 2003": same tokens, F1 1; "2003" vs "july 9 2003": P 1, R 1/3, F1 0.5.
    expect(disambigF1(['28 June 2003', '2003'], gold)).toBeCloseTo(0.75, 12);
    expect(() => disambigF1(['x'], gold)).toThrow(/1 reader answers for 2 interpretations/);
  });

  it('counts an interpretation covered at F1 >= 0.5 (ADF)', () => {
    const gold = [['New York City'], ['Los Angeles'], ['Chicago']];
    // "York" vs "new york city": F1 0.5 → covered; "Angeles" vs "los angeles": F1 2/3 → covered.
    expect(dF1(['York', 'Angeles'], gold)).toBeCloseTo(2 / 3, 12);
    expect(dF1(['Boston'], gold)).toBe(0);
  });

  it('DR is the geometric mean', () => {
    expect(geometricMean(0.36, 0.25)).toBeCloseTo(0.3, 12);
  });
});

describe('Porter stemmer (NLTK default variant, as rouge_score uses)', () => {
  it('stems the NLTK documentation example word list', () => {
    const words = 'caresses flies dies mules denied died agreed owned humbled sized meeting stating siezing itemization sensational traditional reference colonizer plotted';
    expect(words.split(' ').map(porterStem).join(' ')).toBe(
      'caress fli die mule deni die agre own humbl size meet state siez item sensat tradit refer colon plot',
    );
  });

  it("stems the first 150 words of Porter's published vocabulary as his output.txt, but for NLTK's four departures", () => {
    // Martin Porter's voc.txt and output.txt (tartarus.org/martin/PorterStemmer), first 150 entries.
    const vocabulary =
      'a aaron abaissiez abandon abandoned abase abash abate abated abatement abatements abates abbess abbey abbeys abbominable abbot abbots abbreviated abed abel aberga abergavenny abet abetting abhominable abhor abhorr abhorred abhorring abhors abhorson abide abides abilities ability abject abjectly abjects abjur abjure able abler aboard abode aboded abodements aboding abominable abominably abominations abortive abortives abound abounding about above abr abraham abram abreast abridg abridge abridged abridgment abroach abroad abrogate abrook abrupt abruption abruptly absence absent absey absolute absolutely absolv absolver abstains abstemious abstinence abstract absurd absyrtus abundance abundant abundantly abus abuse abused abuser abuses abusing abutting aby abysm ac academe academes accent accents accept acceptable acceptance accepted accepts access accessary accessible accidence accident accidental accidentally accidents accite accited accites acclamations accommodate accommodated accommodation accommodations accommodo accompanied accompany accompanying accomplices accomplish accomplished accomplishing accomplishment accompt accord accordant accorded accordeth according accordingly accords accost accosted account accountant accounted accounts accoutred accoutrement accoutrements accrue';
    const output =
      'a aaron abaissiez abandon abandon abas abash abat abat abat abat abat abbess abbei abbei abbomin abbot abbot abbrevi ab abel aberga abergavenni abet abet abhomin abhor abhorr abhor abhor abhor abhorson abid abid abil abil abject abjectli abject abjur abjur abl abler aboard abod abod abod abod abomin abomin abomin abort abort abound abound about abov abr abraham abram abreast abridg abridg abridg abridg abroach abroad abrog abrook abrupt abrupt abruptli absenc absent absei absolut absolut absolv absolv abstain abstemi abstin abstract absurd absyrtu abund abund abundantli abu abus abus abus abus abus abut abi abysm ac academ academ accent accent accept accept accept accept accept access accessari access accid accid accident accident accid accit accit accit acclam accommod accommod accommod accommod accommodo accompani accompani accompani accomplic accomplish accomplish accomplish accomplish accompt accord accord accord accordeth accord accordingli accord accost accost account account account account accoutr accoutr accoutr accru';
    // NLTK's variant keeps y after a vowel (abbey, absey) and lets a vowel-consonant stem take
    // step 1b's e (abed → abe); everything else is Porter's own output.
    const nltk: Record<string, string> = { abbey: 'abbey', abbeys: 'abbey', absey: 'absey', abed: 'abe' };
    const words = vocabulary.split(' ');
    const stems = output.split(' ');
    expect(words).toHaveLength(150);
    words.forEach((word, i) => expect([word, porterStem(word)]).toEqual([word, nltk[word] ?? stems[i]]));
  });

  it("follows Porter's 1980 rules on his step examples (whole stems worked by hand)", () => {
    const cases: Record<string, string> = {
      caress: 'caress',
      cats: 'cat',
      feed: 'feed',
      plastered: 'plaster',
      motoring: 'motor',
      sing: 'sing',
      hopping: 'hop',
      tanned: 'tan',
      falling: 'fall',
      hissing: 'hiss',
      fizzed: 'fizz',
      failing: 'fail',
      filing: 'file',
      happy: 'happi',
      sky: 'sky',
      skies: 'sky',
      relational: 'relat',
      conditional: 'condit',
      rational: 'ration',
      generously: 'gener',
      allowance: 'allow',
      adjustment: 'adjust',
      adoption: 'adopt',
      controll: 'control',
      roll: 'roll',
      enjoy: 'enjoy',
      dying: 'die',
    };
    for (const [word, stem] of Object.entries(cases)) expect([word, porterStem(word)]).toEqual([word, stem]);
  });
});

describe('ROUGE-L', () => {
  it("reproduces Lin's (2004) ROUGE-L example by LCS", () => {
    const ref = 'police killed the gunman'.split(' ');
    expect(lcsLength(ref, 'police kill the gunman'.split(' '))).toBe(3);
    expect(lcsLength(ref, 'the gunman kill police'.split(' '))).toBe(2);
    // Without stemming: S2 scores 3/4, S3 2/4 (Lin's values); with stemming "killed" = "kill".
    expect(rougeL('police kill the gunman', ['police killed the gunman'], { stemming: false })).toBeCloseTo(0.75, 12);
    expect(rougeL('the gunman kill police', ['police killed the gunman'], { stemming: false })).toBeCloseTo(0.5, 12);
    expect(rougeL('police kill the gunman', ['police killed the gunman'])).toBeCloseTo(1, 12);
  });

  it('tokenizes like rouge_score: non-alphanumerics split, words over three letters stemmed', () => {
    expect(rougeTokens("The U.S. films' releases, 2003!")).toEqual(['the', 'u', 's', 'film', 'releas', '2003']);
    expect(rougeTokens('Running dogs', false)).toEqual(['running', 'dogs']);
  });

  it('takes the best reference', () => {
    expect(rougeL('a b c d', ['a x x x', 'a b c d'], { stemming: false })).toBe(1);
    expect(rougeL('a b', [], {})).toBeNull();
  });

  it('rougeLsum unions the LCS over candidate sentences (hand computed)', () => {
    // Reference sentence r = [a b c d]; candidate sentences [a b] and [c d x]: the union of the two
    // LCS covers all four reference tokens: recall 4/4, precision 4/5, F = 8/9.
    const score = rougeLsumTokens([['a', 'b', 'c', 'd']], [['a', 'b'], ['c', 'd', 'x']]);
    expect(score.recall).toBe(1);
    expect(score.precision).toBeCloseTo(0.8, 12);
    expect(score.f).toBeCloseTo(8 / 9, 12);
    // The same tokens as one sequence (rougeL): "c d xy a b" vs "a b c d" has LCS 2.
    expect(rougeL('c d xy. A b.', ['a b c d'], { stemming: false, variant: 'rougeL' })).toBeCloseTo((2 * (2 / 5) * (2 / 4)) / (2 / 5 + 2 / 4), 12);
    expect(rougeL('c d xy. A b.', ['a b c d'], { stemming: false })).toBeCloseTo(8 / 9, 12);
  });

  it('splits sentences as ASQA does: Punkt on the lower-cased text, no break after a number or an initial before a lower-case word', () => {
    // Worked from punkt.py's rules (and what NLTK's own tokenizer gives, test/fixtures/punkt-builtin.json).
    expect(asqaSentences('Mr. Smith went to the U.S. in 1990. He stayed. J. K. Rowling wrote it! Done')).toEqual([
      'mr. smith went to the u.s. in 1990. he stayed.',
      'j. k. rowling wrote it!',
      'done',
    ]);
  });
});

describe('CondAmbigQA metrics', () => {
  it('citation precision is |cited ∩ gold| / |cited|', () => {
    expect(citationPrecision(['1', '2', '5', '5'], ['1', '5', '7'])).toBeCloseTo(2 / 3, 12);
    expect(citationPrecision([], ['1'])).toBe(0);
    expect(citationPrecision(['1'], [])).toBeNull();
  });

  it('scoreItem matches a citation by any name of a gold fragment and counts answers', () => {
    const item = scoreItem(
      { answer: 'In 1933 and in 1971.', shortAnswers: ['1933', '1971', '1934'], citations: ['2', 'GOLD STANDARD', 'Other page', 'other page'] },
      { interpretations: [['1933'], ['1971']], longAnswers: ['In 1933 for citizens, in 1971 for good.'], citedFragments: [['2', 'Nixon shock'], ['4', 'Gold standard']] },
    );
    expect(item.citation_precision).toBeCloseTo(2 / 3, 12);
    expect(item.answer_count).toBe(3);
    expect(item.answer_count_difference).toBe(1);
    expect(item.str_em).toBe(1);
    // D-F1 and token EM read the answer text (ADF, SQuAD): "in 1933 and in 1971" vs "1933" is F1 1/3, not covered.
    expect(item.d_f1).toBe(0);
    expect(item.token_em).toBe(0);
    // The named alternatives take the best of the short answers.
    expect(item.d_f1_short).toBe(1);
    expect(item.token_em_short).toBe(1);
  });
});

describe('latency, usage and aggregation', () => {
  it('quantiles interpolate like R type 7 (Python)', () => {
    const latencies = [120, 80, 300, 95, 1000, 150, 210, 60, 75, 400];
    expect(quantile(latencies, 0.5)).toBeCloseTo(135, 9);
    expect(quantile(latencies, 0.95)).toBeCloseTo(730, 9);
    expect(quantile(latencies, 0.99)).toBeCloseTo(946, 9);
    const usage = summarizeUsage(latencies.map((latencyMs, i) => ({ latencyMs, tokens: 100 * (i + 1), cost: 0.001 })));
    expect(usage.latencyMs.p50).toBeCloseTo(135, 9);
    expect(usage.tokensPerQuery).toBe(550);
    expect(usage.costPerQuery).toBeCloseTo(0.001, 12);
  });

  it('aggregates in percent, leaves out null items and derives the corpus DR-F1 from the means', () => {
    const items = [
      { str_em: 1, d_f1: 1, rouge_l: 0.25, answer_count_difference: 1 },
      { str_em: 0, d_f1: 0.44, rouge_l: 0.25, answer_count_difference: -1 },
      { str_em: null, d_f1: 0.72, rouge_l: 0.25, answer_count_difference: 3 },
    ];
    const out = aggregateMetrics(items, { metrics: ['str_em', 'd_f1', 'rouge_l', 'dr_f1_corpus', 'answer_count_difference'] });
    expect(out.str_em!.value).toBe(50);
    expect(out.str_em!.n).toBe(2);
    expect(out.d_f1!.value).toBeCloseTo(72, 9);
    expect(out.dr_f1_corpus!.value).toBeCloseTo(100 * Math.sqrt(0.72 * 0.25), 9);
    expect(out.answer_count_difference!.value).toBeCloseTo(1, 12);
    expect(out.answer_count_difference!.sd).toBeCloseTo(2, 12);
    const ci = out.d_f1!.ci!;
    expect(ci.low).toBeLessThanOrEqual(72);
    expect(ci.high).toBeGreaterThanOrEqual(72);
    const byType = aggregateByGroup(items, (i) => (i === 0 ? 'semantic' : 'syntactic'), { metrics: ['str_em'] });
    expect(byType.semantic!.str_em!.value).toBe(100);
    expect(byType.syntactic!.str_em!.value).toBe(0);
  });

  it("a metric's interval is the generic seeded bootstrap of its mean over the drawn items that have it, to the bit", () => {
    // Missing values in some columns, one column complete, one with a single value: the shared
    // resamples of aggregateMetrics must give each column exactly what resampling it alone gives.
    const random = seededRandom(11);
    const items = Array.from({ length: 257 }, (_, k) => ({
      str_em: random() < 0.3 ? null : random() < 0.5 ? 1 : 0,
      d_f1: random(),
      rouge_l: random() < 0.8 ? undefined : random(),
      answer_count_difference: k === 100 ? 2 : null,
    }));
    const names = ['str_em', 'd_f1', 'rouge_l', 'answer_count_difference'] as const;
    const out = aggregateMetrics(items, { metrics: [...names], seed: 5, resamples: 400 });
    for (const name of names) {
      const scale = isPercentMetric(name) ? 100 : 1;
      const expected = bootstrapInterval(
        items.length,
        (indices) => {
          let sum = 0;
          let count = 0;
          for (const k of indices) {
            const v = items[k]![name];
            if (typeof v === 'number') {
              sum += v;
              count++;
            }
          }
          return count ? (sum / count) * scale : Number.NaN;
        },
        { seed: 5, resamples: 400 },
      );
      expect(out[name]!.ci, name).toEqual(expected);
    }
    expect(out.answer_count_difference!.ci).toEqual({ low: 2, high: 2 });
  });

  it('bootstrap intervals are seeded and shrink with more data', () => {
    const small = Array.from({ length: 20 }, (_, i) => i % 2);
    const large = Array.from({ length: 2000 }, (_, i) => i % 2);
    const stat = (values: number[]) => (idx: Int32Array) => Array.from(idx).reduce((s, k) => s + values[k]!, 0) / idx.length;
    const a = bootstrapInterval(small.length, stat(small), { seed: 7 })!;
    const b = bootstrapInterval(small.length, stat(small), { seed: 7 })!;
    expect(a).toEqual(b);
    const c = bootstrapInterval(large.length, stat(large), { seed: 7 })!;
    expect(c.high - c.low).toBeLessThan(a.high - a.low);
    expect(c.low).toBeLessThan(0.5);
    expect(c.high).toBeGreaterThan(0.5);
  });
});

describe('comparison tables', () => {
  const rows = [
    { method: 'NaiveRAG', model: 'gpt-4o', metrics: { str_em: { value: 41.25, sd: 30.1, ci: { low: 38.5, high: 44 }, n: 300 } } },
    { method: 'CLARION', model: 'gpt-4o', metrics: { str_em: { value: 55.5, sd: 28, ci: { low: 52.25, high: 58.75 }, n: 300 } } },
  ];
  const table = comparisonTable(rows, { rowKeys: ['method', 'model'], metrics: ['str_em'] });

  it('writes CSV with quoted cells', () => {
    const csv = toCsv({ ...table, rows: [...table.rows, { keys: ['a,"b"', 'x'], cells: [null] }] });
    expect(csv.split('\n')[0]).toBe('method,model,str_em,str_em_sd,str_em_ci_low,str_em_ci_high,str_em_n');
    expect(csv.split('\n')[1]).toBe('NaiveRAG,gpt-4o,41.25,30.10,38.50,44.00,300');
    expect(csv.split('\n')[3]).toBe('"a,""b""",x,,,,,');
  });

  it('writes Markdown and LaTeX with mean ± SD and the interval', () => {
    expect(toMarkdown(table)).toContain('| CLARION | gpt-4o | 55.50 ± 28.00 [52.25, 58.75] |');
    // Columns carry the metric's label, not its id (the CSV keeps ids: it is data).
    expect(toMarkdown(table).split('\n')[0]).toMatch(/^\| method +\| model +\| STR-EM +\|$/);
    const latex = toLatex(table);
    expect(latex).toContain('\\begin{tabular}{llr}');
    expect(latex).toContain('CLARION & gpt-4o & 55.50 $\\pm$ 28.00 [52.25, 58.75] \\\\');
    expect(toLatex({ ...table, rows: [{ keys: ['50% & co_x', 'm'], cells: [null] }] })).toContain('50\\% \\& co\\_x & m & --- \\\\');
  });
});

describe('predictions file', () => {
  it('reads JSON Lines with a BOM, CRLF, blank lines, whole-number ids and optional fields', () => {
    const text = '\uFEFF{"source_id": 12, "answer": "a", "short_answers": null}\r\n\r\n{"source_id": "x", "answer": "", "short_answers": ["b"], "citations": [3, "Page"], "other": 1}\n';
    const parsed = parsePredictions(text, 'p.jsonl');
    expect(parsed.lines).toBe(2);
    expect(parsed.predictions.get('12')).toEqual({ sourceId: '12', answer: 'a', shortAnswers: null, citations: null, line: 1 });
    expect(parsed.predictions.get('x')).toMatchObject({ shortAnswers: ['b'], citations: ['3', 'Page'], line: 3 });
  });

  it('lists every problem with its line and refuses the file', () => {
    try {
      parsePredictions('{"answer": "a"}\n{"source_id": "", "answer": "a"}\nnull\n', 'p.jsonl');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PredictionsError);
      const problems = (error as PredictionsError).problems;
      expect(problems.map((p) => `${p.location} ${p.field}`)).toEqual(['p.jsonl: line 1 source_id', 'p.jsonl: line 2 source_id', 'p.jsonl: line 3 ']);
      expect((error as Error).message).toMatch(/^p\.jsonl: 3 problems, nothing scored: /);
    }
  });
});
