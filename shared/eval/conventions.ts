/**
 * Every metric convention in one table: which paper and reference scorer a metric follows, how
 * one item is scored, what an interpretation without gold answers and an empty or failed
 * prediction give, how items aggregate, and the alternatives reported under their own names.
 * docs/evaluation-metrics.md shows this table (a test keeps the two equal) and the notes of
 * `evaluation:score` are written from it, so the three cannot drift.
 */

export interface MetricConvention {
  metric: string;
  /** The paper (and the reference implementation followed, where there is one). */
  source: string;
  definition: string;
  /** What an interpretation without gold short answers, or an item without the gold the metric needs, gives. */
  emptyGold: string;
  /** What an empty answer, and an item whose method failed, give. */
  emptyPrediction: string;
  aggregation: 'item mean' | 'corpus composite' | 'per-item composite, item mean';
  alternatives: string;
}

const FAILED = 'a failed item has no score: left out of the mean and counted beside n (comparisons count it as 0 unless errors are excluded)';

export const METRIC_CONVENTIONS: readonly MetricConvention[] = [
  {
    metric: 'str_em',
    source: 'ASQA (Stelmakh et al. 2022), scoring.py `str_em`; MARCH §5',
    definition: 'per interpretation, 1 when a gold short answer or alias, SQuAD-normalised, is a substring of the normalised long answer; mean over all the interpretations',
    emptyGold: 'an interpretation without gold answers counts 0 (as ASQA); no interpretation at all: not applicable',
    emptyPrediction: `empty answer: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'rouge_l',
    source: 'ASQA scoring.py `rouge` with rouge_score rougeLsum',
    definition: "F of summary-level LCS: both texts lower-cased and split with Punkt (built-in parameters unless NLTK's punkt_tab is given), joined and split on newlines, rouge_score tokens, Porter stemming over 3 characters; best over the reference long answers",
    emptyGold: 'no reference long answer: not applicable',
    emptyPrediction: `empty answer: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: '`--rouge rougeL` (no sentence split); ASQA reports a bootstrap median, we the mean',
  },
  {
    metric: 'token_em',
    source: 'SQuAD v1.1 evaluate script; ADF §4 (EM/F1)',
    definition: "SQuAD exact match of the answer text with a gold answer of any interpretation; the best over the gold answers",
    emptyGold: 'no gold answer in any interpretation: not applicable',
    emptyPrediction: `empty answer: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: '`token_em_short`',
  },
  {
    metric: 'token_f1',
    source: 'SQuAD v1.1 evaluate script; ADF §4 (F1 = max over valid answers)',
    definition: 'SQuAD token F1 of the answer text against each gold answer of any interpretation; the best',
    emptyGold: 'no gold answer in any interpretation: not applicable',
    emptyPrediction: `empty answer: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: '`token_f1_short`',
  },
  {
    metric: 'token_em_short',
    source: 'ours (named alternative to token_em)',
    definition: "token EM of the method's short answers, the best of them (listing candidates is not penalised)",
    emptyGold: 'as token_em',
    emptyPrediction: `no short answers given (null): not applicable; an explicit empty list: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'this is the alternative',
  },
  {
    metric: 'token_f1_short',
    source: 'ours (named alternative to token_f1)',
    definition: "token F1 of the method's short answers, the best over them and the gold answers",
    emptyGold: 'as token_f1',
    emptyPrediction: `no short answers given (null): not applicable; an explicit empty list: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'this is the alternative',
  },
  {
    metric: 'd_f1',
    source: 'ADF §4 (D-F1)',
    definition: 'share of the gold interpretations covered: the answer text reaches token F1 ≥ 0.5 against one of its gold answers',
    emptyGold: 'an interpretation without gold answers is not covered; no interpretation: not applicable',
    emptyPrediction: `empty answer: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: '`d_f1_short` (ADF does not say what the prediction is for ASQA long answers; its structured synthesis names one answer per intent)',
  },
  {
    metric: 'd_f1_short',
    source: 'ours (named alternative to d_f1)',
    definition: "D-F1 with the method's short answers as the predictions (an interpretation is covered when any of them reaches F1 ≥ 0.5)",
    emptyGold: 'as d_f1',
    emptyPrediction: `no short answers given (null): not applicable; an explicit empty list: 0; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'this is the alternative',
  },
  {
    metric: 'dr_f1',
    source: 'ADF §4 (DR-F1 = √(D-F1 × ROUGE-L)); Table 2 values fit the per-item form',
    definition: '√(d_f1 × rouge_l) of each item, averaged over items',
    emptyGold: 'not applicable where either part is',
    emptyPrediction: `empty answer: 0; ${FAILED}`,
    aggregation: 'per-item composite, item mean',
    alternatives: '`dr_f1_corpus`',
  },
  {
    metric: 'dr_f1_corpus',
    source: 'ours (named alternative to dr_f1)',
    definition: '√ of the corpus means of d_f1 and rouge_l',
    emptyGold: 'over the items where each part applies',
    emptyPrediction: FAILED,
    aggregation: 'corpus composite',
    alternatives: 'this is the alternative',
  },
  {
    metric: 'disambig_f1',
    source: 'ASQA scoring.py `score_qa_accuracy`; MARCH §5 (a frozen extractive reader)',
    definition: 'for each gold clarified question, the reader (an HTTP extractive reader or an LLM reader; the run names which) answers from the long answer alone; SQuAD token F1 against the best gold answer; mean over all interpretations',
    emptyGold: 'an interpretation without gold answers counts 0 (ASQA would stop on it); no interpretation: not applicable',
    emptyPrediction: `a valid empty reader answer: F1 0. A reader that times out, errs or answers unusably makes the item's Disambig-F1 not applicable, never 0: the item notes why and the run counts reader errors beside the metric; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'LLM reader vs HTTP extractive reader (tables name the reader)',
  },
  {
    metric: 'dr',
    source: 'ASQA `compute_all_scores` (DR = √(Disambig-F1 × ROUGE-L))',
    definition: '√ of the corpus means of disambig_f1 and rouge_l',
    emptyGold: 'over the items where each part applies',
    emptyPrediction: 'items with a reader error have no Disambig-F1 and enter only the ROUGE-L mean; the count of items with both is its n',
    aggregation: 'corpus composite',
    alternatives: 'none',
  },
  {
    metric: 'march_avg',
    source: 'MARCH Table 3 "Avg (%)"',
    definition: '(STR-EM + Disambig-F1) / 2 of the corpus values',
    emptyGold: 'over the items where each part applies',
    emptyPrediction: FAILED,
    aggregation: 'corpus composite',
    alternatives: 'none',
  },
  {
    metric: 'judge_mean',
    source: 'MARCH §5 and Table 9 (LLM-as-a-judge, four criteria 0-5)',
    definition: 'the judge model grades relevance, faithfulness, informativeness and correctness 0-5 against the gold; judge_mean is their mean (judge_* keep each criterion)',
    emptyGold: 'graded against what gold there is',
    emptyPrediction: `an unusable judge reply: not applicable, with judge_error on the item; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'condition_score',
    source: 'CondAmbigQA §4.1 (G-Eval as DeepEval implements it)',
    definition: "the judge model grades each generated condition against the reference conditions (0-1); the item's score is the mean over its pairs; how each grade was obtained is stored with it",
    emptyGold: 'an item without reference conditions: not applicable, with the reason',
    emptyPrediction: `settings that state no conditions (no-condition, closed-book) do not report it; an output that should state conditions and states none: 0, noted on the item; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'answer_score',
    source: 'CondAmbigQA §4.1 (G-Eval as DeepEval implements it)',
    definition: 'the judge model grades each generated answer against the reference answers (0-1); mean over the pairs',
    emptyGold: 'an item without reference answers: not applicable',
    emptyPrediction: `no answer: 0, noted; a grade the judge could not give (or no token probabilities in logprobs mode): not applicable, with the reason; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'condqa_combined',
    source: 'CondAmbigQA Table 2 "Combined" (a weighted average with penalties whose weights the paper does not give)',
    definition: 'mean of the corpus condition_score, answer_score and citation_precision (as 0-1); the published rows equal this plain mean',
    emptyGold: 'only where all three parts exist (the condqa setting)',
    emptyPrediction: `as its parts; ${FAILED}`,
    aggregation: 'corpus composite',
    alternatives: 'none',
  },
  {
    metric: 'citation_precision',
    source: 'CondAmbigQA eq. 1 (Citation Score)',
    definition: "distinct cited fragments that a gold pair cites, over all distinct cited; a fragment is named by its number in the item's frozen list (or its title or source id in a predictions file); a number the question does not have counts as a wrong citation and is noted on the item",
    emptyGold: 'no gold citation: not applicable ("no gold citations")',
    emptyPrediction: `nothing cited: 0 (our reading of the paper's 0/0); ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'answer_count',
    source: 'CondAmbigQA §4.1 (Answer Count)',
    definition: "number of short answers (or condition-answer pairs) the method gave",
    emptyGold: 'does not depend on the gold',
    emptyPrediction: `a method that gives no separate answers: not applicable; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'answer_count_difference',
    source: 'CondAmbigQA §4.1 (Count Difference)',
    definition: 'answer_count minus the number of gold interpretations (positive: over-generation)',
    emptyGold: 'counts every gold interpretation',
    emptyPrediction: `as answer_count; ${FAILED}`,
    aggregation: 'item mean',
    alternatives: 'none',
  },
  {
    metric: 'usage',
    source: 'ADF Table 2 (latency, tokens per query); MARCH Table 10 (latency)',
    definition: 'per item, the sum over all its calls (cached calls counted with what they cost when made) plus retrieval time; latency p50/p95/p99 and means per query',
    emptyGold: 'does not depend on the gold',
    emptyPrediction: 'every finished item counts, failed ones included only in the run totals',
    aggregation: 'item mean',
    alternatives: 'none',
  },
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The table as Markdown (docs/evaluation-metrics.md holds exactly this between its markers). */
export function conventionsMarkdown(): string {
  const header = '| metric | paper and reference | definition | empty gold | empty or failed prediction | aggregation | named alternatives |';
  const rule = '|---|---|---|---|---|---|---|';
  const rows = METRIC_CONVENTIONS.map((c) => `| \`${c.metric}\` | ${cell(c.source)} | ${cell(c.definition)} | ${cell(c.emptyGold)} | ${cell(c.emptyPrediction)} | ${c.aggregation} | ${cell(c.alternatives)} |`);
  return [header, rule, ...rows].join('\n');
}

/** One line per metric, for the notes of a report. */
export function conventionNote(metric: string): string | null {
  const c = METRIC_CONVENTIONS.find((x) => x.metric === metric);
  return c ? `${c.source}: ${c.definition}. Empty gold: ${c.emptyGold}. Empty prediction: ${c.emptyPrediction}. Aggregation: ${c.aggregation}.` : null;
}
