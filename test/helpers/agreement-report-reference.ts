import {
  agreementRates,
  cohenKappa,
  fleissFromPatterns,
  gwetFromPatterns,
  krippendorffFromPatterns,
  majorityLabel,
  patternBootstrapInterval,
  toPatterns,
  type Rating,
} from '../../shared/agreement';
import type { AgreementReport, AgreementRow } from '../../shared/api';
import type { AgreementInput, AgreementOptions } from '../../shared/agreement-report';
import type { AmbiguityType } from '../../shared/domain';
import { scaleValues } from '../../shared/protocols';

/**
 * The test oracle: the agreement report as it was computed before the typed-array fast path in
 * shared/agreement-report.ts (each subset's ratings copied out and grouped into string-keyed
 * patterns, labels counted in Maps, every bootstrap resample through the general
 * patternBootstrapInterval). The fast path must give the same report, to the last digit.
 *
 * The agreement report of a campaign, laid out like MARCH Table 2 (bottom: YES rates by type and
 * the "all fields valid" rate) and Table 8 (κ, P̄, strict and majority agreement per criterion),
 * and MIRAGE Table 3 (the same split by instance status, e.g. kept vs removed by the filter).
 * Pure: the service gathers the ratings, this computes.
 */

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
      : patternBootstrapInterval(patterns, (w) => fleissFromPatterns(patterns, w).kappa.value, { resamples: options.resamples, seed: options.seed });
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

export function referenceAgreementReport(
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

