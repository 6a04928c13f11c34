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
import { checkpointLessOften } from '../../../db/connection';
import { countCorpusPassages, findCorpusByName } from '../../../db/queries/corpora';
import { sampledPassagesAfter } from '../../../db/queries/passages';
import { transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import { AppError, type EmbedReport } from '../../../shared/api';
import { codeBytes, type VectorCode } from '../../../shared/retrieval/vector-codes';
import { startEmbedWork, type EmbedWork } from './embed-pool';
import type { EmbeddedBatch } from './embed-work';
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

/**
 * The offline embedders built, per connection and model, with the tag of the fit each was built
 * from (a new fit changes the tag, and the next query builds a new one). Per connection, since the
 * tag (a count of fits and the state's size) tells fits of one database apart, not two databases'.
 */
const offlineCache = new WeakMap<ReadableDB, Map<number, { tag: string; embedder: OfflineEmbedder }>>();

function offlineEmbedder(db: ReadableDB, row: EmbeddingModelRow): OfflineEmbedder {
  let models = offlineCache.get(db);
  if (!models) offlineCache.set(db, (models = new Map()));
  const held = models.get(row.id);
  if (held && held.tag === row.state_tag) return held.embedder;
  const state = row.state_bytes ? getModelState(db, row.id) : null;
  const embedder = new OfflineEmbedder(row.dimensions, state ? deserializeState(state) : undefined);
  models.set(row.id, { tag: row.state_tag, embedder });
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
  let work: EmbedWork | null = null;
  try {
    let embedder: Embedder;
    if (options.provider === 'offline') {
      const fitting = !offlineEmbedder(db, row).fitted || options.refit === true;
      work = await startEmbedWork(row.dimensions, fitting ? total : total - countEmbeddings(db, row.id, corpus));
      row = await fitOffline(db, row, corpus, total, options, work);
      embedder = embedderFor(db, row);
      await work.use(offlineEmbedder(db, row).getState());
    } else {
      embedder = { model: row, embedQueries: (t) => openai!.embed(t), embedPassages: (p) => openai!.embed(p.map(asText)) };
    }
    const already = countEmbeddings(db, row.id, corpus);
    const embedded = await embedMissing(db, row, corpus, total, options, work, embedder);
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
  } finally {
    await work?.close();
  }
}

/** Passages counted per fitting task. */
const FIT_BATCH = 5000;

/**
 * Fits the offline model to the corpus unless it is fitted already (or a refit is asked for):
 * document frequencies from the corpus, or from an even sample of it when it is large (IDF
 * estimated on 200,000 passages differs from the full count by little), counted batch by batch
 * where `work` runs them. A new fit changes every vector: the old ones go, in the transaction
 * that saves it.
 */
async function fitOffline(db: WritableDB, row: EmbeddingModelRow, corpus: number, total: number, options: EmbedOptions, work: EmbedWork): Promise<EmbeddingModelRow> {
  if (offlineEmbedder(db, row).fitted && !options.refit) return row;
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
  const fitted = new OfflineEmbedder(row.dimensions);
  const stride = Math.max(1, Math.ceil(total / FIT_SAMPLE));
  const counting: Promise<void>[] = [];
  for (let after = 0; ; ) {
    options.signal?.throwIfAborted();
    const batch = sampledPassagesAfter(db, corpus, after, stride, FIT_BATCH);
    if (batch.length === 0) break;
    counting.push(work.count(batch).then((counts) => fitted.merge(counts)));
    after = batch.at(-1)!.id;
    // Read ahead only as far as the threads keep up.
    if (counting.length >= Math.max(2, work.threads * 2)) await counting.shift();
  }
  await Promise.all(counting);
  transaction(db, () => {
    saveModelState(db, row.id, serializeState(fitted.getState()));
    clearEmbeddings(db, row.id);
  });
  return getModel(db, row.id)!;
}

/**
 * Embeds, batch after batch, every passage of the corpus without a vector: each batch committed
 * with its vectors and codes, so a killed run resumes where it stopped and the tables never hold
 * half a batch. With worker threads, the next batches are embedded while this one is stored.
 */
async function embedMissing(
  db: WritableDB,
  row: EmbeddingModelRow,
  corpus: number,
  total: number,
  options: EmbedOptions,
  work: EmbedWork | null,
  embedder: Embedder,
): Promise<number> {
  const batchSize = options.batchSize ?? (options.provider === 'offline' ? 2000 : 256);
  const depth = work ? Math.max(1, work.threads * 2) : 1;
  const bytes = codeBytes(row.dimensions);
  const pending: { batch: { id: number; title: string; text: string }[]; result: Promise<Embedded> }[] = [];
  let done = countEmbeddings(db, row.id, corpus);
  let embedded = 0;
  let after = 0;
  options.onProgress?.(done, total);
  const restoreCheckpoints = checkpointLessOften(db);
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      while (pending.length < depth) {
        const batch = passagesWithoutEmbeddings(db, row.id, corpus, after, batchSize);
        if (batch.length === 0) break;
        after = batch.at(-1)!.id;
        pending.push({ batch, result: work ? work.embed(batch).then((b) => split(b, batch.length, row.dimensions, bytes)) : embedder.embedPassages(batch).then((v) => v.map((vector) => ({ vector }))) });
      }
      const next = pending.shift();
      if (!next) break;
      const vectors = await next.result;
      transaction(db, () =>
        storeEmbeddings(
          db,
          row.id,
          next.batch.map((p, i) => ({ passageId: p.id, corpusId: corpus, ...vectors[i]! })),
        ),
      );
      done += next.batch.length;
      embedded += next.batch.length;
      options.onProgress?.(done, total);
    }
  } finally {
    restoreCheckpoints();
    // A stop or a failure leaves batches in flight: their results are not wanted.
    for (const p of pending) p.result.catch(() => undefined);
  }
  return embedded;
}

type Embedded = { vector: Float32Array; code?: VectorCode }[];

/** A worker's batch, vector by vector with its codes. */
function split(batch: EmbeddedBatch, count: number, dimensions: number, bytes: { signs: number; planes: number }): Embedded {
  return Array.from({ length: count }, (_, i) => ({
    vector: batch.vectors.subarray(i * dimensions, (i + 1) * dimensions),
    code: {
      signs: batch.signs.subarray(i * bytes.signs, (i + 1) * bytes.signs),
      planes: batch.planes.subarray(i * bytes.planes, (i + 1) * bytes.planes),
      weight: batch.weights[i]!,
    },
  }));
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
