import { Option, type Command } from 'commander';
import { EVAL_TABLE_METRICS, evalTableText } from '../../shared/eval/tables';
import { withClient } from './client';
import { choices, integer, list, printJson, withCommon, type CommonOptions } from './common';

/**
 * `awb eval table`: the Evaluation page's method × model (MARCH Table 3) and method × type (Table
 * 4) tables on the command line, as Markdown, CSV or LaTeX: n is the items scored, failed the items
 * left out of the means. A client of `evaluation:table`; the format is only how it prints.
 */

interface TableOptions extends CommonOptions {
  runs?: number[];
  by?: string;
  metrics?: string[];
  format?: string;
}

export function addEvalTableCommands(evaluation: Command): void {
  withCommon(
    evaluation
      .command('table')
      .description('method × model or method × type table of finished runs, for a paper (n = items scored, failed = items left out)')
      .option('--runs <ids>', 'comma-separated run ids (default: every run with finished items)', list(integer))
      .addOption(new Option('--by <rows>', 'one row per run (model), or per run and ambiguity type (type)').choices(['model', 'type']).default('model'))
      .option('--metrics <list>', `comma-separated metrics, in order (default: every one with a value) ${choices(EVAL_TABLE_METRICS.map((m) => m.key))}`, list(String))
      .addOption(new Option('--format <format>', 'how to print the table').choices(['markdown', 'csv', 'latex']).default('markdown')),
  ).action((options: TableOptions) =>
    withClient(options, async (client) => {
      const tables = await client.call('evaluation:table', { runs: options.runs ?? [] });
      const rows = options.by === 'type' ? tables.byType : tables.byModel;
      if (options.json) return printJson(rows);
      process.stdout.write(`${evalTableText(rows, options.format as 'markdown' | 'csv' | 'latex', options.metrics)}\n`);
    }),
  );
}
