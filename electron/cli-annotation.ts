import fs from 'node:fs';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { openDatabase } from '../db/connection';
import { protocolVersions } from '../db/queries/protocols';
import type { WritableDB } from '../db/sql';
import { agreementTable, statusTable, toCsv, toLatex, validityTable } from '../shared/agreement-report';
import { AppError, JUDGMENT_FORMATS, type AgreementReport, type CampaignView, type JudgmentFormat } from '../shared/api';
import { scaleValues } from '../shared/protocols';
import { databasePath, printJson, withCommon, type CommonOptions } from './cli-common';
import { adjudicate, campaignAgreement, disagreements } from './services/annotation/agreement';
import { campaignList, campaignView, createCampaign, parseFilter } from './services/annotation/campaigns';
import { exportJudgments, importJudgments } from './services/annotation/judgments-io';
import { exportPack, importPack } from './services/annotation/packs';
import { allProtocols, importProtocol, protocolDocument, resolveProtocol } from './services/annotation/protocols';

/** `awb protocol|campaign|pack|judgments|agreement|disagreements|adjudicate`: human validation. */

function count(label: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number for ${label}`);
    return n;
  };
}

async function withDb<T>(options: CommonOptions, work: (db: WritableDB) => T | Promise<T>): Promise<T> {
  const db = openDatabase(databasePath(options));
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

/** The documented machine-readable campaign: ids, protocol and its criteria, assignments, progress. */
export function campaignJson(view: CampaignView) {
  return {
    id: view.id,
    uid: view.uid,
    name: view.name,
    created_at: view.createdAt,
    blind: view.blind,
    seed: view.seed,
    per_instance: view.perInstance,
    selection: view.selection,
    protocol: {
      id: view.protocol.key,
      version: view.protocol.version,
      name: view.protocol.name,
      criteria: view.protocol.criteria.map((c) => ({ id: c.id, label: c.label, scale: c.scale.kind, values: scaleValues(c.scale) })),
    },
    annotators: view.annotators,
    items: view.items,
    assignments: view.assignments.map((a) => ({ instance_id: a.instance_id, annotator: a.annotator, position: a.position })),
    progress: view.progress,
  };
}

function formatFromFile(file: string, given: JudgmentFormat | undefined): JudgmentFormat {
  if (given) return given;
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  throw new AppError('invalid_input', `Cannot tell the format of ${path.basename(file)}: pass --format csv or --format jsonl.`);
}

function printAgreement(report: AgreementReport, format: 'table' | 'csv' | 'latex'): void {
  const tables = [
    { title: 'Agreement per criterion (all items)', table: agreementTable(report) },
    { title: 'YES rate by majority vote, per ambiguity type', table: validityTable(report) },
    ...(report.status_rows.length ? [{ title: 'By instance status (e.g. before vs after filtering)', table: statusTable(report) }] : []),
  ];
  for (const { title, table } of tables) {
    if (format === 'csv') process.stdout.write(`# ${title}\n${toCsv(table)}\n`);
    else if (format === 'latex') process.stdout.write(`${toLatex(table, `${report.campaign.name}: ${title}`)}\n`);
    else {
      const widths = table.header.map((h, i) => Math.max(h.length, ...table.rows.map((r) => r[i]!.length)));
      const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
      process.stdout.write(`${title}\n${line(table.header)}\n${table.rows.map(line).join('\n')}\n\n`);
    }
  }
  if (format !== 'table') return;
  for (const r of report.rows.filter((row) => row.ambiguity_type === 'all')) {
    const byReason = new Map<string, string[]>();
    for (const [field, reason] of Object.entries(r.undefined_reasons)) byReason.set(reason, [...(byReason.get(reason) ?? []), field]);
    for (const [reason, fields] of byReason) process.stdout.write(`note: ${r.criterion}: ${fields.join(', ')} undefined (${reason})\n`);
    if (r.prevalence_paradox) {
      process.stdout.write(
        `note: ${r.criterion}: raters agree on ${((r.p_bar ?? 0) * 100).toFixed(1)}% of ratings but kappa is ${r.fleiss_kappa ?? 'undefined'}; ` +
          `when one answer dominates, chance agreement is high and kappa collapses (the prevalence paradox). Gwet's AC1 (${r.gwet_ac1 ?? 'undefined'}) is less sensitive to it.\n`,
      );
    }
  }
  process.stdout.write(`${report.bootstrap.resamples} bootstrap resamples (seed ${report.bootstrap.seed}); ${report.adjudicated} adjudicated labels; ${report.conflicts} open conflicts; ${report.milliseconds} ms\n`);
}

export function addAnnotationCommands(program: Command): void {
  const protocol = program.command('protocol').description('annotation protocols: list, show, export, import');
  withCommon(protocol.command('list').description('the protocols (latest version of each)')).action((options: CommonOptions) =>
    withDb(options, (db) => {
      const list = allProtocols(db);
      if (options.json) printJson(list.map((p) => ({ id: p.key, version: p.version, name: p.name, built_in: p.builtIn, criteria: p.criteria.map((c) => c.id) })));
      else for (const p of list) process.stdout.write(`${p.key.padEnd(24)} v${p.version}  ${p.name}${p.builtIn ? ' (built in)' : ''}: ${p.criteria.map((c) => c.id).join(', ')}\n`);
    }),
  );
  withCommon(protocol.command('export').description('write a protocol as JSON').argument('<id>', 'protocol id (key, key@version, or number)').option('--out <file>', 'file (default: stdout)')).action(
    (reference: string, options: CommonOptions & { out?: string }) =>
      withDb(options, (db) => {
        const [key, at] = reference.split('@');
        const found = resolveProtocol(db, key!);
        const chosen = at ? protocolVersions(db, found.key).find((p) => p.version === Number(at)) : found;
        if (!chosen) throw new AppError('not_found', `No version ${at} of "${found.key}"`);
        const text = `${JSON.stringify(protocolDocument(chosen), null, 2)}\n`;
        if (options.out) fs.writeFileSync(options.out, text);
        else process.stdout.write(text);
      }),
  );
  withCommon(protocol.command('import').description('add a protocol (or a new version of one) from JSON').argument('<file>')).action((file: string, options: CommonOptions) =>
    withDb(options, (db) => {
      let json: unknown;
      try {
        json = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (error) {
        throw new AppError('invalid_input', `${path.basename(file)}: ${(error as Error).message}`);
      }
      const saved = importProtocol(db, json);
      if (options.json) printJson({ id: saved.key, version: saved.version, db_id: saved.id });
      else process.stdout.write(`Saved ${saved.key} v${saved.version}\n`);
    }),
  );

  const campaign = program.command('campaign').description('annotation campaigns: create, list, show');
  withCommon(
    campaign
      .command('create')
      .description('sample instances, pick a protocol and annotators, and assign the work evenly')
      .requiredOption('--name <name>', 'campaign name')
      .requiredOption('--protocol <id>', 'protocol id, e.g. march-validation')
      .requiredOption('--annotators <names>', 'comma-separated annotator names')
      .option('--per-type <n>', 'stratified sample: this many instances per ambiguity type', count('--per-type'))
      .option('--k <n>', 'annotators per instance (default: all)', count('--k'))
      .option('--seed <n>', 'random seed for the sample and the assignment', count('--seed'), 1)
      .option('--filter <filter>', 'which instances, e.g. "type=semantic,status=ready,dataset=ASQA dev (sample),hops=2"')
      .option('--instances <ids>', 'exactly these instance ids, comma-separated')
      .option('--not-blind', 'let annotators see the LLM filter votes'),
  ).action(
    (options: CommonOptions & { name: string; protocol: string; annotators: string; perType?: number; k?: number; seed: number; filter?: string; instances?: string; notBlind?: boolean }) =>
      withDb(options, (db) => {
        const selection = options.filter ? parseFilter(options.filter) : {};
        if (options.perType) selection.perType = options.perType;
        if (options.instances) selection.instanceIds = options.instances.split(',').map((v) => Number(v.trim()));
        const view = createCampaign(db, {
          name: options.name,
          protocol: options.protocol,
          annotators: options.annotators.split(','),
          ...(options.k ? { perInstance: options.k } : {}),
          seed: options.seed,
          blind: !options.notBlind,
          selection,
        });
        if (options.json) printJson(campaignJson(view));
        else {
          process.stdout.write(`Campaign ${view.id} "${view.name}": ${view.items.length} instances, ${view.assignments.length} assignments (${view.perInstance} per instance)\n`);
          for (const p of view.progress) process.stdout.write(`  ${p.annotator}: ${p.total} items\n`);
        }
      }),
  );
  withCommon(campaign.command('list').description('campaigns with their progress')).action((options: CommonOptions) =>
    withDb(options, (db) => {
      const list = campaignList(db);
      if (options.json) printJson(list);
      else for (const c of list) process.stdout.write(`${String(c.id).padStart(4)}  ${c.name}  ${c.protocol}  ${c.items} items, ${c.annotators} annotators, ${c.done}/${c.total} done\n`);
    }),
  );
  withCommon(campaign.command('show').description('a campaign: protocol, criteria, assignments, progress').argument('<id>', 'campaign id', count('id'))).action(
    (id: number, options: CommonOptions) =>
      withDb(options, (db) => {
        const view = campaignView(db, id);
        if (options.json) printJson(campaignJson(view));
        else {
          process.stdout.write(`Campaign ${view.id} "${view.name}" (${view.protocol.key} v${view.protocol.version}, ${view.blind ? 'blind' : 'not blind'}, seed ${view.seed})\n`);
          process.stdout.write(`  criteria: ${view.protocol.criteria.map((c) => `${c.id} (${c.scale.kind})`).join(', ')}\n`);
          for (const p of view.progress) process.stdout.write(`  ${p.annotator}: ${p.done}/${p.total} done, ${p.skipped} skipped, ${p.seconds} s\n`);
        }
      }),
  );

  const pack = program.command('pack').description('offline annotation packs: export for an annotator, import their results');
  withCommon(
    pack
      .command('export')
      .description("write one file holding an annotator's items, the protocol and a checksum")
      .requiredOption('--campaign <id>', 'campaign id', count('--campaign'))
      .requiredOption('--annotator <name>', 'annotator')
      .requiredOption('--out <file>', 'pack file to write'),
  ).action((options: CommonOptions & { campaign: number; annotator: string; out: string }) =>
    withDb(options, (db) => {
      const report = exportPack(db, { campaignId: options.campaign, annotator: options.annotator, file: path.resolve(options.out) });
      if (options.json) printJson(report);
      else process.stdout.write(`Wrote ${report.items} items for ${report.annotator} to ${report.file} (${(report.bytes / 1024).toFixed(0)} KiB). Open it with: npm start -- ${report.file}\n`);
    }),
  );
  withCommon(
    pack
      .command('import')
      .description("merge a pack's results (the .results.jsonl beside it) into the database; safe to repeat")
      .argument('<file>', 'the pack file (or its results file)')
      .option('--campaign <id>', 'refuse the pack unless it belongs to this campaign', count('--campaign')),
  ).action((file: string, options: CommonOptions & { campaign?: number }) =>
    withDb(options, (db) => {
      const report = importPack(db, path.resolve(file), options.campaign === undefined ? {} : { campaignId: options.campaign });
      if (options.json) printJson(report);
      else
        process.stdout.write(
          `Campaign ${report.campaign}, ${report.annotator}: ${report.imported} new judgments, ${report.already} already imported, ${report.conflicts} conflicts to resolve` +
            (report.incomplete_last_line ? ' (a last line cut off mid-write was left out)' : '') +
            '\n',
        );
    }),
  );

  const judgments = program.command('judgments').description('judgments as plain CSV or JSON Lines files');
  withCommon(
    judgments
      .command('export')
      .description('write the current judgments: campaign, instance_id, annotator, criterion, value, comment, created_at')
      .requiredOption('--campaign <id>', 'campaign id', count('--campaign'))
      .addOption(new Option('--format <format>', 'file format').choices(JUDGMENT_FORMATS).default('csv'))
      .option('--out <file>', 'file (default: stdout)'),
  ).action((options: CommonOptions & { campaign: number; format: JudgmentFormat; out?: string }) =>
    withDb(options, (db) => {
      const target = options.out ? path.resolve(options.out) : path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'awb-')), `judgments.${options.format}`);
      const report = exportJudgments(db, options.campaign, options.format, target);
      if (!options.out) {
        process.stdout.write(fs.readFileSync(target, 'utf8'));
        fs.rmSync(path.dirname(target), { recursive: true, force: true });
      } else if (options.json) printJson(report);
      else process.stdout.write(`Wrote ${report.rows} judgments to ${report.file}\n`);
    }),
  );
  withCommon(
    judgments
      .command('import')
      .description('add judgments from a file (all or nothing; rows already imported are passed over)')
      .argument('<file>', 'CSV or JSON Lines file')
      .requiredOption('--campaign <id>', 'campaign id', count('--campaign'))
      .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(JUDGMENT_FORMATS)),
  ).action((file: string, options: CommonOptions & { campaign: number; format?: JudgmentFormat }) =>
    withDb(options, (db) => {
      const report = importJudgments(db, options.campaign, formatFromFile(file, options.format), path.resolve(file));
      if (options.json) printJson(report);
      else {
        process.stdout.write(report.committed ? `Imported ${report.imported} judgments (${report.already} already there) from ${report.rows} rows\n` : `Nothing was imported: ${report.errors.length} problems\n`);
        for (const e of report.errors) process.stdout.write(`  ${e.location}${e.field ? ` · ${e.field}` : ''}: ${e.message}\n`);
      }
      if (!report.committed) process.exitCode = 1;
    }),
  );

  withCommon(
    program
      .command('agreement')
      .description("inter-annotator agreement per criterion and ambiguity type: Fleiss' kappa (SE, bootstrap CI), P-bar, Krippendorff's alpha, Gwet's AC1, YES rates")
      .requiredOption('--campaign <id>', 'campaign id', count('--campaign'))
      .option('--resamples <n>', 'bootstrap resamples for the kappa interval', count('--resamples'), 1000)
      .option('--seed <n>', 'bootstrap seed', count('--seed'), 1)
      .addOption(new Option('--format <format>', 'text output').choices(['table', 'csv', 'latex']).default('table')),
  ).action((options: CommonOptions & { campaign: number; resamples: number; seed: number; format: 'table' | 'csv' | 'latex' }) =>
    withDb(options, (db) => {
      const report = campaignAgreement(db, options.campaign, { resamples: options.resamples, seed: options.seed });
      if (options.json) printJson(report);
      else printAgreement(report, options.format);
    }),
  );

  withCommon(
    program
      .command('disagreements')
      .description('items where annotators disagree (or a pack import conflicts): who said what')
      .requiredOption('--campaign <id>', 'campaign id', count('--campaign')),
  ).action((options: CommonOptions & { campaign: number }) =>
    withDb(options, (db) => {
      const list = disagreements(db, options.campaign);
      if (options.json) printJson(list);
      else
        for (const d of list) {
          const votes = d.votes.map((v) => `${v.annotator}=${v.value ?? '–'}${v.conflict ? '!' : ''}`).join(' ');
          process.stdout.write(`#${d.instanceId} ${d.criterion}: ${votes}${d.adjudication ? ` → ${d.adjudication.value} (${d.adjudication.adjudicator})` : ''}\n`);
        }
    }),
  );

  withCommon(
    program
      .command('adjudicate')
      .description('record the final label of an item and criterion, with a reason')
      .requiredOption('--campaign <id>', 'campaign id', count('--campaign'))
      .requiredOption('--instance <id>', 'instance id', count('--instance'))
      .requiredOption('--criterion <id>', 'criterion id')
      .requiredOption('--value <value>', 'the final label')
      .requiredOption('--reason <text>', 'why')
      .requiredOption('--adjudicator <name>', 'who decides'),
  ).action((options: CommonOptions & { campaign: number; instance: number; criterion: string; value: string; reason: string; adjudicator: string }) =>
    withDb(options, (db) => {
      adjudicate(db, { campaignId: options.campaign, instanceId: options.instance, criterion: options.criterion, value: options.value, reason: options.reason, adjudicator: options.adjudicator });
      if (options.json) printJson({ ok: true });
      else process.stdout.write(`Recorded ${options.criterion} = ${options.value} for instance ${options.instance}\n`);
    }),
  );
}
