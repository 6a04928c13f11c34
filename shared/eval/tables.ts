import { toCsv as writeCsv, toLatex as writeLatex, toMarkdown as writeMarkdown, type TextTable } from '../tables';
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
