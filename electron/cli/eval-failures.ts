import type { Command } from 'commander';
import type { Correlation } from '../../shared/eval/paired';
import type { FailurePage, Input, JudgeValidationReport } from '../../shared/api';
import { withClient } from './client';
import { integer, printJson, printTable, withCommon, type CommonOptions } from './common';
import { itemStatusLabel, metricLabel } from '../../shared/eval/labels';

/**
 * `awb eval judge-validation`, `awb eval failures` and `awb eval tags export`: clients of the
 * failure operations. Options are only turned into the operations' input; the operations
 * validate it and fill in the defaults.
 */

interface JudgeOptions extends CommonOptions {
  run: number;
  campaign: number;
  resamples?: number;
  seed?: number;
}

interface FailureOptions extends CommonOptions {
  run: number;
  status?: string;
  type?: string;
  collapsed?: boolean;
  retrievalMiss?: boolean;
  below?: string[];
  atLeast?: string[];
  tag?: string;
  versus?: number;
  mode?: string;
  sort?: string;
  direction?: string;
  offset?: number;
  limit?: number;
}

/** `metric=value` → a threshold (the operation checks the metric name and the number). */
function metricValue(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function splitMetric(text: string): { metric: string; value: number } {
  const at = text.indexOf('=');
  return { metric: at < 0 ? text : text.slice(0, at), value: at < 0 ? Number.NaN : Number(text.slice(at + 1)) };
}

function figure(c: Correlation): string {
  if (c.value === null) return '—';
  return `${c.value.toFixed(3)}${c.ci ? ` [${c.ci.low.toFixed(3)}, ${c.ci.high.toFixed(3)}]` : ''}`;
}

function printValidation(report: JudgeValidationReport): void {
  process.stdout.write(
    `Judge of run ${report.run.id} (${report.run.method} × ${report.run.model}) against campaign ${report.campaign.id} "${report.campaign.name}": ${report.items} items, ${report.rated} rated by ${report.annotators} people, ${report.judged} scored by the judge\n`,
  );
  printTable(
    ['criterion', 'n', 'Pearson r', 'Spearman ρ', 'Kendall τ-b', 'QWK', 'mean judge', 'mean people'],
    report.rows.map((r) => [r.criterion, String(r.n), figure(r.pearson), figure(r.spearman), figure(r.kendallTauB), figure(r.quadraticWeightedKappa), r.meanJudge?.toFixed(2) ?? '—', r.meanHuman?.toFixed(2) ?? '—']),
  );
  for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
}

function printFailures(page: FailurePage): void {
  const pct = (v: number | null) => (v === null ? '—' : (v * 100).toFixed(1));
  process.stdout.write(`Run ${page.run.id} (${page.run.method} × ${page.run.model}): ${page.total} items match\n`);
  printTable(
    ['item', 'pos', 'type', 'status', metricLabel('str_em'), metricLabel('rouge_l'), metricLabel('judge_mean'), 'tags', 'question'],
    page.rows.map((r) => [String(r.id), String(r.position), r.ambiguityType, itemStatusLabel(r.status), pct(r.strEm), pct(r.rougeL), r.judgeMean?.toFixed(2) ?? '—', r.tags.join(' '), r.question.slice(0, 60)]),
  );
}

export function addEvalFailureCommands(evaluation: Command): void {
  withCommon(
    evaluation
      .command('judge-validation')
      .description("compare the run's LLM judge with people's 0-5 ratings in a campaign: Pearson, Spearman, Kendall τ-b, QWK per criterion, with CIs and n")
      .requiredOption('--run <id>', 'the evaluation run', integer)
      .requiredOption('--campaign <id>', 'the campaign of human ratings (long-answer quality protocol)', integer)
      .option('--resamples <n>', 'bootstrap resamples (default 1000)', integer)
      .option('--seed <n>', 'bootstrap seed (default 1)', integer),
  ).action(async (options: JudgeOptions) => {
    const input: Input<'judge-validation:get'> = {
      run: options.run,
      campaign: options.campaign,
      ...(options.resamples !== undefined ? { resamples: options.resamples } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    };
    const report = await withClient(options, (client) => client.call('judge-validation:get', input));
    if (options.json) printJson(report);
    else printValidation(report);
  });

  withCommon(
    evaluation
      .command('failures')
      .description("a run's items, filtered and sorted as in the failure table")
      .requiredOption('--run <id>', 'the evaluation run', integer)
      .option('--status <status>', 'pending, done or failed')
      .option('--type <type>', 'ambiguity type')
      .option('--collapsed', 'only answers that collapse several interpretations')
      .option('--retrieval-miss', 'only items whose retrieval found no gold evidence')
      .option('--below <metric=value>', 'metric strictly below a value (repeatable), e.g. str_em=0.5', metricValue)
      .option('--at-least <metric=value>', 'metric at or above a value (repeatable)', metricValue)
      .option('--tag <key>', 'items carrying this failure tag')
      .option('--versus <run>', 'side by side with another run on the same items', integer)
      .option('--mode <mode>', 'with --versus: a-right-b-wrong or a-wrong-b-right')
      .option('--sort <metric>', 'position or a metric')
      .option('--direction <dir>', 'asc or desc')
      .option('--offset <n>', 'rows to skip', integer)
      .option('--limit <n>', 'rows to show', integer),
  ).action(async (options: FailureOptions) => {
    const thresholds = [
      ...(options.below ?? []).map((t) => ({ metric: splitMetric(t).metric, below: splitMetric(t).value })),
      ...(options.atLeast ?? []).map((t) => ({ metric: splitMetric(t).metric, atLeast: splitMetric(t).value })),
    ];
    const input = {
      run: options.run,
      ...(options.status !== undefined ? { status: options.status } : {}),
      ...(options.type !== undefined ? { type: options.type } : {}),
      ...(options.collapsed ? { collapsed: true } : {}),
      ...(options.retrievalMiss ? { retrievalMiss: true } : {}),
      ...(thresholds.length ? { thresholds } : {}),
      ...(options.tag !== undefined ? { tag: options.tag } : {}),
      ...(options.versus !== undefined ? { versus: { run: options.versus, ...(options.mode !== undefined ? { mode: options.mode } : {}) } } : {}),
      ...(options.sort !== undefined ? { sort: options.sort } : {}),
      ...(options.direction !== undefined ? { direction: options.direction } : {}),
      ...(options.offset !== undefined ? { offset: options.offset } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
    } as Input<'failure:list'>;
    const page = await withClient(options, (client) => client.call('failure:list', input));
    if (options.json) printJson(page);
    else printFailures(page);
  });

  const tags = evaluation.command('tags').description('failure tags of evaluation items');
  withCommon(
    tags
      .command('export')
      .description("every failure tag of a run's items (with who set it, and removed ones) as CSV")
      .requiredOption('--run <id>', 'the evaluation run', integer)
      .requiredOption('--out <file>', 'the CSV file to write'),
  ).action(async (options: CommonOptions & { run: number; out: string }) => {
    const result = await withClient(options, (client) => client.call('failure-tag:export', { run: options.run, path: options.out }));
    if (options.json) printJson(result);
    else process.stdout.write(`${result.rows} tag rows written to ${result.file}\n`);
  });
}
