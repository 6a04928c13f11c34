import { mean, percentileInterval, quantile, seededRandom, standardDeviation, type BootstrapOptions, type Interval } from '../statistics';
import { answerCountDifference, bestTokenScores, citationPrecision, dF1, geometricMean, NormalForms, strEm } from './answer-metrics';
import { rougeL, type RougeOptions } from './rouge';

/**
 * The metric registry: which metrics exist, how one item is scored on all of them, and how items
 * aggregate into the corpus-level figures a table shows (means in percent, composites as
 * geometric means, SD and a seeded bootstrap interval). The metrics themselves live in
 * answer-metrics.ts and rouge.ts; the shared statistics in shared/statistics.ts.
 */

// ---- latency, tokens, cost ----------------------------------------------------------------------------

export interface UsageSummary {
  n: number;
  latencyMs: { p50: number | null; p95: number | null; p99: number | null; mean: number | null };
  tokensPerQuery: number | null;
  costPerQuery: number | null;
}

/** Per-query latency percentiles and mean tokens and cost per query; each item is the sum over all its calls. */
export function summarizeUsage(items: readonly { latencyMs: number; tokens: number; cost: number }[]): UsageSummary {
  const latencies = items.map((i) => i.latencyMs);
  const n = items.length;
  return {
    n,
    latencyMs: { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), p99: quantile(latencies, 0.99), mean: n ? mean(latencies) : null },
    tokensPerQuery: n ? mean(items.map((i) => i.tokens)) : null,
    costPerQuery: n ? mean(items.map((i) => i.cost)) : null,
  };
}

// ---- the metric registry ----------------------------------------------------------------------------------

/** The metrics that need no LLM, by the names results use (snake_case data keys). */
export const METRIC_NAMES = [
  'str_em',
  'rouge_l',
  'token_em',
  'token_f1',
  'd_f1',
  'dr_f1',
  'token_em_short',
  'token_f1_short',
  'd_f1_short',
  'dr_f1_corpus',
  'citation_precision',
  'answer_count',
  'answer_count_difference',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** Metrics that need the extractive reader (an LLM or reader endpoint): computed by evaluation runs. */
export const READER_METRIC_NAMES = ['disambig_f1', 'dr', 'march_avg'] as const;

/** Metrics reported in percent (the others are counts). */
const PERCENT = new Set<string>([
  'str_em', 'rouge_l', 'token_em', 'token_f1', 'd_f1', 'dr_f1', 'token_em_short', 'token_f1_short', 'd_f1_short', 'dr_f1_corpus',
  'citation_precision', 'disambig_f1', 'dr', 'march_avg',
]);

/** A metric defined over the corpus means of two others, not as a mean over items. */
interface Composite {
  parts: readonly [string, string];
  combine: (a: number, b: number) => number;
}

/**
 * The composites: ASQA's DR (geometric mean of the Disambig-F1 and ROUGE-L means), the corpus
 * form of ADF's DR-F1 (a named alternative: ADF's own is per item, `dr_f1`), and MARCH's "Avg"
 * (the arithmetic mean of the STR-EM and Disambig-F1 means, Table 3).
 */
export const COMPOSITES: Readonly<Record<string, Composite>> = {
  dr: { parts: ['disambig_f1', 'rouge_l'], combine: geometricMean },
  dr_f1_corpus: { parts: ['d_f1', 'rouge_l'], combine: geometricMean },
  march_avg: { parts: ['str_em', 'disambig_f1'], combine: (a, b) => (a + b) / 2 },
};

export function isPercentMetric(name: string): boolean {
  return PERCENT.has(name);
}

/** The composites whose two parts are all present. */
export function compositesOf(present: ReadonlySet<string>): string[] {
  return Object.entries(COMPOSITES)
    .filter(([, c]) => present.has(c.parts[0]) && present.has(c.parts[1]))
    .map(([name]) => name);
}

/** The gold side of one item. */
export interface GoldItem {
  /** Short answers per interpretation: the answer first, then its aliases (an empty list when none). */
  interpretations: readonly (readonly string[])[];
  /** Reference long answers. */
  longAnswers: readonly string[];
  /** The fragments the gold interpretations cite (CondAmbigQA), each by every name it answers to (rank, title, source id; matched ignoring case). */
  citedFragments: readonly (readonly string[])[];
  /** How many fragments the item's frozen evidence list holds (a cited number past it names no fragment); null when unknown. */
  fragmentCount?: number | null;
}

/** One system output. */
export interface PredictionItem {
  answer: string;
  /** Null when the system gave no separate short answers. */
  shortAnswers: readonly string[] | null;
  /** Null when the system gave no citations. */
  citations: readonly string[] | null;
}

export type ItemMetrics = Partial<Record<MetricName, number | null>>;

export interface ItemScoringOptions extends RougeOptions {
  metrics?: readonly MetricName[];
}

/**
 * A prediction's citations as keys that citation precision compares: `gold:k` for the k-th gold
 * cited fragment (by rank, title or source id, case ignored), `invalid:N` for a number naming no
 * fragment of the item (N < 1 or past its list), `other:name` for anything else. `invalid` lists
 * those numbers, for the item's note.
 */
export function resolveCitations(citations: readonly string[], gold: Pick<GoldItem, 'citedFragments' | 'fragmentCount'>): { keys: string[]; invalid: number[] } {
  const goldNames = new Map<string, number>();
  gold.citedFragments.forEach((names, k) => names.forEach((name) => goldNames.set(name.trim().toLowerCase(), k)));
  const invalid: number[] = [];
  const keys = citations.map((c) => {
    const name = c.trim().toLowerCase();
    const k = goldNames.get(name);
    if (k !== undefined) return `gold:${k}`;
    const count = gold.fragmentCount ?? null;
    if (/^\d+$/.test(name) && count !== null && (Number(name) < 1 || Number(name) > count)) {
      invalid.push(Number(name));
      return `invalid:${Number(name)}`;
    }
    return `other:${name}`;
  });
  return { keys, invalid: [...new Set(invalid)] };
}

/** "cited fragment 9; the question has 5" (one clause per number), for an item's notes. */
export function invalidCitationNote(invalid: readonly number[], fragmentCount: number): string {
  const numbers = invalid.join(', ');
  return `cited fragment${invalid.length === 1 ? '' : 's'} ${numbers}; the question has ${fragmentCount} fragment${fragmentCount === 1 ? '' : 's'} (counted as wrong citations)`;
}

/** Token EM and F1 of some predicted strings against the gold answers: null without any gold answer, or without predictions to score (`null`). */
function tokenScores(predicted: readonly string[] | null, gold: GoldItem['interpretations'], forms: NormalForms): { em: number | null; f1: number | null } {
  if (predicted === null || !gold.some((a) => a.length > 0)) return { em: null, f1: null };
  return bestTokenScores(predicted, gold, forms);
}

/** Every requested non-LLM metric of one item; the corpus composite (dr_f1_corpus) is left to the aggregate. */
export function scoreItem(prediction: PredictionItem, gold: GoldItem, options: ItemScoringOptions = {}): ItemMetrics {
  const wanted = new Set<MetricName>(options.metrics ?? METRIC_NAMES);
  const want = (...names: MetricName[]) => names.some((n) => wanted.has(n));
  const out: ItemMetrics = {};
  const answer = prediction.answer.trim() ? [prediction.answer] : [];
  const short = prediction.shortAnswers;
  const forms = new NormalForms();
  if (want('str_em')) out.str_em = strEm(prediction.answer, gold.interpretations, forms);
  if (want('rouge_l', 'dr_f1', 'dr_f1_corpus')) out.rouge_l = rougeL(prediction.answer, gold.longAnswers, options);
  if (want('token_em', 'token_f1')) {
    const best = tokenScores(answer, gold.interpretations, forms);
    if (wanted.has('token_em')) out.token_em = best.em;
    if (wanted.has('token_f1')) out.token_f1 = best.f1;
  }
  if (want('token_em_short', 'token_f1_short')) {
    const best = tokenScores(short, gold.interpretations, forms);
    if (wanted.has('token_em_short')) out.token_em_short = best.em;
    if (wanted.has('token_f1_short')) out.token_f1_short = best.f1;
  }
  if (want('d_f1', 'dr_f1', 'dr_f1_corpus')) out.d_f1 = dF1(answer, gold.interpretations, forms);
  if (wanted.has('d_f1_short')) out.d_f1_short = short === null ? null : dF1(short, gold.interpretations, forms);
  if (wanted.has('dr_f1')) out.dr_f1 = typeof out.d_f1 === 'number' && typeof out.rouge_l === 'number' ? geometricMean(out.d_f1, out.rouge_l) : null;
  if (wanted.has('citation_precision')) {
    const { keys } = resolveCitations(prediction.citations ?? [], gold);
    out.citation_precision = citationPrecision(keys, gold.citedFragments.map((_, k) => `gold:${k}`));
  }
  const count = short?.length ?? null;
  if (wanted.has('answer_count')) out.answer_count = count;
  if (wanted.has('answer_count_difference')) out.answer_count_difference = count === null ? null : answerCountDifference(count, gold.interpretations.length);
  return out;
}

export interface MetricSummary {
  /** The corpus-level value: mean over applicable items (× 100 for percent metrics), or the composite. */
  value: number | null;
  /** Sample SD over items (same unit); null for composites. */
  sd: number | null;
  ci: Interval | null;
  /** Items the metric applied to. */
  n: number;
}

export interface AggregateOptions extends BootstrapOptions {
  metrics?: readonly string[];
}

/** The items' values of the base metrics, row-major (item k, metric j at k·m + j), NaN where a metric does not apply. */
interface ScoreMatrix {
  data: Float64Array;
  /** Items (rows). */
  n: number;
  /** Base metrics (columns). */
  m: number;
}

function scoreMatrix(items: readonly Record<string, number | null | undefined>[], bases: readonly string[]): ScoreMatrix {
  const n = items.length;
  const m = bases.length;
  const data = new Float64Array(n * m);
  items.forEach((item, k) => {
    bases.forEach((name, j) => {
      const v = item[name];
      data[k * m + j] = typeof v === 'number' ? v : Number.NaN;
    });
  });
  return { data, n, m };
}

/** The applicable values of column j. */
function columnValues({ data, n, m }: ScoreMatrix, j: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const v = data[k * m + j]!;
    if (v === v) out.push(v);
  }
  return out;
}

/**
 * Each column's mean on every bootstrap resample of the items: one draw of the items per
 * resample serves all metrics together. A column's resampled value is its mean over the drawn
 * items where it applies (NaN when none of them does).
 *
 * The columns are copied apart first (a missing value as 0 with a 0 in its column's presence
 * bytes), so each resample's sums are branch-free gathers over one column at a time. They add the
 * same values in the same order as a per-item loop skipping missing ones, so the results are the
 * same to the bit (adding +0 changes no sum that starts at +0).
 */
function resampledMeans({ data, n, m }: ScoreMatrix, options: BootstrapOptions): Float64Array[] {
  const resamples = options.resamples ?? 1000;
  const boots = Array.from({ length: m }, () => new Float64Array(resamples));
  if (n === 0 || m === 0) return boots;
  const random = seededRandom(options.seed ?? 1);
  const values = Array.from({ length: m }, () => new Float64Array(n));
  const present = Array.from({ length: m }, () => new Uint8Array(n));
  const complete = new Array<boolean>(m).fill(true);
  for (let t = 0; t < n; t++) {
    for (let j = 0; j < m; j++) {
      const v = data[t * m + j]!;
      if (v === v) {
        values[j]![t] = v;
        present[j]![t] = 1;
      } else complete[j] = false;
    }
  }
  const draws = new Int32Array(n);
  for (let r = 0; r < resamples; r++) {
    for (let t = 0; t < n; t++) draws[t] = (random() * n) | 0;
    for (let j = 0; j < m; j++) {
      const column = values[j]!;
      let sum = 0;
      let count = n;
      if (complete[j]) {
        for (let t = 0; t < n; t++) sum += column[draws[t]!]!;
      } else {
        const has = present[j]!;
        count = 0;
        for (let t = 0; t < n; t++) {
          const at = draws[t]!;
          sum += column[at]!;
          count += has[at]!;
        }
      }
      boots[j]![r] = count ? sum / count : Number.NaN;
    }
  }
  return boots;
}

/** A plain metric: the mean over the items where it applies (× 100 for percent metrics), its SD and interval. */
function summarizeMetric(name: string, values: readonly number[], resampled: Float64Array, level: number): MetricSummary {
  const scale = isPercentMetric(name) ? 100 : 1;
  const scaled = values.map((v) => v * scale);
  if (scaled.length === 0) return { value: null, sd: null, ci: null, n: 0 };
  return {
    value: mean(scaled),
    sd: standardDeviation(scaled),
    ci: resampled.length > 0 ? percentileInterval(resampled.map((v) => v * scale), level) : null,
    n: scaled.length,
  };
}

/** A composite: its combination of its two parts' means, counted on the items that have both. */
function summarizeComposite(matrix: ScoreMatrix, a: number, b: number, combine: Composite['combine'], boots: readonly Float64Array[], level: number): MetricSummary {
  const va = columnValues(matrix, a);
  const vb = columnValues(matrix, b);
  const value = va.length && vb.length ? 100 * combine(mean(va), mean(vb)) : Number.NaN;
  const { data, n, m } = matrix;
  let both = 0;
  for (let k = 0; k < n; k++) if (data[k * m + a] === data[k * m + a] && data[k * m + b] === data[k * m + b]) both++;
  const resampled = boots[a]!.map((x, r) => 100 * combine(x, boots[b]![r]!));
  const defined = Number.isFinite(value);
  return { value: defined ? value : null, sd: null, ci: defined && resampled.length > 0 ? percentileInterval(resampled, level) : null, n: both };
}

/**
 * Corpus-level metrics of a list of scored items: the mean of each metric over the items where
 * it applies (in percent for fractions), composites (DR, DR-F1 corpus, MARCH Avg) from their
 * two means, each with its SD and a seeded percentile bootstrap interval. The bootstrap resamples
 * the items (questions) with replacement, once per resample for all metrics together; each
 * metric's resampled value is its mean over the drawn items where it applies.
 */
export function aggregateMetrics(items: readonly Record<string, number | null | undefined>[], options: AggregateOptions = {}): Record<string, MetricSummary> {
  const names = options.metrics ?? [...new Set(items.flatMap((i) => Object.keys(i)))];
  const level = options.level ?? 0.95;
  const bases = [...new Set(names.flatMap((name) => COMPOSITES[name]?.parts ?? [name]))];
  const column = new Map(bases.map((name, j) => [name, j]));
  const matrix = scoreMatrix(items, bases);
  const boots = resampledMeans(matrix, options);
  const out: Record<string, MetricSummary> = {};
  for (const name of names) {
    const composite = COMPOSITES[name];
    const j = column.get(name)!;
    out[name] = composite
      ? summarizeComposite(matrix, column.get(composite.parts[0])!, column.get(composite.parts[1])!, composite.combine, boots, level)
      : summarizeMetric(name, columnValues(matrix, j), boots[j]!, level);
  }
  return out;
}

/** `aggregateMetrics` overall and per group (ambiguity type), groups in first-seen order. */
export function aggregateByGroup(
  items: readonly Record<string, number | null | undefined>[],
  groupOf: (index: number) => string,
  options: AggregateOptions = {},
): Record<string, Record<string, MetricSummary>> {
  const groups = new Map<string, Record<string, number | null | undefined>[]>();
  items.forEach((item, k) => {
    const g = groupOf(k);
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(item);
  });
  const names = options.metrics ?? [...new Set(items.flatMap((i) => Object.keys(i)))];
  return Object.fromEntries([...groups].map(([g, list]) => [g, aggregateMetrics(list, { ...options, metrics: names })]));
}
