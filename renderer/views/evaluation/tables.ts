import type { EvalTableRow } from '../../../shared/api';
import type { MetricSummary } from '../../../shared/eval/metrics';
import { comparisonTable, toCsv, toLatex, toMarkdown } from '../../../shared/eval/tables';

/** The metrics the comparison tables show, in order, with their column names. */
export const TABLE_METRICS: { key: string; label: string }[] = [
  { key: 'str_em', label: 'STR-EM' },
  { key: 'disambig_f1', label: 'Disambig-F1' },
  { key: 'rouge_l', label: 'ROUGE-L' },
  { key: 'dr', label: 'DR' },
  { key: 'd_f1', label: 'D-F1' },
  { key: 'citation_precision', label: 'Cit. prec.' },
  { key: 'judge_mean', label: 'Judge (0-5)' },
];

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
    rows.map((r) => ({ method: r.methodLabel, model: r.model, type: r.type ?? '', run: `#${r.runId}`, n: r.n, failed: r.failed, metrics: r.metrics })),
    { rowKeys: ['method', 'model', ...(byType ? ['type'] : []), 'run', 'n', 'failed'], metrics: shownMetrics(rows).map((m) => m.key) },
  );
  return format === 'csv' ? toCsv(table) : format === 'markdown' ? toMarkdown(table) : toLatex(table);
}
