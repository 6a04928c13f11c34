/**
 * Text tables written as CSV, Markdown or LaTeX: the one writer behind the agreement report's
 * tables and the evaluation comparison tables. A table is its header and rows of cell text; the
 * caller formats the numbers, these functions only quote and escape. Pure functions.
 */

export interface TextTable {
  header: string[];
  rows: string[][];
  /** Per column: 'l' for text, 'r' for numbers (right-aligned in Markdown and LaTeX); default: the first column 'l', the rest 'r'. */
  align?: ('l' | 'r')[];
}

function alignment(table: TextTable): ('l' | 'r')[] {
  return table.align ?? table.header.map((_, i) => (i === 0 ? 'l' : 'r'));
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** CSV (RFC 4180): fields with a quote, comma or line break quoted, quotes doubled. */
export function toCsv(table: TextTable): string {
  return `${[table.header, ...table.rows].map((row) => row.map(csvField).join(',')).join('\n')}\n`;
}

function markdownCell(value: string): string {
  return value.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A GitHub-flavoured Markdown table. */
export function toMarkdown(table: TextTable): string {
  const rule = alignment(table).map((a) => (a === 'r' ? '---:' : '---'));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return `${[line(table.header.map(markdownCell)), line(rule), ...table.rows.map((row) => line(row.map(markdownCell)))].join('\n')}\n`;
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
  '±': '$\\pm$',
  'κ': '$\\kappa$',
  'α': '$\\alpha$',
  '—': '---',
  'P̄': '$\\bar{P}$',
};

/** Text as LaTeX: its special characters escaped, and the symbols the tables use (±, κ, α, P̄, —) as LaTeX writes them. */
export function latexEscape(text: string): string {
  return text.replace(/P̄|[\\&%$#_{}~^±κα—]/gu, (ch) => LATEX_SPECIAL[ch]!);
}

/** A LaTeX tabular with booktabs rules; with a caption, inside a table float. */
export function toLatex(table: TextTable, caption?: string): string {
  const tabular = [
    `\\begin{tabular}{${alignment(table).join('')}}`,
    '\\toprule',
    `${table.header.map(latexEscape).join(' & ')} \\\\`,
    '\\midrule',
    ...table.rows.map((row) => `${row.map(latexEscape).join(' & ')} \\\\`),
    '\\bottomrule',
    '\\end{tabular}',
  ];
  const lines = caption === undefined ? tabular : ['\\begin{table}[t]', '\\centering', ...tabular, `\\caption{${latexEscape(caption)}}`, '\\end{table}'];
  return `${lines.join('\n')}\n`;
}
