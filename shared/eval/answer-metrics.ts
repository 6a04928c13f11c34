/**
 * The papers' answer metrics on text, as pure functions: SQuAD's normalisation, token EM and F1,
 * ASQA's STR-EM and Disambig-F1, ADF's D-F1, and CondAmbigQA's citation and answer-count scores.
 * No LLM calls: the extractive reader behind Disambig-F1 lives in the evaluation service, and
 * this module scores what it returns. ROUGE-L has its own module (rouge.ts).
 *
 * Per-item functions return a fraction in [0, 1] (or a count); `null` means "not applicable to
 * this item" (no gold short answer to look for, say) and leaves the item out of the mean.
 */

// ---- SQuAD normalisation and token EM / F1 ------------------------------------------------------

/** Python's `string.punctuation`, which SQuAD's scorer strips. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** Articles as whole words; "word" as Python's Unicode-aware `\b` sees it. */
const ARTICLES = /(?<![\p{L}\p{N}\p{M}_])(?:a|an|the)(?![\p{L}\p{N}\p{M}_])/gu;

/**
 * SQuAD's `normalize_answer`: lower-case, drop ASCII punctuation, replace the articles a/an/the
 * by a space, collapse white space. The official ASQA scorer (STR-EM) uses exactly this.
 *
 * This is the normalisation for scoring, as the papers define it. It differs on purpose from
 * `foldForMatching` (shared/text.ts), which locates and de-duplicates wordings: SQuAD deletes
 * punctuation, so "U.S." becomes "us" and matches "US", while folding turns punctuation into a
 * space ("u s") so that word boundaries stay where a reader sees them.
 */
export function squadNormalize(text: string): string {
  const out = text.toLowerCase().replace(PUNCTUATION, '');
  return out.replace(ARTICLES, ' ').split(/\s+/u).filter(Boolean).join(' ');
}

export function answerTokens(text: string): string[] {
  return tokensOf(squadNormalize(text));
}

/** The tokens of a normalised text (none for the empty text). */
function tokensOf(normal: string): string[] {
  return normal === '' ? [] : normal.split(' ');
}

/**
 * The normalised forms and tokens of the texts one item is scored on, each computed once: an
 * item's metrics normalise the same long answer and gold answers several times over (STR-EM,
 * token EM / F1, D-F1 and their short-answer forms), and the normalisation is most of their cost.
 */
export class NormalForms {
  readonly #normals = new Map<string, string>();
  readonly #tokens = new Map<string, readonly string[]>();

  normal(text: string): string {
    let normal = this.#normals.get(text);
    if (normal === undefined) this.#normals.set(text, (normal = squadNormalize(text)));
    return normal;
  }

  tokens(text: string): readonly string[] {
    let tokens = this.#tokens.get(text);
    if (tokens === undefined) this.#tokens.set(text, (tokens = tokensOf(this.normal(text))));
    return tokens;
  }
}

/** SQuAD exact match: 1 when the normalised strings are equal. */
export function tokenExactMatch(prediction: string, gold: string): number {
  return squadNormalize(prediction) === squadNormalize(gold) ? 1 : 0;
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
 * Token EM / F1 of an item with several gold answers (ADF's F1: the best over every valid answer
 * of any interpretation). `predicted` is the prediction's answer text alone for `token_em` /
 * `token_f1`; for the named alternatives `token_em_short` / `token_f1_short`, the method's short
 * answers, the best of them taken (so listing candidates is not penalised: a different metric).
 */
export function bestTokenScores(predicted: readonly string[], gold: readonly (readonly string[])[], forms = new NormalForms()): { em: number; f1: number } {
  let em = 0;
  let f1 = 0;
  const golds = gold.flat();
  for (const p of predicted) {
    const normal = forms.normal(p);
    const tokens = forms.tokens(p);
    for (const g of golds) {
      if (normal === forms.normal(g)) em = 1;
      f1 = Math.max(f1, tokenF1Tokens(tokens, forms.tokens(g)));
    }
  }
  return { em, f1 };
}

// ---- STR-EM ---------------------------------------------------------------------------------------

/**
 * ASQA's STR-EM for one item: for each interpretation, 1 when the normalised form of any of its
 * short answers (answer and aliases) occurs as a substring of the normalised long answer; the
 * mean over all interpretations. As in ASQA's `str_em`, an interpretation without any gold short
 * answer counts 0 (nothing of it can be found); an item with no interpretation at all is not
 * applicable (null; the reference would divide by zero). As in the official scorer the test is a
 * plain substring test ("1" is found in "1990") and an answer normalising to "" is always found.
 */
export function strEm(longAnswer: string, gold: readonly (readonly string[])[], forms = new NormalForms()): number | null {
  if (gold.length === 0) return null;
  const context = forms.normal(longAnswer);
  let found = 0;
  for (const answers of gold) if (answers.some((a) => context.includes(forms.normal(a)))) found++;
  return found / gold.length;
}

// ---- Disambig-F1, D-F1 --------------------------------------------------------------------------

/**
 * ASQA's Disambig-F1 for one item, given the reader's answers: `readerAnswers[i]` is what the
 * extractive reader found in the long answer for interpretation i's clarified question (an empty
 * string when it found nothing). Score: token F1 against the best of interpretation i's short
 * answers; the mean over all interpretations, one without a gold short answer counting 0 (ASQA's
 * scorer would stop on it; we count it as STR-EM does). Null when the item has no interpretation.
 */
export function disambigF1(readerAnswers: readonly string[], gold: readonly (readonly string[])[]): number | null {
  if (readerAnswers.length !== gold.length) {
    throw new Error(`disambigF1: ${readerAnswers.length} reader answers for ${gold.length} interpretations`);
  }
  if (gold.length === 0) return null;
  let sum = 0;
  gold.forEach((answers, i) => {
    sum += maxOverGold(tokenF1, readerAnswers[i] ?? '', answers);
  });
  return sum / gold.length;
}

/** ADF's coverage threshold: an interpretation counts as covered at token F1 ≥ 0.5. */
export const D_F1_THRESHOLD = 0.5;

/**
 * ADF's D-F1 for one item: the fraction of the gold interpretations covered, an interpretation
 * being covered when a predicted answer reaches token F1 ≥ 0.5 against one of its gold answers
 * (one without gold answers is never covered). ADF scores the prediction: `predicted` is the
 * answer text alone (`d_f1`), or the method's short answers (the named alternative `d_f1_short`).
 * Null when the item has no interpretation.
 */
export function dF1(predicted: readonly string[], gold: readonly (readonly string[])[], forms = new NormalForms()): number | null {
  if (gold.length === 0) return null;
  const pred = predicted.map((p) => forms.tokens(p));
  let covered = 0;
  for (const answers of gold) {
    const goldTokens = answers.map((a) => forms.tokens(a));
    if (pred.some((p) => goldTokens.some((g) => tokenF1Tokens(p, g) >= D_F1_THRESHOLD))) covered++;
  }
  return covered / gold.length;
}

/**
 * The geometric mean √(a × b) behind ASQA's DR (a = Disambig-F1, b = ROUGE-L, over the corpus
 * means) and ADF's DR-F1 (a = D-F1, per item, then averaged: ADF's Table 2 values are below the
 * geometric mean of their rows' means, which only the per-item form gives).
 */
export function geometricMean(a: number, b: number): number {
  return Math.sqrt(Math.max(0, a) * Math.max(0, b));
}


// ---- CondAmbigQA ------------------------------------------------------------------------------------

/**
 * CondAmbigQA's citation score: of the fragments the answer cites (counted once each), the
 * fraction that the gold condition-answer pairs cite. A citation of a fragment the question does
 * not have stays in the denominator (`invalid:N`, never a match). An answer citing nothing scores
 * 0 (it attributes nothing; the paper leaves 0/0 open); null when the item has no gold citations.
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

