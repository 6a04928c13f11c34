import { findCorpusByName } from '../../../db/queries/corpora';
import type { WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { EVAL_SCHEMAS, evalJsonSchema, type EvalSchemaOutput } from '../../../shared/eval/methods/schemas';
import { EVAL_PROMPTS, fillTemplate, type EvalPromptName } from '../../../shared/eval/methods/prompts';
import { passageKey, type EvalGold, type RetrievedPassage, type StepKind, type TraceStep } from '../../../shared/eval/types';
import type { ModelRef, PromptTemplate } from '../../../shared/pipeline';
import type { EvalSettings } from '../../../shared/eval/methods/settings';
import type { LlmClient, LlmRequest, TokenLogprob } from '../pipeline/llm';
import { defaultModelFor } from '../retrieval/models';
import type { Retriever } from '../retrieval/search';

/**
 * What one item's method works with: model calls through the pipeline's LLM layer (cache,
 * limits, accounting, repair), searches through the app's retriever, and the trace both leave.
 */

/** A reason the item cannot be finished; the item is marked failed with it and the run goes on. */
export class ItemFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ItemFailure';
  }
}

export type RetrievalMode = 'bm25' | 'dense' | 'hybrid';

/** What all items of a run share. */
export interface RunEnv {
  db: WritableDB;
  llm: LlmClient;
  prompts: ReadonlyMap<string, PromptTemplate>;
  retriever: Retriever;
  model: ModelRef;
  corpus: string | null;
  /** The mode asked for, and the one used (BM25 when the corpus has no vectors). */
  requestedMode: RetrievalMode;
  mode: RetrievalMode;
  hyde: boolean;
  /** Passages per search (methods that do not search fall back on 10 where they must). */
  k: number;
  /** Every setting the methods use, defaults resolved (what the run records). */
  settings: EvalSettings;
  signal: AbortSignal | undefined;
}

/** What one call may set beyond the prompt: where its step goes in the trace, which model, and its sampling. */
export interface AskOptions {
  kind?: StepKind;
  label?: string;
  ref?: ModelRef;
  sampling?: LlmRequest<'filter'>['sampling'];
}

type Answer<N extends EvalPromptName> = EvalSchemaOutput<(typeof EVAL_PROMPTS)[N]['schema']>;

/** The mode a run can use on a corpus: dense and hybrid need vectors; without them, BM25 (the caller records why). */
export function usableMode(db: WritableDB, corpus: string | null, mode: RetrievalMode): { mode: RetrievalMode; note: string | null } {
  if (mode === 'bm25') return { mode, note: null };
  const corpusId = corpus ? (findCorpusByName(db, corpus)?.id ?? null) : null;
  if (corpus && corpusId === null) throw new AppError('not_found', `No corpus named "${corpus}"`);
  if (defaultModelFor(db, corpusId)) return { mode, note: null };
  return {
    mode: 'bm25',
    note: `${corpus ? `The corpus "${corpus}"` : 'No corpus'} has no vectors, so ${mode} retrieval fell back to BM25 for every item (embed the corpus to search with vectors).`,
  };
}

export class ItemRun {
  readonly steps: TraceStep[] = [];
  readonly callIds: number[] = [];
  readonly notes: string[] = [];
  /** What the method reports about its own steps (searches used, verdicts...), stored with the item's metrics. */
  readonly methodMetrics: Record<string, unknown> = {};
  retrievalMs = 0;
  readonly tag: string;

  constructor(
    readonly env: RunEnv,
    readonly itemId: number,
    readonly gold: EvalGold,
  ) {
    this.tag = `eval:${itemId}`;
  }

  get question(): string {
    return this.gold.question;
  }

  step(kind: StepKind, label: string, content: unknown, call: { callId: number | null; cached: boolean; latencyMs: number | null } = { callId: null, cached: false, latencyMs: null }): void {
    this.steps.push({ position: this.steps.length, kind, label, content, ...call });
  }

  metric(name: string, value: unknown): void {
    this.methodMetrics[name] = value;
  }

  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
    this.step('note', 'note', { text });
  }

  /** One model call with one of the evaluation's prompts, with the token log-probabilities when asked for; null (and a trace step saying why) when no usable answer came back. */
  async call<N extends EvalPromptName>(prompt: N, values: Readonly<Record<string, string | number>>, options: AskOptions = {}): Promise<{ value: Answer<N>; logprobs: TokenLogprob[] | null } | null> {
    const template = this.env.prompts.get(prompt) ?? { ...EVAL_PROMPTS[prompt], version: 0 };
    const schemaName = EVAL_PROMPTS[prompt].schema;
    const started = performance.now();
    const result = await this.env.llm.ask({
      schema: 'filter',
      custom: { name: schemaName, validator: EVAL_SCHEMAS[schemaName], jsonSchema: evalJsonSchema(schemaName) },
      stage: `eval.${prompt}`,
      item: this.tag,
      ref: options.ref ?? this.env.model,
      messages: [
        { role: 'system', content: fillTemplate(template.system, values) },
        { role: 'user', content: fillTemplate(template.user, values) },
      ],
      sampling: { temperature: this.env.settings.temperature, ...options.sampling },
    });
    const latencyMs = performance.now() - started;
    if (result.callId !== null) this.callIds.push(result.callId);
    const kind = options.kind ?? 'generate';
    const label = options.label ?? prompt;
    const version = `${prompt}@v${template.version}`;
    if (result.ok) {
      this.step(kind, label, { prompt: version, output: result.value }, { callId: result.callId, cached: result.cached, latencyMs });
      return { value: result.value as unknown as Answer<N>, logprobs: result.logprobs ?? null };
    }
    this.step(kind, label, { prompt: version, error: result.reason, raw: result.raw }, { callId: result.callId, cached: false, latencyMs });
    return null;
  }

  /** `call` without the log-probabilities: the answer, or null. */
  async ask<N extends EvalPromptName>(prompt: N, values: Readonly<Record<string, string | number>>, options: AskOptions = {}): Promise<Answer<N> | null> {
    return (await this.call(prompt, values, options))?.value ?? null;
  }

  /** `ask`, failing the item with the call's reason when no usable answer came back. */
  async mustAsk<N extends EvalPromptName>(prompt: N, values: Readonly<Record<string, string | number>>, options: AskOptions = {}): Promise<Answer<N>> {
    const value = await this.ask(prompt, values, options);
    if (value === null) {
      const last = this.steps[this.steps.length - 1]!.content as { error?: string };
      throw new ItemFailure(`${options.label ?? prompt}: ${last.error ?? 'no usable answer'}`);
    }
    return value;
  }

  /**
   * Passage numbers as the prompt showed them (from 1) to passage keys, each once. A number the
   * list does not have is kept as `invalid:N` (it counts against citation precision) and noted.
   */
  cite(numbers: readonly number[], passages: readonly { key: string }[]): string[] {
    const keys: string[] = [];
    for (const n of numbers) {
      const key = n >= 1 && n <= passages.length ? passages[n - 1]!.key : `invalid:${n}`;
      if (key.startsWith('invalid:')) this.note(`cited passage ${n}; the list has ${passages.length}`);
      if (!keys.includes(key)) keys.push(key);
    }
    return keys;
  }

  /**
   * Top-k passages from the run's corpus. With HyDE on (and a mode that uses vectors), a
   * hypothetical passage written by the model is the dense query; `hyde` given here overrides it.
   */
  async search(query: string, options: { label?: string; k?: number; hyde?: string; mode?: RetrievalMode } = {}): Promise<RetrievedPassage[]> {
    if (this.env.signal?.aborted) throw new AppError('cancelled', 'Cancelled');
    const k = options.k ?? this.env.k;
    let mode = options.mode ?? this.env.mode;
    // Without vectors (the run fell back to BM25), a method's own dense search falls back too.
    if (mode !== 'bm25' && this.env.mode === 'bm25' && this.env.requestedMode !== 'bm25') mode = 'bm25';
    let hyde = options.hyde;
    if (hyde === undefined && this.env.hyde && mode !== 'bm25') {
      const written = await this.ask('eval_hyde', { question: query }, { kind: 'generate', label: 'HyDE passage' });
      if (written) hyde = written.passage;
    }
    const started = performance.now();
    let hits: RetrievedPassage[] = [];
    let error: string | null = null;
    try {
      const result = await this.env.retriever.search({ query, mode, k, corpus: this.env.corpus ?? undefined, hyde });
      hits = result.hits.map((h) => ({ id: h.passage.id, key: passageKey(h.passage), title: h.passage.title, text: h.passage.text, rank: h.rank, score: h.score }));
    } catch (e) {
      if (e instanceof AppError && e.code === 'cancelled') throw e;
      // A query with nothing to search for (only stopwords, say) finds nothing; the method goes on.
      error = (e as Error).message;
    }
    const ms = performance.now() - started;
    this.retrievalMs += ms;
    this.step(
      'retrieve',
      options.label ?? 'search',
      { query, mode, k, hyde: hyde ?? null, passages: hits.map((h) => ({ key: h.key, title: h.title, rank: h.rank, score: h.score })), error },
      { callId: null, cached: false, latencyMs: ms },
    );
    return hits;
  }
}
