import { toCsv as writeCsv, toLatex as writeLatex, toMarkdown as writeMarkdown, type TextTable } from '../tables';
import type { EvalTableRow } from '../api/evaluation';
import type { MetricSummary } from './metrics';

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

/** The table with one formatted cell ("mean ± SD [low, high]") per metric, key columns left and metrics right. */
function displayTable(table: ComparisonTable): TextTable {
  return {
    header: [...table.keyColumns, ...table.metrics],
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

/**
 * A run's status in words, saying when items failed: "done", "done with 37 failed", "failed: all
 * 38 items failed", "cancelled (12 of 38 done)", "stopped (12 of 38 done, 2 failed)". The stored
 * status (running, done, failed, cancelled) says whether the run ended; this says how it went.
 */
export function evalStatusLabel(run: { status: 'running' | 'done' | 'failed' | 'cancelled'; total: number; done: number; failed: number }): string {
  const { status, total, done, failed } = run;
  if (status === 'running') return 'running';
  if (total > 0 && failed === total) return `failed: all ${total} items failed`;
  if (status === 'cancelled') return `cancelled (${done} of ${total} done${failed ? `, ${failed} failed` : ''})`;
  if (status === 'failed') return `stopped (${done} of ${total} done${failed ? `, ${failed} failed` : ''})`;
  return failed ? `done with ${failed} failed` : 'done';
}

/** The metrics evaluation tables show, in order, with their column names. */
const TABLE_LABELS: Readonly<Record<string, string>> = {
  str_em: 'STR-EM', disambig_f1: 'Disambig-F1', march_avg: 'Avg', rouge_l: 'ROUGE-L', dr: 'DR', token_f1: 'F1', d_f1: 'D-F1', d_f1_short: 'D-F1 (short)',
  dr_f1: 'DR-F1', citation_precision: 'Cit. prec.', condition_score: 'Condition', answer_score: 'Answer', judge_mean: 'Judge (0-5)',
};
export const EVAL_TABLE_METRICS: readonly { key: string; label: string }[] = Object.entries(TABLE_LABELS).map(([key, label]) => ({ key, label }));

/** One row of an evaluation table, as much of it as the writers need. */
export type EvalTableLine = Pick<EvalTableRow, 'methodLabel' | 'model' | 'type' | 'runId' | 'n' | 'failed' | 'readerErrors' | 'metrics'>;

/** The table metrics some row has a value for (empty columns left out), or the ones asked for. */
export function evalTableMetrics(rows: readonly EvalTableLine[], wanted?: readonly string[]): { key: string; label: string }[] {
  if (wanted?.length) return wanted.map((key) => EVAL_TABLE_METRICS.find((m) => m.key === key) ?? { key, label: key });
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
