import type { Command } from 'commander';
import { SCORE_METRIC_CHOICES, type Input, type ScoreReport } from '../../shared/api';
import { isPercentMetric } from '../../shared/eval/metrics';
import { withClient } from './client';
import { choices, integer, list, printJson, printTable, withCommon, type CommonOptions } from './common';

/**
 * `awb eval score`: predictions made elsewhere, scored the way the papers do. A client of
 * `evaluation:score`: options are only turned into the operation's input; the operation
 * validates them and applies the defaults.
 */

interface ScoreOptions extends CommonOptions {
  dataset?: string;
  release?: number;
  split?: string;
  predictions: string;
  metrics?: string[];
  rouge?: string;
  resamples?: number;
  seed?: number;
}

function figure(name: string, value: number | null): string {
  if (value === null) return '—';
  return isPercentMetric(name) ? value.toFixed(2) : value.toFixed(3);
}

function printReport(report: ScoreReport): void {
  const source = report.release !== null ? `release ${report.release}${report.split ? ` split ${report.split}` : ''}${report.dataset ? ` (${report.dataset})` : ''}` : report.dataset;
  process.stdout.write(
    `${report.predictionsFile} against ${source}: ${report.n} items, ${report.predictions} predictions, ${report.missing} missing (scored as empty), ${report.unknown.length} unknown ids\n`,
  );
  if (report.unknown.length) {
    const shown = report.unknown.slice(0, 20).join(', ');
    process.stdout.write(`  unknown ids: ${shown}${report.unknown.length > 20 ? `, … ${report.unknown.length - 20} more (--json lists all)` : ''}\n`);
  }
  if (report.invalidCitations.items) {
    process.stdout.write(`  ${report.invalidCitations.items} prediction${report.invalidCitations.items === 1 ? '' : 's'} cite fragments their question does not have (counted as wrong citations):\n`);
    for (const e of report.invalidCitations.examples) process.stdout.write(`    ${e.sourceId} (line ${e.line}): ${e.note}\n`);
  }
  const names = Object.keys(report.metrics);
  const types = Object.keys(report.byType);
  const rows = names.map((name) => {
    const d = report.details[name]!;
    const ci = d.ci ? `[${figure(name, d.ci.low)}, ${figure(name, d.ci.high)}]` : '';
    return [name, figure(name, report.metrics[name] ?? null), ci, String(d.n), ...types.map((t) => figure(name, report.byType[t]!.metrics[name] ?? null))];
  });
  printTable(['metric', 'all', '95% CI', 'n', ...types.map((t) => `${t} (${report.byType[t]!.n})`)], rows);
}

export function addEvalScoreCommands(evaluation: Command): void {
  withCommon(
    evaluation
      .command('score')
      .description('score a JSON Lines file of predictions made elsewhere against a dataset or a release split (every non-LLM metric)')
      .requiredOption('--predictions <file>', 'JSON Lines: {"source_id", "answer", "short_answers"?, "citations"?} per line')
      .option('--dataset <name>', "the dataset whose ids the predictions use (its ready instances)")
      .option('--release <id>', "score against a release's frozen instances", integer)
      .option('--split <name>', 'only this split of the release')
      .option('--metrics <list>', `comma-separated metrics (default: all non-LLM) ${choices(SCORE_METRIC_CHOICES)}`, list(String))
      .option('--rouge <variant>', `ROUGE-L variant (default rougeLsum) ${choices(['rougeLsum', 'rougeL'])}`)
      .option('--resamples <n>', 'bootstrap resamples for the intervals (default 1000; 0 for none)', integer)
      .option('--seed <n>', 'bootstrap seed (default 1)', integer),
  ).action(async (options: ScoreOptions) => {
    const input = {
      predictions: options.predictions,
      ...(options.dataset !== undefined ? { dataset: options.dataset } : {}),
      ...(options.release !== undefined ? { release: options.release } : {}),
      ...(options.split !== undefined ? { split: options.split } : {}),
      ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
      ...(options.rouge !== undefined ? { rouge: options.rouge } : {}),
      ...(options.resamples !== undefined ? { resamples: options.resamples } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    } as Input<'evaluation:score'>;
    const report = await withClient(options, (client) => client.call('evaluation:score', input));
    if (options.json) printJson(report);
    else printReport(report);
  });
}
