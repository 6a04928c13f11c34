import type { EvalTableRow } from '../../../shared/api';
import type { MetricSummary } from '../../../shared/eval/metrics';
import { evalTableMetrics, evalTableText } from '../../../shared/eval/tables';

/** The evaluation tables' columns and exports: the shared writers (shared/eval/tables.ts), as the CLI's `awb eval table` uses them. */

export function formatMetric(m: MetricSummary | undefined): string {
  if (!m || m.value === null) return '–';
  return `${m.value.toFixed(2)}${m.sd !== null ? ` ± ${m.sd.toFixed(1)}` : ''}`;
}

/** Metrics some row has a value for (empty columns are left out). */
export function shownMetrics(rows: readonly EvalTableRow[]): { key: string; label: string }[] {
  return evalTableMetrics(rows);
}

/** A table as CSV, Markdown or LaTeX, for pasting into a paper. */
export function tableText(rows: readonly EvalTableRow[], format: 'csv' | 'markdown' | 'latex'): string {
  return evalTableText(rows, format);
}
