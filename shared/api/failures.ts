import { z } from 'zod';
import type { Correlation } from '../eval/paired';
import type { Coverage, FailureReasonGroup, RetrievalOverlap } from '../failures';
import type { CampaignView } from './annotation';
import { id, op, serverPath, sortDirection } from './core';
import type { EvalItemDetail } from './evaluation';

/**
 * Failure inspection and judge validation: the failure table of an evaluation run (filters,
 * sorts, two runs side by side), the failure view of one item, failure tags (a shipped taxonomy
 * that can be extended, set by rules or by people, with who and when), review flags on
 * instances, and the LLM judge checked against human ratings.
 */

export const FAILURE_METRICS = ['str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'] as const;
export type FailureMetricName = (typeof FAILURE_METRICS)[number];
const metric = z.enum(FAILURE_METRICS);

/** Who did it: a name; in team mode the signed-in account's name is used instead. */
const who = z.string().trim().min(1).max(100);
const tagKey = z.string().trim().regex(/^[a-z0-9][a-z0-9-]{0,59}$/, 'a tag key is lower-case letters, digits and dashes');

export const FailureListRequest = z
  .object({
    run: id,
    status: z.enum(['pending', 'done', 'failed']).optional(),
    type: z.string().min(1).optional(),
    collapsed: z.boolean().optional(),
    retrievalMiss: z.boolean().optional(),
    /** Per metric: strictly below `below`, at or above `atLeast` (metrics in their stored unit: fractions 0-1, judge 0-5). */
    thresholds: z
      .array(z.object({ metric, below: z.number().optional(), atLeast: z.number().optional() }).strict())
      .max(FAILURE_METRICS.length * 2)
      .default([]),
    /** Items carrying this tag. */
    tag: tagKey.optional(),
    /** Side by side with run B on the same items (by key): where this run is right and B wrong, or the reverse. */
    versus: z
      .object({ run: id, metric: metric.default('str_em'), threshold: z.number().default(0.5), mode: z.enum(['a-right-b-wrong', 'a-wrong-b-right']) })
      .strict()
      .optional(),
    sort: z.enum(['position', ...FAILURE_METRICS]).default('position'),
    direction: sortDirection.default('asc'),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(500).default(100),
    /** Count the matching items (`total`); a table paging through one filter asks once, not per page. */
    count: z.boolean().default(true),
  })
  .strict();
export type FailureListRequest = z.output<typeof FailureListRequest>;

export interface FailureRunInfo {
  id: number;
  method: string;
  model: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  total: number;
  done: number;
  failed: number;
}

export interface FailureRow {
  id: number;
  position: number;
  key: string;
  instanceId: number | null;
  ambiguityType: string;
  question: string;
  status: 'pending' | 'done' | 'failed';
  /** The start of the long answer. */
  answer: string | null;
  strEm: number | null;
  disambigF1: number | null;
  rougeL: number | null;
  judgeMean: number | null;
  collapsed: boolean | null;
  retrievalMiss: boolean | null;
  latencyMs: number | null;
  costUsd: number;
  error: string | null;
  tags: string[];
  /** With `versus`: the same item in run B. */
  other: { id: number; status: string; strEm: number | null; disambigF1: number | null; rougeL: number | null; judgeMean: number | null; error: string | null } | null;
}

export interface FailurePage {
  run: FailureRunInfo;
  versus: FailureRunInfo | null;
  /** Items matching the filter; null when the request said `count: false`. */
  total: number | null;
  rows: FailureRow[];
}

export interface FailureReasons {
  run: FailureRunInfo;
  /** Failed items in all. */
  failed: number;
  /** Their reasons grouped ("37 × clarify: the output was not valid JSON"), most frequent first, up to `limit`. */
  groups: FailureReasonGroup[];
  /** Reasons left out past `limit`. */
  more: number;
}

export interface FailureTagView {
  key: string;
  label: string;
  description: string;
  builtIn: boolean;
  /** Rules that suggest it automatically, in words (empty: set by hand only). */
  rule: string | null;
  createdBy: string;
}

export interface ItemTagView {
  key: string;
  label: string;
  source: 'rule' | 'person';
  who: string;
  note: string;
  createdAt: string;
  removedBy: string | null;
  removedAt: string | null;
}

export interface InstanceFlagView {
  id: number;
  instanceId: number;
  reason: string;
  who: string;
  evalItemId: number | null;
  createdAt: string;
  resolvedBy: string | null;
  resolvedAt: string | null;
}

export interface FailureItemView {
  item: EvalItemDetail;
  run: FailureRunInfo;
  coverage: Coverage;
  retrieval: { groups: RetrievalOverlap[]; goldEvidence: number; goldFound: number };
  /** Current tags first, then removed ones (history). */
  tags: ItemTagView[];
  flags: InstanceFlagView[];
  /** Neighbours in the run's order, for j/k. */
  previous: number | null;
  next: number | null;
}

export interface TagCountRow {
  tag: string;
  label: string;
  runId: number;
  method: string;
  model: string;
  ambiguityType: string;
  n: number;
}

export const JUDGE_CRITERIA = ['relevance', 'faithfulness', 'informativeness', 'correctness'] as const;

export interface JudgeValidationRow {
  criterion: (typeof JUDGE_CRITERIA)[number];
  /** Items with both a judge score and at least one human rating. */
  n: number;
  pearson: Correlation;
  spearman: Correlation;
  kendallTauB: Correlation;
  quadraticWeightedKappa: Correlation;
  meanJudge: number | null;
  meanHuman: number | null;
}

export interface JudgeValidationReport {
  run: FailureRunInfo;
  campaign: { id: number; name: string; protocol: string };
  /** Campaign items, items rated by people, items the judge scored. */
  items: number;
  rated: number;
  judged: number;
  annotators: number;
  /** Human ratings of an item by several people are averaged; weighted kappa uses the mean rounded half up. */
  rows: JudgeValidationRow[];
  bootstrap: { resamples: number; seed: number };
  notes: string[];
}

export const JudgeCampaignRequest = z
  .object({
    run: id,
    name: z.string().trim().min(1).max(200),
    annotators: z.array(z.string().trim().min(1).max(100)).min(1).max(100),
    /** How many of the run's finished items to sample (all when fewer). */
    size: z.number().int().min(1).max(10_000),
    perInstance: z.number().int().min(1).optional(),
    seed: z.number().int().default(1),
  })
  .strict();

export const failureOperations = {
  'failure:list': op<FailurePage>()(FailureListRequest),
  'failure:item': op<FailureItemView>()(z.object({ id }).strict()),
  /** Why a run's items failed, grouped by reason. */
  'failure:reasons': op<FailureReasons>()(z.object({ run: id, limit: z.number().int().min(1).max(500).default(20) }).strict()),
  'failure-tag:list': op<FailureTagView[]>()(z.object({}).strict().default({})),
  'failure-tag:create': op<FailureTagView>()(z.object({ key: tagKey, label: z.string().trim().min(1).max(100), description: z.string().max(1000).default(''), who }).strict()),
  'failure-tag:add': op<ItemTagView[]>()(z.object({ item: id, tag: tagKey, who, note: z.string().max(2000).default('') }).strict()),
  'failure-tag:remove': op<ItemTagView[]>()(z.object({ item: id, tag: tagKey, who }).strict()),
  /** Runs the rules (collapsed, retrieval miss, refusal or format error) over a run; returns the tags added per key. */
  'failure-tag:suggest': op<{ added: Record<string, number> }>()(z.object({ run: id }).strict()),
  'failure-tag:counts': op<TagCountRow[]>()(z.object({ runs: z.array(id).default([]) }).strict().default({ runs: [] })),
  'failure-tag:export': op<{ file: string; rows: number }>()(z.object({ run: id, path: serverPath() }).strict()),
  'instance-flag:add': op<InstanceFlagView>()(z.object({ instance: id, reason: z.string().trim().min(1).max(2000), who, item: id.optional() }).strict()),
  'instance-flag:list': op<InstanceFlagView[]>()(z.object({ instance: id }).strict()),
  'instance-flag:resolve': op<{ resolved: number }>()(z.object({ instance: id, who }).strict()),
  /** A campaign with the long-answer quality protocol over a sample of a run's answers; people judge the run's long answer. */
  'judge-validation:start': op<CampaignView>()(JudgeCampaignRequest),
  'judge-validation:get': op<JudgeValidationReport>()(
    z.object({ run: id, campaign: id, resamples: z.number().int().min(100).max(100_000).default(1000), seed: z.number().int().default(1) }).strict(),
  ),
} as const;

/** The failure domain's operation names. */
export type FailureOperation = keyof typeof failureOperations;
