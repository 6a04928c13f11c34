import { agreementRates, fleissFromPatterns, gwetFromPatterns, krippendorffFromPatterns, type Rating } from './agreement';
import { fleissKappaInterval } from './agreement-bootstrap';
import { allItems, encodeRatings, mostRatings, pairKappas, subsetPatterns, type EncodedRatings } from './agreement-matrix';
import type { AgreementReport, AgreementRow } from './api';
import type { TextTable } from './tables';
import type { AmbiguityType } from './domain';
import { scaleValues, type Scale } from './protocols';

/**
 * The agreement report of a campaign, laid out like MARCH Table 2 (bottom: YES rates by type and
 * the "all fields valid" rate) and Table 8 (κ, P̄, strict and majority agreement per criterion),
 * and MIRAGE Table 3 (the same split by instance status, e.g. kept vs removed by the filter).
 * Pure: the service gathers the ratings, this computes.
 *
 * Each criterion's ratings are read once into typed arrays (shared/agreement-matrix.ts) and every
 * subset's row is taken from them; test/helpers/agreement-report-reference.ts keeps the
 * straightforward computation this must equal.
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

/** A subset of the items (all, one ambiguity type, one status): their positions in `items`, in order. */
interface Subset {
  name: string;
  type: AmbiguityType | 'all';
  indexes: Int32Array;
}

/** One judged criterion's ratings, read once. */
interface CriterionRatings {
  criterion: AgreementInput['criteria'][number];
  matrix: Rating[][];
  encoded: EncodedRatings;
  /** Per item, on a yes/no scale: 1 when its label (the adjudicated value, else the majority) is "yes". */
  yes: Uint8Array;
}

function readCriterion(input: AgreementInput, criterion: AgreementInput['criteria'][number]): CriterionRatings {
  const matrix = input.ratings.get(criterion.id) ?? [];
  if (matrix.length !== input.items.length) {
    throw new Error(`The ratings of criterion ${criterion.id} have ${matrix.length} rows for ${input.items.length} items`);
  }
  const encoded = encodeRatings(matrix, scaleValues(criterion.scale));
  const yes = new Uint8Array(matrix.length);
  if (criterion.scale.kind === 'yesno') {
    const adjudicated = input.adjudications.get(criterion.id);
    const { categories, pattern, majority } = encoded;
    for (let i = 0; i < yes.length; i++) {
      const g = pattern[i]!;
      const label = adjudicated?.get(input.items[i]!.id) ?? (g < 0 ? null : categories[majority[g]!]);
      yes[i] = label === 'yes' ? 1 : 0;
    }
  }
  return { criterion, matrix, encoded, yes };
}

/** How many of the items at `indexes` pass `test`. */
function count(indexes: Int32Array, test: (i: number) => boolean): number {
  let n = 0;
  for (let k = 0; k < indexes.length; k++) if (test(indexes[k]!)) n++;
  return n;
}

/** The mean quadratic-weighted kappa over the pairs of columns of an ordinal criterion (pairs with two or more shared items). */
function meanWeightedKappa({ matrix, encoded }: CriterionRatings, indexes: Int32Array): number | null {
  if (!indexes.length) return null;
  const values: number[] = [];
  const columns = matrix[indexes[0]!]!.length;
  const kappas = pairKappas(encoded, indexes, columns, 'quadratic');
  for (let a = 0; a < columns; a++) {
    for (let b = a + 1; b < columns; b++) {
      const k = kappas[a]![b]!;
      if (k.value !== null && k.items >= 2) values.push(k.value);
    }
  }
  return values.length ? values.reduce((x, y) => x + y, 0) / values.length : null;
}

function row(ratings: CriterionRatings, { name: subset, type, indexes }: Subset, options: AgreementOptions): AgreementRow {
  const { criterion, encoded } = ratings;
  // Raters per item (Fleiss' n): the most ratings any item has, which is k when each instance
  // goes to k of a campaign's annotators.
  const raters = mostRatings(encoded, indexes);
  const patterns = subsetPatterns(encoded, indexes);
  const fleiss = fleissFromPatterns(patterns);
  const interval =
    fleiss.kappa.value === null
      ? { low: null, high: null, reason: fleiss.kappa.reason }
      : fleissKappaInterval(patterns, { resamples: options.resamples, seed: options.seed });
  const rates = agreementRates(patterns);
  const ordinal = criterion.scale.kind === 'ordinal';
  const alpha = krippendorffFromPatterns(patterns, ordinal ? 'ordinal' : 'nominal');
  const ac1 = gwetFromPatterns(patterns);
  const weighted = ordinal ? meanWeightedKappa(ratings, indexes) : null;
  let yesRate: number | null = null;
  if (criterion.scale.kind === 'yesno') {
    const rated = count(indexes, (i) => encoded.rated[i]! > 0);
    yesRate = rated ? count(indexes, (i) => ratings.yes[i] === 1) / rated : null;
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
  const judged = input.criteria.filter((c) => c.scale.kind !== 'text').map((c) => readCriterion(input, c));
  const types = [...new Set(input.items.map((i) => i.type))].sort();
  const statuses = [...new Set(input.items.map((i) => i.status))].sort();
  const where = (keep: (item: AgreementInput['items'][number]) => boolean) => {
    const indexes: number[] = [];
    input.items.forEach((item, i) => keep(item) && indexes.push(i));
    return Int32Array.from(indexes);
  };
  const all = allItems(input.items.length);
  const byType: Subset[] = [{ name: 'all', type: 'all', indexes: all }, ...types.map((type) => ({ name: 'all', type, indexes: where((i) => i.type === type) }))];
  // MIRAGE's before vs after filtering: the same rows per instance status, when they differ.
  const byStatus: Subset[] = statuses.length > 1 ? statuses.map((status) => ({ name: `status: ${status}`, type: 'all', indexes: where((i) => i.status === status) })) : [];

  const rows: AgreementRow[] = [];
  const statusRows: AgreementRow[] = [];
  for (const ratings of judged) {
    for (const subset of byType) rows.push(row(ratings, subset, options));
    for (const subset of byStatus) statusRows.push(row(ratings, subset, options));
  }

  const yesno = judged.filter((c) => c.criterion.scale.kind === 'yesno');
  const anyRated = new Uint8Array(input.items.length);
  for (const c of yesno) for (let i = 0; i < anyRated.length; i++) if (c.encoded.rated[i]! > 0) anyRated[i] = 1;
  const validity = byType.map(({ type, indexes }) => {
    const rated = indexes.filter((i) => anyRated[i] === 1);
    const yesRates = Object.fromEntries(yesno.map((c) => [c.criterion.id, rated.length ? round(count(rated, (i) => c.yes[i] === 1) / rated.length) : null]));
    const allValid = rated.length && yesno.length ? count(rated, (i) => yesno.every((c) => c.yes[i] === 1)) / rated.length : null;
    return { ambiguityType: type, items: rated.length, allValidRate: round(allValid), yesRates: yesRates };
  });

  const pairwise = judged.map(({ criterion, encoded }) => {
    const weighted = criterion.scale.kind === 'ordinal';
    const kappas = pairKappas(encoded, all, input.raters.length, weighted ? 'quadratic' : 'none');
    const kappa = kappas.map((line, a) => line.map((k, b) => (a === b ? 1 : round(k!.value))));
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
