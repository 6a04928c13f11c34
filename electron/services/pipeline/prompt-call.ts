import pLimit from 'p-limit';
import { settleGroup, type WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import type { ConstructionConfig } from '../../../shared/construction';
import { BatchMode, Budget, DETECTABLE_TYPES, EarlyExit, schemaOfPrompt, withBaseUrlOverride, type ModelRef, type PipelineConfig, type PromptName, type PromptTemplate, type SchemaName, type SchemaOutput } from '../../../shared/pipeline';
import { getOrCreateProvenance } from '../../../db/queries/provenance';
import { finishRun } from '../../../db/queries/runs';
import { LlmClient, type LlmResult, type Message } from './llm';
import { currentPrompts, promptVersion, render } from './prompts';

/**
 * Calls with the pipeline's stored prompts outside a MARCH run: the CondAmbigQA rounds, the
 * labelling stage and the QA layer ask through here, with the same client (cache, limits,
 * validation and one repair), the same versioned templates and the same provenance.
 */

export interface PromptContext {
  db: WritableDB;
  llm: LlmClient;
  prompts: Map<PromptName, PromptTemplate>;
  runId: number | null;
}

/** A construction config as the LLM client takes a pipeline config (only endpoints, sampling and prices are read). */
function clientConfig(config: ConstructionConfig): PipelineConfig {
  return withBaseUrlOverride(
    {
      endpoints: config.endpoints,
      detectors: [config.generator],
      generator: config.generator,
      filters: [config.generator],
      temperature: config.temperature,
      maxTokens: config.maxTokens,
      detection: { types: [...DETECTABLE_TYPES], rule: 'all' },
      clarify: { minInterpretations: config.construction.minInterpretations },
      retrieval: { corpus: null, mode: 'hybrid', k: 10 },
      rerank: { provider: 'offline' },
      shortenOver: 10,
      filter: { rule: 'all' },
      concurrency: config.concurrency,
      prices: config.prices,
      // Rounds, labels and the QA layer call one by one, with no ceiling of the pipeline's own.
      earlyExit: EarlyExit.parse({}),
      batch: BatchMode.parse({}),
      budget: Budget.parse({}),
    },
    process.env.AWB_BASE_URL,
  );
}

export function promptContext(
  db: WritableDB,
  config: ConstructionConfig,
  options: { runId: number | null; signal?: AbortSignal | undefined; noCache?: ReadonlySet<string>; keys?: Readonly<Record<string, string>> | undefined },
): PromptContext {
  const llm = new LlmClient(db, clientConfig(config), {
    runId: options.runId,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.noCache ? { noCache: options.noCache } : {}),
    ...(options.keys ? { keys: options.keys } : {}),
  });
  return { db, llm, prompts: currentPrompts(db), runId: options.runId };
}

export type PromptResult<P extends PromptName> = LlmResult<SchemaOutput<P & SchemaName>> & { prompt: string; messages: Message[] };

/** One call with a stored prompt, its placeholders filled; `followUp` adds turns (a retry naming a problem). */
export async function askPrompt<P extends PromptName>(
  ctx: PromptContext,
  name: P,
  stage: string,
  item: string,
  ref: ModelRef,
  values: Record<string, string | number>,
  followUp: Message[] = [],
): Promise<PromptResult<P>> {
  const prompt = ctx.prompts.get(name)!;
  const messages: Message[] = [
    { role: 'system', content: render(prompt.system, values) },
    { role: 'user', content: render(prompt.user, values) },
    ...followUp,
  ];
  const result = await ctx.llm.ask({ schema: schemaOfPrompt(name) as P & SchemaName, stage, item, ref, messages });
  return { ...(result as LlmResult<SchemaOutput<P & SchemaName>>), prompt: promptVersion(prompt), messages };
}

export const modelName = (ref: ModelRef) => `${ref.endpoint}/${ref.model}`;

export function llmProvenance(ctx: PromptContext, detail: string, ref: ModelRef, prompt: string, callId: number): number {
  return getOrCreateProvenance(ctx.db, { source: 'llm', detail, model: modelName(ref), promptVersion: prompt, callId });
}

/**
 * Ends the run of a job that asked through a prompt context: its calls, tokens and cost, and a line
 * for the log. `thrown` is what ended the job early, if anything: the run is then failed, saying
 * so. Returns why the run failed when its last group commit did.
 */
function finishPromptRun(ctx: PromptContext, status: 'done' | 'failed' | 'cancelled', line: string, thrown?: unknown): string | null {
  const s = ctx.llm.stats;
  // The last answers' group commit; a failed one ends the run failed, saying why (its answers were written again).
  const lost = settleGroup(ctx.db);
  const cancelled = thrown instanceof AppError && thrown.code === 'cancelled';
  const reasons = [...(thrown === undefined || cancelled ? [] : [(thrown as Error).message]), ...(lost ? [lost] : [])];
  // A stop that is not a failure (the user's cancel, a cost ceiling) keeps its reason too.
  const error = reasons.length ? reasons.join('; ') : cancelled ? (thrown as Error).message : null;
  finishRun(ctx.db, ctx.runId!, reasons.length ? 'failed' : cancelled ? 'cancelled' : status, {
    stages: [], calls: s.calls, cachedCalls: s.cachedCalls, promptTokens: s.promptTokens, completionTokens: s.completionTokens, costUsd: s.costUsd,
    error, retrieval: null, rerank: null, log: [line],
  });
  return lost;
}

/**
 * Runs a prompt job's `work` under its run, and ends the run however the work ends (`line` is
 * read then, for the log). An error of the work is thrown again once the run says so; a failed last
 * group commit fails the job too (the CLI exits non-zero, the UI shows why), as the run row does.
 */
export async function promptRun(ctx: PromptContext, signal: AbortSignal | undefined, work: () => Promise<void>, line: () => string): Promise<void> {
  let thrown: unknown;
  try {
    await work();
  } catch (error) {
    thrown = error;
  }
  const lost = finishPromptRun(ctx, signal?.aborted ? 'cancelled' : 'done', line(), thrown);
  if (thrown !== undefined) throw thrown;
  if (lost) throw new AppError('internal', `Run ${ctx.runId} failed: ${lost}`);
}

/**
 * Runs `work` on each item, at most `concurrency` at once. Once an item throws (or the signal
 * aborts), no other item starts; those already started finish, so their paid answers are recorded
 * before the job closes its connection. Then the first error is thrown.
 */
export async function eachItem<T>(items: readonly T[], concurrency: number, signal: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  const slots = pLimit(concurrency);
  let failure: { error: unknown } | null = null;
  await Promise.all(
    items.map((item) =>
      slots(async () => {
        if (failure || signal?.aborted) return;
        try {
          await work(item);
        } catch (error) {
          failure ??= { error };
        }
      }),
    ),
  );
  if (failure) throw (failure as { error: unknown }).error;
}
