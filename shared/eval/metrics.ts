import { porterStem } from './porter';

/**
 * The answer metrics of the papers, as pure functions (no LLM calls: the extractive reader behind
 * Disambig-F1 and the LLM judge live elsewhere; this module scores what they return).
 *
 * Conventions: per-item functions return a fraction in [0, 1] (or a count); the aggregates that a
 * table shows multiply fractions by 100, as the papers report them. `null` means "not applicable
 * to this item" (no gold short answer to look for, say) and leaves the item out of that mean.
 */

// ---- SQuAD normalisation and token EM / F1 ------------------------------------------------------

/** Python's `string.punctuation`, which SQuAD's scorer strips. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** Articles as whole words; "word" as Python's Unicode-aware `\b` sees it. */
const ARTICLES = /(?<![\p{L}\p{N}\p{M}_])(?:a|an|the)(?![\p{L}\p{N}\p{M}_])/gu;

/**
 * SQuAD's `normalize_answer`: lower-case, drop ASCII punctuation, replace the articles a/an/the
 * by a space, collapse white space. The official ASQA scorer (STR-EM) uses exactly this.
 */
export function normalizeAnswer(text: string): string {
  const out = text.toLowerCase().replace(PUNCTUATION, '');
  return out.replace(ARTICLES, ' ').split(/\s+/u).filter(Boolean).join(' ');
}

export function answerTokens(text: string): string[] {
  const normal = normalizeAnswer(text);
  return normal === '' ? [] : normal.split(' ');
}

/** SQuAD exact match: 1 when the normalised strings are equal. */
export function tokenExactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

/**
 * SQuAD token F1 over normalised tokens with multiset overlap. When either side has no token,
 * 1 if both are empty, else 0 (SQuAD 2.0's rule; 1.1 gave 0 for two empty strings).
 */
export function tokenF1(prediction: string, gold: string): number {
  return tokenF1Tokens(answerTokens(prediction), answerTokens(gold));
}

function tokenF1Tokens(pred: readonly string[], gold: readonly string[]): number {
  if (pred.length === 0 || gold.length === 0) return pred.length === gold.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of gold) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pred) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      same++;
      counts.set(t, left - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pred.length;
  const recall = same / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

/** SQuAD's `metric_max_over_ground_truths`: the best score of a prediction over the gold answers (0 when there are none). */
export function maxOverGold(metric: (prediction: string, gold: string) => number, prediction: string, gold: readonly string[]): number {
  let best = 0;
  for (const g of gold) best = Math.max(best, metric(prediction, g));
  return best;
}

/**
 * Token EM / F1 of an item with several predicted and several gold answers (ADF's F1): the best
 * score over every predicted answer and every gold answer of any interpretation.
 */
export function bestTokenScores(predicted: readonly string[], gold: readonly (readonly string[])[]): { em: number; f1: number } {
  let em = 0;
  let f1 = 0;
  const goldTokens = gold.flat().map((g) => ({ normal: normalizeAnswer(g), tokens: answerTokens(g) }));
  for (const p of predicted) {
    const normal = normalizeAnswer(p);
    const tokens = normal === '' ? [] : normal.split(' ');
    for (const g of goldTokens) {
      if (normal === g.normal) em = 1;
      f1 = Math.max(f1, tokenF1Tokens(tokens, g.tokens));
    }
  }
  return { em, f1 };
}

// ---- STR-EM ---------------------------------------------------------------------------------------

/**
 * ASQA's STR-EM for one item: for each interpretation, 1 when the normalised form of any of its
 * short answers (answer and aliases) occurs as a substring of the normalised long answer; the
 * mean over interpretations. Interpretations without any gold short answer are left out; an item
 * with none at all is not applicable (null). As in the official scorer the test is a plain
 * substring test ("1" is found in "1990") and an answer normalising to "" is always found.
 */
export function strEm(longAnswer: string, gold: readonly (readonly string[])[]): number | null {
  const context = normalizeAnswer(longAnswer);
  let found = 0;
  let counted = 0;
  for (const answers of gold) {
    if (answers.length === 0) continue;
    counted++;
    if (answers.some((a) => context.includes(normalizeAnswer(a)))) found++;
  }
  return counted === 0 ? null : found / counted;
}

// ---- Disambig-F1, D-F1 --------------------------------------------------------------------------

/**
 * ASQA's Disambig-F1 for one item, given the reader's answers: `readerAnswers[i]` is what the
 * extractive reader found in the long answer for interpretation i's clarified question (an empty
 * string when it found nothing). Score: token F1 against the best of interpretation i's short
 * answers; the mean over interpretations that have a gold short answer (null if none has).
 */
export function disambigF1(readerAnswers: readonly string[], gold: readonly (readonly string[])[]): number | null {
  if (readerAnswers.length !== gold.length) {
    throw new Error(`disambigF1: ${readerAnswers.length} reader answers for ${gold.length} interpretations`);
  }
  let sum = 0;
  let counted = 0;
  gold.forEach((answers, i) => {
    if (answers.length === 0) return;
    counted++;
    sum += maxOverGold(tokenF1, readerAnswers[i] ?? '', answers);
  });
  return counted === 0 ? null : sum / counted;
}

/** ADF's coverage threshold: an interpretation counts as covered at token F1 ≥ 0.5. */
export const D_F1_THRESHOLD = 0.5;

/**
 * ADF's D-F1 for one item: the fraction of interpretations (with gold short answers) covered,
 * an interpretation being covered when some predicted answer reaches token F1 ≥ 0.5 against one
 * of its gold answers. `predicted` is the item's short answers (or its long answer alone when the
 * system gave none).
 */
export function dF1(predicted: readonly string[], gold: readonly (readonly string[])[]): number | null {
  const pred = predicted.map(answerTokens);
  let covered = 0;
  let counted = 0;
  for (const answers of gold) {
    if (answers.length === 0) continue;
    counted++;
    const goldTokens = answers.map(answerTokens);
    if (pred.some((p) => goldTokens.some((g) => tokenF1Tokens(p, g) >= D_F1_THRESHOLD))) covered++;
  }
  return counted === 0 ? null : covered / counted;
}

/**
 * The geometric mean √(a × b) behind ASQA's DR (a = Disambig-F1, b = ROUGE-L) and ADF's DR-F1
 * (a = D-F1). Both papers take it over the corpus-level means, not per item: pass the means.
 */
export function geometricMean(a: number, b: number): number {
  return Math.sqrt(Math.max(0, a) * Math.max(0, b));
}

// ---- ROUGE-L ---------------------------------------------------------------------------------------

/** Token → id of its (stemmed) form, so that LCS compares small integers. */
const stemmedIds = new Map<string, number>();
const plainIds = new Map<string, number>();
const formIds = new Map<string, number>();

function formId(form: string): number {
  let id = formIds.get(form);
  if (id === undefined) formIds.set(form, (id = formIds.size));
  return id;
}

/** Forgets the token tables when they grow large (only between two scorings, never inside one). */
function trimTokenTables(): void {
  if (formIds.size > 2_000_000) {
    stemmedIds.clear();
    plainIds.clear();
    formIds.clear();
  }
}

function tokenId(token: string, stemming: boolean): number {
  const table = stemming ? stemmedIds : plainIds;
  let id = table.get(token);
  if (id === undefined) {
    id = formId(stemming && token.length > 3 ? porterStem(token) : token);
    table.set(token, id);
  }
  return id;
}

/**
 * The tokenizer of Google's `rouge_score`: lower-case, every run of characters other than a-z
 * and 0-9 is a separator, tokens longer than three characters Porter-stemmed (with stemming).
 */
export function rougeTokens(text: string, stemming = true): string[] {
  const out: string[] = [];
  for (const p of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (p !== '') out.push(stemming && p.length > 3 ? porterStem(p) : p);
  }
  return out;
}

function rougeIds(text: string, stemming: boolean): Int32Array {
  const parts = text.toLowerCase().split(/[^a-z0-9]+/);
  const out = new Int32Array(parts.length);
  let n = 0;
  for (const p of parts) if (p !== '') out[n++] = tokenId(p, stemming);
  return out.subarray(0, n);
}

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'inc', 'co', 'ltd', 'corp', 'gen', 'col', 'lt', 'sgt', 'rev', 'mt', 'ft', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'fig', 'al', 'approx', 'dept', 'govt',
]);

/**
 * Splits a text into sentences, as ASQA's and ALCE's scorers do with NLTK's Punkt before
 * rougeLsum: after ".", "!" or "?" (and any closing quotes or brackets) followed by white space,
 * except after a known abbreviation ("Mr.", "etc."), a single initial ("J.") or a dotted
 * abbreviation ("U.S."). Existing line breaks also end sentences. An approximation of Punkt.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const line of text.split('\n')) {
    let start = 0;
    const re = /[.!?]+["'”’)\]]*(?=\s)/g;
    let match: RegExpExecArray | null;
    while ((match = re.exec(line)) !== null) {
      const end = match.index + match[0].length;
      if (match[0] === '.') {
        const word = /([\p{L}.]+)$/u.exec(line.slice(Math.max(start, match.index - 24), match.index))?.[1] ?? '';
        if (ABBREVIATIONS.has(word.toLowerCase()) || /^\p{L}$/u.test(word) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) continue;
      }
      const sentence = line.slice(start, end).trim();
      if (sentence) sentences.push(sentence);
      start = end;
    }
    const rest = line.slice(start).trim();
    if (rest) sentences.push(rest);
  }
  return sentences;
}

export interface RougeScore {
  precision: number;
  recall: number;
  f: number;
}

const ZERO: RougeScore = { precision: 0, recall: 0, f: 0 };

function fMeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

let table = new Int32Array(4096);
let rowA = new Int32Array(256);
let rowB = new Int32Array(256);

/** LCS length with two rolling rows. */
function lcsLengthIds(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  if (rowA.length <= b.length) {
    rowA = new Int32Array(b.length * 2 + 1);
    rowB = new Int32Array(b.length * 2 + 1);
  }
  let prev = rowA;
  let cur = rowB;
  prev.fill(0, 0, b.length + 1);
  cur[0] = 0;
  for (let i = 0; i < a.length; i++) {
    const ai = a[i]!;
    for (let j = 1; j <= b.length; j++) {
      if (ai === b[j - 1]) cur[j] = prev[j - 1]! + 1;
      else {
        const up = prev[j]!;
        const left = cur[j - 1]!;
        cur[j] = up > left ? up : left;
      }
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[b.length]!;
}

/** Marks in `mark` the positions of `ref` on one LCS of `ref` and `can`, backtracked as `rouge_score` does. */
function markLcs(ref: Int32Array, can: Int32Array, mark: Uint8Array): void {
  if (ref.length === 0 || can.length === 0) return;
  const cols = can.length + 1;
  const size = (ref.length + 1) * cols;
  if (table.length < size) table = new Int32Array(Math.max(size, table.length * 2));
  const t = table;
  t.fill(0, 0, cols);
  for (let i = 1; i <= ref.length; i++) {
    const row = i * cols;
    const prev = row - cols;
    t[row] = 0;
    const ri = ref[i - 1];
    for (let j = 1; j <= can.length; j++) {
      if (ri === can[j - 1]) t[row + j] = t[prev + j - 1]! + 1;
      else {
        const up = t[prev + j]!;
        const left = t[row + j - 1]!;
        t[row + j] = up > left ? up : left;
      }
    }
  }
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      mark[i - 1] = 1;
      i--;
      j--;
    } else if (t[i * cols + j - 1]! > t[(i - 1) * cols + j]!) j--;
    else i--;
  }
}

function toIds(tokens: readonly string[]): Int32Array {
  return Int32Array.from(tokens, (t) => formId(t));
}

/** Length of the longest common subsequence of two token lists. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  return lcsLengthIds(toIds(a), toIds(b));
}

function rougeLIds(reference: Int32Array, candidate: Int32Array): RougeScore {
  if (reference.length === 0 || candidate.length === 0) return ZERO;
  const lcs = lcsLengthIds(reference, candidate);
  const precision = lcs / candidate.length;
  const recall = lcs / reference.length;
  return { precision, recall, f: fMeasure(precision, recall) };
}

function rougeLsumIds(reference: readonly Int32Array[], candidate: readonly Int32Array[]): RougeScore {
  let m = 0;
  let n = 0;
  for (const s of reference) m += s.length;
  for (const s of candidate) n += s.length;
  if (m === 0 || n === 0) return ZERO;
  const refCounts = new Map<number, number>();
  const canCounts = new Map<number, number>();
  for (const s of reference) for (const t of s) refCounts.set(t, (refCounts.get(t) ?? 0) + 1);
  for (const s of candidate) for (const t of s) canCounts.set(t, (canCounts.get(t) ?? 0) + 1);
  let hits = 0;
  for (const r of reference) {
    const union = new Uint8Array(r.length);
    for (const c of candidate) markLcs(r, c, union);
    for (let index = 0; index < r.length; index++) {
      if (!union[index]) continue;
      const token = r[index]!;
      const inCan = canCounts.get(token) ?? 0;
      const inRef = refCounts.get(token) ?? 0;
      if (inCan > 0 && inRef > 0) {
        hits++;
        canCounts.set(token, inCan - 1);
        refCounts.set(token, inRef - 1);
      }
    }
  }
  const precision = hits / n;
  const recall = hits / m;
  return { precision, recall, f: fMeasure(precision, recall) };
}

/**
 * Summary-level ROUGE-L ("rougeLsum", Lin 2004 §3.2, as `rouge_score` computes it): for each
 * reference sentence, the union of its LCS with every candidate sentence; a hit is counted at
 * most as often as the token occurs on each side.
 */
export function rougeLsumTokens(reference: readonly (readonly string[])[], candidate: readonly (readonly string[])[]): RougeScore {
  return rougeLsumIds(reference.map(toIds), candidate.map(toIds));
}

export type RougeVariant = 'rougeLsum' | 'rougeL';

export interface RougeOptions {
  /** rougeLsum (the default, as ASQA reports) or rougeL over the whole text. */
  variant?: RougeVariant;
  /** Porter stemming of tokens longer than three characters (default true, as ASQA). */
  stemming?: boolean;
}

function prepare(text: string, variant: RougeVariant, stemming: boolean): Int32Array[] {
  return variant === 'rougeL' ? [rougeIds(text, stemming)] : splitSentences(text).map((s) => rougeIds(s, stemming));
}

/**
 * ASQA's ROUGE-L of an item: the F-measure of the candidate against each reference long answer,
 * best over the references (null when there is no reference).
 */
export function rougeL(candidate: string, references: readonly string[], options: RougeOptions = {}): number | null {
  if (references.length === 0) return null;
  trimTokenTables();
  const variant = options.variant ?? 'rougeLsum';
  const stemming = options.stemming ?? true;
  const can = prepare(candidate, variant, stemming);
  let best = 0;
  for (const ref of references) {
    const r = prepare(ref, variant, stemming);
    const score = variant === 'rougeL' ? rougeLIds(r[0]!, can[0]!) : rougeLsumIds(r, can);
    if (score.f > best) best = score.f;
  }
  return best;
}

// ---- CondAmbigQA ------------------------------------------------------------------------------------

/**
 * CondAmbigQA's citation score: of the fragments the answer cites (counted once each), the
 * fraction that the gold condition-answer pairs cite. An answer citing nothing scores 0 (it
 * attributes nothing); null when the item has no gold citations to check against.
 */
export function citationPrecision(cited: readonly string[], goldCited: readonly string[]): number | null {
  if (goldCited.length === 0) return null;
  const predicted = new Set(cited);
  if (predicted.size === 0) return 0;
  const gold = new Set(goldCited);
  let hits = 0;
  for (const c of predicted) if (gold.has(c)) hits++;
  return hits / predicted.size;
}

/** CondAmbigQA's answer-count difference: answers given minus interpretations expected (positive: over-generation). */
export function answerCountDifference(predictedCount: number, goldCount: number): number {
  return predictedCount - goldCount;
}

// ---- latency, tokens, cost ----------------------------------------------------------------------------

/** The q-th quantile (0-1) by linear interpolation between order statistics (R type 7, NumPy's default); null for no data. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

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

// ---- aggregation, bootstrap, per-type breakdown ----------------------------------------------------------

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length ? sum / values.length : Number.NaN;
}

/** Sample standard deviation (n − 1); 0 for a single value, NaN for none. */
export function standardDeviation(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  if (values.length === 1) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return Math.sqrt(ss / (values.length - 1));
}

/** A small seeded generator (mulberry32), so that bootstrap intervals are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * Percentile bootstrap interval of a statistic of n items: `statistic(indices)` is computed on
 * `resamples` resamples of the item indices drawn with replacement (seeded); the interval is the
 * (1 − level)/2 and (1 + level)/2 quantiles of the resampled values. Null for n = 0 or when the
 * statistic is undefined (NaN) on every resample.
 */
export function bootstrapInterval(n: number, statistic: (indices: Int32Array) => number, options: BootstrapOptions = {}): Interval | null {
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  if (n === 0) return null;
  const random = seededRandom(options.seed ?? 1);
  const values: number[] = [];
  const indices = new Int32Array(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
    const v = statistic(indices);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  return { low: quantile(values, (1 - level) / 2)!, high: quantile(values, (1 + level) / 2)! };
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
  'citation_precision',
  'answer_count',
  'answer_count_difference',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** Metrics that need the extractive reader (an LLM or reader endpoint): computed by evaluation runs. */
export const READER_METRIC_NAMES = ['disambig_f1', 'dr'] as const;

/** Metrics reported in percent (the others are counts). */
const PERCENT = new Set<string>(['str_em', 'rouge_l', 'token_em', 'token_f1', 'd_f1', 'dr_f1', 'citation_precision', 'disambig_f1', 'dr']);

/** Metrics defined over the corpus means of two others, not as a mean over items. */
const COMPOSITE: Record<string, readonly [string, string]> = { dr_f1: ['d_f1', 'rouge_l'], dr: ['disambig_f1', 'rouge_l'] };

export function isPercentMetric(name: string): boolean {
  return PERCENT.has(name);
}

/** The gold side of one item. */
export interface GoldItem {
  /** Short answers per interpretation: the answer first, then its aliases (an empty list when none). */
  interpretations: readonly (readonly string[])[];
  /** Reference long answers. */
  longAnswers: readonly string[];
  /** The fragments the gold interpretations cite (CondAmbigQA), each by every name it answers to (rank, title, source id; matched ignoring case). */
  citedFragments: readonly (readonly string[])[];
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

/** Every requested non-LLM metric of one item; composites (dr_f1) are left to the aggregate. */
export function scoreItem(prediction: PredictionItem, gold: GoldItem, options: ItemScoringOptions = {}): ItemMetrics {
  const wanted = new Set<MetricName>(options.metrics ?? METRIC_NAMES);
  const out: ItemMetrics = {};
  const predicted = prediction.shortAnswers ?? (prediction.answer.trim() ? [prediction.answer] : []);
  if (wanted.has('str_em')) out.str_em = strEm(prediction.answer, gold.interpretations);
  if (wanted.has('rouge_l') || wanted.has('dr_f1')) out.rouge_l = rougeL(prediction.answer, gold.longAnswers, options);
  if (wanted.has('token_em') || wanted.has('token_f1')) {
    const hasGold = gold.interpretations.some((a) => a.length > 0);
    const best = bestTokenScores(predicted, gold.interpretations);
    if (wanted.has('token_em')) out.token_em = hasGold ? best.em : null;
    if (wanted.has('token_f1')) out.token_f1 = hasGold ? best.f1 : null;
  }
  if (wanted.has('d_f1') || wanted.has('dr_f1')) out.d_f1 = dF1(predicted, gold.interpretations);
  if (wanted.has('citation_precision')) {
    const goldNames = new Map<string, number>();
    gold.citedFragments.forEach((names, k) => names.forEach((name) => goldNames.set(name.trim().toLowerCase(), k)));
    const cited = (prediction.citations ?? []).map((c) => {
      const k = goldNames.get(c.trim().toLowerCase());
      return k === undefined ? `other:${c.trim().toLowerCase()}` : `gold:${k}`;
    });
    out.citation_precision = citationPrecision(cited, gold.citedFragments.map((_, k) => `gold:${k}`));
  }
  const count = prediction.shortAnswers?.length ?? null;
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

/** The percentile interval of resampled values (NaN values left out); null when none is finite. */
function percentileInterval(values: Float64Array, level: number): Interval | null {
  const finite = values.filter((v) => Number.isFinite(v)).sort();
  if (finite.length === 0) return null;
  const at = (q: number) => {
    const h = (finite.length - 1) * q;
    const lo = Math.floor(h);
    return finite[lo]! + (h - lo) * (finite[Math.ceil(h)]! - finite[lo]!);
  };
  return { low: at((1 - level) / 2), high: at((1 + level) / 2) };
}

/**
 * Corpus-level metrics of a list of scored items: the mean of each metric over the items where
 * it applies (in percent for fractions), composites (DR, DR-F1) as the geometric mean of their
 * two means, each with its SD and a seeded percentile bootstrap interval. The bootstrap resamples
 * the items (questions) with replacement, once per resample for all metrics together; each
 * metric's resampled value is its mean over the drawn items where it applies.
 */
export function aggregateMetrics(items: readonly Record<string, number | null | undefined>[], options: AggregateOptions = {}): Record<string, MetricSummary> {
  const names = options.metrics ?? [...new Set(items.flatMap((i) => Object.keys(i)))];
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  const bases = [...new Set(names.flatMap((name) => COMPOSITE[name] ?? [name]))];
  const column = new Map(bases.map((name, j) => [name, j]));
  const n = items.length;
  const m = bases.length;
  const data = new Float64Array(n * m);
  items.forEach((item, k) => {
    bases.forEach((name, j) => {
      const v = item[name];
      data[k * m + j] = typeof v === 'number' ? v : Number.NaN;
    });
  });
  const boots = bases.map(() => new Float64Array(resamples));
  if (n > 0 && m > 0 && resamples > 0) {
    const random = seededRandom(options.seed ?? 1);
    const sums = new Float64Array(m);
    const counts = new Int32Array(m);
    for (let r = 0; r < resamples; r++) {
      sums.fill(0);
      counts.fill(0);
      for (let t = 0; t < n; t++) {
        const offset = ((random() * n) | 0) * m;
        for (let j = 0; j < m; j++) {
          const v = data[offset + j]!;
          if (v === v) {
            sums[j]! += v;
            counts[j]! += 1;
          }
        }
      }
      for (let j = 0; j < m; j++) boots[j]![r] = counts[j]! ? sums[j]! / counts[j]! : Number.NaN;
    }
  }
  const valuesOf = (j: number): number[] => {
    const out: number[] = [];
    for (let k = 0; k < n; k++) {
      const v = data[k * m + j]!;
      if (v === v) out.push(v);
    }
    return out;
  };
  const out: Record<string, MetricSummary> = {};
  for (const name of names) {
    const parts = COMPOSITE[name];
    if (parts) {
      const a = column.get(parts[0])!;
      const b = column.get(parts[1])!;
      const va = valuesOf(a);
      const vb = valuesOf(b);
      const value = va.length && vb.length ? 100 * geometricMean(mean(va), mean(vb)) : Number.NaN;
      let both = 0;
      for (let k = 0; k < n; k++) if (data[k * m + a] === data[k * m + a] && data[k * m + b] === data[k * m + b]) both++;
      const resampled = boots[a]!.map((x, r) => 100 * geometricMean(x, boots[b]![r]!));
      out[name] = { value: Number.isFinite(value) ? value : null, sd: null, ci: Number.isFinite(value) && resamples > 0 ? percentileInterval(resampled, level) : null, n: both };
      continue;
    }
    const j = column.get(name)!;
    const scale = isPercentMetric(name) ? 100 : 1;
    const values = valuesOf(j).map((v) => v * scale);
    if (values.length === 0) {
      out[name] = { value: null, sd: null, ci: null, n: 0 };
      continue;
    }
    out[name] = {
      value: mean(values),
      sd: standardDeviation(values),
      ci: resamples > 0 ? percentileInterval(boots[j]!.map((v) => v * scale), level) : null,
      n: values.length,
    };
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
