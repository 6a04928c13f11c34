import { column, get, readSnapshot, sql, type ReadableDB } from '../sql';
import type { FailureFilter } from './eval-items-failures';
import { SORT_INDEX, type FailureMetric, type FailureSort } from './eval-items-failure-sorts';

/**
 * The failure table of a finished run, read from memory. A run's items are loaded in pieces,
 * each when a page first needs it, off the covering indexes of migration 0010 (no table row is
 * read): the ids and the filter columns in position order, and per metric its values and the
 * order of the items by them. A page then tests the filter on typed arrays and walks the sort's
 * order to its offset: well under a millisecond at 100,000 items whatever the filter, where the
 * index walks of eval-items-failures.ts read every entry before a deep offset that a threshold on
 * another metric leaves sparse.
 *
 * The items are trusted only while the run's version (migration 0031, moved by triggers on any
 * change of a column read here but the id, which nothing changes) is the one they were read at; each piece is read in one read
 * transaction with that version, so the pieces agree. Not used (null: the caller reads SQLite)
 * for a running run, whose items change with every answer; inside a transaction, whose reads may
 * yet be rolled back; and for filters on tags or a second run, which live in other tables.
 */

/** In the order of the codes the cells carry (loadItems). */
const STATUSES = ['pending', 'done', 'failed'] as const;
/** A flag as stored: 0, 1, or this for none (which the filter reads as 0). */
const NO_FLAG = 2;
/** Runs kept per connection, the most recently used last. */
const RUNS_KEPT = 2;
/** Filters whose matches are kept per run, the most recently used last. */
const FILTERS_KEPT = 8;

interface MetricPiece {
  /** Value per slot (NaN: none, which no threshold matches, as NULL in SQL). */
  values: Float64Array;
  /** Slots with a value, by value then position. */
  valued: Int32Array;
  /** Slots without one, by position. */
  valueless: Int32Array;
}

/** One run's items: slot i is the item i-th in position order. */
class RunItems {
  readonly metrics = new Map<FailureMetric, MetricPiece>();
  /** Per filter, which slots match and how many (-1 until counted). */
  readonly matches = new Map<string, { slots: Uint8Array; count: number }>();
  private byPosition: Int32Array | null = null;

  /**
   * `cells` packs each item's filter columns: status + 3 × collapsed + 9 × retrieval miss + 27 ×
   * type (its index in `types`); `positions` is null when they run first, first + 1, … (the usual).
   */
  constructor(
    readonly version: number,
    readonly ids: Float64Array,
    readonly cells: Uint32Array,
    readonly types: readonly string[],
    readonly first: number,
    readonly positions: Float64Array | null,
  ) {}

  /** The slots in position order (made on first use). */
  get positionOrder(): Int32Array {
    if (!this.byPosition) {
      this.byPosition = new Int32Array(this.size);
      for (let slot = 0; slot < this.size; slot++) this.byPosition[slot] = slot;
    }
    return this.byPosition;
  }

  get size(): number {
    return this.ids.length;
  }

  /** The slot of an item's position. */
  slotOf(position: number): number {
    const p = this.positions;
    if (!p) return position - this.first;
    let lo = 0;
    let hi = p.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (p[mid]! < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const kept = new WeakMap<ReadableDB, Map<number, RunItems>>();

/** The run's status and items' version, in one read. */
function runState(db: ReadableDB, runId: number): { status: string; version: number } | undefined {
  return get(db, sql`SELECT r.status, coalesce(v.version, 0) AS version FROM eval_runs r LEFT JOIN eval_item_versions v ON v.run_id = r.id WHERE r.id = ${runId}`);
}

function itemsVersion(db: ReadableDB, runId: number): number {
  return get<{ version: number }>(db, sql`SELECT version FROM eval_item_versions WHERE run_id = ${runId}`)?.version ?? 0;
}

/**
 * The ids and filter columns, in position order. Read a column at a time as plain values: an
 * array per row would cost several times the reading (110 against 15 ms per 100,000 items).
 */
function loadItems(db: ReadableDB, runId: number, version: number): RunItems | null {
  return readSnapshot(db, () => {
    if (itemsVersion(db, runId) !== version) return null;
    const byPosition = sql`FROM eval_items a INDEXED BY failures_by_position WHERE a.run_id = ${runId} ORDER BY a.position`;
    const types = column<string>(db, sql`SELECT DISTINCT ambiguity_type FROM eval_items WHERE run_id = ${runId} ORDER BY 1`);
    const typeCode = types.length ? sql`CASE a.ambiguity_type ${sql.join(types.map((t, i) => sql`WHEN ${t} THEN ${i}`), sql` `)} END` : sql`0`;
    const cells = column<number>(
      db,
      sql`SELECT (CASE a.status WHEN 'pending' THEN 0 WHEN 'done' THEN 1 ELSE 2 END) + 3 * coalesce(a.collapsed, ${NO_FLAG})
                 + 9 * coalesce(a.retrieval_miss, ${NO_FLAG}) + 27 * ${typeCode} ${byPosition}`,
    );
    const ids = Float64Array.from(column<number>(db, sql`SELECT a.id ${byPosition}`));
    const span = get<{ lo: number | null; hi: number | null }>(db, sql`SELECT min(position) AS lo, max(position) AS hi FROM eval_items WHERE run_id = ${runId}`)!;
    const first = span.lo ?? 0;
    const dense = span.hi === null || span.hi - first + 1 === ids.length;
    const positions = dense ? null : Float64Array.from(column<number>(db, sql`SELECT a.position ${byPosition}`));
    return new RunItems(version, ids, Uint32Array.from(cells), types, first, positions);
  });
}

/** A metric's values and order (off its covering index, in order: no sort). */
function loadMetric(db: ReadableDB, runId: number, items: RunItems, metric: FailureMetric): MetricPiece | null {
  return readSnapshot(db, () => {
    if (itemsVersion(db, runId) !== items.version) return null;
    const value = sql`a.${sql.id(metric)}`;
    const inOrder = sql`FROM eval_items a INDEXED BY ${sql.id(SORT_INDEX[metric])} WHERE a.run_id = ${runId} AND ${value} IS NOT NULL ORDER BY ${value}, a.position`;
    const positions = column<number>(db, sql`SELECT a.position ${inOrder}`);
    const sorted = column<number>(db, sql`SELECT ${value} ${inOrder}`);
    const values = new Float64Array(items.size).fill(NaN);
    const valued = new Int32Array(positions.length);
    for (let i = 0; i < positions.length; i++) {
      const slot = items.slotOf(positions[i]!);
      valued[i] = slot;
      values[slot] = sorted[i]!;
    }
    const valueless = new Int32Array(items.size - positions.length);
    for (let slot = 0, k = 0; slot < items.size; slot++) if (Number.isNaN(values[slot]!)) valueless[k++] = slot;
    return { values, valued, valueless };
  });
}

/** The run's items with the metric pieces asked for, loaded as needed; null when memory may not serve (see above). */
function runItems(db: ReadableDB, runId: number, metrics: readonly FailureMetric[]): RunItems | null {
  if (db.inTransaction) return null;
  const state = runState(db, runId);
  if (!state || state.status === 'running') return null;
  let runs = kept.get(db);
  if (!runs) kept.set(db, (runs = new Map()));
  let items = runs.get(runId);
  runs.delete(runId);
  if (!items || items.version !== state.version) {
    items = loadItems(db, runId, state.version) ?? undefined;
    if (!items) return null;
  }
  for (const metric of metrics) {
    if (items.metrics.has(metric)) continue;
    const piece = loadMetric(db, runId, items, metric);
    if (!piece) return null;
    items.metrics.set(metric, piece);
  }
  runs.set(runId, items);
  while (runs.size > RUNS_KEPT) runs.delete(runs.keys().next().value!);
  return items;
}

/** The filter's thresholds with a bound: one with neither tests nothing, as in SQL (items without a value stay). */
function bounded(filter: FailureFilter): NonNullable<FailureFilter['thresholds']> {
  return (filter.thresholds ?? []).filter((t) => t.atLeast !== undefined || t.below !== undefined);
}

/** Whether a packed cell (see RunItems) passes the filter's tests on status, type and the flags. */
function cellPasses(cell: number, filter: FailureFilter, typeCode: number): boolean {
  const flag = (code: number, wanted: boolean | undefined) => wanted === undefined || (code === 1) === wanted;
  return (
    (!filter.status || cell % 3 === STATUSES.indexOf(filter.status)) &&
    flag(Math.floor(cell / 3) % 3, filter.collapsed) &&
    flag(Math.floor(cell / 9) % 3, filter.retrievalMiss) &&
    (filter.type === undefined || Math.floor(cell / 27) === typeCode)
  );
}

/** Marks the slots whose cell passes. */
function passing(cells: Uint32Array, passes: Uint8Array, slots: Uint8Array): void {
  for (let s = 0; s < cells.length; s++) slots[s] = passes[cells[s]!]!;
}

/** Unmarks the slots whose value is not at least `atLeast` and (when given) below `below`: NaN (no value) never is, as NULL in SQL. */
function within(values: Float64Array, atLeast: number, below: number | undefined, slots: Uint8Array): void {
  const n = values.length;
  // Without branches on the values (they fall either way at random): an AND with each test's 0 or 1.
  if (below === undefined) {
    for (let s = 0; s < n; s++) slots[s]! &= Number(values[s]! >= atLeast);
  } else {
    for (let s = 0; s < n; s++) {
      const v = values[s]!;
      slots[s]! &= Number(v >= atLeast) & Number(v < below);
    }
  }
}

/**
 * Which slots match the filter (1) and how many, kept per filter: the cells through a table of
 * which pass, then each threshold in a loop of its own (no function call per item).
 */
function matchesOf(items: RunItems, filter: FailureFilter): { slots: Uint8Array; count: number } {
  // String() keeps every bound apart (JSON would write Infinity and NaN alike, as null).
  const key = [filter.status, filter.type, filter.collapsed, filter.retrievalMiss, ...bounded(filter).flatMap((t) => [t.metric, t.atLeast, t.below])].map(String).join('\u0000');
  const known = items.matches.get(key);
  if (known) {
    items.matches.delete(key);
    items.matches.set(key, known);
    return known;
  }
  const typeCode = filter.type === undefined ? -1 : items.types.indexOf(filter.type);
  const passes = new Uint8Array(27 * Math.max(1, items.types.length));
  for (let cell = 0; cell < passes.length; cell++) passes[cell] = cellPasses(cell, filter, typeCode) ? 1 : 0;
  const slots = new Uint8Array(items.size);
  passing(items.cells, passes, slots);
  for (const t of bounded(filter)) within(items.metrics.get(t.metric)!.values, t.atLeast ?? -Infinity, t.below, slots);
  const matches = { slots, count: -1 };
  items.matches.set(key, matches);
  while (items.matches.size > FILTERS_KEPT) items.matches.delete(items.matches.keys().next().value!);
  return matches;
}

const servable = (filter: FailureFilter) => filter.tagId === undefined && filter.versus === undefined;
const metricsOf = (filter: FailureFilter, sort?: FailureSort): FailureMetric[] => [
  ...new Set([...(sort && sort !== 'position' ? [sort] : []), ...bounded(filter).map((t) => t.metric)]),
];

/**
 * The ids of one page from memory, in the order of failurePageIds (items without a value for the
 * sort metric last in either direction, then by position); null when memory may not serve.
 */
export function snapshotPageIds(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureSort, direction: 'asc' | 'desc', limit: number, offset: number): number[] | null {
  if (!servable(filter)) return null;
  const items = runItems(db, runId, metricsOf(filter, sort));
  if (!items) return null;
  const { slots } = matchesOf(items, filter);
  const page: number[] = [];
  const skip = { left: offset };
  if (limit <= 0) return page;
  if (sort === 'position') collect(items.positionOrder, direction, slots, items.ids, skip, page, limit);
  else {
    const piece = items.metrics.get(sort)!;
    collect(piece.valued, direction, slots, items.ids, skip, page, limit);
    collect(piece.valueless, direction, slots, items.ids, skip, page, limit);
  }
  return page;
}

/** The matching items of one part of an order, walked forwards (asc) or backwards (desc): `skip.left` skipped, then ids taken up to `limit`. */
function collect(order: Int32Array, direction: 'asc' | 'desc', slots: Uint8Array, ids: Float64Array, skip: { left: number }, page: number[], limit: number): void {
  const n = order.length;
  const asc = direction === 'asc';
  for (let k = 0; k < n && page.length < limit; k++) {
    const slot = order[asc ? k : n - 1 - k]!;
    if (slots[slot] === 0) continue;
    if (skip.left > 0) skip.left--;
    else page.push(ids[slot]!);
  }
}

/** How many items match the filter, from memory; null when memory may not serve. */
export function snapshotCount(db: ReadableDB, runId: number, filter: FailureFilter): number | null {
  if (!servable(filter)) return null;
  const items = runItems(db, runId, metricsOf(filter));
  if (!items) return null;
  const matches = matchesOf(items, filter);
  if (matches.count < 0) {
    let count = 0;
    for (const bit of matches.slots) count += bit;
    matches.count = count;
  }
  return matches.count;
}
