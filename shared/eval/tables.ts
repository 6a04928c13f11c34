import type { MetricSummary } from './metrics';

/**
 * Comparison tables of evaluation results (method × model as MARCH Table 3, method × ambiguity
 * type as Table 4): one row per combination of key columns, one column group per metric with its
 * mean, SD, bootstrap interval and n. Written as CSV (every figure in its own column), Markdown
 * and LaTeX ("mean ± SD [low, high]" per cell).
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

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** CSV (RFC 4180): key columns, then per metric its value, sd, ci_low, ci_high and n. */
export function toCsv(table: ComparisonTable): string {
  const header = [...table.keyColumns, ...table.metrics.flatMap((m) => [m, `${m}_sd`, `${m}_ci_low`, `${m}_ci_high`, `${m}_n`])];
  const lines = [header.map(csvCell).join(',')];
  for (const row of table.rows) {
    const figures = row.cells.flatMap((c) => [
      fixed(c?.value, table.digits),
      fixed(c?.sd, table.digits),
      fixed(c?.ci?.low, table.digits),
      fixed(c?.ci?.high, table.digits),
      c ? String(c.n) : '',
    ]);
    lines.push([...row.keys, ...figures].map(csvCell).join(','));
  }
  return `${lines.join('\n')}\n`;
}

function markdownCell(value: string): string {
  return value.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A GitHub-flavoured Markdown table, numbers right-aligned. */
export function toMarkdown(table: ComparisonTable): string {
  const header = [...table.keyColumns, ...table.metrics];
  const align = [...table.keyColumns.map(() => '---'), ...table.metrics.map(() => '---:')];
  const lines = [`| ${header.map(markdownCell).join(' | ')} |`, `| ${align.join(' | ')} |`];
  for (const row of table.rows) {
    lines.push(`| ${[...row.keys, ...row.cells.map((c) => formatCell(c, table.digits))].map(markdownCell).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

const LATEX_SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};

export function latexEscape(text: string): string {
  return text.replace(/[\\&%$#_{}~^]/g, (ch) => LATEX_SPECIAL[ch]!);
}

/** A LaTeX tabular (booktabs rules), one cell "mean $\pm$ SD [low, high]" per metric. */
export function toLatex(table: ComparisonTable): string {
  const spec = `${'l'.repeat(table.keyColumns.length)}${'r'.repeat(table.metrics.length)}`;
  const lines = [
    `\\begin{tabular}{${spec}}`,
    '\\toprule',
    `${[...table.keyColumns, ...table.metrics].map(latexEscape).join(' & ')} \\\\`,
    '\\midrule',
    ...table.rows.map((row) => `${[...row.keys.map(latexEscape), ...row.cells.map((c) => formatCell(c, table.digits, '$\\pm$'))].join(' & ')} \\\\`),
    '\\bottomrule',
    '\\end{tabular}',
  ];
  return `${lines.join('\n')}\n`;
}
