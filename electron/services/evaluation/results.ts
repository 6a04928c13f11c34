import { doneItems, itemCountsByType, pairedItems } from '../../../db/queries/eval-items';
import { getEvalRun, listEvalRuns, rowToEvalRunSummary } from '../../../db/queries/eval-runs';
import type { WritableDB } from '../../../db/sql';
import { AppError, type EvalComparison, type EvalRunSummary, type EvalTableRow } from '../../../shared/api';
import { aggregateByGroup, aggregateMetrics, compositesOf, isPercentMetric, summarizeUsage, type MetricSummary, type UsageSummary } from '../../../shared/eval/metrics';
import { mcnemar, pairedBootstrap, wilcoxonSignedRank } from '../../../shared/eval/paired';
import { condqaCombined } from '../../../shared/eval/geval';
import { mean } from '../../../shared/statistics';
import { punktParams } from './punkt-params';

/**
 * What a run's results say, honestly counted: its summary (metrics over the items scored, the
 * items whose reader failed counted beside Disambig-F1), the method × model and method × type
 * tables (n = items scored, failed items counted beside it), and paired comparisons of two runs
 * in which an item one run failed on counts as a failure unless errors are excluded, and says so.
 */

/** Item values that are counts about the scoring, not metrics to average. */
const NOT_AVERAGED = new Set(['reader_errors']);

export interface RunAggregates {
  metrics: Record<string, MetricSummary>;
  byType: Record<string, Record<string, MetricSummary>>;
  usage: UsageSummary | null;
  /** Done items whose reader failed, overall and per type. */
  readerErrors: number;
  readerErrorsByType: Record<string, number>;
  /** The metric conventions the run was scored under (2: issue 19's, docs/evaluation-metrics.md) and the Punkt parameters ROUGE-L split with. */
  metricsVersion: number;
  punkt: string;
}

export const METRICS_VERSION = 2;

/** Overall and per-type metrics with bootstrap CIs, per-query usage and reader errors, over a run's done items. */
export function aggregates(db: WritableDB, runId: number): RunAggregates {
  const items: Record<string, number | null>[] = [];
  const types: string[] = [];
  const usage: { latencyMs: number; tokens: number; cost: number }[] = [];
  const readerErrorsByType: Record<string, number> = {};
  for (const row of doneItems(db, runId)) {
    const metrics = JSON.parse(row.metrics) as Record<string, unknown>;
    items.push(Object.fromEntries(Object.entries(metrics).filter(([k, v]) => !NOT_AVERAGED.has(k) && (typeof v === 'number' || v === null))) as Record<string, number | null>);
    types.push(row.ambiguity_type);
    usage.push({ latencyMs: row.latency_ms ?? 0, tokens: row.prompt_tokens + row.completion_tokens, cost: row.cost_usd });
    if (typeof metrics.reader_errors === 'number' && metrics.reader_errors > 0) readerErrorsByType[row.ambiguity_type] = (readerErrorsByType[row.ambiguity_type] ?? 0) + 1;
  }
  const readerErrors = Object.values(readerErrorsByType).reduce((a, b) => a + b, 0);
  const scoring = { readerErrors, readerErrorsByType, metricsVersion: METRICS_VERSION, punkt: punktParams().source };
  if (items.length === 0) return { metrics: {}, byType: {}, usage: null, ...scoring };
  const present = new Set(items.flatMap((i) => Object.keys(i)));
  const names = [...present, ...compositesOf(present)];
  // Bootstrap cost grows with n; 200 resamples still give a stable 95% interval at this size.
  const resamples = items.length > 20_000 ? 200 : 1000;
  const byType = aggregateByGroup(items, (i) => types[i]!, { metrics: names, resamples });
  return {
    metrics: withCombined(aggregateMetrics(items, { metrics: names, resamples })),
    byType: Object.fromEntries(Object.entries(byType).map(([t, m]) => [t, withCombined(m)])),
    usage: summarizeUsage(usage),
    ...scoring,
  };
}

/**
 * CondAmbigQA's combined score (0-1): the mean of the corpus condition, answer and citation
 * scores, where all three exist (only the setting with model-found conditions has all three).
 */
function withCombined(metrics: Record<string, MetricSummary>): Record<string, MetricSummary> {
  const [condition, answer, citation] = [metrics.condition_score, metrics.answer_score, metrics.citation_precision];
  const value = condqaCombined(condition?.value ?? null, answer?.value ?? null, citation?.value === undefined || citation.value === null ? null : citation.value / 100);
  if (value === null) return metrics;
  return { ...metrics, condqa_combined: { value, sd: null, ci: null, n: Math.min(condition!.n, answer!.n, citation!.n) } };
}

export function evalRunSummary(db: WritableDB, id: number): EvalRunSummary {
  const row = getEvalRun(db, id);
  if (!row) throw new AppError('not_found', `No evaluation run ${id}`);
  return rowToEvalRunSummary(row);
}

export function evalRunSummaries(db: WritableDB, limit: number): EvalRunSummary[] {
  return listEvalRuns(db, limit).map(rowToEvalRunSummary);
}

const COMPARED = ['str_em', 'disambig_f1', 'rouge_l', 'token_f1', 'd_f1', 'judge_mean', 'citation_precision'];

type Side = { status: 'done' | 'failed'; metrics: Record<string, unknown> };

/** One side's value of a metric in a pair: its score; 0 for a failed item when the other side has a score; undefined when neither has one. */
function sideValue(side: Side, other: Side, metric: string): number | undefined {
  if (side.status === 'done') return typeof side.metrics[metric] === 'number' ? (side.metrics[metric] as number) : undefined;
  return other.status === 'done' && typeof other.metrics[metric] === 'number' ? 0 : undefined;
}

/**
 * Two runs on the same items: paired bootstrap, Wilcoxon signed-rank and McNemar per metric, over
 * every item both finished. Under `fail` (the default) an item one run failed on scores 0 there
 * and counts as incorrect; under `exclude` every pair with a failure is left out and counted.
 */
export function compareEvalRuns(db: WritableDB, a: number, b: number, threshold: number, resamples: number, errors: 'fail' | 'exclude' = 'fail'): EvalComparison {
  const runA = evalRunSummary(db, a);
  const runB = evalRunSummary(db, b);
  const all = pairedItems(db, a, b).map((p) => ({
    a: { status: p.status_a, metrics: JSON.parse(p.a) as Record<string, unknown> } as Side,
    b: { status: p.status_b, metrics: JSON.parse(p.b) as Record<string, unknown> } as Side,
  }));
  if (all.length === 0) throw new AppError('conflict', `Runs ${a} and ${b} share no finished item (they must be on the same release split or dataset)`);
  const failedA = all.filter((p) => p.a.status === 'failed' && p.b.status === 'done').length;
  const failedB = all.filter((p) => p.b.status === 'failed' && p.a.status === 'done').length;
  const failedBoth = all.filter((p) => p.a.status === 'failed' && p.b.status === 'failed').length;
  const pairs = errors === 'exclude' ? all.filter((p) => p.a.status === 'done' && p.b.status === 'done') : all;
  const metrics = COMPARED.flatMap((metric) => {
    const both = pairs.flatMap((p) => {
      const x = sideValue(p.a, p.b, metric);
      const y = sideValue(p.b, p.a, metric);
      return x === undefined || y === undefined ? [] : [[x, y] as const];
    });
    if (both.length === 0) return [];
    const scale = isPercentMetric(metric) ? 100 : 1;
    const xs = both.map(([x]) => x * scale);
    const ys = both.map(([, y]) => y * scale);
    const boot = pairedBootstrap(xs, ys, { resamples });
    const wilcoxon = wilcoxonSignedRank(xs, ys);
    // Correct = the item's score reaches the threshold (on the 0-1 scale; judge: on 0-5 scaled to 0-1).
    const unit = metric === 'judge_mean' ? 5 : 1;
    const correct = (v: number) => v / scale / unit >= threshold;
    const mc = mcnemar(xs.map(correct), ys.map(correct));
    return [
      {
        metric,
        meanA: mean(xs),
        meanB: mean(ys),
        bootstrap: { difference: boot.difference, ciLow: boot.ci?.low ?? null, ciHigh: boot.ci?.high ?? null, pValue: boot.pValue },
        wilcoxon: { statistic: wilcoxon.statistic, pValue: wilcoxon.pValue, nonZero: wilcoxon.nonZero },
        mcnemar: { onlyA: mc.onlyA, onlyB: mc.onlyB, pValue: mc.pValue, method: mc.method, threshold },
      },
    ];
  });
  return { a: runA, b: runB, paired: pairs.length, errorsPolicy: errors, failedA, failedB, failedBoth, excluded: all.length - pairs.length, metrics };
}

/**
 * Method × model rows (one per run) and method × type rows (one per run and type): n is the items
 * scored, `failed` the items whose method failed (left out of the means), `readerErrors` the done
 * items whose Disambig-F1 is left out. Runs with nothing finished are not shown.
 */
export function evalTables(db: WritableDB, runs: readonly number[]): { byModel: EvalTableRow[]; byType: EvalTableRow[] } {
  const summaries = (runs.length ? runs.map((id) => evalRunSummary(db, id)) : evalRunSummaries(db, 500)).filter((s) => s.done + s.failed > 0);
  const row = (s: EvalRunSummary) => ({ method: s.method, methodLabel: s.methodLabel, model: s.model, runId: s.id, errorsPolicy: 'excluded' as const });
  return {
    byModel: summaries.map((s) => ({ ...row(s), type: null, n: s.done, failed: s.failed, readerErrors: s.readerErrors, metrics: s.metrics })),
    byType: summaries.flatMap((s) => {
      const counts = new Map<string, { done: number; failed: number }>();
      for (const c of itemCountsByType(db, s.id)) {
        const entry = counts.get(c.ambiguity_type) ?? { done: 0, failed: 0 };
        if (c.status === 'done') entry.done += c.n;
        if (c.status === 'failed') entry.failed += c.n;
        counts.set(c.ambiguity_type, entry);
      }
      const readerErrors = (JSON.parse(getEvalRun(db, s.id)!.summary) as { readerErrorsByType?: Record<string, number> }).readerErrorsByType ?? {};
      return [...counts]
        .filter(([, c]) => c.done + c.failed > 0)
        .map(([type, c]) => ({ ...row(s), type, n: c.done, failed: c.failed, readerErrors: readerErrors[type] ?? 0, metrics: s.byType[type] ?? {} }));
    }),
  };
}
