import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { agreementTable, statusTable, validityTable } from '../../shared/agreement-report';
import { toCsv, toLatex } from '../../shared/tables';
import { JUDGMENT_FORMATS, type AgreementReport, type CampaignSelection } from '../../shared/api';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../shared/domain';
import { CliError, withClient } from './client';
import { choices, integer, list, printJson, printTable, withCommon, type CommonOptions } from './common';

/** `awb protocol|campaign|pack|judgments|agreement|disagreements|adjudicate`: human validation. */

const FILTER_KEYS: Record<string, keyof CampaignSelection> = { type: 'types', status: 'statuses', dataset: 'datasets', hops: 'hops' };

/**
 * `--filter "type=semantic,status=ready,dataset=NAME,hops=2"` as a campaign selection. Only the
 * syntax is read here; the operation checks the values (an unknown type is its error to name).
 */
function parseFilter(text: string): CampaignSelection {
  const selection: Record<string, unknown[]> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [key = '', ...rest] = part.split('=');
    const value = rest.join('=').trim();
    if (!value) throw new CliError('invalid_input', `--filter: "${part}" needs key=value`);
    const field = FILTER_KEYS[key.trim()];
    if (!field) throw new CliError('invalid_input', `--filter: unknown key "${key}" (use ${Object.keys(FILTER_KEYS).join(', ')})`);
    (selection[field] ??= []).push(field === 'hops' ? Number(value) : value);
  }
  return selection as CampaignSelection;
}

function printAgreement(report: AgreementReport, format: string | undefined): void {
  const tables = [
    { title: 'Agreement per criterion (all items)', table: agreementTable(report) },
    { title: 'YES rate by majority vote, per ambiguity type', table: validityTable(report) },
    ...(report.statusRows.length ? [{ title: 'By instance status (e.g. before vs after filtering)', table: statusTable(report) }] : []),
  ];
  for (const { title, table } of tables) {
    if (format === 'csv') process.stdout.write(`# ${title}\n${toCsv(table)}\n`);
    else if (format === 'latex') process.stdout.write(`${toLatex(table, `${report.campaign.name}: ${title}`)}\n`);
    else {
      process.stdout.write(`${title}\n`);
      printTable(table.header, table.rows);
      process.stdout.write('\n');
    }
  }
  if (format === 'csv' || format === 'latex') return;
  for (const r of report.rows.filter((row) => row.ambiguityType === 'all')) {
    const byReason = new Map<string, string[]>();
    for (const [field, reason] of Object.entries(r.undefinedReasons)) byReason.set(reason, [...(byReason.get(reason) ?? []), field]);
    for (const [reason, fields] of byReason) process.stdout.write(`note: ${r.criterion}: ${fields.join(', ')} undefined (${reason})\n`);
    if (r.prevalenceParadox) {
      process.stdout.write(
        `note: ${r.criterion}: raters agree on ${((r.pBar ?? 0) * 100).toFixed(1)}% of ratings but kappa is ${r.fleissKappa ?? 'undefined'}; ` +
          `when one answer dominates, chance agreement is high and kappa collapses (the prevalence paradox). Gwet's AC1 (${r.gwetAc1 ?? 'undefined'}) is less sensitive to it.\n`,
      );
    }
  }
  process.stdout.write(`${report.bootstrap.resamples} bootstrap resamples (seed ${report.bootstrap.seed}); ${report.adjudicated} adjudicated labels; ${report.conflicts} open conflicts; ${report.milliseconds} ms\n`);
}

export function addAnnotationCommands(program: Command): void {
  addProtocolCommands(program);
  addCampaignCommands(program);
  addPackCommands(program);
  addJudgmentFileCommands(program);
  addAgreementCommands(program);
}

/** `awb protocol`: the annotation protocols. */
function addProtocolCommands(program: Command): void {
  const protocol = program.command('protocol').description('annotation protocols: list, export, import');
  withCommon(protocol.command('list').description('the protocols (latest version of each)')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const protocols = await client.call('protocol:list', {});
      if (options.json) printJson(protocols);
      else for (const p of protocols) process.stdout.write(`${p.key.padEnd(24)} v${p.version}  ${p.name}${p.builtIn ? ' (built in)' : ''}: ${p.criteria.map((c) => c.id).join(', ')}\n`);
    }),
  );
  withCommon(protocol.command('export').description('write a protocol as JSON').argument('[id]', 'protocol: key, key@version, or number').option('--out <file>', 'file (default: stdout)')).action(
    (reference: string | undefined, options: CommonOptions & { out?: string }) =>
      withClient(options, async (client) => {
        const document = await client.call('protocol:document', { reference: reference as string });
        const text = `${JSON.stringify(document, null, 2)}\n`;
        if (options.out) fs.writeFileSync(options.out, text);
        else process.stdout.write(text);
      }),
  );
  withCommon(protocol.command('import').description('add a protocol (or a new version of one) from JSON').argument('[file]')).action((file: string | undefined, options: CommonOptions) =>
    withClient(options, async (client) => {
      if (!file) throw new CliError('invalid_input', 'protocol import: give the JSON file');
      let document: unknown;
      try {
        document = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (error) {
        throw new CliError('invalid_input', `${path.basename(file)}: ${(error as Error).message}`, false);
      }
      const saved = await client.call('protocol:save', { document });
      if (options.json) printJson(saved);
      else process.stdout.write(`Saved ${saved.key} v${saved.version}\n`);
    }),
  );
}

/** `awb campaign`: annotation campaigns. */
function addCampaignCommands(program: Command): void {
  const campaign = program.command('campaign').description('annotation campaigns: create, list, show');
  withCommon(
    campaign
      .command('create')
      .description('sample instances, pick a protocol and annotators, and assign the work evenly')
      .option('--name <name>', 'campaign name')
      .option('--protocol <id>', 'protocol id, e.g. march-validation')
      .option('--annotators <names>', 'comma-separated annotator names', list(String))
      .option('--per-type <n>', 'stratified sample: this many instances per ambiguity type', integer)
      .option('--k <n>', 'annotators per instance (default: all)', integer)
      .option('--seed <n>', 'random seed for the sample and the assignment (default 1)', integer)
      .option('--filter <filter>', `which instances, e.g. "type=semantic,status=ready,dataset=NAME,hops=2" (types ${choices(AMBIGUITY_TYPES)}, statuses ${choices(INSTANCE_STATUSES)})`)
      .option('--instances <ids>', 'exactly these instance ids, comma-separated', list(integer))
      .option('--not-blind', 'let annotators see the LLM filter votes'),
  ).action(
    (options: CommonOptions & { name?: string; protocol?: string; annotators?: string[]; perType?: number; k?: number; seed?: number; filter?: string; instances?: number[]; notBlind?: boolean }) =>
      withClient(options, async (client) => {
        const selection: CampaignSelection = {
          ...(options.filter ? parseFilter(options.filter) : {}),
          ...(options.perType !== undefined ? { perType: options.perType } : {}),
          ...(options.instances ? { instanceIds: options.instances } : {}),
        };
        const view = await client.call('campaign:create', {
          name: options.name as string,
          protocol: options.protocol as string,
          annotators: options.annotators as string[],
          perInstance: options.k,
          seed: options.seed,
          blind: !options.notBlind,
          selection,
        });
        if (options.json) printJson(view);
        else {
          process.stdout.write(`Campaign ${view.id} "${view.name}": ${view.items.length} instances, ${view.assignments.length} assignments (${view.perInstance} per instance)\n`);
          for (const p of view.progress) process.stdout.write(`  ${p.annotator}: ${p.total} items\n`);
        }
      }),
  );
  withCommon(campaign.command('list').description('campaigns with their progress')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const campaigns = await client.call('campaign:list', {});
      if (options.json) return printJson(campaigns);
      printTable(
        ['id', 'name', 'protocol', 'items', 'annotators', 'done'],
        campaigns.map((c) => [String(c.id), c.name, c.protocol, String(c.items), String(c.annotators), `${c.done}/${c.total}`]),
      );
    }),
  );
  withCommon(campaign.command('show').description('a campaign: protocol, criteria, assignments, progress').argument('[id]', 'campaign id', integer)).action(
    (id: number | undefined, options: CommonOptions) =>
      withClient(options, async (client) => {
        const view = await client.call('campaign:get', { id: id as number });
        if (options.json) return printJson(view);
        process.stdout.write(`Campaign ${view.id} "${view.name}" (${view.protocol.key} v${view.protocol.version}, ${view.blind ? 'blind' : 'not blind'}, seed ${view.seed})\n`);
        process.stdout.write(`  criteria: ${view.protocol.criteria.map((c) => `${c.id} (${c.scale.kind})`).join(', ')}\n`);
        for (const p of view.progress) process.stdout.write(`  ${p.annotator}: ${p.done}/${p.total} done, ${p.skipped} skipped, ${p.seconds} s\n`);
      }),
  );
}

/** `awb pack`: offline annotation packs. */
function addPackCommands(program: Command): void {
  const pack = program.command('pack').description('offline annotation packs: export for an annotator, import their results');
  withCommon(
    pack
      .command('export')
      .description("write one file holding an annotator's items, the protocol and a checksum")
      .option('--campaign <id>', 'campaign id', integer)
      .option('--annotator <name>', 'annotator')
      .option('--out <file>', 'pack file to write'),
  ).action((options: CommonOptions & { campaign?: number; annotator?: string; out?: string }) =>
    withClient(options, async (client) => {
      const report = await client.call('pack:export', { campaignId: options.campaign as number, annotator: options.annotator as string, path: options.out as string });
      if (options.json) printJson(report);
      else process.stdout.write(`Wrote ${report.items} items for ${report.annotator} to ${report.file} (${(report.bytes / 1024).toFixed(0)} KiB). Open it with: npm start -- ${report.file}\n`);
    }),
  );
  withCommon(
    pack
      .command('import')
      .description("merge a pack's results (the .results.jsonl beside it) into the database; safe to repeat")
      .argument('[file]', 'the pack file (or its results file)')
      .option('--campaign <id>', 'refuse the pack unless it belongs to this campaign', integer),
  ).action((file: string | undefined, options: CommonOptions & { campaign?: number }) =>
    withClient(options, async (client) => {
      const report = await client.call('pack:import', { path: file as string, campaignId: options.campaign });
      if (options.json) printJson(report);
      else
        process.stdout.write(
          `Campaign ${report.campaign}, ${report.annotator}: ${report.imported} new judgments, ${report.already} already imported, ${report.conflicts} conflicts to resolve` +
            (report.incompleteLastLine ? ' (a last line cut off mid-write was left out)' : '') +
            '\n',
        );
    }),
  );
}

/** `awb judgments`: judgments as plain files. */
function addJudgmentFileCommands(program: Command): void {
  const judgments = program.command('judgments').description('judgments as plain CSV or JSON Lines files');
  withCommon(
    judgments
      .command('export')
      .description('write the current judgments: campaign, instance_id, annotator, criterion, value, comment, created_at')
      .option('--campaign <id>', 'campaign id', integer)
      .option('--format <format>', `file format ${choices(JUDGMENT_FORMATS)} (default csv)`)
      .option('--out <file>', 'file (default: stdout)'),
  ).action((options: CommonOptions & { campaign?: number; format?: string; out?: string }) =>
    withClient(options, async (client) => {
      const format = (options.format ?? 'csv') as never;
      const scratch = options.out ? null : fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'awb-'));
      const target = options.out ?? path.join(scratch!, `judgments.${String(format)}`);
      try {
        const report = await client.call('judgment:export', { campaignId: options.campaign as number, format, path: target });
        if (scratch) process.stdout.write(fs.readFileSync(target, 'utf8'));
        else if (options.json) printJson(report);
        else process.stdout.write(`Wrote ${report.rows} judgments to ${report.file}\n`);
      } finally {
        if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
      }
    }),
  );
  withCommon(
    judgments
      .command('import')
      .description('add judgments from a file (all or nothing; rows already imported are passed over)')
      .argument('[file]', 'CSV or JSON Lines file')
      .option('--campaign <id>', 'campaign id', integer)
      .option('--format <format>', `file format ${choices(JUDGMENT_FORMATS)} (default: from the extension)`),
  ).action((file: string | undefined, options: CommonOptions & { campaign?: number; format?: string }) =>
    withClient(options, async (client) => {
      const report = await client.call('judgment:import', { campaignId: options.campaign as number, format: options.format as never, path: file as string });
      if (options.json) printJson(report);
      else {
        process.stdout.write(report.committed ? `Imported ${report.imported} judgments (${report.already} already there) from ${report.rows} rows\n` : `Nothing was imported: ${report.errors.length} problems\n`);
        for (const e of report.errors) process.stdout.write(`  ${e.location}${e.field ? ` · ${e.field}` : ''}: ${e.message}\n`);
      }
      if (!report.committed) process.exitCode = 1;
    }),
  );
}

/** Agreement, disagreements and adjudication of a campaign. */
function addAgreementCommands(program: Command): void {
  withCommon(
    program
      .command('agreement')
      .description("inter-annotator agreement per criterion and ambiguity type: Fleiss' kappa (SE, bootstrap CI), P-bar, Krippendorff's alpha, Gwet's AC1, YES rates")
      .option('--campaign <id>', 'campaign id', integer)
      .option('--resamples <n>', 'bootstrap resamples for the kappa interval (default 1000)', integer)
      .option('--seed <n>', 'bootstrap seed (default 1)', integer)
      .option('--format <format>', 'text output: table, csv or latex (default table)'),
  ).action((options: CommonOptions & { campaign?: number; resamples?: number; seed?: number; format?: string }) =>
    withClient(options, async (client) => {
      if (options.format !== undefined && !['table', 'csv', 'latex'].includes(options.format)) {
        throw new CliError('invalid_input', `--format: expected table, csv or latex, not "${options.format}"`);
      }
      const report = await client.call('agreement:get', { campaignId: options.campaign as number, resamples: options.resamples, seed: options.seed });
      if (options.json) printJson(report);
      else printAgreement(report, options.format);
    }),
  );

  withCommon(
    program
      .command('disagreements')
      .description('items where annotators disagree (or a pack import conflicts): who said what')
      .option('--campaign <id>', 'campaign id', integer),
  ).action((options: CommonOptions & { campaign?: number }) =>
    withClient(options, async (client) => {
      const items = await client.call('agreement:disagreements', { campaignId: options.campaign as number });
      if (options.json) return printJson(items);
      for (const d of items) {
        const votes = d.votes.map((v) => `${v.annotator}=${v.value ?? '–'}${v.conflict ? '!' : ''}`).join(' ');
        process.stdout.write(`#${d.instanceId} ${d.criterion}: ${votes}${d.adjudication ? ` → ${d.adjudication.value} (${d.adjudication.adjudicator})` : ''}\n`);
      }
    }),
  );

  withCommon(
    program
      .command('adjudicate')
      .description('record the final label of an item and criterion, with a reason')
      .option('--campaign <id>', 'campaign id', integer)
      .option('--instance <id>', 'instance id', integer)
      .option('--criterion <id>', 'criterion id')
      .option('--value <value>', 'the final label')
      .option('--reason <text>', 'why')
      .option('--adjudicator <name>', 'who decides'),
  ).action((options: CommonOptions & { campaign?: number; instance?: number; criterion?: string; value?: string; reason?: string; adjudicator?: string }) =>
    withClient(options, async (client) => {
      const remaining = await client.call('agreement:adjudicate', {
        campaignId: options.campaign as number,
        instanceId: options.instance as number,
        criterion: options.criterion as string,
        value: options.value as string,
        reason: options.reason as string,
        adjudicator: options.adjudicator as string,
      });
      if (options.json) printJson(remaining);
      else process.stdout.write(`Recorded ${options.criterion} = ${options.value} for instance ${options.instance}\n`);
    }),
  );
}
