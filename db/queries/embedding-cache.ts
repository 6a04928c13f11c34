import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';
import { fromBlob, toBlob } from './embeddings';

/**
 * Vectors from remote embedding endpoints, kept by model key and text hash so that the same
 * text is never sent twice.
 */

/** The cached vectors of some texts, by the hex of their hash (texts not cached are absent). */
export function cachedEmbeddings(db: ReadableDB, modelKey: string, hashes: readonly Buffer[]): Map<string, Float32Array> {
  if (hashes.length === 0) return new Map();
  const rows = all<{ text_hash: Buffer; vector: Buffer }>(
    db,
    sql`SELECT text_hash, vector FROM embedding_cache WHERE model = ${modelKey} AND text_hash IN ${sql.list(hashes)}`,
  );
  return new Map(rows.map((row) => [row.text_hash.toString('hex'), fromBlob(row.vector)]));
}

export function storeCachedEmbedding(db: WritableDB, modelKey: string, hash: Buffer, vector: Float32Array): void {
  run(
    db,
    sql`INSERT OR REPLACE INTO embedding_cache (model, text_hash, dimensions, vector)
        VALUES (${modelKey}, ${hash}, ${vector.length}, ${toBlob(vector)})`,
  );
}
