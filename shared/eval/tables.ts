import { toCsv as writeCsv, toLatex as writeLatex, toMarkdown as writeMarkdown, type TextTable } from '../tables';
import type { EvalTableRow } from '../api/evaluation';
import type { MetricSummary } from './metrics';
import { metricLabel } from './labels';

/**
 * Comparison tables of evaluation results (method × model as MARCH Table 3, method × ambiguity
 * type as Table 4): one row per combination of key columns, one column group per metric with its
 * mean, SD, bootstrap interval and n. Written as CSV (every figure in its own column), Markdown
 * and LaTeX ("mean ± SD [low, high]" per cell) by the shared table writers (shared/tables.ts).
 */

export interface ComparisonRow {
  keys: string[];
  cells: (MetricSummary | null)[];
}

export interface ComparisonTable {
  keyColumns: string[];
  metrics: string[];
  rows: ComparisonRow[];
  /** Decimals printed (default 2). */
  digits: number;
}

/** Builds a table from results: each input row names its keys (e.g. method, model) and its metric summaries. */
export function comparisonTable(
  results: readonly (Record<string, unknown> & { metrics: Record<string, MetricSummary | undefined> })[],
  options: { rowKeys: readonly string[]; metrics: readonly string[]; digits?: number },
): ComparisonTable {
  return {
    keyColumns: [...options.rowKeys],
    metrics: [...options.metrics],
    digits: options.digits ?? 2,
    rows: results.map((r) => ({
      keys: options.rowKeys.map((k) => String(r[k] ?? '')),
      cells: options.metrics.map((m) => r.metrics[m] ?? null),
    })),
  };
}

function fixed(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '' : value.toFixed(digits);
}

/** "mean ± SD [low, high]", leaving out what is unknown; "—" when there is no value. */
export function formatCell(cell: MetricSummary | null, digits = 2, pm = '±'): string {
  if (!cell || cell.value === null) return '—';
  let out = fixed(cell.value, digits);
  if (cell.sd !== null) out += ` ${pm} ${fixed(cell.sd, digits)}`;
  if (cell.ci) out += ` [${fixed(cell.ci.low, digits)}, ${fixed(cell.ci.high, digits)}]`;
  return out;
}

/** CSV (RFC 4180): key columns, then per metric its value, sd, ci_low, ci_high and n. */
export function toCsv(table: ComparisonTable): string {
  const header = [...table.keyColumns, ...table.metrics.flatMap((m) => [m, `${m}_sd`, `${m}_ci_low`, `${m}_ci_high`, `${m}_n`])];
  const rows = table.rows.map((row) => [
    ...row.keys,
    ...row.cells.flatMap((c) => [fixed(c?.value, table.digits), fixed(c?.sd, table.digits), fixed(c?.ci?.low, table.digits), fixed(c?.ci?.high, table.digits), c ? String(c.n) : '']),
  ]);
  return writeCsv({ header, rows });
}

/** The table with one formatted cell ("mean ± SD [low, high]") per metric under its label, key columns left and metrics right. */
function displayTable(table: ComparisonTable): TextTable {
  return {
    header: [...table.keyColumns, ...table.metrics.map(metricLabel)],
    rows: table.rows.map((row) => [...row.keys, ...row.cells.map((c) => formatCell(c, table.digits))]),
    align: [...table.keyColumns.map(() => 'l' as const), ...table.metrics.map(() => 'r' as const)],
  };
}

/** A GitHub-flavoured Markdown table, numbers right-aligned. */
export function toMarkdown(table: ComparisonTable): string {
  return writeMarkdown(displayTable(table));
}

/** A LaTeX tabular (booktabs rules), one cell "mean $\pm$ SD [low, high]" per metric. */
export function toLatex(table: ComparisonTable): string {
  return writeLatex(displayTable(table));
}

/** The metrics evaluation tables show, in order; their column names are the shared labels (shared/eval/labels.ts). */
const TABLE_KEYS = [
  'str_em', 'disambig_f1', 'march_avg', 'rouge_l', 'dr', 'token_f1', 'd_f1', 'd_f1_short', 'dr_f1', 'citation_precision', 'condition_score', 'answer_score', 'condqa_combined', 'judge_mean',
] as const;
export const EVAL_TABLE_METRICS: readonly { key: string; label: string }[] = TABLE_KEYS.map((key) => ({ key, label: metricLabel(key) }));

/** One row of an evaluation table, as much of it as the writers need. */
export type EvalTableLine = Pick<EvalTableRow, 'methodLabel' | 'model' | 'type' | 'runId' | 'n' | 'failed' | 'readerErrors' | 'metrics'>;

/** The table metrics some row has a value for (empty columns left out), or the ones asked for. */
export function evalTableMetrics(rows: readonly EvalTableLine[], wanted?: readonly string[]): { key: string; label: string }[] {
  if (wanted?.length) return wanted.map((key) => EVAL_TABLE_METRICS.find((m) => m.key === key) ?? { key, label: metricLabel(key) });
  return EVAL_TABLE_METRICS.filter((m) => rows.some((r) => r.metrics[m.key] !== undefined && r.metrics[m.key]!.value !== null));
}

/**
 * Evaluation rows as CSV, Markdown or LaTeX for a paper: method, model, (type), run, n (items
 * scored), failed (items left out of the means) and, when any, reader errors, then the metrics.
 */
export function evalTableText(rows: readonly EvalTableLine[], format: 'csv' | 'markdown' | 'latex', metrics?: readonly string[]): string {
  const byType = rows.some((r) => r.type);
  const readerErrors = rows.some((r) => r.readerErrors > 0);
  const table = comparisonTable(
    rows.map((r) => ({ method: r.methodLabel, model: r.model, type: r.type ?? '', run: `#${r.runId}`, n: r.n, failed: r.failed, 'reader errors': r.readerErrors, metrics: r.metrics })),
    { rowKeys: ['method', 'model', ...(byType ? ['type'] : []), 'run', 'n', 'failed', ...(readerErrors ? ['reader errors'] : [])], metrics: evalTableMetrics(rows, metrics).map((m) => m.key) },
  );
  return format === 'csv' ? toCsv(table) : format === 'markdown' ? toMarkdown(table) : toLatex(table);
}
