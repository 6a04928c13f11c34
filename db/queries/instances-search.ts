import type { InstanceQuery } from '../../shared/api';
import { toFtsQuery } from '../../shared/search';
import { column, get, iterateRaw, sql, type ReadableDB, type SqlFragment } from '../sql';
import { walkSearch } from '../search-walk';
import { conditions, where } from './instances-filters';

/**
 * A page of the instance table with a search in it, when the full-text index can give the page's
 * order itself (null otherwise: a sort by a column is walked to by `sortedSearchPage` below, or
 * takes every match first, then sorts):
 *
 * - in the table's own order (`id`, the default, either direction): FTS5 walks its document lists
 *   in rowid order, each instance's row is read through its key to test the other filters, and
 *   the LIMIT stops the walk once the page is full. A page near the start costs about the same
 *   whatever the size of the table or how many rows match; a deep page walks the matches before
 *   it, as a walk along any index does.
 * - by best match (`relevance`): bm25 scores every matching row before the first can be named,
 *   so its cost grows with the number of matches. Exact: nothing is left unranked.
 *
 * `fts` is the search as an FTS5 query (shared/search.ts). The instances are joined after the
 * index (CROSS JOIN keeps that order), so the planner cannot start from a filter's index instead
 * and sort the matches afterwards.
 */
export function searchPageIdsQuery(query: InstanceQuery, fts: string): SqlFragment | null {
  if (query.sort !== 'id' && query.sort !== 'relevance') return null;
  const direction = sql.keyword(query.direction === 'desc' ? 'DESC' : 'ASC');
  const list = where([sql`instances_fts MATCH ${fts}`, ...conditions({ ...query, search: '' })]);
  const page = sql`LIMIT ${query.limit} OFFSET ${query.offset}`;
  if (query.sort === 'relevance') {
    return sql`SELECT i.id FROM instances_fts f JOIN instances i ON i.id = f.rowid ${list}
               ORDER BY f.rank ${direction}, i.id ${page}`;
  }
  return sql`SELECT i.id FROM instances_fts f CROSS JOIN instances i ON i.id = f.rowid ${list}
             ORDER BY f.rowid ${direction} ${page}`;
}

/** Rows in a query's order (`orderedQuery` in instances.ts, passed in so that module can import this one). */
export type OrderedQuery = (query: InstanceQuery, parts: { walk: boolean; list: SqlFragment[]; select: SqlFragment; page: SqlFragment; matches?: string }) => SqlFragment;

/** Microseconds to read one entry of a sort index: the instance table's own, or the base questions' joined to their instances. */
const ENTRY_US = 0.15;
const ENTRY_BY_QUESTION_US = 0.7;

/**
 * The ids of a searched page sorted by a column (db/search-walk.ts chooses the way): walked to
 * along the column's index; or, for a search matching few rows, its matches read first and
 * sorted. Null for a search matching many rows that is cheaper to sort than to walk: the caller
 * reads that page with `pageIdsQuery`, every row the filters keep tested against the matches.
 */
export function sortedSearchPage(db: ReadableDB, query: InstanceQuery, ordered: OrderedQuery, counts: { filtered: number; total: number }): { ids: number[]; walked: boolean } | null {
  const fts = toFtsQuery(query.search, { prefixLast: true })!;
  const probe = sql`EXISTS (SELECT 1 FROM instances_fts f WHERE f.instances_fts MATCH ${fts} AND f.rowid = i.id)`;
  const others = conditions({ ...query, search: '' }, undefined, true);
  const way = walkSearch({
    ...counts,
    offset: query.offset,
    limit: query.limit,
    entryUs: query.sort === 'question' || query.sort === 'source_id' ? ENTRY_BY_QUESTION_US : ENTRY_US,
    countMatches: (cap) => get<{ n: number }>(db, sql`SELECT count(*) AS n FROM (SELECT rowid FROM instances_fts WHERE instances_fts MATCH ${fts} LIMIT ${cap})`)!.n,
    window: (start, size) => iterateRaw<[number, number]>(db, ordered(query, { walk: true, list: others, select: sql`i.id, ${probe} AS hit`, page: sql`LIMIT ${size} OFFSET ${start}` })),
  });
  if (way === 'many') return null;
  if (way !== 'few') return { ids: way, walked: true };
  const matches = [sql`f.instances_fts MATCH ${fts}`, ...conditions({ ...query, search: '' })];
  const page = sql`LIMIT ${query.limit} OFFSET ${query.offset}`;
  return { ids: column<number>(db, ordered(query, { walk: false, matches: fts, list: matches, select: sql`i.id`, page })), walked: false };
}
