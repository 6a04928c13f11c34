import { z } from 'zod';
import { EVAL_METHODS, type EvalMethod, type MethodInfo } from '../eval/methods';
import type { EvalSettings } from '../eval/methods/settings';
import type { GoldInterpretation, MethodInterpretation, RetrievedPassage, TraceStep } from '../eval/types';
import type { MetricSummary, UsageSummary } from '../eval/metrics';
import type { CallTrace } from '../pipeline';
import { ModelRef } from '../pipeline';
import { endpointsConfig, id, none, op, serverPath, serverReach, sortDirection, startsJob } from './core';

/** Evaluation runs: a QA method × a model × a release split or a dataset, every item's output, trace and metrics. */

const ReaderChoice = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('llm'), model: ModelRef }).strict(),
  /** Any service that answers POST {question, context} with {answer}. */
  z.object({ kind: z.literal('http'), url: serverReach(z.string().url()) }).strict(),
]);

export const EvalStartRequest = z
  .object({
    method: z.enum(EVAL_METHODS),
    model: ModelRef,
    /** Endpoints and prices as in a pipeline config (a pipeline config file works as is), or the path of such a file. */
    config: endpointsConfig().optional(),
    configPath: serverPath().optional(),
    /** A release by name (its latest version) or name@version, with an optional split; or a dataset by name. */
    release: z.string().min(1).optional(),
    split: z.string().min(1).optional(),
    dataset: z.string().min(1).optional(),
    corpus: z.string().min(1).optional(),
    retrieval: z.enum(['bm25', 'dense', 'hybrid']).default('bm25'),
    hyde: z.boolean().default(false),
    /** Passages per search; unset: the method's paper's value (ADF 5, the others 10). */
    k: z.number().int().min(1).max(100).optional(),
    limit: z.number().int().positive().optional(),
    /** ReAct's and CLARION's search budget per item (MARCH: 5). */
    searchBudget: z.number().int().min(1).max(20).optional(),
    /** The former name of `searchBudget`, still accepted; stored under the new name. */
    maxIterations: z.number().int().min(1).max(20).optional(),
    /** Cap on CLARION's interpretation set (re-planning included) and on ADF's clusters. */
    maxInterpretations: z.number().int().min(1).max(10).default(4),
    /** Clarified questions CLARION's planning agent asks for (MARCH Fig. 16: two). */
    clarifications: z.number().int().min(1).max(10).default(2),
    judge: ModelRef.optional(),
    reader: ReaderChoice.optional(),
    /** How long the reader may take on one clarified question (one retry); past it the item's Disambig-F1 is left out, with the reason. */
    readerTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Sampling temperature; null sends none (the endpoint's default, as CondAmbigQA ran its local models). */
    temperature: z.number().min(0).max(2).nullable().default(0),
    maxTokens: z.number().int().min(16).max(32_768).default(512),
    concurrency: z.number().int().min(1).max(1024).default(16),
    /** DIVA as ADF re-implemented it: 3 interpretations, diversified at 0.7, verified at 0. */
    diva: z
      .object({ interpretations: z.number().int().min(1).max(10).default(3), diversifyTemperature: z.number().min(0).max(2).default(0.7), verifyTemperature: z.number().min(0).max(2).default(0) })
      .strict()
      .default({ interpretations: 3, diversifyTemperature: 0.7, verifyTemperature: 0 }),
    /**
     * ADF's gate. The profile sets the paper's thresholds per dataset (AmbigNQ 0.25 / 0.1, ASQA
     * 0.15 / 0.05) and the HyDE and synthesis style; unset, it follows the source's import format.
     * Explicit thresholds override it (the run records the profile as custom).
     */
    adf: z
      .object({
        profile: z.enum(['ambignq', 'asqa', 'custom']).optional(),
        varianceThreshold: z.number().min(0).optional(),
        separabilityThreshold: z.number().optional(),
        relevanceThreshold: z.number().default(0.2),
      })
      .strict()
      .default({ relevanceThreshold: 0.2 }),
    /** CondAmbigQA's caps: up to five conditions, up to five cited fragments (App. D). */
    condqa: z
      .object({ maxConditions: z.number().int().min(1).max(20).default(5), maxCitations: z.number().int().min(1).max(20).default(5) })
      .strict()
      .default({ maxConditions: 5, maxCitations: 5 }),
    /**
     * How the condition and answer scores are graded: token probabilities where the endpoint
     * gives them, else the mean of `samples` samples (auto); only probabilities (logprobs); or
     * always samples (sampled).
     */
    geval: z
      .object({ mode: z.enum(['auto', 'logprobs', 'sampled']).default('auto'), samples: z.number().int().min(1).max(100).default(20), topLogprobs: z.number().int().min(1).max(20).default(20) })
      .strict()
      .default({ mode: 'auto', samples: 20, topLogprobs: 20 }),
    /** Fresh calls, ignoring answers cached from earlier runs. */
    noCache: z.boolean().default(false),
  })
  .strict()
  .refine((r) => (r.config === undefined) !== (r.configPath === undefined), { message: 'give either config or configPath' })
  .refine((r) => (r.release === undefined) !== (r.dataset === undefined), { message: 'give either a release or a dataset' })
  .refine((r) => r.split === undefined || r.release !== undefined, { message: 'a split belongs to a release' });
export type EvalStartRequest = z.output<typeof EvalStartRequest>;

export interface EvalRunSummary {
  id: number;
  method: EvalMethod;
  methodLabel: string;
  model: string;
  sourceKind: 'release' | 'dataset';
  source: string;
  split: string | null;
  corpus: string | null;
  retrievalMode: string | null;
  k: number | null;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  /** The status in words, saying when items failed: "done with 37 failed", "failed: all 38 items failed", "cancelled (12 of 38 done)". */
  statusLabel: string;
  total: number;
  /** Items scored (done). */
  done: number;
  /** Items whose method failed: no scores, left out of every mean. */
  failed: number;
  /** Done items whose reader failed on some clarified question: their Disambig-F1 is left out. */
  readerErrors: number;
  /** Calls this run sent (over all its sessions), calls answered from the cache, tokens and dollars spent. */
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** Overall metrics (percent for fractions; judge criteria on 0-5), each with SD, bootstrap CI and n. */
  metrics: Record<string, MetricSummary>;
  byType: Record<string, Record<string, MetricSummary>>;
  /** Per query, every call of the method counted (cached calls with what they cost when made). */
  usage: UsageSummary | null;
  /** Which reader produced Disambig-F1 (`llm endpoint/model` or `http URL`), null when none ran. */
  reader: string | null;
  judge: string | null;
  promptVersions: Record<string, string>;
  /** Every setting the run's methods used, defaults resolved (search budget, k, temperature, DIVA, ADF, CondAmbigQA, G-Eval). */
  settings: EvalSettings;
  notes: string[];
}

export interface EvalProgress {
  runId: number;
  done: number;
  total: number;
  failed: number;
  calls: number;
  cachedCalls: number;
  costUsd: number;
  etaSeconds: number | null;
}

export interface EvalItemRowView {
  id: number;
  position: number;
  key: string;
  instanceId: number | null;
  ambiguityType: string;
  question: string;
  status: 'pending' | 'done' | 'failed';
  longAnswer: string | null;
  shortAnswers: string[];
  strEm: number | null;
  disambigF1: number | null;
  rougeL: number | null;
  judgeMean: number | null;
  collapsed: boolean | null;
  retrievalMiss: boolean | null;
  latencyMs: number | null;
  calls: number;
  costUsd: number;
  error: string | null;
}

export interface EvalItemDetail extends EvalItemRowView {
  runId: number;
  gold: { question: string; ambiguityType: string; interpretations: GoldInterpretation[]; longAnswers: string[]; fragments: { rank: number; title: string; text: string; key: string }[] };
  citations: string[];
  interpretations: MethodInterpretation[];
  retrieved: RetrievedPassage[];
  /** Every metric of the item, the judge's scores and rationale, and the reader's answers. */
  metrics: Record<string, unknown>;
  promptTokens: number;
  completionTokens: number;
  notes: string[];
  steps: TraceStep[];
  /** The calls behind the steps (and repairs), with prompt, raw output, tokens, latency and cost. */
  trace: CallTrace[];
}

export interface EvalComparison {
  a: EvalRunSummary;
  b: EvalRunSummary;
  /** Items compared (paired by key): both finished, done or failed; without the pairs left out under `exclude`. */
  paired: number;
  /** `fail`: a failed item scores 0 and counts as incorrect; `exclude`: pairs with a failure are left out (counted in `excluded`). */
  errorsPolicy: 'fail' | 'exclude';
  /** Pairs where only A failed, only B failed, and both failed. */
  failedA: number;
  failedB: number;
  failedBoth: number;
  /** Pairs left out because of a failure (0 under `fail`). */
  excluded: number;
  metrics: {
    metric: string;
    meanA: number | null;
    meanB: number | null;
    /** Paired bootstrap of mean(b) − mean(a), in the metric's unit. */
    bootstrap: { difference: number; ciLow: number | null; ciHigh: number | null; pValue: number } | null;
    /** Wilcoxon signed-rank on per-item scores. */
    wilcoxon: { statistic: number; pValue: number; nonZero: number } | null;
    /** McNemar on per-item correctness (score ≥ the threshold), with the discordant counts. */
    mcnemar: { onlyA: number; onlyB: number; pValue: number; method: string; threshold: number } | null;
  }[];
}

export interface EvalTableRow {
  method: EvalMethod;
  methodLabel: string;
  model: string;
  type: string | null;
  runId: number;
  /** Items scored. */
  n: number;
  /** Items whose method failed: left out of the means (`errorsPolicy: "excluded"`), counted here. */
  failed: number;
  /** Done items whose reader failed (their Disambig-F1 left out). */
  readerErrors: number;
  errorsPolicy: 'excluded';
  metrics: Record<string, MetricSummary>;
}

/** A stored version of one of the evaluation's prompts (`eval_*`), in the pipeline's template store. */
export interface EvalPromptTemplate {
  id: number;
  name: string;
  version: number;
  system: string;
  user: string;
  builtIn: boolean;
  createdAt: string;
  /** The placeholders it may use. */
  placeholders: string[];
}

const metricName = z.enum(['str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd']);

export const evaluationOperations = {
  'evaluation:start': startsJob<EvalRunSummary>()('evaluation', EvalStartRequest),
  /** Continues a run that stopped (killed, cancelled or failed): done items are kept, completed calls come from the cache. */
  'evaluation:resume': startsJob<EvalRunSummary>()('evaluation', z.object({ id, config: endpointsConfig().optional(), configPath: serverPath().optional() }).strict()),
  'evaluation:list': op<EvalRunSummary[]>()(
    z
      .object({ limit: z.number().int().min(1).max(500).default(100) })
      .strict()
      .default({ limit: 100 }),
  ),
  'evaluation:get': op<EvalRunSummary>()(z.object({ id }).strict()),
  'evaluation:items': op<{ total: number; rows: EvalItemRowView[] }>()(
    z
      .object({
        run: id,
        status: z.enum(['pending', 'done', 'failed']).optional(),
        type: z.string().min(1).optional(),
        collapsed: z.boolean().optional(),
        retrievalMiss: z.boolean().optional(),
        below: z.object({ metric: metricName, value: z.number() }).strict().optional(),
        atLeast: z.object({ metric: metricName, value: z.number() }).strict().optional(),
        sort: z.enum(['position', 'str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd']).default('position'),
        direction: sortDirection.default('asc'),
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(500).default(100),
      })
      .strict(),
  ),
  'evaluation:item': op<EvalItemDetail>()(z.object({ id }).strict()),
  /** Failed items count as failures (score 0, incorrect) unless `errors` is `exclude`. */
  'evaluation:compare': op<EvalComparison>()(
    z
      .object({ a: id, b: id, threshold: z.number().min(0).max(1).default(0.5), resamples: z.number().int().min(100).max(100_000).default(1000), errors: z.enum(['fail', 'exclude']).default('fail') })
      .strict(),
  ),
  /** Method × model and method × type tables over the latest finished run of each pair. */
  'evaluation:table': op<{ byModel: EvalTableRow[]; byType: EvalTableRow[] }>()(
    z
      .object({ runs: z.array(id).default([]) })
      .strict()
      .default({ runs: [] }),
  ),
  'evaluation:methods': op<MethodInfo[]>()(none),
  'evaluation:prompts': op<EvalPromptTemplate[]>()(none),
  'evaluation:prompt-history': op<EvalPromptTemplate[]>()(z.object({ name: z.string().min(1) }).strict()),
  'evaluation:prompt-save': op<EvalPromptTemplate>()(z.object({ name: z.string().min(1), system: z.string(), user: z.string() }).strict()),
} as const;
