import type { EvalTableRow } from '../../../shared/api';
import { metricLabel } from '../../../shared/eval/labels';
import type { MetricSummary } from '../../../shared/eval/metrics';
import { comparisonTable, toCsv, toLatex, toMarkdown } from '../../../shared/eval/tables';

/** The metrics the comparison tables show, in order, named from the shared label table. */
export const TABLE_METRICS: { key: string; label: string }[] = ['str_em', 'disambig_f1', 'rouge_l', 'dr', 'd_f1', 'dr_f1', 'citation_precision', 'judge_mean'].map((key) => ({
  key,
  label: metricLabel(key),
}));

export function formatMetric(m: MetricSummary | undefined): string {
  if (!m || m.value === null) return '–';
  return `${m.value.toFixed(2)}${m.sd !== null ? ` ± ${m.sd.toFixed(1)}` : ''}`;
}

/** Metrics some row has a value for (empty columns are left out). */
export function shownMetrics(rows: readonly EvalTableRow[]): { key: string; label: string }[] {
  return TABLE_METRICS.filter((m) => rows.some((r) => r.metrics[m.key]?.value !== null && r.metrics[m.key] !== undefined));
}

/** A table as CSV, Markdown or LaTeX, for pasting into a paper (the shared table writers of shared/eval/tables.ts). */
export function tableText(rows: readonly EvalTableRow[], format: 'csv' | 'markdown' | 'latex'): string {
  const byType = rows.some((r) => r.type);
  const table = comparisonTable(
    rows.map((r) => ({ method: r.methodLabel, model: r.model, type: r.type ?? '', run: `#${r.runId}`, metrics: r.metrics })),
    { rowKeys: ['method', 'model', ...(byType ? ['type'] : []), 'run'], metrics: shownMetrics(rows).map((m) => m.key) },
  );
  return format === 'csv' ? toCsv(table) : format === 'markdown' ? toMarkdown(table) : toLatex(table);
}
