/**
 * G-Eval scores (Liu et al. 2023) as CondAmbigQA computes them through DeepEval (paper 003 §4.1):
 * the judge gives an integer 0-10 for one criterion; with the reply's token log-probabilities
 * the score is the probability-weighted mean over the score token's likely alternatives; without
 * them, the mean of several samples (the G-Eval paper's fallback). Scores are reported on 0-1.
 */

export interface ScoreToken {
  token: string;
  logprob: number;
  top_logprobs: readonly { token: string; logprob: number }[];
}

/** Alternatives under 1% probability are left out, as DeepEval does. */
const MIN_LOGPROB = Math.log(0.01);

/**
 * DeepEval's weighted score: the first generated token that is exactly the raw score; over its
 * top alternatives, those made only of digits with probability ≥ 1%, equal integers summed;
 * Σ p·s / Σ p. Null when no token spells the score or no alternative qualifies.
 */
export function gevalFromLogprobs(rawScore: number, content: readonly ScoreToken[]): number | null {
  const scoreToken = content.find((t) => t.token === String(rawScore));
  if (!scoreToken) return null;
  const byScore = new Map<number, number>();
  for (const alt of scoreToken.top_logprobs) {
    if (alt.logprob < MIN_LOGPROB || !/^[0-9]+$/.test(alt.token)) continue;
    const score = Number.parseInt(alt.token, 10);
    byScore.set(score, (byScore.get(score) ?? 0) + Math.exp(alt.logprob));
  }
  let weighted = 0;
  let total = 0;
  for (const [score, p] of byScore) {
    weighted += score * p;
    total += p;
  }
  return total > 0 ? weighted / total : null;
}

/** The mean of sampled integer scores. */
export function gevalFromSamples(scores: readonly number[]): number | null {
  return scores.length ? scores.reduce((s, x) => s + x, 0) / scores.length : null;
}

/** How a score was obtained: from token probabilities, as the mean of samples, or (one sample, no probabilities) the raw integer. */
export type GevalMode = 'logprobs' | 'sampled' | 'raw';

export interface GevalScore {
  /** On 0-1 (the 0-10 score divided by 10). */
  value: number;
  mode: GevalMode;
  /** Judge calls behind it. */
  n: number;
}

/**
 * CondAmbigQA's combined score as Table 2's values reproduce it: the plain mean of the corpus
 * condition, answer and citation scores (every row of Table 2 fits; the penalties the text
 * describes are not specified and do not show in the published numbers). Null unless all three exist.
 */
export function condqaCombined(condition: number | null, answer: number | null, citation: number | null): number | null {
  return condition === null || answer === null || citation === null ? null : (condition + answer + citation) / 3;
}
