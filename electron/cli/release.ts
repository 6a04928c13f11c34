import { type Command, InvalidArgumentError } from 'commander';
import type { Input, ReleaseDiff, ReleaseSummary, VerifyReport } from '../../shared/api';
import { coverageWords, gateTable, gateWords } from '../../shared/release/gate';
import { parseSplitSpec } from '../../shared/release/splits';
import { withClient } from './client';
import { printJson, withCommon, type CommonOptions } from './common';

/**
 * `awb release create|list|show|verify|diff`: a client of the `release:*` operations. Commands
 * only turn strings into the operation's input; validation and defaults live in the operation.
 */

function number(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

function split(value: string): Record<string, number> | 'source' {
  if (value.trim() === 'source') return 'source';
  try {
    return parseSplitSpec(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

function pad(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => `  ${r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}`.trimEnd()).join('\n');
}

function printSummary(summary: ReleaseSummary): void {
  const lines: string[] = [];
  if (summary.id === null) lines.push(`Refused: ${summary.name} ${summary.version} falls short of the gate; nothing was written under ${summary.dir}.`);
  else lines.push(`Release ${summary.id}: ${summary.name} ${summary.version} in ${summary.dir}`);
  lines.push(`  ${Object.entries(summary.counts).map(([s, n]) => `${s} ${n}`).join(', ')}`);
  lines.push(`  gate: ${gateWords(summary.gate)}${summary.gate.coverage ? `; ${coverageWords(summary.gate.coverage)}` : ''}`);
  if (summary.gate.checks.length) lines.push(pad([['check', 'threshold', 'value', 'result'], ...gateTable(summary.gate)]));
  for (const f of summary.files) lines.push(`  ${f.sha256.slice(0, 12)}  ${f.path}${f.rows === null ? '' : ` (${f.rows} rows)`}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const MARK: Record<ReleaseDiff['rows'][number]['change'], string> = { moved: '>', added: '+', removed: '-', changed: '~' };

/** The diff as text: split moves first (a benchmark's contamination risk), then the counts, then each instance. */
function diffLines(diff: ReleaseDiff): string[] {
  const lines = [`${diff.a.name} ${diff.a.version} → ${diff.b.name} ${diff.b.version}`];
  lines.push(diff.moved ? `  ${diff.moved} moved between splits: ${diff.moves.map((m) => `${m.count} ${m.from} → ${m.to}`).join(', ')}` : '  no instance moved between splits');
  lines.push(`  ${diff.added} added, ${diff.removed} removed, ${diff.changed} changed, ${diff.unchanged} unchanged`);
  for (const r of diff.rows) {
    const where = r.change === 'moved' ? `  [${r.splitA} → ${r.splitB}]` : '';
    lines.push(`  ${MARK[r.change]} ${r.key}${where}${r.fields.length ? `  (${r.fields.join(', ')})` : ''}`);
  }
  if (diff.truncated) lines.push('  … more; raise --limit or choose a --kind');
  return lines;
}

interface CreateOptions extends CommonOptions {
  dataset?: string[];
  type?: string[];
  status?: string[];
  campaign?: number;
  onlyValid?: boolean;
  split?: Record<string, number> | 'source';
  seed?: number;
  minKappa?: number;
  minAc1?: number;
  minYesRate?: number;
  minJudgments?: number;
  noUnresolved?: boolean;
  licence?: string;
  description?: string;
  authors?: string;
  force?: string;
  out?: string;
}

export function addReleaseCommands(program: Command): void {
  const release = program.command('release').description('frozen, versioned releases of instances: files in the Hugging Face layout, a generated card, a quality gate');

  withCommon(
    release
      .command('create')
      .description('freeze a selection as a new release and write it to an empty folder (exit 1 when the gate refuses)')
      .argument('<name>', 'release name')
      .argument('<version>', 'semantic version, e.g. 1.0.0 (a new version is a new release)')
      .option('--out <dir>', 'output folder, new or empty (default: releases/NAME-VERSION beside the database)')
      .option('--dataset <name>', 'only this dataset (repeatable, or comma-separated)', collect)
      .option('--type <type>', 'only this ambiguity type: semantic, syntactic, constraint, unspecified (repeatable)', collect)
      .option('--status <status>', 'only this status: building, ready, removed (repeatable)', collect)
      .option('--campaign <id>', 'the validation campaign whose agreement goes into the card and the gate', integer)
      .option('--only-valid', 'keep only instances with a positive verdict in the campaign (majority or adjudicated)')
      .option('--split <spec>', 'named fractions, e.g. train=0.8,test=0.2, or "source" for each source\'s own split', split)
      .option('--seed <n>', 'seed of the split draw', integer)
      .option('--min-kappa <k>', "gate: minimum Fleiss' kappa per yes/no criterion", number)
      .option('--min-ac1 <v>', "gate: minimum Gwet's AC1 per yes/no criterion", number)
      .option('--min-yes-rate <r>', 'gate: minimum YES rate per yes/no criterion (0-1)', number)
      .option('--min-judgments <n>', 'gate: minimum annotators per selected instance (one the campaign never judged counts 0)', integer)
      .option('--no-unresolved', 'gate: no open conflicts or tied votes without adjudication')
      .option('--licence <spdx>', 'release licence (default: chosen from the sources)')
      .option('--description <text>', 'the opening paragraph of the card')
      .option('--authors <names>', 'authors for the citation block')
      .option('--force <reason>', 'publish although the gate or the licence check refuses; the card records the reason'),
  ).action(async (name: string, version: string, options: CreateOptions) => {
    const input: Input<'release:create'> = {
      name,
      version,
      ...(options.out ? { out: options.out } : {}),
      selection: {
        ...(options.dataset ? { datasets: options.dataset } : {}),
        ...(options.type ? { types: options.type as never } : {}),
        ...(options.status ? { statuses: options.status as never } : {}),
        ...(options.campaign !== undefined ? { campaignId: options.campaign } : {}),
        ...(options.onlyValid ? { onlyValid: true } : {}),
      },
      ...(options.split === 'source'
        ? { split: { mode: 'source' as const } }
        : options.split || options.seed !== undefined
          ? { split: { mode: 'fractions' as const, ...(options.split ? { fractions: options.split } : {}), ...(options.seed !== undefined ? { seed: options.seed } : {}) } }
          : {}),
      gate: {
        ...(options.minKappa !== undefined ? { minKappa: options.minKappa } : {}),
        ...(options.minAc1 !== undefined ? { minAc1: options.minAc1 } : {}),
        ...(options.minYesRate !== undefined ? { minYesRate: options.minYesRate } : {}),
        ...(options.minJudgments !== undefined ? { minJudgments: options.minJudgments } : {}),
        // commander's --no-unresolved sets `unresolved: false`; the flag asks for none left.
        ...((options as { unresolved?: boolean }).unresolved === false ? { noUnresolved: true } : {}),
      },
      ...(options.licence ? { licence: options.licence } : {}),
      ...(options.description ? { description: options.description } : {}),
      ...(options.authors ? { authors: options.authors } : {}),
      ...(options.force ? { force: options.force } : {}),
    };
    const summary = await withClient(options, (client) => client.runJob('release:create', input, `Release ${name} ${version}`));
    if (options.json) printJson(summary);
    else printSummary(summary);
    if (summary.id === null) process.exitCode = 1;
  });

  withCommon(release.command('list').description('releases in this database')).action(async (options: CommonOptions) => {
    const rows = await withClient(options, (client) => client.call('release:list', {}));
    if (options.json) return printJson(rows);
    if (!rows.length) return void process.stdout.write('No releases yet.\n');
    process.stdout.write(
      `${pad([
        ['id', 'name', 'version', 'instances', 'licence', 'gate', 'created', 'folder'],
        ...rows.map((r) => [String(r.id), r.name, r.version, String(r.instances), r.licence, r.forced ? 'forced' : r.gateVerdict, r.createdAt.slice(0, 16), r.dir]),
      ])}\n`,
    );
  });

  withCommon(release.command('show').description('one release: selection, counts, gate, files').argument('<id>', 'release id', integer)).action(
    async (id: number, options: CommonOptions) => {
      const detail = await withClient(options, (client) => client.call('release:get', { id }));
      if (options.json) return printJson(detail);
      printSummary({ id: detail.id, name: detail.name, version: detail.version, dir: detail.dir, counts: detail.counts, files: detail.files, gate: detail.gate });
      process.stdout.write(`  licence ${detail.licence}; app ${detail.appVersion}, schema ${detail.schemaVersion}; created ${detail.createdAt}\n`);
    },
  );

  withCommon(release.command('verify').description('check a release folder: checksums, schemas, counts against release.json').argument('<dir>', 'release folder')).action(
    async (dir: string, options: CommonOptions) => {
      const report: VerifyReport = await withClient(options, (client) => client.call('release:verify', { dir }));
      if (options.json) printJson(report);
      else {
        for (const c of report.checks) process.stdout.write(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.message}\n`);
        process.stdout.write(report.ok ? `${report.dir}: every check passed.\n` : `${report.dir}: some checks failed.\n`);
      }
      if (!report.ok) process.exitCode = 1;
    },
  );

  withCommon(
    release
      .command('diff')
      .description('instances moved between splits, added, removed and changed between two releases (matched by stable key)')
      .argument('<a>', 'release id (before)', integer)
      .argument('<b>', 'release id (after)', integer)
      .option('--kind <kind>', 'list only this kind: moved, added, removed, changed (repeatable, or comma-separated)', collect)
      .option('--limit <n>', 'list at most this many instances', integer),
  ).action(async (a: number, b: number, options: CommonOptions & { limit?: number; kind?: string[] }) => {
    const diff: ReleaseDiff = await withClient(options, (client) =>
      client.call('release:diff', { a, b, ...(options.kind ? { kinds: options.kind as never } : {}), ...(options.limit ? { limit: options.limit } : {}) }),
    );
    if (options.json) return printJson(diff);
    process.stdout.write(`${diffLines(diff).join('\n')}\n`);
  });
}
