import type { InstanceQuery } from '../../shared/api';
import { sql, type SqlFragment } from '../sql';
import { conditions, where } from './instances-filters';

/**
 * A page of the instance table with a search in it, when the full-text index can give the page's
 * order itself (null otherwise: a sort by another column takes every match first, then sorts):
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
