import { codeBits } from '../../shared/retrieval/simhash';
import { encodeVector, layoutBlock, type VectorCode } from '../../shared/retrieval/vector-codes';
import { deleteCodeBlocks, insertCodeBlock } from './vector-code-blocks';
import { all, get, iterate, run, sql, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

/**
 * Embedding models and their vectors. Each model has two tables named after its id: a plain
 * STRICT table of float32 vectors (exact scores, re-scoring) and a sqlite-vec vec0 table of
 * binary codes of the same vectors (SimHash: signs of a randomised Hadamard transform, see
 * shared/retrieval/simhash.ts), partitioned by corpus, for a fast coarse search. A model's
 * dimension is fixed when it is created; vectors of another length are refused.
 */

export interface EmbeddingModelRow {
  id: number;
  name: string;
  provider: 'offline' | 'openai';
  model: string;
  dimensions: number;
  lexical: number;
  config: string;
  /** Size of the saved state (0 when none), and its fit: the count of saves, then the size (a new fit changes it). */
  state_bytes: number;
  state_tag: string;
  created_at: string;
}

// The state (1 MB for the offline model) is read only when an embedder is built: `length` reads
// a value's size from its row header, where any other function of it would load it whole.
const MODEL_COLUMNS = sql`id, name, provider, model, dimensions, lexical, config, coalesce(length(state), 0) AS state_bytes,
                          fits || ':' || coalesce(length(state), 0) AS state_tag, created_at`;

export function getModelState(db: ReadableDB, id: number): Buffer | null {
  return get<{ state: Buffer | null }>(db, sql`SELECT state FROM embedding_models WHERE id = ${id}`)?.state ?? null;
}

export function floatTable(modelId: number): SqlFragment {
  return sql.id(`embeddings_${modelId}`);
}

function bitTable(modelId: number): SqlFragment {
  return sql.id(`vec_${modelId}`);
}

export function findModel(db: ReadableDB, name: string): EmbeddingModelRow | undefined {
  return get<EmbeddingModelRow>(db, sql`SELECT ${MODEL_COLUMNS} FROM embedding_models WHERE name = ${name}`);
}

export function getModel(db: ReadableDB, id: number): EmbeddingModelRow | undefined {
  return get<EmbeddingModelRow>(db, sql`SELECT ${MODEL_COLUMNS} FROM embedding_models WHERE id = ${id}`);
}

export function listModels(db: ReadableDB): EmbeddingModelRow[] {
  return all<EmbeddingModelRow>(db, sql`SELECT ${MODEL_COLUMNS} FROM embedding_models ORDER BY id`);
}

export interface NewModel {
  name: string;
  provider: 'offline' | 'openai';
  model: string;
  dimensions: number;
  lexical: boolean;
  config: Record<string, unknown>;
}

/** Registers a model and creates its two vector tables, in the caller's transaction. */
export function createModel(db: WritableDB, model: NewModel): EmbeddingModelRow {
  // A new model has no state and no fit yet: its tag is written here, not read back.
  const row = get<EmbeddingModelRow>(
    db,
    sql`INSERT INTO embedding_models (name, provider, model, dimensions, lexical, config)
        VALUES (${model.name}, ${model.provider}, ${model.model}, ${model.dimensions}, ${model.lexical}, ${JSON.stringify(model.config)})
        RETURNING id, name, provider, model, dimensions, lexical, config, 0 AS state_bytes, '0:0' AS state_tag, created_at`,
  )!;
  const id = row.id;
  const dims = Number(model.dimensions);
  db.exec(`
    CREATE TABLE "embeddings_${id}" (
      passage_id INTEGER PRIMARY KEY REFERENCES passages(id) ON DELETE CASCADE,
      corpus_id INTEGER NOT NULL,
      vector BLOB NOT NULL CHECK (length(vector) = ${dims * 4})
    ) STRICT;
    CREATE INDEX "embeddings_${id}_corpus" ON "embeddings_${id}" (corpus_id);
    CREATE VIRTUAL TABLE "vec_${id}" USING vec0(corpus_id integer partition key, embedding bit[${codeBits(dims)}]);
    CREATE TRIGGER "vec_${id}_passage_delete" AFTER DELETE ON passages BEGIN
      DELETE FROM "vec_${id}" WHERE rowid = old.id;
    END;
    CREATE TRIGGER "embeddings_${id}_count_insert" AFTER INSERT ON "embeddings_${id}" BEGIN
      INSERT INTO vector_counts (model_id, corpus_id, n, revision) VALUES (${id}, new.corpus_id, 1, 1)
      ON CONFLICT DO UPDATE SET n = n + 1, revision = revision + 1;
    END;
    CREATE TRIGGER "embeddings_${id}_count_delete" AFTER DELETE ON "embeddings_${id}" BEGIN
      UPDATE vector_counts SET n = n - 1, revision = revision + 1 WHERE model_id = ${id} AND corpus_id = old.corpus_id;
    END;
  `);
  return row;
}

export function saveModelState(db: WritableDB, modelId: number, state: Buffer): void {
  run(db, sql`UPDATE embedding_models SET state = ${state}, fits = fits + 1 WHERE id = ${modelId}`);
}

export function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function fromBlob(blob: Buffer): Float32Array {
  const copy = new Float32Array(blob.byteLength / 4);
  copy.set(new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
  return copy;
}

/** A vector to store, with its codes when the caller has made them already (a worker thread). */
export interface NewEmbedding {
  passageId: number;
  corpusId: number;
  vector: Float32Array;
  code?: VectorCode | undefined;
}

/**
 * Stores vectors (replacing earlier ones of the same passages) with their codes: the SimHash
 * signs in the vec0 table, and a block of scan-ready codes per corpus (vector-code-blocks.ts). Call it in
 * a transaction: the blocks must never miss a stored vector.
 */
export function storeEmbeddings(db: WritableDB, modelId: number, rows: readonly NewEmbedding[]): void {
  const byCorpus = new Map<number, { ids: number[]; codes: VectorCode[] }>();
  let dimensions = 0;
  for (const row of rows) {
    const blob = toBlob(row.vector);
    const code = row.code ?? encodeVector(row.vector);
    dimensions = row.vector.length;
    // Delete then insert (not INSERT OR REPLACE), so the count triggers see both.
    run(db, sql`DELETE FROM ${floatTable(modelId)} WHERE passage_id = ${row.passageId}`);
    run(db, sql`INSERT INTO ${floatTable(modelId)} (passage_id, corpus_id, vector) VALUES (${row.passageId}, ${row.corpusId}, ${blob})`);
    run(db, sql`DELETE FROM ${bitTable(modelId)} WHERE rowid = ${BigInt(row.passageId)}`);
    run(
      db,
      sql`INSERT INTO ${bitTable(modelId)} (rowid, corpus_id, embedding)
          VALUES (${BigInt(row.passageId)}, ${BigInt(row.corpusId)}, vec_bit(${code.signs}))`,
    );
    let group = byCorpus.get(row.corpusId);
    if (!group) byCorpus.set(row.corpusId, (group = { ids: [], codes: [] }));
    group.ids.push(row.passageId);
    group.codes.push(code);
  }
  for (const [corpusId, group] of byCorpus) insertCodeBlock(db, modelId, corpusId, layoutBlock(dimensions, group.ids, group.codes));
}

/** Deletes every vector of a model (a new fit changes them all), with its codes. */
export function clearEmbeddings(db: WritableDB, modelId: number): void {
  run(db, sql`DELETE FROM ${floatTable(modelId)}`);
  run(db, sql`DELETE FROM ${bitTable(modelId)}`);
  deleteCodeBlocks(db, modelId, null);
}

/** The model with the most vectors in a corpus (or in all corpora), the newest on a tie. */
export function bestCoveringModelId(db: ReadableDB, corpusId: number | null): number | undefined {
  const scope = corpusId === null ? sql.empty : sql`WHERE corpus_id = ${corpusId}`;
  return get<{ model_id: number }>(
    db,
    sql`SELECT model_id FROM vector_counts ${scope} GROUP BY model_id HAVING sum(n) > 0 ORDER BY sum(n) DESC, model_id DESC LIMIT 1`,
  )?.model_id;
}

/** Passages of a corpus that have no vector yet for this model, in id order. */
export function passagesWithoutEmbeddings(
  db: ReadableDB,
  modelId: number,
  corpusId: number,
  afterId: number,
  limit: number,
): { id: number; title: string; text: string }[] {
  return all(
    db,
    sql`SELECT p.id, p.title, p.text FROM passages p
        WHERE p.corpus_id = ${corpusId} AND p.id > ${afterId}
          AND NOT EXISTS (SELECT 1 FROM ${floatTable(modelId)} e WHERE e.passage_id = p.id)
        ORDER BY p.id LIMIT ${limit}`,
  );
}

/** A value that changes whenever the model's vectors for the corpus (or any corpus) change. */
export function vectorRevision(db: ReadableDB, modelId: number, corpusId: number | null): string {
  const scope = corpusId === null ? sql.empty : sql`AND corpus_id = ${corpusId}`;
  const row = get<{ n: number; revision: number }>(
    db,
    sql`SELECT coalesce(sum(n), 0) AS n, coalesce(sum(revision), 0) AS revision FROM vector_counts WHERE model_id = ${modelId} ${scope}`,
  )!;
  return `${row.n}:${row.revision}`;
}

/** A value that changes whenever any model's vectors for the corpus (or any corpus) change. */
export function vectorRevisionTotal(db: ReadableDB, corpusId: number | null): number {
  const scope = corpusId === null ? sql.empty : sql`WHERE corpus_id = ${corpusId}`;
  return get<{ r: number }>(db, sql`SELECT coalesce(sum(revision), 0) AS r FROM vector_counts ${scope}`)!.r;
}

/** Vectors a model holds for a corpus (or for all corpora), from the trigger-kept counts. */
export function countEmbeddings(db: ReadableDB, modelId: number, corpusId: number | null): number {
  const scope = corpusId === null ? sql.empty : sql`AND corpus_id = ${corpusId}`;
  return get<{ n: number }>(db, sql`SELECT coalesce(sum(n), 0) AS n FROM vector_counts WHERE model_id = ${modelId} ${scope}`)!.n;
}

/** The corpora (by name) that hold vectors of a model, with how many. */
export function corporaWithVectors(db: ReadableDB, modelId: number): { name: string; n: number }[] {
  return all<{ name: string; n: number }>(
    db,
    sql`SELECT c.name AS name, v.n AS n FROM vector_counts v JOIN corpora c ON c.id = v.corpus_id WHERE v.model_id = ${modelId} AND v.n > 0 ORDER BY c.name`,
  );
}

export function getVectors(db: ReadableDB, modelId: number, passageIds: readonly number[]): Map<number, Float32Array> {
  if (passageIds.length === 0) return new Map();
  const rows = all<{ passage_id: number; vector: Buffer }>(
    db,
    sql`SELECT passage_id, vector FROM ${floatTable(modelId)} WHERE passage_id IN ${sql.list([...new Set(passageIds)])}`,
  );
  return new Map(rows.map((r) => [r.passage_id, fromBlob(r.vector)]));
}

/** Every binary code of a model (within a corpus), as stored: one row at a time. */
export function iterateCodes(db: ReadableDB, modelId: number, corpusId: number | null): Generator<{ rowid: number | bigint; embedding: Buffer }> {
  const partition = corpusId === null ? sql.empty : sql`WHERE corpus_id = ${BigInt(corpusId)}`;
  return iterate(db, sql`SELECT rowid, embedding FROM ${bitTable(modelId)} ${partition}`);
}

/** Up to `limit` float32 vectors of a model (within a corpus) after a passage id, in passage order. */
export function vectorsAfter(db: ReadableDB, modelId: number, corpusId: number | null, afterId: number, limit: number): { passage_id: number; vector: Buffer }[] {
  const scope = corpusId === null ? sql.empty : sql`AND corpus_id = ${corpusId}`;
  return all(db, sql`SELECT passage_id, vector FROM ${floatTable(modelId)} WHERE passage_id > ${afterId} ${scope} ORDER BY passage_id LIMIT ${limit}`);
}

/** Exact cosine distances of the given passages to the query, nearest first. */
export function rescore(db: ReadableDB, modelId: number, query: Float32Array, passageIds: readonly number[], k: number, exclude: readonly number[] = []): { id: number; distance: number }[] {
  if (passageIds.length === 0) return [];
  const left = exclude.length ? sql`AND corpus_id NOT IN ${sql.list([...exclude])}` : sql.empty;
  return all<{ id: number; distance: number }>(
    db,
    sql`SELECT passage_id AS id, vec_distance_cosine(vector, ${toBlob(query)}) AS distance FROM ${floatTable(modelId)}
        WHERE passage_id IN ${sql.list([...new Set(passageIds)])} ${left} ORDER BY distance, passage_id LIMIT ${k}`,
  );
}

/** Exact search: every vector of the corpus scored (the reference for recall, and for small corpora). */
export function exactNeighbours(db: ReadableDB, modelId: number, query: Float32Array, corpusId: number | null, k: number, exclude: readonly number[] = []): { id: number; distance: number }[] {
  const scope = corpusId !== null ? sql`WHERE corpus_id = ${corpusId}` : exclude.length ? sql`WHERE corpus_id NOT IN ${sql.list([...exclude])}` : sql.empty;
  return all<{ id: number; distance: number }>(
    db,
    sql`SELECT passage_id AS id, vec_distance_cosine(vector, ${toBlob(query)}) AS distance FROM ${floatTable(modelId)} ${scope}
        ORDER BY distance, passage_id LIMIT ${k}`,
  );
}
