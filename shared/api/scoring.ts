import { z } from 'zod';
import { METRIC_NAMES, READER_METRIC_NAMES, type MetricSummary } from '../eval/metrics';
import { id, op, serverPath } from './core';

/** Scoring answers against gold interpretations: predictions made elsewhere, comparisons of runs. */

/** Every metric name a caller may ask for (the reader's are refused by `evaluation:score` with a reason). */
export const SCORE_METRIC_CHOICES = [...METRIC_NAMES, ...READER_METRIC_NAMES] as const;

export const ScoreRequest = z
  .object({
    /** The dataset whose ids the predictions use (with a release: only its instances of this dataset). */
    dataset: z.string().min(1).optional(),
    /** Score against the frozen instances of a release instead of the live dataset. */
    release: id.optional(),
    /** The release split to score (with `release`). */
    split: z.string().min(1).optional(),
    /** A JSON Lines file of predictions. */
    predictions: serverPath(),
    /** Metrics to compute; every non-LLM metric when left out. */
    metrics: z.array(z.enum(SCORE_METRIC_CHOICES)).min(1).optional(),
    /** ROUGE-L variant: summary-level over sentences (ASQA's) or over the whole text. */
    rouge: z.enum(['rougeLsum', 'rougeL']).default('rougeLsum'),
    /** Bootstrap resamples for the intervals (0: no intervals). */
    resamples: z.number().int().min(0).max(100_000).default(1000),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(1),
  })
  .strict()
  .refine((r) => r.dataset !== undefined || r.release !== undefined, { message: 'name a dataset, a release, or both', path: ['dataset'] })
  .refine((r) => r.split === undefined || r.release !== undefined, { message: 'a split needs a release', path: ['split'] });
export type ScoreRequest = z.output<typeof ScoreRequest>;

export interface ScoreGroup {
  /** Items (instances) in the group. */
  n: number;
  /** Each metric's corpus-level value: percent (0-100) for scores, a mean count for answer counts; null when it applied to no item. */
  metrics: Record<string, number | null>;
  /** Each metric's SD, bootstrap interval and number of items it applied to. */
  details: Record<string, MetricSummary>;
}

export interface InvalidCitations {
  items: number;
  /** The first 20: "cited fragment 9; the question has 5 fragments". */
  examples: { sourceId: string; line: number; note: string }[];
}

export interface ScoreReport extends ScoreGroup {
  dataset: string | null;
  release: number | null;
  split: string | null;
  /** The predictions file, as given. */
  predictionsFile: string;
  /** Predictions read from the file. */
  predictions: number;
  /** Items without a prediction (scored as an empty answer). */
  missing: number;
  /** Ids in the file that name no item, every one listed. */
  unknown: string[];
  /** Predictions citing fragment numbers their question does not have (counted as wrong citations). */
  invalidCitations: InvalidCitations;
  /** The same figures per ambiguity type. */
  byType: Record<string, ScoreGroup>;
  /** How the metrics were computed, in words (variants, reader, bootstrap). */
  notes: Record<string, string>;
}

export const scoringOperations = {
  'evaluation:score': op<ScoreReport>()(ScoreRequest),
} as const;
