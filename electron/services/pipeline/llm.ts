import { setMaxListeners } from 'node:events';
import OpenAI from 'openai';
import pLimit, { type LimitFunction } from 'p-limit';
import { answeredAmong, cachedCall, lastCallId, recordCall, tagCall } from '../../../db/queries/llm-calls';
import { listPrices } from '../../../db/queries/model-prices';
import type { WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { jsonSchemaFor, STAGE_SCHEMAS, type Endpoint, type ModelRef, type PipelineConfig, type SchemaName, type SchemaOutput } from '../../../shared/pipeline';
import { sha256 } from '../hash';
import { OpenAIEmbedder } from '../retrieval/openai-embedder';
import { Batcher, type BatchAnswer } from './batch';
import { CostCeiling, PriceTable, type CallMode, type Reservation } from './budget';
import { describe, extractJson, extractJsonSafe, isLocal, MinuteWindow, withRequestSignal } from './llm-wire';

export { extractJson, MinuteWindow } from './llm-wire';

/**
 * Every model call of the pipeline goes through here: the content-addressed cache first (no
 * slot is taken for a cached answer, and identical requests in flight share one call), then, for
 * a stage sent in batches, the endpoint's Batch API (batch.ts), else the endpoint's limits
 * (requests in flight, requests and tokens per minute) and the real `openai` SDK, which retries
 * 408/409/429/5xx with backoff and honours `retry-after`. Before anything is sent its cost is
 * reserved under the run's ceiling (budget.ts). Answers are asked for as JSON (a strict schema,
 * JSON mode or plain text, per endpoint), validated, and repaired once (synchronously); a call that
 * still fails gives the item a reason and the raw output, never an exception that stops the run.
 */

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmRequest<K extends SchemaName> {
  schema: K;
  /** Another answer shape than the stage schemas (the evaluation's methods): replaces `schema` for validation and `response_format`. */
  custom?: { name: string; validator: { safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }; jsonSchema: Record<string, unknown> };
  /** The pipeline stage the call belongs to (for accounting and `--no-cache`). */
  stage: string;
  /** `bq:12`, `inst:5`: the item the call serves, for traces. */
  item: string;
  /** The ambiguity type the call is about, where it has one (cost per kept instance per type). */
  type?: string | null;
  ref: ModelRef;
  messages: Message[];
  /**
   * Sampling for this request, over the config's: a temperature (null leaves it to the endpoint),
   * top_p, token log-probabilities with this many alternatives per token, and a sample number that
   * enters only the cache key (so n samples of one prompt are n calls, each cached).
   */
  sampling?: { temperature?: number | null; topP?: number; logprobs?: number; sample?: number };
}

/** One generated token with its log-probability and the most likely alternatives, as the endpoint gives them. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  top_logprobs: { token: string; logprob: number }[];
}

export type LlmResult<T> =
  | { ok: true; value: T; callId: number; cached: boolean; logprobs?: TokenLogprob[] | null }
  | { ok: false; reason: string; raw: string | null; callId: number | null };

export interface CallStats {
  calls: number;
  cachedCalls: number;
  failedCalls: number;
  /** Calls answered through a Batch API (counted in `calls` too). */
  batchCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** Calls sent whose model has no price: `costUsd` leaves them out, so it is a floor. */
  unpricedCalls: number;
  /** Summed over the calls sent: the endpoints' time to answer, and the time spent queued before sending. */
  latencyMs: number;
  queueMs: number;
}

export const emptyStats = (): CallStats => ({ calls: 0, cachedCalls: 0, failedCalls: 0, batchCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, unpricedCalls: 0, latencyMs: 0, queueMs: 0 });

interface EndpointState {
  name: string;
  config: Endpoint;
  client: OpenAI;
  slots: LimitFunction;
  requests: MinuteWindow | null;
  tokens: MinuteWindow | null;
}

type Body = ReturnType<LlmClient['body']>;
type Completion = OpenAI.Chat.Completions.ChatCompletion;
/** How an answer came: when it was sent and waited for (sync), or which batch brought it. */
type Delivery = { mode: 'sync'; latencyMs: number; queueMs: number } | { mode: 'batch'; batchId: number };

export interface LlmOptions {
  runId: number | null;
  signal?: AbortSignal;
  noCache?: ReadonlySet<string>;
  keys?: Readonly<Record<string, string>>;
  /** Lines for the run's log (a batch price assumed, an endpoint without a Batch API). */
  note?: (line: string) => void;
}

export class LlmClient {
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly apiKeys = new Map<string, string>();
  private readonly prices: PriceTable;
  private readonly inFlight = new Map<string, Promise<LlmResult<unknown>>>();
  /** What each batched request reserved under the ceiling, released when its answer (or none) comes back. */
  private readonly batchReserved = new Map<string, Reservation>();
  readonly stats = emptyStats();
  readonly byStage = new Map<string, CallStats>();
  readonly ceiling: CostCeiling;
  readonly batcher: Batcher | null;
  /** The newest stored call when this client was made: answers up to it were in the cache when the run (re)started. */
  private readonly startCallId: number;

  constructor(
    private readonly db: WritableDB,
    private readonly config: PipelineConfig,
    private readonly options: LlmOptions = { runId: null },
  ) {
    // Each request in flight listens to the run's signal until it ends (see withRequestSignal):
    // as many listeners as requests may be in flight is expected, not a leak.
    if (options.signal) setMaxListeners(Object.values(config.endpoints).reduce((n, e) => n + e.maxInFlight, 0) + 16, options.signal);
    const note = options.note ?? (() => undefined);
    this.startCallId = lastCallId(db);
    this.prices = new PriceTable(listPrices(db), config.prices, note);
    this.ceiling = new CostCeiling(config.budget, () => ({ usd: this.stats.costUsd, tokens: this.stats.promptTokens + this.stats.completionTokens }));
    if (config.budget.maxUsd !== null) this.refuseUnpriced();
    for (const [name, endpoint] of Object.entries(config.endpoints)) {
      const apiKey = options.keys?.[endpoint.apiKeyEnv] ?? process.env[endpoint.apiKeyEnv];
      if (!apiKey && !isLocal(endpoint.baseURL)) {
        throw new AppError('invalid_input', `Endpoint "${name}" (${endpoint.baseURL}) needs an API key: set the environment variable ${endpoint.apiKeyEnv}.`);
      }
      this.apiKeys.set(name, apiKey || 'not-needed');
      this.endpoints.set(name, {
        name,
        config: endpoint,
        client: new OpenAI({ baseURL: endpoint.baseURL, apiKey: apiKey || 'not-needed', maxRetries: endpoint.retries, timeout: endpoint.timeoutMs }),
        slots: pLimit(endpoint.maxInFlight),
        requests: endpoint.requestsPerMinute ? new MinuteWindow(endpoint.requestsPerMinute) : null,
        tokens: endpoint.tokensPerMinute ? new MinuteWindow(endpoint.tokensPerMinute) : null,
      });
    }
    this.batcher =
      config.batch.enabled && options.runId !== null
        ? new Batcher(db, config.batch, options.runId, this.endpoints, (lines) => this.allowBatch(lines), note, options.signal)
        : null;
  }

  /** A ceiling in dollars needs every model's price: an unknown cost cannot be kept under it. */
  private refuseUnpriced(): void {
    const models = [...this.config.detectors, this.config.generator, ...this.config.filters].map((r) => r.model);
    const unpriced = [...new Set(models.filter((m) => !this.prices.has(m)))];
    if (unpriced.length) throw new AppError('invalid_input', `budget.maxUsd needs a price for every model, and ${unpriced.join(', ')} ${unpriced.length === 1 ? 'has' : 'have'} none: set one (pipeline prices) or use budget.maxTokens.`);
  }

  /** An embeddings client on a configured endpoint (its key, retries and timeout; vectors cached in the database). */
  embedder(endpointName: string, model: string, dimensions?: number): OpenAIEmbedder {
    const endpoint = this.endpoints.get(endpointName);
    if (!endpoint) throw new AppError('invalid_input', `No endpoint named "${endpointName}"`);
    return new OpenAIEmbedder(this.db, {
      baseURL: endpoint.config.baseURL,
      model,
      apiKey: this.apiKeys.get(endpointName)!,
      ...(dimensions ? { dimensions } : {}),
      maxRetries: endpoint.config.retries,
      timeoutMs: endpoint.config.timeoutMs,
    });
  }

  private count(stage: string, update: (s: CallStats) => void): void {
    update(this.stats);
    if (!this.byStage.has(stage)) this.byStage.set(stage, emptyStats());
    update(this.byStage.get(stage)!);
  }

  /** A high estimate of a call: its prompt as characters / 4 tokens in, `maxTokens` out. */
  private estimate(model: string, mode: CallMode, body: { messages: unknown }): Reservation {
    const input = Math.ceil(JSON.stringify(body.messages).length / 4);
    return { usd: this.prices.cost(model, mode, input, this.config.maxTokens) ?? 0, tokens: input + this.config.maxTokens };
  }

  /** How many of a batch's lines fit under the ceiling (the rest are not sent, and the run stops). */
  private allowBatch(lines: readonly { hash: string; body: { model: string; messages: unknown } }[]): number {
    if (!this.ceiling.limited || this.ceiling.stopped) return this.ceiling.stopped ? 0 : lines.length;
    let fit = 0;
    for (const line of lines) {
      const estimate = this.estimate(line.body.model, 'batch', line.body);
      if (!this.ceiling.fits(estimate)) break;
      this.batchReserved.set(line.hash, this.ceiling.reserve(estimate));
      fit++;
    }
    return fit;
  }

  private body(endpoint: EndpointState, request: LlmRequest<SchemaName>) {
    const schema = request.custom?.jsonSchema ?? jsonSchemaFor(request.schema);
    const mode = endpoint.config.structuredOutput;
    const messages = [...request.messages];
    const sampling = request.sampling ?? {};
    const temperature = sampling.temperature === undefined ? this.config.temperature : sampling.temperature;
    if (mode !== 'json_schema') {
      // Without schema support the schema travels in the instructions.
      messages[0] = { ...messages[0]!, content: `${messages[0]!.content}\n\nAnswer with one JSON object only, matching this JSON Schema:\n${JSON.stringify(schema)}` };
    }
    return {
      model: request.ref.model,
      messages,
      ...(temperature === null ? {} : { temperature }),
      ...(sampling.topP === undefined ? {} : { top_p: sampling.topP }),
      ...(sampling.logprobs === undefined ? {} : { logprobs: true, top_logprobs: sampling.logprobs }),
      max_tokens: this.config.maxTokens,
      ...(mode === 'json_schema'
        ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.custom?.name ?? request.schema, schema, strict: true } } }
        : mode === 'json_object'
          ? { response_format: { type: 'json_object' as const } }
          : {}),
    };
  }

  /** The cache key: endpoint URL, model, messages, schema and sampling parameters. */
  static hash(baseURL: string, body: unknown): string {
    return sha256(JSON.stringify([baseURL.replace(/\/+$/, ''), body]));
  }

  /**
   * One answer. `repair` is false for the repair attempt itself; `sync` sends it synchronously
   * even in a batched stage (repairs are few, and a second 24-hour wait for one is rarely worth it).
   */
  async ask<K extends SchemaName>(request: LlmRequest<K>, repair = true, sync = false): Promise<LlmResult<SchemaOutput<K>>> {
    const endpoint = this.endpoints.get(request.ref.endpoint);
    if (!endpoint) return { ok: false, reason: `no endpoint named "${request.ref.endpoint}"`, raw: null, callId: null };
    const body = this.body(endpoint, request);
    const sample = request.sampling?.sample;
    const hash = LlmClient.hash(endpoint.config.baseURL, sample === undefined ? body : [body, { sample }]);
    const validator = request.custom?.validator ?? STAGE_SCHEMAS[request.schema];
    const modelName = `${endpoint.name}/${request.ref.model}`;

    if (!this.options.noCache?.has(request.stage)) {
      const hit = cachedCall(this.db, hash);
      if (hit) {
        const parsed = validator.safeParse(extractJsonSafe(hit.response));
        if (parsed.success) {
          // A re-run's items mostly used the same call last already: no write for those.
          if (hit.item !== request.item) tagCall(this.db, hit.id, request.item);
          this.count(request.stage, (s) => s.cachedCalls++);
          return { ok: true, value: parsed.data as SchemaOutput<K>, callId: hit.id, cached: true, logprobs: hit.logprobs ? (JSON.parse(hit.logprobs) as TokenLogprob[]) : null };
        }
      }
      // The same request already on its way (another item asks it too): one call answers both.
      const pending = this.inFlight.get(hash);
      if (pending) {
        const shared = (await pending) as LlmResult<SchemaOutput<K>>;
        if (shared.ok) {
          tagCall(this.db, shared.callId, request.item);
          this.count(request.stage, (s) => s.cachedCalls++);
        }
        return shared.ok ? { ...shared, cached: true } : shared;
      }
    }
    const call = this.fetch(endpoint, request, body, hash, modelName, repair, sync);
    this.inFlight.set(hash, call);
    try {
      return await call;
    } finally {
      this.inFlight.delete(hash);
    }
  }

  /** Sends a request (in a batch where its stage is batched, else now) and takes its answer. */
  private async fetch<K extends SchemaName>(endpoint: EndpointState, request: LlmRequest<K>, body: Body, hash: string, modelName: string, repair: boolean, sync: boolean): Promise<LlmResult<SchemaOutput<K>>> {
    const signal = this.options.signal;
    if (signal?.aborted) throw new AppError('cancelled', 'Cancelled');
    if (this.ceiling.stopped) throw new AppError('cancelled', this.ceiling.stopped);
    if (!sync && this.batcher?.takes(request.stage, endpoint.name)) {
      const answer = await this.batcher.ask(endpoint.name, { hash, body, item: request.item, stage: request.stage, type: request.type ?? null });
      const reserved = this.batchReserved.get(hash);
      if (reserved) this.ceiling.release(reserved);
      this.batchReserved.delete(hash);
      if (answer.kind === 'answered') return this.accept(endpoint, request, body, hash, modelName, answer.completion, { mode: 'batch', batchId: answer.batchId }, repair);
      const refused = this.unbatched(endpoint, answer);
      if (refused) return refused;
    }
    const reservation = this.ceiling.limited ? this.ceiling.reserve(this.estimate(request.ref.model, 'sync', body)) : null;
    try {
      return await this.send(endpoint, request, body, hash, modelName, repair);
    } finally {
      if (reservation) this.ceiling.release(reservation);
    }
  }

  /** A line a batch did not answer: the run stops (cancelled, over the ceiling), the call fails (fallback: fail), or null: send it now. */
  private unbatched(endpoint: EndpointState, answer: Exclude<BatchAnswer, { kind: 'answered' }>): { ok: false; reason: string; raw: null; callId: null } | null {
    if (answer.reason === 'cancelled') throw new AppError('cancelled', 'Cancelled');
    if (answer.reason === 'budget') this.ceiling.stop();
    if (this.config.batch.fallback === 'sync') return null;
    const missing = this.batcher?.unsupportedReason(endpoint.name);
    if (missing) this.ceiling.halt(`${missing}, and batch.fallback is "fail": the run stopped rather than send its calls one by one.`);
    return { ok: false, reason: `not answered in a batch (${answer.reason}), and batch.fallback is "fail"`, raw: null, callId: null };
  }

  /** A synchronous call: a slot, the per-minute limits, then the SDK. */
  private async send<K extends SchemaName>(endpoint: EndpointState, request: LlmRequest<K>, body: Body, hash: string, modelName: string, repair: boolean): Promise<LlmResult<SchemaOutput<K>>> {
    const signal = this.options.signal;
    // Latency is the endpoint's: it starts when the request is sent, after any wait for a slot
    // or the per-minute limits, which is kept apart as queue time.
    const queued = performance.now();
    let sent = queued;
    let completion: Completion;
    try {
      completion = await endpoint.slots(async () => {
        if (signal?.aborted) throw new AppError('cancelled', 'Cancelled');
        await endpoint.requests?.take(1, signal);
        await endpoint.tokens?.take(Math.ceil(JSON.stringify(body.messages).length / 4) + this.config.maxTokens, signal);
        sent = performance.now();
        return withRequestSignal(signal, (requestSignal) => endpoint.client.chat.completions.create(body, { signal: requestSignal }));
      });
    } catch (error) {
      if (signal?.aborted || error instanceof AppError) throw error instanceof AppError ? error : new AppError('cancelled', 'Cancelled');
      const reason = `the call failed: ${describe(error, endpoint.config.baseURL)}`;
      const latencyMs = performance.now() - sent;
      const queueMs = sent - queued;
      const callId = recordCall(this.db, {
        hash, runId: this.options.runId, endpoint: endpoint.config.baseURL, model: modelName, stage: request.stage, item: request.item,
        request: { ...body, awb_queue_ms: queueMs }, response: null, status: 'error', error: reason, promptTokens: null, completionTokens: null,
        latencyMs, costUsd: null, ambiguityType: request.type ?? null,
      });
      this.count(request.stage, (s) => { s.calls++; s.failedCalls++; s.latencyMs += latencyMs; s.queueMs += queueMs; });
      return { ok: false, reason, raw: null, callId };
    }
    return this.accept(endpoint, request, body, hash, modelName, completion, { mode: 'sync', latencyMs: performance.now() - sent, queueMs: sent - queued }, repair);
  }

  /** Records an answer (priced by how it came), checks it against the schema, and repairs it once where it does not fit. */
  private async accept<K extends SchemaName>(
    endpoint: EndpointState, request: LlmRequest<K>, body: Body, hash: string, modelName: string, completion: Completion, delivery: Delivery, repair: boolean,
  ): Promise<LlmResult<SchemaOutput<K>>> {
    const choice = completion.choices?.[0];
    const raw = choice?.message?.content ?? null;
    const logprobs = (choice?.logprobs?.content as TokenLogprob[] | null | undefined) ?? null;
    const sample = request.sampling?.sample;
    const promptTokens = completion.usage?.prompt_tokens ?? 0;
    const completionTokens = completion.usage?.completion_tokens ?? 0;
    const cachedTokens = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const costUsd = this.prices.cost(request.ref.model, delivery.mode, promptTokens, completionTokens, cachedTokens);
    const latencyMs = delivery.mode === 'sync' ? delivery.latencyMs : 0;
    const queueMs = delivery.mode === 'sync' ? delivery.queueMs : 0;
    this.count(request.stage, (s) => {
      s.calls++;
      if (delivery.mode === 'batch') s.batchCalls++;
      s.promptTokens += promptTokens;
      s.completionTokens += completionTokens;
      s.costUsd += costUsd ?? 0;
      if (costUsd === null) s.unpricedCalls++;
      s.latencyMs += latencyMs;
      s.queueMs += queueMs;
    });
    const { value, problem } = this.check(request, choice, raw);
    const callId = recordCall(this.db, {
      hash, runId: this.options.runId, endpoint: endpoint.config.baseURL, model: modelName, stage: request.stage, item: request.item,
      request: { ...body, ...(delivery.mode === 'sync' ? { awb_queue_ms: queueMs } : {}), ...(sample === undefined ? {} : { awb_sample: sample }) }, response: raw, status: value ? 'ok' : 'error', error: problem,
      promptTokens, completionTokens, latencyMs: delivery.mode === 'sync' ? latencyMs : null, costUsd, logprobs,
      mode: delivery.mode, batchId: delivery.mode === 'batch' ? delivery.batchId : null, ambiguityType: request.type ?? null, cachedPromptTokens: cachedTokens || null,
    });
    if (value) return { ok: true, value, callId, cached: false, logprobs };
    this.count(request.stage, (s) => s.failedCalls++);
    if (repair && raw !== null && !choice?.message?.refusal) {
      const repaired = await this.ask(
        {
          ...request,
          messages: [
            ...request.messages,
            { role: 'assistant', content: raw },
            { role: 'user', content: `That answer cannot be used: ${problem}. Reply again with only the JSON object, with exactly the keys asked for.` },
          ],
        },
        false,
        true,
      );
      if (repaired.ok) return repaired;
      return { ok: false, reason: `${problem}; the repair attempt failed too: ${repaired.reason}`, raw: repaired.raw ?? raw, callId: repaired.callId ?? callId };
    }
    return { ok: false, reason: problem!, raw, callId };
  }

  /**
   * Which of these requests had an answer in the cache when the run (re)started (so asking costs
   * nothing). Answers stored since do not count, so the answer never depends on which item of the
   * run happened to finish first.
   */
  answeredBefore(requests: readonly LlmRequest<SchemaName>[]): boolean[] {
    const hashes = requests.map((request) => {
      const endpoint = this.endpoints.get(request.ref.endpoint);
      if (!endpoint || this.options.noCache?.has(request.stage)) return null;
      const body = this.body(endpoint, request);
      const sample = request.sampling?.sample;
      return LlmClient.hash(endpoint.config.baseURL, sample === undefined ? body : [body, { sample }]);
    });
    const found = answeredAmong(this.db, hashes.filter((h): h is string => h !== null), this.startCallId);
    return hashes.map((h) => h !== null && found.has(h));
  }

  /** The answer's value, or what is wrong with it. */
  private check<K extends SchemaName>(request: LlmRequest<K>, choice: Completion['choices'][number] | undefined, raw: string | null): { value: SchemaOutput<K> | null; problem: string | null } {
    const validator = request.custom?.validator ?? STAGE_SCHEMAS[request.schema];
    if (choice?.message?.refusal) return { value: null, problem: `the model refused: ${choice.message.refusal}` };
    if (raw === null || raw.trim() === '') return { value: null, problem: 'the answer was empty' };
    try {
      const parsed = validator.safeParse(extractJson(raw));
      if (parsed.success) return { value: parsed.data as SchemaOutput<K>, problem: null };
      return { value: null, problem: `the answer does not fit the schema: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ')}` };
    } catch (error) {
      return { value: null, problem: `${choice?.finish_reason === 'length' ? 'the answer was cut off at the token limit' : 'the answer is not valid JSON'} (${(error as Error).message.slice(0, 100)})` };
    }
  }
}
