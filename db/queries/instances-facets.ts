import type { InstanceFilter } from '../../shared/api';
import type { AmbiguityType, Domain, InstanceStatus } from '../../shared/domain';
import { among, type Facet, finish, inSteps, keepsHops, mergeGroups, sumFacets } from '../../shared/facets';
import { toFtsQuery } from '../../shared/search';
import { all, allRaw, column, sql, type ReadableDB } from '../sql';
import { countInstances } from './instances';
import { countConditions, type FacetName, where } from './instances-filters';

/**
 * The counts beside the instance table: how many instances match, and per value of each facet
 * how many would match under every other active filter (as facet UIs expect).
 *
 * Without a search they come from the counts table (`instance_counts`) in microseconds. A search
 * has to visit its matches, and a broad one (a common word, a first letter) matches most of the
 * table: about two seconds of CPU at 1,000,000 instances, where six queries (the total and one per
 * facet) once took three. So the matches are read once, grouped by all five facet columns (a few
 * dozen groups), and every count is summed from the groups. They are read some thousands at a
 * time, and the caller may let other requests run between steps (`instanceFacetSteps`): the
 * services answer one request at a time, and a broad search would otherwise hold up everyone's
 * next page or judgment for seconds. The counts are the same however many steps; a write landing
 * between two steps is seen by the steps after it.
 */

export interface FacetCounts {
  total: number;
  datasets: { value: number; count: number }[];
  types: { value: AmbiguityType; count: number }[];
  statuses: { value: InstanceStatus; count: number }[];
  hops: { value: number | null; count: number }[];
  domains: { value: Domain | 'none'; count: number }[];
}

/** The instances of one combination of the facet columns (`hops` and `domain` as stored: null when missing). */
interface Group {
  dataset: number;
  type: AmbiguityType;
  status: InstanceStatus;
  hops: number | null;
  domain: string | null;
  count: number;
}

/** Matches whose facet columns are read per step: about 15 ms when they are spread over the table. */
const STEP = 8_192;

/**
 * The counts, computed in steps: each `yield` is a point where the caller may let other work run.
 * The search is asked once, for the ids of its matches (a prefix query reads its merged lists
 * whole, so asking it again for each range of ids would pay that each time); their facet columns
 * are then read `step` ids at a time.
 */
export function* instanceFacetSteps(db: ReadableDB, filter: InstanceFilter, step = STEP): Generator<void, FacetCounts> {
  const fts = toFtsQuery(filter.search, { prefixLast: true });
  if (fts === null) return countsFromTable(db, filter);
  const rows = yield* inSteps(matchingIds(db, fts), step, (ids) => groupsOf(db, ids));
  const groups = mergeGroups<GroupColumns>(rows).map(({ columns: [dataset, type, status, hops, domain], count }) => ({ dataset, type, status, hops, domain, count }));
  return countsFromGroups(groups, filter);
}

/** The counts in one go (no other work runs meanwhile). */
export function instanceFacetCounts(db: ReadableDB, filter: InstanceFilter): FacetCounts {
  return finish(instanceFacetSteps(db, filter));
}

type GroupColumns = [number, AmbiguityType, InstanceStatus, number | null, string | null];
type GroupRow = [...GroupColumns, number];

function matchingIds(db: ReadableDB, fts: string): number[] {
  return column<number>(db, sql`SELECT rowid FROM instances_fts WHERE instances_fts MATCH ${fts}`);
}

/** Instances by id, grouped by the five facet columns. */
function groupsOf(db: ReadableDB, ids: readonly number[]): GroupRow[] {
  return allRaw<GroupRow>(
    db,
    sql`SELECT i.dataset_id, i.ambiguity_type, i.status, i.hops, i.domain, count(*)
        FROM instances i WHERE i.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
        GROUP BY 1, 2, 3, 4, 5`,
  );
}

/** Each facet's value of a group and its filter, as `conditions` in instances-filters.ts writes them in SQL. */
function facetsOf(filter: InstanceFilter): Record<FacetName, Facet<Group>> {
  return {
    datasets: { value: (g) => g.dataset, keeps: (g) => among(filter.datasets, g.dataset) },
    types: { value: (g) => g.type, keeps: (g) => among(filter.types, g.type) },
    statuses: { value: (g) => g.status, keeps: (g) => among(filter.statuses, g.status) },
    hops: { value: (g) => g.hops || null, keeps: (g) => keepsHops(filter.hops, g.hops) },
    domains: { value: (g) => g.domain || null, keeps: (g) => among<string>(filter.domains, g.domain ?? 'none') },
  };
}

/** Sums the groups into the total and each facet's counts, each facet under every other filter; values in SQL's order (missing first). */
export function countsFromGroups(groups: readonly Group[], filter: InstanceFilter): FacetCounts {
  const { total, counts } = sumFacets(groups, facetsOf(filter));
  return {
    total,
    datasets: counts.datasets as FacetCounts['datasets'],
    types: counts.types as FacetCounts['types'],
    statuses: counts.statuses as FacetCounts['statuses'],
    hops: counts.hops as FacetCounts['hops'],
    domains: counts.domains.map((d) => ({ ...d, value: (d.value ?? 'none') as Domain | 'none' })),
  };
}

/**
 * Per value of one column of `instance_counts`, how many instances match a filter without a search
 * (`except` leaves that facet's own filter out, as a facet's counts do); values with none left out.
 */
export function countsByColumn<V>(db: ReadableDB, column: string, filter: InstanceFilter, except?: FacetName): { value: V; count: number }[] {
  return all<{ value: V; count: number }>(
    db,
    sql`SELECT c.${sql.id(column)} AS value, sum(n) AS count FROM instance_counts c ${where(countConditions(filter, except))}
        GROUP BY value HAVING sum(n) > 0 ORDER BY value`,
  );
}

/** Without a search: every count from `instance_counts`, which stores a missing hop count as 0 and no topic as ''. */
function countsFromTable(db: ReadableDB, filter: InstanceFilter): FacetCounts {
  const facet = <V>(column: string, name: FacetName) => countsByColumn<V>(db, column, filter, name);
  return {
    total: countInstances(db, filter),
    datasets: facet<number>('dataset_id', 'datasets'),
    types: facet<AmbiguityType>('ambiguity_type', 'types'),
    statuses: facet<InstanceStatus>('status', 'statuses'),
    hops: facet<number>('hops', 'hops').map((h) => ({ ...h, value: h.value === 0 ? null : h.value })),
    domains: facet<string>('domain', 'domains').map((d) => ({ ...d, value: (d.value === '' ? 'none' : d.value) as Domain | 'none' })),
  };
}
