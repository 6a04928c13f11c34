import type { InstanceFilter } from '../../shared/api';
import { toFtsQuery } from '../../shared/search';
import { sql, type SqlFragment } from '../sql';

/**
 * The instance table's filters as SQL conditions, on the instances themselves (`i`) and on the
 * tables that count them per combination of the four filter columns (`instance_counts` and the
 * order tables of migration 0017, which store a missing hop count as 0). The topic (domain) is
 * counted in `instance_counts` only: the order tables know the four columns, so a page filtered by
 * topic and sorted otherwise is walked or sorted rather than placed from them; a page sorted by
 * topic is placed from `instance_counts` (see `placeable` in instances-order.ts).
 */

export type FacetName = 'datasets' | 'types' | 'statuses' | 'hops' | 'domains';

export const EVERYTHING: InstanceFilter = { datasets: [], types: [], statuses: [], hops: [], domains: [], search: '' };

export const hasSearch = (filter: InstanceFilter) => toFtsQuery(filter.search) !== null;

function hopsCondition(hops: readonly number[], column: SqlFragment): SqlFragment {
  // 0 stands for "no hop count" (datasets that are not multi-hop).
  const values = hops.filter((h) => h > 0);
  const parts: SqlFragment[] = [];
  if (values.length) parts.push(sql`${column} IN ${sql.list(values)}`);
  if (hops.includes(0)) parts.push(sql`${column} IS NULL`);
  return sql`(${sql.join(parts, sql` OR `)})`;
}

const INSTANCES = sql`i`;

/**
 * The filter conditions on `instances i` (`except` leaves one facet out, for its own counts), or
 * on another alias `on` whose table has the same columns and the instance's id as `id`.
 * `tested` writes them as `+column`, which SQLite tests on each row instead of using an index:
 * what a walk along the sort index wants.
 */
export function conditions(filter: InstanceFilter, except?: FacetName, tested = false, on: SqlFragment = INSTANCES): SqlFragment[] {
  const list: SqlFragment[] = [];
  const plus = tested ? sql`+` : sql.empty;
  if (filter.datasets.length && except !== 'datasets') list.push(sql`${plus}${on}.dataset_id IN ${sql.list(filter.datasets)}`);
  if (filter.types.length && except !== 'types') list.push(sql`${plus}${on}.ambiguity_type IN ${sql.list(filter.types)}`);
  if (filter.statuses.length && except !== 'statuses') list.push(sql`${plus}${on}.status IN ${sql.list(filter.statuses)}`);
  if (filter.hops.length && except !== 'hops') list.push(hopsCondition(filter.hops, sql`${plus}${on}.hops`));
  if (filter.domains.length && except !== 'domains') list.push(sql`coalesce(${plus}${on}.domain, 'none') IN ${sql.list(filter.domains)}`);
  const fts = toFtsQuery(filter.search, { prefixLast: true });
  if (fts) list.push(sql`${on}.id IN (SELECT rowid FROM instances_fts WHERE instances_fts MATCH ${fts})`);
  return list;
}

/**
 * The same filters on a counts table `c` (the search part never applies there). The topic filter
 * applies to `instance_counts` only, which keeps "no topic" as ''.
 */
export function countConditions(filter: InstanceFilter, except?: FacetName): SqlFragment[] {
  const list: SqlFragment[] = [];
  if (filter.datasets.length && except !== 'datasets') list.push(sql`c.dataset_id IN ${sql.list(filter.datasets)}`);
  if (filter.types.length && except !== 'types') list.push(sql`c.ambiguity_type IN ${sql.list(filter.types)}`);
  if (filter.statuses.length && except !== 'statuses') list.push(sql`c.status IN ${sql.list(filter.statuses)}`);
  if (filter.hops.length && except !== 'hops') list.push(sql`c.hops IN ${sql.list(filter.hops)}`);
  if (filter.domains.length && except !== 'domains') list.push(sql`c.domain IN ${sql.list(filter.domains.map((d) => (d === 'none' ? '' : d)))}`);
  return list;
}

export function where(list: SqlFragment[]): SqlFragment {
  return list.length ? sql`WHERE ${sql.join(list, sql` AND `)}` : sql.empty;
}
