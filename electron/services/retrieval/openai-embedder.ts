import OpenAI from 'openai';
import { cachedEmbeddings, storeCachedEmbedding } from '../../../db/queries/embedding-cache';
import type { WritableDB } from '../../../db/sql';
import { sha256Bytes } from '../hash';
import { AppError } from '../../../shared/api';

/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, OpenRouter, vLLM,
 * Ollama, llama.cpp server) through the `openai` SDK: batched, retried with backoff by the SDK
 * (which honours `retry-after`), checked (count, dimension, finite numbers), and cached in the
 * database by model and text hash, so the same text is never sent twice. The API key is read
 * from an environment variable and never stored.
 */

export interface OpenAIEmbedderOptions {
  baseURL: string;
  model: string;
  apiKey: string;
  /** Requested dimension (the `dimensions` parameter, for models that can shorten vectors). */
  dimensions?: number;
  /** The dimension answers must have (a model's recorded one); when unknown, the first answer sets it. */
  expectDimensions?: number;
  batchSize?: number;
  maxRetries?: number;
  timeoutMs?: number;
}

export class OpenAIEmbedder {
  private readonly client: OpenAI;
  readonly cacheKey: string;
  dimensions: number | null;
  requests = 0;

  constructor(
    private readonly db: WritableDB,
    private readonly options: OpenAIEmbedderOptions,
  ) {
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 4,
      timeout: options.timeoutMs ?? 60_000,
    });
    this.dimensions = options.expectDimensions ?? options.dimensions ?? null;
    this.cacheKey = `${options.baseURL.replace(/\/+$/, '')}|${options.model}|${options.dimensions ?? 'native'}`;
  }

  /** Embeds texts, from the cache where possible. Throws AppError on a malformed answer. */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array | undefined>(texts.length);
    const hashes = texts.map((t) => sha256Bytes(t));
    const byHash = cachedEmbeddings(this.db, this.cacheKey, hashes);
    const missing: number[] = [];
    hashes.forEach((h, i) => {
      const hit = byHash.get(h.toString('hex'));
      if (hit) out[i] = hit;
      else missing.push(i);
    });
    const batchSize = this.options.batchSize ?? 96;
    for (let start = 0; start < missing.length; start += batchSize) {
      const indexes = missing.slice(start, start + batchSize);
      const vectors = await this.request(indexes.map((i) => texts[i]!));
      indexes.forEach((index, j) => {
        out[index] = vectors[j]!;
        storeCachedEmbedding(this.db, this.cacheKey, hashes[index]!, vectors[j]!);
      });
    }
    return out as Float32Array[];
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    this.requests++;
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create({
        model: this.options.model,
        input,
        encoding_format: 'float',
        ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
      });
    } catch (error) {
      const status = (error as { status?: number }).status;
      throw new AppError(
        'internal',
        `The embedding endpoint ${this.options.baseURL} failed${status ? ` (HTTP ${status})` : ''}: ${(error as Error).message}`,
      );
    }
    const data = Array.isArray(response?.data) ? response.data : null;
    if (!data || data.length !== input.length) {
      throw new AppError('internal', `The embedding endpoint answered with ${data ? data.length : 'no'} vectors for ${input.length} texts.`);
    }
    return [...data]
      .sort((a, b) => a.index - b.index)
      .map((item, i) => {
        const values = item.embedding as unknown;
        if (!Array.isArray(values) || values.length === 0) {
          throw new AppError('internal', `The embedding endpoint answered item ${i} without a list of numbers (undecodable data).`);
        }
        if (this.dimensions !== null && values.length !== this.dimensions) {
          throw new AppError(
            'internal',
            `The embedding endpoint returned vectors of ${values.length} dimensions, but this model's index holds ${this.dimensions}. Nothing was stored.`,
          );
        }
        if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
          throw new AppError('internal', `The embedding endpoint returned a vector with NaN or infinite values (item ${i}). Nothing was stored.`);
        }
        this.dimensions ??= values.length;
        return Float32Array.from(values as number[]);
      });
  }
}
