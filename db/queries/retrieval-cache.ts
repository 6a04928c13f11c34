import { get, run, sql, type ReadableDB, type WritableDB } from '../sql';
import { countCorpusPassages } from './corpora';
import { vectorRevisionTotal } from './embeddings';

/**
 * The `retrieval_cache` table: what retrieval computed for the pipeline (a question's constraint
 * cues, an interpretation's evidence), kept per state of the corpus. Its only writer.
 */

export type RetrievalKind = 'cues' | 'evidence';

export function cachedRetrieval(db: ReadableDB, kind: RetrievalKind, queryHash: string, corpusKey: string): string | undefined {
  return get<{ value: string }>(db, sql`SELECT value FROM retrieval_cache WHERE kind = ${kind} AND query_hash = ${queryHash} AND corpus_key = ${corpusKey}`)?.value;
}

export function storeRetrieval(db: WritableDB, kind: RetrievalKind, queryHash: string, corpusKey: string, value: unknown): void {
  run(db, sql`INSERT OR REPLACE INTO retrieval_cache (kind, query_hash, corpus_key, value) VALUES (${kind}, ${queryHash}, ${corpusKey}, ${JSON.stringify(value)})`);
}

/** The state of the corpus retrieval sees, as a cache key: its passages and every model's vectors. */
export function corpusStateKey(db: ReadableDB, corpusId: number | null): string {
  return `${corpusId ?? '*'}:${countCorpusPassages(db, corpusId)}:${vectorRevisionTotal(db, corpusId)}`;
}
