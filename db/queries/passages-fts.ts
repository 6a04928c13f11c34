import { all, get, sql, type ReadableDB } from '../sql';

/**
 * The full-text index of passages (`passages_fts`) and its vocabulary (`passages_fts_vocab`).
 * `match` is always an FTS5 query built by the caller from quoted terms, never raw input.
 */

/** Passages matching an FTS5 query, within one corpus or in all of them. */
export function countPassageMatches(db: ReadableDB, match: string, corpusId: number | null): number {
  return corpusId === null
    ? get<{ n: number }>(db, sql`SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH ${match}`)!.n
    : get<{ n: number }>(
        db,
        sql`SELECT count(*) AS n FROM passages_fts f JOIN passages p ON p.id = f.rowid WHERE passages_fts MATCH ${match} AND p.corpus_id = ${corpusId}`,
      )!.n;
}

/**
 * The `k` best passages for an FTS5 query by BM25, best first (`bm25()` is lower-is-better: the
 * score is as SQLite gives it). With a corpus, the matches are joined to their passages.
 */
export function bm25Passages(db: ReadableDB, match: string, corpusId: number | null, k: number, exclude: readonly number[] = []): { id: number; score: number }[] {
  if (corpusId === null && exclude.length) {
    // Every corpus but some (the QA layers): the matches joined to their passages, as for one corpus.
    return all<{ id: number; score: number }>(
      db,
      sql`SELECT f.rowid AS id, bm25(passages_fts) AS score FROM passages_fts f JOIN passages p ON p.id = f.rowid
          WHERE passages_fts MATCH ${match} AND p.corpus_id NOT IN ${sql.list([...exclude])} ORDER BY score LIMIT ${k}`,
    );
  }
  return corpusId === null
    ? all<{ id: number; score: number }>(
        db,
        sql`SELECT rowid AS id, bm25(passages_fts) AS score FROM passages_fts
            WHERE passages_fts MATCH ${match} ORDER BY score LIMIT ${k}`,
      )
    : all<{ id: number; score: number }>(
        db,
        sql`SELECT f.rowid AS id, bm25(passages_fts) AS score FROM passages_fts f JOIN passages p ON p.id = f.rowid
            WHERE passages_fts MATCH ${match} AND p.corpus_id = ${corpusId} ORDER BY score LIMIT ${k}`,
      );
}

/** In how many passages each term occurs (`doc`) and how often (`cnt`); absent terms have no row. */
export function vocabularyStatistics(db: ReadableDB, terms: readonly string[]): { term: string; doc: number; cnt: number }[] {
  return all(db, sql`SELECT term, doc, cnt FROM passages_fts_vocab WHERE term IN ${sql.list(terms)}`);
}

/** The index's word total and vocabulary size (a scan of the whole vocabulary). */
export function vocabularyTotals(db: ReadableDB): { total: number; vocabulary: number } {
  return get<{ total: number; vocabulary: number }>(db, sql`SELECT coalesce(sum(cnt), 0) AS total, count(*) AS vocabulary FROM passages_fts_vocab`)!;
}
