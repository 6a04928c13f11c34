import pLimit from 'p-limit';
import { settleGroup, type WritableDB } from '../../../db/sql';
import { AppError, isCancelled } from '../../../shared/api';
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
 * for the log. `thrown` is what ended the job early, if anything: a failure, or a stop (the user's
 * cancel, a cost ceiling) that ends the run cancelled. Either way its message is kept, and a failed
 * last group commit fails the run beside it. Returns that commit's failure, or null.
 */
function finishPromptRun(ctx: PromptContext, status: 'done' | 'cancelled', line: string, thrown?: unknown): string | null {
  const s = ctx.llm.stats;
  // The last answers' group commit; a failed one ends the run failed, saying why (its answers were written again).
  const lost = settleGroup(ctx.db);
  const reasons = [...(thrown === undefined ? [] : [(thrown as Error).message]), ...(lost ? [lost] : [])];
  const failed = lost !== null || (thrown !== undefined && !isCancelled(thrown));
  finishRun(ctx.db, ctx.runId!, failed ? 'failed' : thrown !== undefined ? 'cancelled' : status, {
    stages: [], calls: s.calls, cachedCalls: s.cachedCalls, promptTokens: s.promptTokens, completionTokens: s.completionTokens, costUsd: s.costUsd,
    error: reasons.length ? reasons.join('; ') : null, retrieval: null, rerank: null, log: [line],
  });
  return lost;
}

/**
 * Runs a prompt job's `work` under its run, and ends the run however the work ends (`line` is
 * read then, for the log). The work's failure is thrown again once the run says so. A failed last
 * group commit fails the job too, even one that was stopped (the CLI exits non-zero, the UI shows
 * why), as it fails the run row; a stop alone is thrown again as the stop it is.
 */
export async function promptRun(ctx: PromptContext, signal: AbortSignal | undefined, work: () => Promise<void>, line: () => string): Promise<void> {
  let thrown: unknown;
  try {
    await work();
  } catch (error) {
    thrown = error;
  }
  const lost = finishPromptRun(ctx, signal?.aborted ? 'cancelled' : 'done', line(), thrown);
  if (thrown !== undefined && !isCancelled(thrown)) throw thrown;
  if (lost) throw new AppError('internal', `Run ${ctx.runId} failed: ${thrown === undefined ? '' : `${(thrown as Error).message}; `}${lost}`);
  if (thrown !== undefined) throw thrown;
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
