import { type InterpretationDbRow } from '../../../../db/queries/interpretations';
import { cachedRetrieval, corpusStateKey, storeRetrieval, type RetrievalKind } from '../../../../db/queries/retrieval-cache';
import { markItem } from '../../../../db/queries/pipeline-items';
import { removeInstance, setInstanceStage } from '../../../../db/queries/instances';
import { getOrCreateProvenance } from '../../../../db/queries/provenance';
import { type WritableDB } from '../../../../db/sql';
import type { AmbiguityType, PipelineStage } from '../../../../shared/domain';
import { schemaOfPrompt, type ModelRef, type PipelineConfig, type PromptName, type PromptTemplate, type SchemaName, type SchemaOutput } from '../../../../shared/pipeline';
import type { Retriever } from '../../retrieval/search';
import { sha256 } from '../../hash';
import type { LlmClient, LlmRequest, LlmResult, Message } from '../llm';
import type { RetrievalWork } from '../retrieval-work';
import { promptVersion, render } from '../prompts';
import type { VoteStats } from './vote-stats';

/**
 * What every stage of the pipeline shares: its context, the items it works on, asking a model
 * with a stored prompt, and recording an item's outcome (done, failed, removed).
 *
 * The nine stages of MARCH's construction (paper 000, section 3.1), one item at a time. Each
 * stage reads what the previous ones stored, makes its calls, and writes its output, the item's
 * new stage and its checkpoint in one transaction (a savepoint in the group commit of its turn of
 * the event loop: see groupTransaction); so a stage can be re-run or resumed alone, and a killed
 * run loses only the items in flight or just finished (their calls are cached, but for the answers
 * of its last turn, which share that turn's commit). A call that fails
 * after its repair attempt fails the item, with the reason and raw output kept, and the item is
 * taken up again by the next run.
 */

export interface StageContext {
  db: WritableDB;
  config: PipelineConfig;
  llm: LlmClient;
  prompts: Map<PromptName, PromptTemplate>;
  runId: number;
  retriever: Retriever;
  /** Cues and evidence, computed off this thread where possible. */
  work: Pick<RetrievalWork, 'cues' | 'evidence'>;
  corpusId: number | null;
  /**
   * Readies retrieval once per run (vectors embedded on first use where a corpus has none) and
   * gives the embedding model evidence is searched and re-ranked with (null: the corpus's own).
   */
  prepareRetrieval(): Promise<string | null>;
  /** What voting stages have seen of each voter in this run (the order they are asked in comes from it). */
  votes: VoteStats;
  /** A line for the run's log. */
  note(line: string): void;
}

export type Outcome = 'done' | 'failed' | 'removed';

export interface QuestionItem {
  id: number;
  dataset_id: number;
  question: string;
  hops: number | null;
}

export interface InstanceItem {
  id: number;
  base_question_id: number;
  ambiguity_type: AmbiguityType;
  question: string;
}

/** Retrieval's answer to a request, from the cache while the corpus (and its vectors) are unchanged. */
export async function cachedCompute<T>(ctx: StageContext, kind: RetrievalKind, request: unknown, compute: () => T | Promise<T>): Promise<T> {
  const corpusKey = corpusStateKey(ctx.db, ctx.corpusId);
  const hash = sha256(JSON.stringify(request));
  const cached = cachedRetrieval(ctx.db, kind, hash, corpusKey);
  if (cached) return JSON.parse(cached) as T;
  const value = await compute();
  storeRetrieval(ctx.db, kind, hash, corpusKey, value);
  return value;
}

export const modelName = (ref: ModelRef) => `${ref.endpoint}/${ref.model}`;

/** What a call serves: the item's tag (`bq:12`, `inst:5`) and the ambiguity type it is about (for cost per type). */
export interface Subject {
  tag: string;
  type: AmbiguityType | null;
}

export const subjectOf = (inst: InstanceItem): Subject => ({ tag: `inst:${inst.id}`, type: inst.ambiguity_type });

/** The request a stage's prompt makes of a model, as `ask` sends it (and as the cache knows it). */
export function requestOf<P extends PromptName>(
  ctx: StageContext,
  name: P,
  stage: PipelineStage,
  subject: Subject,
  ref: ModelRef,
  values: Record<string, string | number>,
  followUp: Message[] = [],
): LlmRequest<SchemaOfPrompt<P>> {
  const prompt = ctx.prompts.get(name)!;
  // Templates edited before "readings" became "interpretations" still fill their old placeholders.
  const filled = 'interpretations' in values ? { ...values, readings: values.interpretations! } : 'min_interpretations' in values ? { ...values, min_readings: values.min_interpretations! } : values;
  const messages: Message[] = [
    { role: 'system', content: render(prompt.system, filled) },
    { role: 'user', content: render(prompt.user, filled) },
    ...followUp,
  ];
  return { schema: schemaOfPrompt(name) as SchemaOfPrompt<P>, stage, item: subject.tag, type: subject.type, ref, messages };
}

/** Asks a model with a stored prompt (the arguments are `requestOf`'s). */
export async function ask<P extends PromptName>(...args: Parameters<typeof requestOf<P>>): Promise<LlmResult<SchemaOutput<SchemaOfPrompt<P>>> & { prompt: string; messages: Message[] }> {
  const [ctx, name] = args;
  const request = requestOf(...args);
  const result = await ctx.llm.ask(request);
  return { ...result, prompt: promptVersion(ctx.prompts.get(name)!), messages: request.messages };
}

export type SchemaOfPrompt<P extends PromptName> = P extends `clarify_${string}` ? 'clarify' : P & SchemaName;

export function provenance(ctx: StageContext, stage: string, ref: ModelRef, prompt: string, callId: number): number {
  return getOrCreateProvenance(ctx.db, { source: 'llm', detail: stage, model: modelName(ref), promptVersion: prompt, callId });
}

export function failed(ctx: StageContext, stage: PipelineStage, item: string, results: { ok: boolean; reason?: string; raw?: string | null }[]): Outcome {
  const bad = results.filter((r) => !r.ok);
  // Several calls of one item often fail alike (an endpoint down): say each reason once.
  const reasons = new Map<string, number>();
  for (const r of bad) reasons.set(r.reason ?? 'unknown', (reasons.get(r.reason ?? 'unknown') ?? 0) + 1);
  markItem(
    ctx.db,
    stage,
    item,
    'failed',
    ctx.runId,
    [...reasons].map(([reason, n]) => (n > 1 ? `${n} calls: ${reason}` : reason)).join(' | '),
    bad.map((r) => r.raw).filter(Boolean).join('\n---\n') || null,
  );
  return 'failed';
}

export function finish(ctx: StageContext, stage: PipelineStage, instanceId: number): void {
  setInstanceStage(ctx.db, instanceId, stage);
  markItem(ctx.db, stage, `inst:${instanceId}`, 'done', ctx.runId);
}

export function remove(ctx: StageContext, stage: PipelineStage, instanceId: number, reason: string): Outcome {
  removeInstance(ctx.db, instanceId, stage, reason);
  markItem(ctx.db, stage, `inst:${instanceId}`, 'done', ctx.runId, reason);
  return 'removed';
}

export const active = (rows: InterpretationDbRow[]) => rows.filter((r) => r.status === 'active');
