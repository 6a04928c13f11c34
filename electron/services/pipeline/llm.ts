import { setMaxListeners } from 'node:events';
import OpenAI from 'openai';
import pLimit, { type LimitFunction } from 'p-limit';
import { cachedCall, recordCall, tagCall } from '../../../db/queries/llm-calls';
import { listPrices } from '../../../db/queries/model-prices';
import type { WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { sha256 } from '../hash';
import { OpenAIEmbedder } from '../retrieval/openai-embedder';
import { jsonSchemaFor, STAGE_SCHEMAS, type Endpoint, type ModelRef, type PipelineConfig, type SchemaName, type SchemaOutput } from '../../../shared/pipeline';

/**
 * Every model call of the pipeline goes through here: the content-addressed cache first (no
 * slot is taken for a cached answer), then the endpoint's limits (requests in flight, requests
 * and tokens per minute), then the real `openai` SDK, which retries 408/409/429/5xx with
 * backoff and honours `retry-after`. Answers are asked for as JSON (a strict schema, JSON mode or
 * plain text, per endpoint), validated, and repaired once; a call that still fails gives the
 * item a reason and the raw output, never an exception that stops the run.
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
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** Summed over the calls sent: the endpoints' time to answer, and the time spent queued before sending. */
  latencyMs: number;
  queueMs: number;
}

export const emptyStats = (): CallStats => ({ calls: 0, cachedCalls: 0, failedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, latencyMs: 0, queueMs: 0 });

/** Requests (or tokens) per minute: waits until the last minute's use leaves room. */
export class MinuteWindow {
  private readonly used: { at: number; amount: number }[] = [];
  private total = 0;

  constructor(private readonly limit: number) {}

  async take(amount: number, signal: AbortSignal | undefined): Promise<void> {
    const wanted = Math.min(amount, this.limit);
    for (;;) {
      if (signal?.aborted) throw new AppError('cancelled', 'Cancelled');
      const now = Date.now();
      while (this.used.length && now - this.used[0]!.at >= 60_000) this.total -= this.used.shift()!.amount;
      if (this.total + wanted <= this.limit) {
        this.used.push({ at: now, amount: wanted });
        this.total += wanted;
        return;
      }
      await pause(Math.max(5, 60_000 - (now - this.used[0]!.at)), signal);
    }
  }
}

/** Waits `ms`, or less when the signal aborts first (a cancelled run must not sit out a minute). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface EndpointState {
  name: string;
  config: Endpoint;
  client: OpenAI;
  slots: LimitFunction;
  requests: MinuteWindow | null;
  tokens: MinuteWindow | null;
}

function isLocal(url: string): boolean {
  try {
    return ['localhost', '127.0.0.1', '::1', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Finds the JSON object in an answer: the whole text, or a fenced or embedded object. */
export function extractJson(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed);
    if (fenced) return JSON.parse(fenced[1]!);
    const start = trimmed.indexOf('{');
    const end = trimmed.lastIndexOf('}');
    if (start !== -1 && end > start) return JSON.parse(trimmed.slice(start, end + 1));
    throw new Error('no JSON object in the answer');
  }
}

function describe(error: unknown, baseURL: string): string {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return `the request timed out (${baseURL})`;
  if (error instanceof OpenAI.APIConnectionError) {
    // fetch wraps the socket's error: the code (ECONNREFUSED, ENOTFOUND, ...) is further down.
    let cause: unknown = error.cause;
    let detail = error.message;
    for (let depth = 0; cause && depth < 4; depth++, cause = (cause as { cause?: unknown }).cause) {
      const { code, message } = cause as { code?: string; message?: string };
      detail = code ?? message ?? detail;
      if (code) break;
    }
    return `could not reach ${baseURL}: ${detail}`;
  }
  if (error instanceof OpenAI.APIError) {
    const body = typeof error.error === 'string' ? error.error : '';
    const html = /<html|<!doctype/i.test(body) || /<html|<!doctype/i.test(error.message);
    return `${error.status ?? 'no status'}${html ? ' (an HTML page, not JSON)' : ''}: ${error.message.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 200)}`;
  }
  if (error instanceof SyntaxError) return `the endpoint answered something that is not JSON (${error.message.slice(0, 120)})`;
  return (error as Error).message ?? String(error);
}

export class LlmClient {
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly apiKeys = new Map<string, string>();
  private readonly prices = new Map<string, { input: number; output: number }>();
  readonly stats = emptyStats();
  readonly byStage = new Map<string, CallStats>();

  constructor(
    private readonly db: WritableDB,
    private readonly config: PipelineConfig,
    private readonly options: { runId: number | null; signal?: AbortSignal; noCache?: ReadonlySet<string>; keys?: Readonly<Record<string, string>> } = { runId: null },
  ) {
    // Each request in flight listens to the run's signal until it ends (see withRequestSignal):
    // as many listeners as requests may be in flight is expected, not a leak.
    if (options.signal) setMaxListeners(Object.values(config.endpoints).reduce((n, e) => n + e.maxInFlight, 0) + 16, options.signal);
    for (const row of listPrices(db)) this.prices.set(row.model, { input: row.input, output: row.output });
    for (const [model, price] of Object.entries(config.prices)) this.prices.set(model, price);
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

  private cost(model: string, promptTokens: number, completionTokens: number): number | null {
    const price = this.prices.get(model);
    return price ? (promptTokens * price.input + completionTokens * price.output) / 1e6 : null;
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

  async ask<K extends SchemaName>(request: LlmRequest<K>, repair = true): Promise<LlmResult<SchemaOutput<K>>> {
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
          tagCall(this.db, hit.id, request.item);
          this.count(request.stage, (s) => s.cachedCalls++);
          return { ok: true, value: parsed.data as SchemaOutput<K>, callId: hit.id, cached: true, logprobs: hit.logprobs ? (JSON.parse(hit.logprobs) as TokenLogprob[]) : null };
        }
      }
    }

    const signal = this.options.signal;
    if (signal?.aborted) throw new AppError('cancelled', 'Cancelled');
    // Latency is the endpoint's: it starts when the request is sent, after any wait for a slot
    // or the per-minute limits, which is kept apart as queue time.
    const queued = performance.now();
    let sent = queued;
    let completion: OpenAI.Chat.Completions.ChatCompletion;
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
        latencyMs, costUsd: null,
      });
      this.count(request.stage, (s) => { s.calls++; s.failedCalls++; s.latencyMs += latencyMs; s.queueMs += queueMs; });
      return { ok: false, reason, raw: null, callId };
    }
    const latencyMs = performance.now() - sent;
    const queueMs = sent - queued;
    const choice = completion.choices?.[0];
    const raw = choice?.message?.content ?? null;
    const logprobs = (choice?.logprobs?.content as TokenLogprob[] | null | undefined) ?? null;
    const promptTokens = completion.usage?.prompt_tokens ?? 0;
    const completionTokens = completion.usage?.completion_tokens ?? 0;
    const costUsd = this.cost(request.ref.model, promptTokens, completionTokens);
    this.count(request.stage, (s) => {
      s.calls++;
      s.promptTokens += promptTokens;
      s.completionTokens += completionTokens;
      s.costUsd += costUsd ?? 0;
      s.latencyMs += latencyMs;
      s.queueMs += queueMs;
    });

    let problem: string | null = null;
    let value: SchemaOutput<K> | null = null;
    if (choice?.message?.refusal) problem = `the model refused: ${choice.message.refusal}`;
    else if (raw === null || raw.trim() === '') problem = 'the answer was empty';
    else {
      try {
        const parsed = validator.safeParse(extractJson(raw));
        if (parsed.success) value = parsed.data as SchemaOutput<K>;
        else problem = `the answer does not fit the schema: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ')}`;
      } catch (error) {
        problem = `${choice?.finish_reason === 'length' ? 'the answer was cut off at the token limit' : 'the answer is not valid JSON'} (${(error as Error).message.slice(0, 100)})`;
      }
    }
    const callId = recordCall(this.db, {
      hash, runId: this.options.runId, endpoint: endpoint.config.baseURL, model: modelName, stage: request.stage, item: request.item,
      request: { ...body, awb_queue_ms: queueMs, ...(sample === undefined ? {} : { awb_sample: sample }) }, response: raw, status: value ? 'ok' : 'error', error: problem, promptTokens, completionTokens, latencyMs, costUsd, logprobs,
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
      );
      if (repaired.ok) return repaired;
      return { ok: false, reason: `${problem}; the repair attempt failed too: ${repaired.reason}`, raw: repaired.raw ?? raw, callId: repaired.callId ?? callId };
    }
    return { ok: false, reason: problem!, raw, callId };
  }
}

/**
 * Runs a request under its own abort signal, tied to the run's for as long as the request lasts.
 * The SDK never removes the listener it adds to the signal it is given: given the run's signal,
 * every call of a long run would leave one behind (and Node warns of a leak past ten).
 */
async function withRequestSignal<T>(run: AbortSignal | undefined, request: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!run) return request(undefined);
  const controller = new AbortController();
  const abort = () => controller.abort(run.reason);
  run.addEventListener('abort', abort, { once: true });
  try {
    return await request(controller.signal);
  } finally {
    run.removeEventListener('abort', abort);
  }
}

function extractJsonSafe(text: string): unknown {
  try {
    return extractJson(text);
  } catch {
    return undefined;
  }
}
