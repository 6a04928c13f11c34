import { z } from 'zod';
import { PIPELINE_STAGES } from '../domain';
import type { Funnel, ItemTrace, Price, PromptTemplate, RunSummary } from '../pipeline';

/** A model's prices, per million tokens. */
export type PriceRow = { model: string } & Price;
import { endpointsConfig, none, op, serverPath, startsJob } from './core';

/** The construction pipeline: runs, funnel, traces, prompts and prices. */

export const PipelineStartRequest = z
  .object({
    /** The config itself, or the path of a config file. */
    config: endpointsConfig().optional(),
    configPath: serverPath().optional(),
    stages: z.array(z.enum(PIPELINE_STAGES)).default([]),
    limit: z.number().int().positive().optional(),
    datasets: z.array(z.string().min(1)).default([]),
    /** Fresh calls for the stages run, ignoring the cache. */
    noCache: z.boolean().default(false),
    /** A cost ceiling for this run in US dollars (replaces the config's budget.maxUsd). */
    maxUsd: z.number().positive().optional(),
  })
  .strict()
  .refine((r) => (r.config === undefined) !== (r.configPath === undefined), { message: 'give either config or configPath' });

export const pipelineOperations = {
  'pipeline:start': startsJob<RunSummary>()('pipeline', PipelineStartRequest),
  'pipeline:validate': op<{ ok: true; detectors: number; filters: number; endpoints: string[] } | { ok: false; message: string }>()(z.object({ config: endpointsConfig() }).strict()),
  /** The example config (OpenRouter), the offline demo config (the bundled fake endpoint), the last run's, and the offline demo of an evaluation run. */
  'pipeline:defaults': op<{ example: unknown; offline: unknown; last: unknown; offlineEvaluation: unknown }>()(none),
  'pipeline:status': op<{ stages: { stage: string; done: number; failed: number }[]; runs: RunSummary[] }>()(none),
  'pipeline:funnel': op<Funnel>()(z.object({ datasets: z.array(z.string()).default([]) }).strict()),
  'pipeline:failures': op<{ item: string; stage: string; reason: string | null; question: string }[]>()(z.object({ stage: z.enum(PIPELINE_STAGES).optional(), limit: z.number().int().min(1).max(1000).default(200) }).strict()),
  'pipeline:trace': op<ItemTrace>()(z.object({ item: z.string().regex(/^(bq|inst):\d+$/, 'an item is bq:ID or inst:ID') }).strict()),
  'pipeline:prompts': op<PromptTemplate[]>()(none),
  'pipeline:prompt-history': op<PromptTemplate[]>()(z.object({ stage: z.string().min(1) }).strict()),
  'pipeline:prompt-save': op<PromptTemplate>()(z.object({ stage: z.string().min(1), system: z.string(), user: z.string() }).strict()),
  /**
   * One run with what its kept instances cost (per stage and type, beside the same run asking
   * everyone synchronously) and its batches; the latest run when none is named.
   */
  'pipeline:show': op<RunSummary>()(z.object({ run: z.number().int().positive().optional() }).strict()),
  /** Takes a stored run up again under its id: its open batches polled and read back, then its stages where they stopped. */
  'pipeline:resume': startsJob<RunSummary>()('pipeline', z.object({ run: z.number().int().positive(), maxUsd: z.number().positive().optional() }).strict()),
  'pipeline:prices': op<PriceRow[]>()(none),
  'pipeline:price-set': op<PriceRow[]>()(
    z
      .object({
        model: z.string().trim().min(1),
        input: z.number().min(0).nullable(),
        output: z.number().min(0).nullable(),
        /** Batch prices (absent: half the synchronous ones) and the price of prompt tokens read from the provider's cache. */
        batchInput: z.number().min(0).nullable().optional(),
        batchOutput: z.number().min(0).nullable().optional(),
        cachedInput: z.number().min(0).nullable().optional(),
      })
      .strict(),
  ),
} as const;
