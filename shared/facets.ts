/**
 * Facet counts summed from groups: a list's rows grouped by every facet column at once (a few
 * dozen groups, however many rows), each with its count. A facet's counts are taken under every
 * other active filter, as facet lists expect, and the total under all of them.
 */

export type FacetValue = string | number | null;

/** One facet: the value a group has for it, and whether the group passes the facet's own filter. */
export interface Facet<G> {
  value: (group: G) => FacetValue;
  keeps: (group: G) => boolean;
}

export interface FacetSums<K extends string> {
  total: number;
  /** Per facet, its values with their counts, a missing value (null) first, then in ascending order. */
  counts: Record<K, { value: FacetValue; count: number }[]>;
}

export function sumFacets<G extends { count: number }, K extends string>(groups: readonly G[], facets: Record<K, Facet<G>>): FacetSums<K> {
  const names = Object.keys(facets) as K[];
  const sums = new Map<K, Map<FacetValue, number>>(names.map((name) => [name, new Map()]));
  let total = 0;
  for (const group of groups) {
    const failing = names.filter((name) => !facets[name].keeps(group));
    if (failing.length === 0) total += group.count;
    // A facet counts the groups that pass every other facet's filter (its own may fail).
    for (const name of failing.length === 0 ? names : failing.length === 1 ? failing : []) {
      const value = facets[name].value(group);
      const sum = sums.get(name)!;
      sum.set(value, (sum.get(value) ?? 0) + group.count);
    }
  }
  const ordered = (sum: Map<FacetValue, number>) =>
    [...sum].sort(([a], [b]) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1)).map(([value, count]) => ({ value, count }));
  return { total, counts: Object.fromEntries(names.map((name) => [name, ordered(sums.get(name)!)])) as FacetSums<K>['counts'] };
}

/** A filter on a list of values: empty keeps everything. */
export function among<V>(list: readonly V[], value: V): boolean {
  return !list.length || list.includes(value);
}

/** A hop-count filter as the lists write it: 0 stands for "no hop count". */
export function keepsHops(hops: readonly number[], value: number | null): boolean {
  return !hops.length || (value === null ? hops.includes(0) : value > 0 && hops.includes(value));
}

/**
 * Reads `ids` `step` at a time through `read`, yielding before each step so that the caller can
 * let other work run between them; returns everything read.
 */
export function* inSteps<T>(ids: readonly number[], step: number, read: (ids: readonly number[]) => readonly T[]): Generator<void, T[]> {
  const out: T[] = [];
  for (let at = 0; at < ids.length; at += step) {
    yield;
    out.push(...read(ids.slice(at, at + step)));
  }
  return out;
}

/** Grouped rows (the facet columns, then the count) merged by their columns: the same group read in several steps counts once. */
export function mergeGroups<Columns extends readonly unknown[]>(rows: readonly (readonly [...Columns, number])[]): { columns: Columns; count: number }[] {
  const merged = new Map<string, { columns: Columns; count: number }>();
  for (const row of rows) {
    const columns = row.slice(0, -1) as unknown as Columns;
    const count = row[row.length - 1] as number;
    const key = JSON.stringify(columns);
    const group = merged.get(key);
    if (group) group.count += count;
    else merged.set(key, { columns, count });
  }
  return [...merged.values()];
}

/** Runs stepped work to its end at once. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
