import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ImportReport } from '../../shared/api';
import { appRoot, defaultDatabasePath } from '../services/paths';

/** What every `awb` command shares: options, output, progress and argument parsing. */

export interface CommonOptions {
  db?: string;
  json?: boolean;
}

export function version(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '0.0.0';
  }
}

export function databasePath(options: CommonOptions): string {
  return options.db ?? defaultDatabasePath();
}

export function withCommon(command: Command): Command {
  return command
    .option('--db <path>', 'workbench database file (default: the app database in the user data directory)')
    .option('--json', 'print machine-readable JSON on stdout');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A one-line progress bar with ETA on stderr, only when stderr is a terminal. */
export function progressLine(label: string) {
  const started = Date.now();
  let last = 0;
  return {
    /** `phase` names a step with its own progress and ETA (a pipeline stage); `detail` follows the ETA. */
    update(done: number, total: number, extra: { phase?: string; etaSeconds?: number | null; detail?: string } = {}) {
      if (!process.stderr.isTTY || Date.now() - last < 200) return;
      last = Date.now();
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const elapsed = (Date.now() - started) / 1000;
      const seconds = extra.etaSeconds !== undefined ? extra.etaSeconds : fraction > 0 && elapsed > 1 ? (elapsed / fraction) * (1 - fraction) : null;
      const eta = seconds === null ? '' : `ETA ${Math.ceil(seconds)} s`;
      const width = 30;
      const bar = '█'.repeat(Math.round(fraction * width)).padEnd(width, '░');
      const name = extra.phase ? `${label} ${extra.phase}` : label;
      process.stderr.write(`\r\x1b[K${name} ${bar} ${(fraction * 100).toFixed(0).padStart(3)}% ${done}/${total} ${eta}${extra.detail ? ` · ${extra.detail}` : ''}`);
    },
    done() {
      if (process.stderr.isTTY && last > 0) process.stderr.write('\r\x1b[K');
    },
  };
}

export function printImportReport(report: ImportReport): void {
  const lines = [
    `${report.file} (${report.format}) into "${report.dataset}"`,
    `  read ${report.read}, imported ${report.imported}, duplicates ${report.duplicates}, rejected ${report.rejected}` +
      (report.passagesCreated ? `, new passages ${report.passagesCreated}` : '') +
      ` in ${report.seconds} s`,
  ];
  const links = report.citationLinks;
  if (links) {
    lines.push(
      `  gold citations: ${links.byNumber} linked by fragment number, ${links.byTitleText} by title and text, ${links.unmatched} matched no fragment (not added)` +
        (links.numberTextDisagree ? `; ${links.numberTextDisagree} linked by number although title or text differ` : ''),
    );
    for (const e of links.examples) lines.push(`    ${e.sourceId}: "${e.title}": ${e.reason}`);
  }
  for (const error of report.errors) lines.push(`  ${error.location}${error.field ? ` · ${error.field}` : ''}: ${error.message}`);
  if (report.moreErrors) lines.push(`  ... and ${report.moreErrors} more problems`);
  if (!report.committed) lines.push('  Nothing was imported: fix the problems above, or pass --skip-invalid to import the valid records.');
  if (report.rejectsFile) lines.push(`  Rejected records were written to ${report.rejectsFile}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Argument parsers turn strings into the types an operation takes, and nothing more: a value the
 * operation refuses (a negative count, an unknown mode) is refused by the operation, with the same
 * message the API gives. A string that is not a number becomes NaN, which the operation names.
 */
export function number(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value);
}

export const integer = number;

/** A comma-separated list, each item parsed (repeatable options collect one list per use). */
export function list<T>(parse: (value: string) => T) {
  return (value: string): T[] =>
    value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
      .map(parse);
}

/** The allowed values, for a help text (the operation's schema checks them). */
export function choices(values: readonly string[]): string {
  return `(${values.join(' | ')})`;
}

/** A plain text table: columns of numbers right-aligned, the others left-aligned. */
export function printTable(header: string[], rows: string[][], options: { header?: boolean } = {}): void {
  const showHeader = options.header !== false;
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[\d.,%$–-]*$/.test(r[i] ?? '')));
  const widths = header.map((h, i) => Math.max(showHeader ? h.length : 0, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${(showHeader ? [header, ...rows] : rows).map(line).join('\n')}\n`);
}
