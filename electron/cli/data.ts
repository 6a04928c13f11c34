import path from 'node:path';
import type { Command } from 'commander';
import { EXPORT_FORMATS, INSTANCE_SORT_COLUMNS, type InstanceDetail } from '../../shared/api';
import { AMBIGUITY_TYPES, IMPORT_FORMATS, INSTANCE_STATUSES } from '../../shared/domain';
import { withClient } from './client';
import { choices, integer, list, number, printImportReport, printJson, printTable, withCommon, type CommonOptions } from './common';

/** The data itself: in and out, and browsing it. */
export function addDataCommands(program: Command): void {
  addImportExportCommands(program);
  addBrowseCommands(program);
}

/** `awb import`, `stats`, `export`, `seed-demo`: the data in and out. */
function addImportExportCommands(program: Command): void {
  withCommon(
    program
      .command('import')
      .description('import a file of base questions or instances (all or nothing, unless --skip-invalid)')
      .argument('[file]', 'the file to import (JSON array, JSON Lines, or the official ASQA splits object)')
      .option('--format <format>', `the file format ${choices(IMPORT_FORMATS)}`)
      .option('--dataset <name>', "dataset name (default: the file name; for awb files, each record's own)")
      .option('--skip-invalid', 'import the valid records and write the invalid ones to a rejects report')
      .option('--rejects <file>', 'where the rejects report goes (default: FILE.rejects.jsonl)')
      .option('--max-record-mb <n>', 'largest record accepted, in MB (default 16)', number),
  ).action((file: string | undefined, options: CommonOptions & { format?: string; dataset?: string; skipInvalid?: boolean; rejects?: string; maxRecordMb?: number }) =>
    withClient(options, async (client) => {
      const report = await client.runJob(
        'dataset:import',
        {
          path: file as string,
          format: options.format as never,
          dataset: options.dataset,
          skipInvalid: options.skipInvalid,
          rejectsFile: options.rejects,
          maxRecordMb: options.maxRecordMb,
        },
        `Importing ${path.basename(file ?? '')}`,
      );
      if (options.json) printJson(report);
      else printImportReport(report);
      // Nothing imported because every record was invalid is a failure, --skip-invalid or not.
      if (!report.committed || (report.rejected > 0 && report.imported + report.duplicates === 0)) process.exitCode = 1;
    }),
  );

  withCommon(program.command('stats').description('count datasets, base questions, passages, instances and interpretations')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const stats = await client.call('stats:get', {});
      if (options.json) return printJson(stats);
      printTable(
        ['what', 'count'],
        [
          ['datasets', stats.datasets],
          ['base questions', stats.baseQuestions],
          ...Object.entries(stats.baseQuestionsByAnswerability).map(([k, v]) => [`  ${k}`, v]),
          ['passages', stats.passages],
          ['corpora', stats.corpora],
          ['instances', stats.instances],
          ...Object.entries(stats.instancesByType).map(([k, v]) => [`  type ${k}`, v]),
          ...Object.entries(stats.instancesByStatus).map(([k, v]) => [`  status ${k}`, v]),
          ['interpretations', stats.interpretations],
          ['long answers', stats.longAnswers],
        ].map(([k, v]) => [String(k), Number(v).toLocaleString('en-US')]),
        { header: false },
      );
    }),
  );

  withCommon(
    program
      .command('export')
      .description('export instances (and base questions without any) as awb-instance/1 JSON Lines')
      .option('--format <format>', `output format ${choices(EXPORT_FORMATS)}`)
      .option('--out <file>', 'where to write')
      .option('--dataset <name...>', 'only these datasets (repeatable)'),
  ).action((options: CommonOptions & { format?: string; out?: string; dataset?: string[] }) =>
    withClient(options, async (client) => {
      const report = await client.runJob(
        'dataset:export',
        { path: options.out as string, format: options.format as never, datasets: options.dataset },
        `Exporting to ${path.basename(options.out ?? '')}`,
      );
      if (options.json) printJson(report);
      else process.stdout.write(`Wrote ${report.records} records (${report.instances} instances, ${report.baseQuestions} base questions) to ${report.file}\n`);
    }),
  );

  withCommon(program.command('seed-demo').description('import the bundled demo data into a new, empty database')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const reports = await client.call('dataset:seed-demo', {});
      if (options.json) printJson(reports);
      else process.stdout.write(reports.length ? reports.map((r) => `${r.dataset}: ${r.imported} records`).join('\n') + '\n' : 'Nothing to do: the database already holds data or was seeded before.\n');
    }),
  );
}

/** `awb dataset list` and `awb instance list/show`: browsing the data. */
function addBrowseCommands(program: Command): void {
  const dataset = program.command('dataset').description('datasets: list them with their licences');
  withCommon(dataset.command('list').description('datasets with their base questions, instances, licence and attribution')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const list = await client.call('dataset:list', {});
      if (options.json) return printJson(list);
      printTable(
        ['id', 'dataset', 'base questions', 'instances', 'licence'],
        list.map((d) => [String(d.id), d.name, String(d.baseQuestions), String(d.instances), d.licence]),
      );
    }),
  );

  const instance = program.command('instance').description('instances: list (filter, search, sort, page) and show one');
  withCommon(
    instance
      .command('list')
      .description('a page of instances')
      .option('--type <type...>', `ambiguity types ${choices(AMBIGUITY_TYPES)}`)
      .option('--status <status...>', `statuses ${choices(INSTANCE_STATUSES)}`)
      .option('--dataset <id...>', 'dataset ids (see awb dataset list)', list(integer))
      .option('--hops <n...>', 'numbers of hops', list(integer))
      .option('--search <text>', 'full-text search over questions, interpretations and answers: a filter, the rows stay in the sort\'s order')
      .option('--sort <column>', `sort column ${choices(INSTANCE_SORT_COLUMNS)}; default id, with a search too (relevance: best match first, bm25)`)
      .option('--direction <dir>', 'asc or desc')
      .option('--offset <n>', 'rows to skip', integer)
      .option('--limit <n>', 'rows (default 100, at most 500)', integer),
  ).action(
    (
      options: CommonOptions & { type?: string[]; status?: string[]; dataset?: number[][]; hops?: number[][]; search?: string; sort?: string; direction?: string; offset?: number; limit?: number },
    ) =>
      withClient(options, async (client) => {
        const page = await client.call('instance:list', {
          types: options.type as never,
          statuses: options.status as never,
          datasets: options.dataset?.flat(),
          hops: options.hops?.flat(),
          search: options.search,
          sort: options.sort as never,
          direction: options.direction as never,
          offset: options.offset,
          limit: options.limit,
        });
        if (options.json) return printJson(page);
        printTable(
          ['id', 'type', 'status', 'hops', 'dataset', 'question'],
          page.rows.map((r) => [String(r.id), r.ambiguityType, r.status, String(r.hops ?? '–'), r.dataset, r.question.slice(0, 100)]),
        );
      }),
  );
  withCommon(instance.command('show').description('one instance: question, interpretations, evidence, answers').argument('[id]', 'instance id', integer)).action(
    (id: number | undefined, options: CommonOptions) =>
      withClient(options, async (client) => {
        const detail = await client.call('instance:get', { id: id as number });
        if (options.json) printJson(detail);
        else printInstance(detail);
      }),
  );
}

function printInstance(detail: InstanceDetail): void {
  const lines = [`#${detail.id} [${detail.ambiguityType}] ${detail.status}: ${detail.baseQuestion.question}`];
  for (const i of detail.interpretations) {
    lines.push(`  ${i.position + 1}. ${i.clarifiedQuestion ?? i.condition ?? '(no question)'} → ${i.shortAnswer?.text ?? '–'}`);
  }
  for (const a of detail.longAnswers) lines.push(`  long answer: ${a.text}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
