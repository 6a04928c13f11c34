import { stringify } from 'yaml';
import type { CostPerKept } from '../pipeline-runs';
import type { GateResult, GateThresholds, SplitSpec } from '../api/release';
import { coverageWords, gateTable } from './gate';
import { hubLicenceId, type LicenceCheck, type SourceLicence } from './licence';
import { hfFeatures, schemaRows } from './schema';
import type { LabelTables, RoundFunnel } from '../construction';
import { labelsSection, roundsSection } from './card-labels';

/**
 * The dataset card (the release's README.md), generated from data: YAML front matter for the
 * Hugging Face Hub (written with the yaml library), then statistics shaped like MARCH Table 2,
 * the construction funnel, agreement and validity (MIRAGE Table 3 when a campaign judged instances
 * before and after filtering), the gate, sources with their licences, limitations and a citation.
 */

/** Running sums for one cell (a split × ambiguity type). */
export interface StatCell {
  instances: number;
  interpretations: number;
  hopsSum: number;
  hopsN: number;
  wordsSum: number;
}

export type StatTable = Map<string, Map<string, StatCell>>;

export function emptyCell(): StatCell {
  return { instances: 0, interpretations: 0, hopsSum: 0, hopsN: 0, wordsSum: 0 };
}

export function countWords(text: string): number {
  // Runs of non-space: what `text.trim().split(/\s+/)` counts, without the array (a release
  // counts the words of every question it plans). The set is JavaScript's \s.
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Adds one instance to its split's cell, its type's cell and the `all` rows and columns. */
export function addToStats(table: StatTable, split: string, type: string, interpretations: number, hops: number | null, words: number): void {
  for (const s of [split, 'all']) {
    let row = table.get(s);
    if (!row) table.set(s, (row = new Map()));
    for (const t of [type, 'all']) {
      let cell = row.get(t);
      if (!cell) row.set(t, (cell = emptyCell()));
      cell.instances++;
      cell.interpretations += interpretations;
      if (hops !== null) {
        cell.hopsSum += hops;
        cell.hopsN++;
      }
      cell.wordsSum += words;
    }
  }
}

export interface AgreementSummary {
  campaign: { id: number; name: string; protocol: string };
  items: number;
  raters: number;
  criteria: { id: string; label: string }[];
  /** Per criterion and type (`all` included). */
  rows: { criterion: string; type: string; yesRate: number | null; kappa: number | null; ciLow: number | null; ciHigh: number | null; ac1: number | null; pBar: number | null }[];
  /** "All fields valid" per type. */
  allValid: Record<string, number | null>;
  /** MIRAGE Table 3: YES rates over every judged instance (before filtering) and over the kept ones. */
  beforeAfter: { criterion: string; type: string; before: number | null; after: number | null }[] | null;
}

export interface FunnelSummary {
  types: string[];
  rows: { step: string; counts: Record<string, number>; total: number }[];
  /** Per stage and model: what the priced calls cost (null when none had a price), and how many had none (absent in older plans). */
  calls: { stage: string; model: string; calls: number; costUsd: number | null; unpriced?: number }[];
  prompts: { stage: string; versions: string[] }[];
  /** What a kept instance cost, over every construction call for these datasets (absent in older plans). */
  costPerKept?: CostPerKept;
}

export interface CardInput {
  name: string;
  version: string;
  description: string;
  authors: string;
  date: string;
  appVersion: string;
  schemaVersion: number;
  splits: string[];
  splitSpec: SplitSpec;
  stats: StatTable;
  selectionText: string;
  licence: LicenceCheck;
  sources: SourceLicence[];
  funnel: FunnelSummary | null;
  agreement: AgreementSummary | null;
  thresholds: GateThresholds;
  gate: GateResult;
  /** Reason given to publish over a licence conflict (the same --force reason). */
  licenceForced: string | null;
  /** Topics and answerability of the released instances (absent: not computed). */
  labels?: LabelTables | null;
  /** CondAmbigQA rounds of the datasets that have construction instances. */
  rounds?: RoundFunnel[];
}

const TYPE_ORDER = ['semantic', 'syntactic', 'constraint', 'unspecified'];
const TYPE_LABEL: Record<string, string> = { semantic: 'Semantic', syntactic: 'Syntactic', constraint: 'Constraint', unspecified: 'Unspecified', all: 'All' };

function table(header: string[], rows: string[][], align: ('l' | 'r')[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `|${align.map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

const n = (v: number) => v.toLocaleString('en-US');
const fixed = (v: number | null, digits = 2) => (v === null || Number.isNaN(v) ? '—' : v.toFixed(digits));
const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);

export function sizeCategory(count: number): string {
  if (count < 1000) return 'n<1K';
  if (count < 10_000) return '1K<n<10K';
  if (count < 100_000) return '10K<n<100K';
  if (count < 1_000_000) return '100K<n<1M';
  if (count < 10_000_000) return '1M<n<10M';
  return '10M<n<100M';
}

export function dataFileName(split: string, kind: 'jsonl' | 'parquet'): string {
  return kind === 'jsonl' ? `data/${split}.jsonl` : `data/${split}-00000-of-00001.parquet`;
}

function typesOf(stats: StatTable): string[] {
  const all = stats.get('all');
  return TYPE_ORDER.filter((t) => all?.has(t));
}

function frontMatter(input: CardInput): string {
  const total = input.stats.get('all')?.get('all')?.instances ?? 0;
  const meta = {
    pretty_name: `${input.name} ${input.version}`,
    license: hubLicenceId(input.licence.licence),
    ...(hubLicenceId(input.licence.licence) === 'other' ? { license_name: input.licence.licence } : {}),
    language: ['en'],
    task_categories: ['question-answering'],
    tags: ['ambiguity', 'multi-hop', 'clarification', 'ambiguity-workbench'],
    size_categories: [sizeCategory(total)],
    configs: [{ config_name: 'default', data_files: input.splits.map((split) => ({ split, path: dataFileName(split, 'parquet') })) }],
    dataset_info: {
      config_name: 'default',
      features: hfFeatures(),
      splits: input.splits.map((split) => ({ name: split, num_examples: input.stats.get(split)?.get('all')?.instances ?? 0 })),
    },
  };
  return `---\n${stringify(meta, { lineWidth: 0 })}---\n`;
}

function statisticsSection(input: CardInput): string {
  const types = typesOf(input.stats);
  const columns = [...types, 'all'];
  const header = ['', ...columns.map((t) => TYPE_LABEL[t] ?? t)];
  const align: ('l' | 'r')[] = ['l', ...columns.map(() => 'r' as const)];
  const counts = [...input.splits, 'all'].map((split) => [
    split === 'all' ? '**All splits**' : `\`${split}\``,
    ...columns.map((t) => n(input.stats.get(split)?.get(t)?.instances ?? 0)),
  ]);
  const all = input.stats.get('all');
  const cell = (t: string) => all?.get(t) ?? emptyCell();
  const shape = [
    ['Interpretations per instance', ...columns.map((t) => fixed(cell(t).instances ? cell(t).interpretations / cell(t).instances : null))],
    ['Average hops', ...columns.map((t) => fixed(cell(t).hopsN ? cell(t).hopsSum / cell(t).hopsN : null))],
    ['Average question length (words)', ...columns.map((t) => fixed(cell(t).instances ? cell(t).wordsSum / cell(t).instances : null))],
  ];
  return [
    '## Statistics',
    '',
    'Instances per split and ambiguity type:',
    '',
    table(['Split', ...header.slice(1)], counts, align),
    '',
    'Shape of the instances (over every split):',
    '',
    table(header, shape, align),
  ].join('\n');
}

function funnelSection(funnel: FunnelSummary): string {
  const columns = [...funnel.types, 'total'];
  const parts = ['## Construction'];
  if (funnel.rows.length) {
    parts.push(
      '',
      'How the instances were built: instances that reached each step of the pipeline, per ambiguity type.',
      '',
      table(['Step', ...columns.map((t) => TYPE_LABEL[t] ?? t)], funnel.rows.map((r) => [r.step, ...funnel.types.map((t) => n(r.counts[t] ?? 0)), n(r.total)]), ['l', ...columns.map(() => 'r' as const)]),
    );
  }
  if (funnel.calls.length) {
    parts.push('', 'Models and calls per stage:', '', table(['Stage', 'Model', 'Calls', 'Cost (USD)'], funnel.calls.map((c) => [c.stage, c.model, n(c.calls), callCost(c)]), ['l', 'l', 'r', 'r']));
    parts.push('', `In all: ${n(funnel.calls.reduce((a, c) => a + c.calls, 0))} calls, ${totalCost(funnel.calls)}.`);
  }
  if (funnel.costPerKept && funnel.costPerKept.total.calls) parts.push('', costSection(funnel.costPerKept));
  if (funnel.prompts.length) {
    parts.push('', `Prompt versions: ${funnel.prompts.map((p) => `${p.stage} ${p.versions.join(', ')}`).join('; ')}.`);
  }
  return parts.join('\n');
}

type CallsRow = FunnelSummary['calls'][number];

/** A stage's and model's cost: unknown when no call had a price, a floor ("≥") when some had none. */
function callCost(c: CallsRow): string {
  if (c.costUsd === null) return 'unknown';
  return c.unpriced ? `≥ ${c.costUsd.toFixed(4)} (${n(c.unpriced)} unpriced)` : c.costUsd.toFixed(4);
}

/** Every call's cost together: unpriced calls are never added as free. */
function totalCost(calls: readonly CallsRow[]): string {
  const priced = calls.reduce((a, c) => a + (c.costUsd ?? 0), 0);
  const unpriced = calls.reduce((a, c) => a + (c.unpriced ?? 0), 0);
  if (!unpriced) return `${priced.toFixed(4)} USD`;
  return `at least ${priced.toFixed(4)} USD (${n(unpriced)} call${unpriced === 1 ? '' : 's'} had no price, so the total is unknown)`;
}

/** Cost per kept instance: tokens and US dollars per stage (and per type), over every construction call for the released datasets. */
function costSection(cost: CostPerKept): string {
  const types = TYPE_ORDER.filter((t) => (cost.kept.byType[t] ?? 0) > 0);
  const money = (v: number | null) => (v === null ? 'unknown' : v.toFixed(4));
  const tokens = (v: number | null) => (v === null ? '–' : n(Math.round(v)));
  const rows = cost.stages.map((s) => [s.stage, tokens(s.perKept.tokens), money(s.perKept.usd), ...types.map((t) => money(s.byType[t]?.perKept.usd ?? null))]);
  rows.push(['all stages', tokens(cost.total.perKept.tokens), money(cost.total.perKept.usd), ...types.map((t) => money(cost.byType[t]?.perKept.usd ?? null))]);
  const batchShare = cost.total.calls ? Math.round((100 * cost.total.batchCalls) / cost.total.calls) : 0;
  return [
    `Cost per kept instance (every construction call for these datasets, over their ${n(cost.kept.total)} kept instances; per type, over that type's kept instances):`,
    '',
    table(['Stage', 'Tokens', 'USD', ...types.map((t) => `USD ${TYPE_LABEL[t] ?? t}`)], rows, ['l', 'r', 'r', ...types.map(() => 'r' as const)]),
    '',
    `${batchShare}% of the calls went through a Batch API.${cost.unpriced.length ? ` No price was set for ${cost.unpriced.join(', ')}: their cost is unknown, and so is any total they are in.` : ''}`,
  ].join('\n');
}

function agreementSection(a: AgreementSummary): string {
  const types = TYPE_ORDER.filter((t) => a.rows.some((r) => r.type === t));
  const header = ['Criterion', ...types.map((t) => `YES ${TYPE_LABEL[t]}`), 'YES all', "Fleiss' κ [95% CI]", "Gwet's AC1", 'P̄'];
  const rows = a.criteria.map((c) => {
    const of = (t: string) => a.rows.find((r) => r.criterion === c.id && r.type === t);
    const overall = of('all');
    return [
      c.label,
      ...types.map((t) => pct(of(t)?.yesRate ?? null)),
      pct(overall?.yesRate ?? null),
      overall?.kappa === null || overall === undefined ? '—' : `${fixed(overall.kappa)} [${fixed(overall.ciLow)}, ${fixed(overall.ciHigh)}]`,
      fixed(overall?.ac1 ?? null),
      fixed(overall?.pBar ?? null),
    ];
  });
  rows.push(['**All fields valid**', ...types.map((t) => pct(a.allValid[t] ?? null)), pct(a.allValid.all ?? null), '—', '—', '—']);
  const parts = [
    '## Human validation',
    '',
    `Campaign "${a.campaign.name}" (#${a.campaign.id}), protocol ${a.campaign.protocol}: ${n(a.items)} instances judged by ${a.raters} annotators each. ` +
      'YES rates follow the majority vote (an adjudicated label replaces it); the confidence interval is a bootstrap over instances.',
    '',
    table(header, rows, ['l', ...header.slice(1).map(() => 'r' as const)]),
  ];
  if (a.beforeAfter?.length) {
    const baTypes = TYPE_ORDER.filter((t) => a.beforeAfter!.some((r) => r.type === t));
    const criteria = [...new Set(a.beforeAfter.map((r) => r.criterion))];
    const label = (id: string) => a.criteria.find((c) => c.id === id)?.label ?? (id === 'all_valid' ? 'All fields valid' : id);
    const cellOf = (criterion: string, type: string) => {
      const r = a.beforeAfter!.find((x) => x.criterion === criterion && x.type === type);
      if (!r || r.before === null || r.after === null) return '—';
      const delta = (r.after - r.before) * 100;
      return `${(r.before * 100).toFixed(1)} → ${(r.after * 100).toFixed(1)} (${delta >= 0 ? '+' : ''}${delta.toFixed(1)})`;
    };
    parts.push(
      '',
      'Validity before filtering (every judged instance) and after (the instances the filter kept), YES rates in %:',
      '',
      table(['Criterion', ...baTypes.map((t) => TYPE_LABEL[t]!)], criteria.map((c) => [label(c), ...baTypes.map((t) => cellOf(c, t))]), ['l', ...baTypes.map(() => 'r' as const)]),
    );
  }
  return parts.join('\n');
}

function gateSection(input: CardInput): string {
  const parts = ['## Release gate', ''];
  if (!input.gate.checks.length) parts.push('Not checked: no thresholds were set for this release, so the gate measured nothing.');
  else {
    parts.push(input.gate.passed ? 'Every check passed before the files were written:' : 'Checks made before the files were written:', '');
    parts.push(table(['Check', 'Threshold', 'Measured', 'Result'], gateTable(input.gate), ['l', 'r', 'r', 'l']));
  }
  const coverage = input.gate.coverage;
  if (coverage) parts.push('', `Coverage: ${coverageWords(coverage)}; the agreement figures describe those judged instances only.`);
  if (input.gate.forced) parts.push('', `> **Published despite failed checks.** Reason given: ${input.gate.forced}`);
  return parts.join('\n');
}

function sourcesSection(input: CardInput): string {
  const parts = [
    '## Sources and licences',
    '',
    table(['Dataset', 'Licence', 'Attribution', 'URL'], input.sources.map((s) => [s.dataset, s.licence || 'not recorded', s.attribution || '—', s.url || '—']), ['l', 'l', 'l', 'l']),
    '',
    `This release is licensed under **${input.licence.licence}**.`,
  ];
  if (input.licence.shareAlike) {
    parts.push(
      'It is **share-alike**: at least one source requires adaptations to be shared under the same terms, so anything built from this release must be shared under the same licence (or a later version of it).',
    );
  }
  if (!input.licence.compatible) {
    parts.push('', `> **Licence conflict.** ${input.licence.problems.join(' ')}${input.licenceForced ? ` Published anyway; reason given: ${input.licenceForced}` : ''}`);
  }
  return parts.join('\n');
}

function limitations(input: CardInput): string[] {
  const out: string[] = [];
  const total = input.stats.get('all')?.get('all')?.instances ?? 0;
  if (!input.agreement) out.push('No human validation campaign is linked to this release: its quality has not been measured by people.');
  else if (input.agreement.items < total) {
    out.push(`Agreement and validity are measured on a sample of ${n(input.agreement.items)} judged instances, not on all ${n(total)}.`);
  }
  const unspecified = input.stats.get('all')?.get('unspecified')?.instances ?? 0;
  if (unspecified) out.push(`${n(unspecified)} instances carry no ambiguity type (imported without one).`);
  if (input.licence.unknown.length) out.push(`The licence of ${input.licence.unknown.join(', ')} is not recorded or not recognised; check it before reuse.`);
  if (input.funnel?.calls.length) out.push('Interpretations, answers and evidence were generated by language models and may contain errors that the filters and reviewers missed.');
  out.push('Questions are in English; the interpretations listed are those found by the pipeline or the source, not necessarily every reading a person could have in mind.');
  return out;
}

function citation(input: CardInput): string {
  const key = `${input.name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_${input.version.replace(/[^0-9a-z]+/gi, '_')}`;
  const fields = [
    `  title  = {{${input.name}}: version ${input.version}}`,
    `  author = {${input.authors || 'The maintainers'}}`,
    `  year   = {${input.date.slice(0, 4)}}`,
    `  note   = {Released with Ambiguity Workbench ${input.appVersion}}`,
  ];
  return ['```bibtex', `@misc{${key},`, fields.join(',\n'), '}', '```'].join('\n');
}

function filesSection(input: CardInput): string {
  const rows = schemaRows().map((r) => [`\`${r.path}\``, r.type + (r.nullable ? ' (nullable)' : ''), r.doc]);
  const split =
    input.splitSpec.mode === 'fractions'
      ? `Splits ${Object.entries(input.splitSpec.fractions).map(([k, v]) => `${k} ${v}`).join(', ')}, drawn with seed ${input.splitSpec.seed} and stratified by ambiguity type.`
      : "Each instance keeps its source's own split.";
  return [
    '## Files',
    '',
    `${split} For each split, \`data/<split>.jsonl\` holds the instances in awb-instance/1 (every field with its provenance; \`awb import --format awb\` reads it back) and \`data/<split>-00000-of-00001.parquet\` one row per instance with these columns:`,
    '',
    table(['Column', 'Type', 'Meaning'], rows, ['l', 'l', 'l']),
    '',
    '`release.json` holds the selection, splits, counts, versions, gate results, sources and licences; `checksums.sha256` covers every other file (`sha256sum -c checksums.sha256`).',
  ].join('\n');
}

/** The whole card: YAML front matter, then the body. */
export function renderCard(input: CardInput): string {
  const total = input.stats.get('all')?.get('all')?.instances ?? 0;
  const body = [
    `# ${input.name} ${input.version}`,
    '',
    input.description.trim() || `A release of ${n(total)} ambiguous questions with their interpretations, evidence and answers.`,
    '',
    `Selection: ${input.selectionText}. Built on ${input.date} with Ambiguity Workbench ${input.appVersion} (database schema ${input.schemaVersion}).`,
    '',
    statisticsSection(input),
    ...(input.funnel ? ['', funnelSection(input.funnel)] : []),
    ...(input.rounds?.length ? ['', roundsSection(input.rounds)] : []),
    ...(input.labels ? ['', labelsSection(input.labels)] : []),
    ...(input.agreement ? ['', agreementSection(input.agreement)] : []),
    '',
    gateSection(input),
    '',
    sourcesSection(input),
    '',
    filesSection(input),
    '',
    '## Known limitations',
    '',
    ...limitations(input).map((l) => `- ${l}`),
    '',
    '## Citation',
    '',
    citation(input),
    '',
  ];
  return `${frontMatter(input)}\n${body.join('\n')}`;
}
