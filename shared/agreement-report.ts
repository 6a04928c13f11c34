import {
  agreementRates,
  cohenKappa,
  fleissFromPatterns,
  gwetFromPatterns,
  krippendorffFromPatterns,
  majorityLabel,
  toPatterns,
  type Rating,
} from './agreement';
import { fleissKappaInterval } from './agreement-bootstrap';
import type { AgreementReport, AgreementRow } from './api';
import type { TextTable } from './tables';
import type { AmbiguityType } from './domain';
import { scaleValues, type Scale } from './protocols';

/**
 * The agreement report of a campaign, laid out like MARCH Table 2 (bottom: YES rates by type and
 * the "all fields valid" rate) and Table 8 (κ, P̄, strict and majority agreement per criterion),
 * and MIRAGE Table 3 (the same split by instance status, e.g. kept vs removed by the filter).
 * Pure: the service gathers the ratings, this computes.
 */

export interface AgreementInput {
  criteria: { id: string; label: string; scale: Scale }[];
  items: { id: number; type: AmbiguityType; status: string }[];
  raters: string[];
  /** criterion → one row per item (same order as `items`), one column per rater. */
  ratings: Map<string, Rating[][]>;
  /** criterion → item id → adjudicated value (overrides the majority). */
  adjudications: Map<string, Map<number, string>>;
}

export interface AgreementOptions {
  resamples: number;
  seed: number;
}

const round = (v: number | null) => (v === null ? null : Number(v.toFixed(6)));

function row(
  criterion: AgreementInput['criteria'][number],
  matrix: Rating[][],
  itemIds: number[],
  adjudicated: Map<number, string> | undefined,
  type: AmbiguityType | 'all',
  subset: string,
  options: AgreementOptions,
): AgreementRow {
  // Raters per item (Fleiss' n): the most ratings any item has, which is k when each instance
  // goes to k of a campaign's annotators.
  let raters = 0;
  for (const ratings of matrix) {
    let n = 0;
    for (const r of ratings) if (r !== null) n++;
    if (n > raters) raters = n;
  }
  const categories = scaleValues(criterion.scale);
  const patterns = toPatterns(matrix, categories);
  const fleiss = fleissFromPatterns(patterns);
  const interval =
    fleiss.kappa.value === null
      ? { low: null, high: null, reason: fleiss.kappa.reason }
      : fleissKappaInterval(patterns, { resamples: options.resamples, seed: options.seed });
  const rates = agreementRates(patterns);
  const ordinal = criterion.scale.kind === 'ordinal';
  const alpha = krippendorffFromPatterns(patterns, ordinal ? 'ordinal' : 'nominal');
  const ac1 = gwetFromPatterns(patterns);
  let weighted: number | null = null;
  if (ordinal && matrix.length) {
    const values: number[] = [];
    const columns = matrix[0]!.length;
    for (let a = 0; a < columns; a++) {
      for (let b = a + 1; b < columns; b++) {
        const k = cohenKappa(matrix.map((r) => r[a] ?? null), matrix.map((r) => r[b] ?? null), categories, 'quadratic');
        if (k.value !== null && k.items >= 2) values.push(k.value);
      }
    }
    weighted = values.length ? values.reduce((x, y) => x + y, 0) / values.length : null;
  }
  let yesRate: number | null = null;
  if (criterion.scale.kind === 'yesno') {
    let rated = 0;
    let yes = 0;
    matrix.forEach((ratings, i) => {
      if (ratings.every((r) => r === null)) return;
      rated++;
      const label = adjudicated?.get(itemIds[i]!) ?? majorityLabel(ratings);
      if (label === 'yes') yes++;
    });
    yesRate = rated ? yes / rated : null;
  }
  const reasons: Record<string, string> = {};
  const note = (field: string, value: { value: number | null; reason?: string }) => {
    if (value.value === null && value.reason) reasons[field] = value.reason;
  };
  note('fleissKappa', fleiss.kappa);
  note('pBar', fleiss.pBar);
  note('strictAgreement', rates.strict);
  note('krippendorffAlpha', alpha);
  note('gwetAc1', ac1);
  if (interval.low === null && interval.reason) reasons.kappa_ci = interval.reason;
  const pBar = fleiss.pBar.value;
  return {
    criterion: criterion.id,
    ambiguityType: type,
    subset,
    items: fleiss.items,
    raters,
    yesRate: round(yesRate),
    fleissKappa: round(fleiss.kappa.value),
    kappaSe0: round(fleiss.se0.value),
    kappaCiLow: round(interval.low),
    kappaCiHigh: round(interval.high),
    pBar: round(pBar),
    strictAgreement: round(rates.strict.value),
    majorityAgreement: round(rates.majority.value),
    majorityShare: round(rates.majorityShare.value),
    krippendorffAlpha: round(alpha.value),
    krippendorffLevel: ordinal ? 'ordinal' : 'nominal',
    gwetAc1: round(ac1.value),
    weightedKappa: round(weighted),
    undefinedReasons: reasons,
    // High observed agreement with a low (or undefined) kappa: the prevalence paradox.
    prevalenceParadox: pBar !== null && pBar >= 0.9 && (fleiss.kappa.value === null || fleiss.kappa.value < 0.4),
  };
}

export function agreementReport(
  input: AgreementInput,
  options: AgreementOptions,
  campaign: AgreementReport['campaign'],
): Omit<AgreementReport, 'adjudicated' | 'conflicts' | 'milliseconds'> {
  const judged = input.criteria.filter((c) => c.scale.kind !== 'text');
  const types = [...new Set(input.items.map((i) => i.type))].sort();
  const statuses = [...new Set(input.items.map((i) => i.status))].sort();
  const subsets: { name: string; type: AmbiguityType | 'all'; keep: (i: AgreementInput['items'][number]) => boolean }[] = [
    { name: 'all', type: 'all', keep: () => true },
    ...types.map((type) => ({ name: 'all', type, keep: (i: AgreementInput['items'][number]) => i.type === type })),
  ];
  // MIRAGE's before vs after filtering: the same rows per instance status, when they differ.
  if (statuses.length > 1) for (const status of statuses) subsets.push({ name: `status: ${status}`, type: 'all', keep: (i) => i.status === status });

  const rows: AgreementRow[] = [];
  const statusRows: AgreementRow[] = [];
  for (const criterion of judged) {
    const matrix = input.ratings.get(criterion.id) ?? [];
    for (const subset of subsets) {
      const indexes = input.items.map((item, i) => (subset.keep(item) ? i : -1)).filter((i) => i !== -1);
      (subset.name === 'all' ? rows : statusRows).push(
        row(
          criterion,
          indexes.map((i) => matrix[i]!),
          indexes.map((i) => input.items[i]!.id),
          input.adjudications.get(criterion.id),
          subset.type,
          subset.name,
          options,
        ),
      );
    }
  }

  const yesno = judged.filter((c) => c.scale.kind === 'yesno');
  const validity = [{ type: 'all' as const }, ...types.map((type) => ({ type }))].map(({ type }) => {
    const indexes = input.items.map((item, i) => (type === 'all' || item.type === type ? i : -1)).filter((i) => i !== -1);
    const labelOf = (criterion: string, i: number) =>
      input.adjudications.get(criterion)?.get(input.items[i]!.id) ?? majorityLabel((input.ratings.get(criterion) ?? [])[i] ?? []);
    const rated = indexes.filter((i) => yesno.some((c) => (input.ratings.get(c.id)?.[i] ?? []).some((r) => r !== null)));
    const yesRates = Object.fromEntries(
      yesno.map((c) => [c.id, rated.length ? round(rated.filter((i) => labelOf(c.id, i) === 'yes').length / rated.length) : null]),
    );
    const allValid = rated.length && yesno.length ? rated.filter((i) => yesno.every((c) => labelOf(c.id, i) === 'yes')).length / rated.length : null;
    return { ambiguityType: type, items: rated.length, allValidRate: round(allValid), yesRates: yesRates };
  });

  const pairwise = judged.map((criterion) => {
    const matrix = input.ratings.get(criterion.id) ?? [];
    const categories = scaleValues(criterion.scale);
    const weighted = criterion.scale.kind === 'ordinal';
    const kappa = input.raters.map((_, a) =>
      input.raters.map((__, b) => {
        if (a === b) return 1;
        const k = cohenKappa(matrix.map((r) => r[a] ?? null), matrix.map((r) => r[b] ?? null), categories, weighted ? 'quadratic' : 'none');
        return round(k.value);
      }),
    );
    return { criterion: criterion.id, raters: input.raters, kappa, weighted };
  });

  return { campaign, rows, statusRows: statusRows, validity, pairwise, bootstrap: { resamples: options.resamples, seed: options.seed } };
}

// ---- tables for papers -----------------------------------------------------------------------

/** A table for the screen, a CSV file or a paper: `align` says which columns hold numbers. */
/** A report table; written out by shared/tables.ts (toCsv, toLatex). */
export interface ReportTable extends TextTable {
  /** Per column: 'l' for text, 'r' for numbers (right-aligned on screen and in LaTeX). */
  align: ('l' | 'r')[];
}

/** Every digit shown with the same precision, κ included (one table must not say 0.19 and another 0.188). */
export const DIGITS = 3;

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null) => (v === null ? '—' : v.toFixed(DIGITS));
const aligned = (text: number, columns: number): ('l' | 'r')[] => Array.from({ length: columns }, (_, i) => (i < text ? 'l' : 'r'));

/** Table 8 style: one line per criterion (all items). */
export function agreementTable(report: Pick<AgreementReport, 'rows'>): ReportTable {
  const header = ['Criterion', "Fleiss' κ", '95% CI', 'P̄', 'Strict', 'Majority', 'Maj. share', "Krippendorff's α", 'Gwet AC1'];
  return {
    header,
    align: aligned(1, header.length),
    rows: report.rows
      .filter((r) => r.ambiguityType === 'all')
      .map((r) => [
        r.criterion,
        num(r.fleissKappa),
        r.kappaCiLow === null ? '—' : `[${num(r.kappaCiLow)}, ${num(r.kappaCiHigh)}]`,
        num(r.pBar),
        num(r.strictAgreement),
        num(r.majorityAgreement),
        num(r.majorityShare),
        num(r.krippendorffAlpha),
        num(r.gwetAc1),
      ]),
  };
}

/** Table 2 (bottom) style: YES rate by type per criterion, the all-valid line, and κ. */
export function validityTable(report: Pick<AgreementReport, 'rows' | 'validity'>): ReportTable {
  const types = report.validity.map((v) => v.ambiguityType).filter((t) => t !== 'all');
  const criteria = [...new Set(report.rows.filter((r) => r.yesRate !== null || r.ambiguityType === 'all').map((r) => r.criterion))];
  const body = criteria
    .filter((c) => report.validity[0]?.yesRates[c] !== undefined)
    .map((c) => [
      c,
      ...types.map((t) => pct(report.validity.find((v) => v.ambiguityType === t)?.yesRates[c] ?? null)),
      pct(report.validity.find((v) => v.ambiguityType === 'all')?.yesRates[c] ?? null),
      num(report.rows.find((r) => r.criterion === c && r.ambiguityType === 'all')?.fleissKappa ?? null),
    ]);
  body.push(['All fields valid', ...types.map((t) => pct(report.validity.find((v) => v.ambiguityType === t)?.allValidRate ?? null)), pct(report.validity.find((v) => v.ambiguityType === 'all')?.allValidRate ?? null), '—']);
  const header = ['Criterion', ...types, 'all', "Fleiss' κ"];
  return { header, align: aligned(1, header.length), rows: body };
}

/** MIRAGE Table 3 style: the same measures per instance status (e.g. before vs after the filter). */
export function statusTable(report: Pick<AgreementReport, 'statusRows'>): ReportTable {
  const header = ['Criterion', 'Status', 'Items', 'YES rate', "Fleiss' κ", 'P̄', 'Gwet AC1'];
  return {
    header,
    align: aligned(2, header.length),
    rows: report.statusRows.map((r) => [r.criterion, r.subset.replace(/^status: /, ''), String(r.items), pct(r.yesRate), num(r.fleissKappa), num(r.pBar), num(r.gwetAc1)]),
  };
}

/**
 * The same table with each criterion id in the first column replaced by its protocol label
 * ("long_answer" → "Long answer consistent"), as the judging screen names it. Other cells
 * ("All fields valid") stay as they are.
 */
export function withCriterionLabels<T extends { rows: string[][] }>(table: T, labels: Readonly<Record<string, string>>): T {
  const label = (cell: string) => (Object.hasOwn(labels, cell) ? labels[cell]! : cell);
  return { ...table, rows: table.rows.map((row) => row.map((cell, i) => (i === 0 ? label(cell) : cell))) };
}
