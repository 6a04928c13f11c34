/**
 * One name per metric and per status, for every client: the UI's tables and cards, the CLI's
 * tables and the docs (test/unit/labels.test.ts checks that docs/researcher.md names each metric
 * as this table does). Metric ids stay in data (`str_em`, JSON keys, URLs); people read labels.
 *
 * Two pairs are easily confused and are told apart by the paper that defines them: ASQA's
 * Disambig-F1 (a reader answers each clarified question from the long answer) and ADF's D-F1 (the
 * share of interpretations some predicted answer covers), and their composites DR (ASQA) and DR-F1
 * (ADF).
 */

import { METHOD_INFO } from './methods';

/** How a metric's corpus value reads: percent, a 0-5 or 0-1 grade, a count, milliseconds, dollars. */
export type MetricUnit = 'percent' | 'grade-0-5' | 'grade-0-1' | 'count' | 'ms' | 'usd';

export interface MetricLabel {
  /** The name people read, the same in every client. */
  label: string;
  /** Where the metric comes from (the paper or the kind of measure). */
  source: string;
  unit: MetricUnit;
  /** One line, for tooltips and the docs. */
  description: string;
}

export const METRIC_LABELS = {
  str_em: { label: 'STR-EM', source: 'ASQA', unit: 'percent', description: 'gold short answers (or aliases) found in the long answer, per interpretation' },
  disambig_f1: { label: 'Disambig-F1 (ASQA)', source: 'ASQA', unit: 'percent', description: "token F1 of a reader's answer to each clarified question, read from the long answer" },
  rouge_l: { label: 'ROUGE-L', source: 'ASQA', unit: 'percent', description: 'longest common subsequence F-measure against the reference long answers' },
  dr: { label: 'DR (ASQA)', source: 'ASQA', unit: 'percent', description: 'geometric mean of Disambig-F1 (ASQA) and ROUGE-L' },
  march_avg: { label: 'Avg (MARCH)', source: 'MARCH', unit: 'percent', description: 'mean of STR-EM and Disambig-F1 (ASQA), as MARCH Table 3 reports' },
  token_em: { label: 'Token EM', source: 'SQuAD', unit: 'percent', description: 'exact match of the answer with a gold answer, after normalisation' },
  token_f1: { label: 'Token F1', source: 'SQuAD', unit: 'percent', description: 'token overlap F1 of the answer with the best gold answer' },
  token_em_short: { label: 'Token EM (short answers)', source: 'SQuAD', unit: 'percent', description: "token EM of the method's short answers, the best of them" },
  token_f1_short: { label: 'Token F1 (short answers)', source: 'SQuAD', unit: 'percent', description: "token F1 of the method's short answers, the best of them" },
  d_f1: { label: 'D-F1 (ADF)', source: 'ADF', unit: 'percent', description: 'share of interpretations some predicted answer matches at token F1 ≥ 0.5' },
  d_f1_short: { label: 'D-F1 (ADF, short answers)', source: 'ADF', unit: 'percent', description: "D-F1 with the method's short answers as the predictions" },
  dr_f1: { label: 'DR-F1 (ADF)', source: 'ADF', unit: 'percent', description: 'geometric mean of D-F1 (ADF) and ROUGE-L' },
  dr_f1_corpus: { label: 'DR-F1 (ADF, corpus)', source: 'ADF', unit: 'percent', description: 'geometric mean of the corpus means of D-F1 (ADF) and ROUGE-L' },
  citation_precision: { label: 'Citation precision', source: 'CondAmbigQA', unit: 'percent', description: 'share of the cited fragments that the gold interpretations cite' },
  answer_count: { label: 'Answer count', source: 'CondAmbigQA', unit: 'count', description: 'short answers given' },
  answer_count_difference: { label: 'Answer-count difference', source: 'CondAmbigQA', unit: 'count', description: 'short answers given minus gold interpretations' },
  interpretations_covered: { label: 'Interpretations covered', source: 'ASQA', unit: 'count', description: 'gold interpretations whose short answer the long answer contains' },
  condition_score: { label: 'Condition score', source: 'CondAmbigQA', unit: 'grade-0-1', description: "the judge's grade of the stated conditions against the reference ones" },
  answer_score: { label: 'Answer score', source: 'CondAmbigQA', unit: 'grade-0-1', description: "the judge's grade of the answers under their conditions" },
  judge_mean: { label: 'Judge (0-5)', source: 'MARCH', unit: 'grade-0-5', description: "mean of the judge's four grades" },
  judge_relevance: { label: 'Judge: relevance', source: 'MARCH', unit: 'grade-0-5', description: 'does the answer address the question' },
  judge_faithfulness: { label: 'Judge: faithfulness', source: 'MARCH', unit: 'grade-0-5', description: 'is every claim supported by the evidence' },
  judge_informativeness: { label: 'Judge: informativeness', source: 'MARCH', unit: 'grade-0-5', description: 'does it cover the interpretations' },
  judge_correctness: { label: 'Judge: correctness', source: 'MARCH', unit: 'grade-0-5', description: 'are the answers right' },
  latency_ms: { label: 'Latency', source: 'usage', unit: 'ms', description: 'time of every call of the query, plus retrieval' },
  cost_usd: { label: 'Cost', source: 'usage', unit: 'usd', description: 'dollars spent on the query (a cached call counts what it cost when made)' },
} as const satisfies Record<string, MetricLabel>;

export type LabelledMetric = keyof typeof METRIC_LABELS;

/** A metric's label; a metric not in the table yet reads as words ("new_metric" → "new metric"), never as its id. */
export function metricLabel(id: string): string {
  return (METRIC_LABELS as Record<string, MetricLabel>)[id]?.label ?? id.replace(/_/g, ' ');
}

export function metricInfo(id: string): MetricLabel | undefined {
  return (METRIC_LABELS as Record<string, MetricLabel>)[id];
}

/**
 * A metric's value as people read it: percent without a sign (83.3), grades with two decimals,
 * milliseconds rounded, dollars with four decimals. Values are in the unit the run summary holds
 * (percent metrics already × 100 there) unless `fraction` says the value is still 0-1 (an item).
 */
export function formatMetricValue(id: string, value: number | null | undefined, options: { fraction?: boolean; digits?: number } = {}): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const unit = metricInfo(id)?.unit;
  if (unit === 'percent') return (options.fraction ? value * 100 : value).toFixed(options.digits ?? 1);
  if (unit === 'ms') return `${Math.round(value)} ms`;
  if (unit === 'usd') return `$${value.toFixed(4)}`;
  if (unit === 'count') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  return value.toFixed(options.digits ?? 2);
}

/** A QA method's name (`naive-rag` → "NaiveRAG"), from the method table. */
export function methodLabel(method: string): string {
  return (METHOD_INFO as Record<string, { label: string } | undefined>)[method]?.label ?? method;
}

// ---- statuses --------------------------------------------------------------------------------------

/** An evaluation item: waiting, answered (with metrics), or failed (with its reason). */
export const ITEM_STATUS_LABELS = { pending: 'pending', done: 'answered', failed: 'failed' } as const;
/** An evaluation run. */
export const RUN_STATUS_LABELS = { running: 'running', done: 'done', failed: 'failed', cancelled: 'cancelled' } as const;

export function itemStatusLabel(status: string): string {
  return (ITEM_STATUS_LABELS as Record<string, string>)[status] ?? status;
}

/**
 * A run's status in words, saying when items failed: "done", "done with 37 failed", "failed: all
 * 38 items failed", "cancelled (12 of 38 done)", "stopped (12 of 38 done, 2 failed)". The stored
 * status says whether the run ended; this says how it went. (`done` counts the items answered.)
 */
export function runStatusLabel(run: { status: string; total: number; done: number; failed: number }): string {
  const { status, total, done, failed } = run;
  if (status === 'running') return RUN_STATUS_LABELS.running;
  if (total > 0 && failed === total) return `failed: all ${total} items failed`;
  const counts = `${done} of ${total} done${failed ? `, ${failed} failed` : ''}`;
  if (status === 'cancelled') return `cancelled (${counts})`;
  if (status === 'failed') return `stopped (${counts})`;
  return failed ? `done with ${failed} failed` : RUN_STATUS_LABELS.done;
}
