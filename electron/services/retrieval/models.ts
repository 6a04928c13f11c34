import {
  bestCoveringModelId,
  clearEmbeddings,
  corporaWithVectors,
  countEmbeddings,
  createModel,
  findModel,
  getModel,
  getModelState,
  passagesWithoutEmbeddings,
  saveModelState,
  storeEmbeddings,
  type EmbeddingModelRow,
} from '../../../db/queries/embeddings';
import { countCorpusPassages, findCorpusByName } from '../../../db/queries/corpora';
import { passagesAfter } from '../../../db/queries/passages';
import { transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import { AppError, type EmbedReport } from '../../../shared/api';
import { deserializeState, OfflineEmbedder, serializeState } from './offline-embedder';
import { OpenAIEmbedder } from './openai-embedder';

/** Anything that turns texts into vectors of a fixed dimension. */
export interface Embedder {
  readonly model: EmbeddingModelRow;
  embedQueries(texts: readonly string[]): Promise<Float32Array[]>;
  embedPassages(passages: readonly { title: string; text: string }[]): Promise<Float32Array[]>;
}

const asText = (p: { title: string; text: string }) => (p.title ? `${p.title}\n${p.text}` : p.text);

const OFFLINE_MODEL = 'hashed-tfidf-words-chargrams';
/**
 * 768 dimensions by default: hashing into fewer buckets makes more features collide, and on the
 * MuSiQue sample 384 dimensions lose about 7 points of dense recall@10 against 768.
 */
export const OFFLINE_DIMENSIONS = 768;
const FIT_SAMPLE = 200_000;

export function offlineModelName(dimensions: number): string {
  return `offline:${OFFLINE_MODEL}:${dimensions}`;
}

function openaiModelName(model: string, dimensions: number | undefined): string {
  return `openai:${model}${dimensions ? `:${dimensions}` : ''}`;
}

interface OpenAIConfig {
  baseURL: string;
  apiKeyEnv: string;
  /** The `dimensions` parameter sent with every request, if any. */
  requestedDimensions: number | null;
}

const offlineCache = new Map<string, OfflineEmbedder>();

function offlineEmbedder(db: ReadableDB, row: EmbeddingModelRow): OfflineEmbedder {
  const key = `${row.id}:${row.state_tag}`;
  let embedder = offlineCache.get(key);
  if (!embedder) {
    const state = row.state_bytes ? getModelState(db, row.id) : null;
    embedder = new OfflineEmbedder(row.dimensions, state ? deserializeState(state) : undefined);
    for (const old of [...offlineCache.keys()]) if (old.startsWith(`${row.id}:`)) offlineCache.delete(old);
    offlineCache.set(key, embedder);
  }
  return embedder;
}

/** The base URL actually used: `AWB_BASE_URL` (one local server for everything) wins. */
function effectiveBaseURL(configured: string): string {
  return process.env.AWB_BASE_URL || configured;
}

/** An embedder for a registered model (queries and documents go through the same one). */
export function embedderFor(db: WritableDB, row: EmbeddingModelRow): Embedder {
  if (row.provider === 'offline') {
    const embedder = offlineEmbedder(db, row);
    if (!embedder.fitted) throw new AppError('conflict', `The offline model ${row.name} has not been fitted yet: embed a corpus with it first.`, undefined, { kind: 'operation', operation: 'corpus:embed', input: { provider: 'offline' } });
    return {
      model: row,
      embedQueries: async (texts) => texts.map((t) => embedder.embed(t)),
      embedPassages: async (passages) => passages.map((p) => embedder.embedPassage(p)),
    };
  }
  const config = JSON.parse(row.config) as OpenAIConfig;
  const apiKey = process.env[config.apiKeyEnv] ?? 'no-key';
  const client = new OpenAIEmbedder(db, {
    baseURL: effectiveBaseURL(config.baseURL),
    model: row.model,
    apiKey,
    ...(config.requestedDimensions ? { dimensions: config.requestedDimensions } : {}),
    expectDimensions: row.dimensions,
  });
  return { model: row, embedQueries: (texts) => client.embed(texts), embedPassages: (passages) => client.embed(passages.map(asText)) };
}

export interface EmbedOptions {
  corpus: string;
  provider: 'offline' | 'openai';
  /** Remote model name (openai provider). */
  model?: string;
  baseURL?: string;
  apiKeyEnv?: string;
  dimensions?: number;
  /** Offline: count document frequencies again and re-embed every passage. */
  refit?: boolean;
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

function corpusId(db: WritableDB, name: string): number {
  const corpus = findCorpusByName(db, name);
  if (!corpus) throw new AppError('not_found', `No corpus named "${name}"`);
  return corpus.id;
}

/**
 * Embeds every passage of a corpus that has no vector yet for the model, in batches, each
 * committed with its vectors in both tables, so a killed run resumes where it stopped and the
 * index never holds one table's half of a batch.
 */
export async function embedCorpus(db: WritableDB, options: EmbedOptions): Promise<EmbedReport> {
  const started = performance.now();
  const corpus = corpusId(db, options.corpus);
  let row: EmbeddingModelRow;
  let openai: OpenAIEmbedder | null = null;
  if (options.provider === 'offline') {
    const dimensions = options.dimensions ?? OFFLINE_DIMENSIONS;
    const name = offlineModelName(dimensions);
    row =
      findModel(db, name) ??
      transaction(db, () => createModel(db, { name, provider: 'offline', model: OFFLINE_MODEL, dimensions, lexical: true, config: {} }));
  } else {
    if (!options.model) throw new AppError('invalid_input', 'The openai provider needs the name of a model.', undefined, { kind: 'field', field: 'model' });
    const baseURL = options.baseURL ?? 'https://api.openai.com/v1';
    const apiKeyEnv = options.apiKeyEnv ?? 'OPENAI_API_KEY';
    const name = openaiModelName(options.model, options.dimensions);
    const existing = findModel(db, name);
    openai = new OpenAIEmbedder(db, {
      baseURL: effectiveBaseURL(baseURL),
      model: options.model,
      apiKey: process.env[apiKeyEnv] ?? 'no-key',
      ...(options.dimensions ? { dimensions: options.dimensions } : {}),
      ...(existing ? { expectDimensions: existing.dimensions } : {}),
    });
    if (existing) {
      row = existing;
    } else {
      // Learn the dimension from the endpoint before creating the tables.
      const [probe] = await openai.embed(['dimension probe']);
      const dimensions = probe!.length;
      if (dimensions % 8 !== 0) throw new AppError('invalid_input', `Vectors of ${dimensions} dimensions cannot be bit-quantised (need a multiple of 8).`);
      row = transaction(db, () =>
        createModel(db, {
          name,
          provider: 'openai',
          model: options.model!,
          dimensions,
          lexical: false,
          config: { baseURL, apiKeyEnv, requestedDimensions: options.dimensions ?? null } satisfies OpenAIConfig,
        }),
      );
    }
  }

  const total = countCorpusPassages(db, corpus);
  if (total === 0) throw new AppError('invalid_input', `The corpus "${options.corpus}" has no passages to embed.`);
  if (options.provider === 'offline') {
    let embedder = offlineEmbedder(db, row);
    if (embedder.fitted && options.refit) {
      // A fit is shared by every corpus embedded with this model, and a new one changes every
      // vector: refitting for one corpus would silently discard the others' vectors.
      const others = corporaWithVectors(db, row.id).filter((c) => c.name !== options.corpus);
      if (others.length) {
        throw new AppError(
          'conflict',
          `A refit of ${row.name} would discard the vectors of ${others.map((c) => `"${c.name}" (${c.n.toLocaleString('en-US')})`).join(', ')}, which share its fit. ` +
            'Embed this corpus with other dimensions (a separately fitted model) instead.',
          undefined,
          { kind: 'field', field: 'dimensions' },
        );
      }
    }
    if (!embedder.fitted || options.refit) {
      // Document frequencies from the corpus, or from an even sample of it when it is large:
      // IDF estimated on 200,000 passages differs from the full count by little.
      embedder = new OfflineEmbedder(row.dimensions);
      const stride = Math.max(1, Math.ceil(total / FIT_SAMPLE));
      let after = 0;
      for (;;) {
        options.signal?.throwIfAborted();
        const batch = passagesAfter(db, corpus, after, 5000);
        if (batch.length === 0) break;
        embedder.fit(stride === 1 ? batch : batch.filter((p) => p.id % stride === 0));
        after = batch.at(-1)!.id;
      }
      transaction(db, () => {
        saveModelState(db, row.id, serializeState(embedder.getState()));
        // A new fit changes every vector: the old ones go.
        clearEmbeddings(db, row.id);
      });
      row = getModel(db, row.id)!;
    }
  }

  const embedder: Embedder =
    options.provider === 'offline'
      ? embedderFor(db, row)
      : { model: row, embedQueries: (t) => openai!.embed(t), embedPassages: (p) => openai!.embed(p.map(asText)) };
  const already = countEmbeddings(db, row.id, corpus);
  let done = already;
  let embedded = 0;
  let after = 0;
  const batchSize = options.batchSize ?? (options.provider === 'offline' ? 2000 : 256);
  options.onProgress?.(done, total);
  for (;;) {
    options.signal?.throwIfAborted();
    const batch = passagesWithoutEmbeddings(db, row.id, corpus, after, batchSize);
    if (batch.length === 0) break;
    const vectors = await embedder.embedPassages(batch);
    transaction(db, () =>
      storeEmbeddings(
        db,
        row.id,
        batch.map((p, i) => ({ passageId: p.id, corpusId: corpus, vector: vectors[i]! })),
      ),
    );
    after = batch.at(-1)!.id;
    done += batch.length;
    embedded += batch.length;
    options.onProgress?.(done, total);
  }
  return {
    model: row.name,
    corpus: options.corpus,
    dimensions: row.dimensions,
    embedded,
    already,
    total,
    requests: openai?.requests ?? 0,
    seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
  };
}

/** The model whose vectors cover the most of a corpus (the default for dense search). */
export function defaultModelFor(db: WritableDB, corpus: number | null, name?: string): EmbeddingModelRow | null {
  if (name) {
    const row = findModel(db, name);
    if (!row) throw new AppError('not_found', `No embedding model named "${name}"`);
    return row;
  }
  const best = bestCoveringModelId(db, corpus);
  return best === undefined ? null : getModel(db, best)!;
}
