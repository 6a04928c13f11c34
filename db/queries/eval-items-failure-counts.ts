import { NULL_KEY, POSITION_SHIFTS, STEPS, VALUE_BLOCK_SHIFT } from '../migrations/0025-failure-counts';
import { all, sql, type ReadableDB, type SqlFragment } from '../sql';
import type { FailureFilter, FailureMetric, FailureSort } from './eval-items-failures';

/**
 * Placing a failure page from the counts of migration 0025 (`eval_item_blocks`, kept by triggers
 * on eval_items): instead of walking a sort index through every item before the offset, read the
 * counts of the filter's combinations level by level (a coarse block or bucket, a finer one
 * within it, a block of positions within an exact value) to find the block that holds the page's
 * first item and how many matching items come before it; the page then walks from that block's
 * start, skipping only the rest. The layout of the levels is the migration's.
 */

/**
 * Filters the counts can place: those on the counted columns (status, type, the two flags) and
 * thresholds on the sort metric (its matching items are one stretch of the order). Without a
 * sort (a count), thresholds are not counted.
 */
export function countable(f: FailureFilter, sort?: FailureSort): boolean {
  return f.tagId === undefined && f.versus === undefined && (f.thresholds ?? []).every((t) => t.metric === sort);
}

/** Where a page starts: a condition on `eval_items a` that its walk starts from, and the items to skip after it. */
export interface Placement {
  /** In the items without a value for the sort metric (they come last). */
  valueless: boolean;
  start: SqlFragment;
  skip: number;
  /**
   * At most how many matching items with a value come from the page's first on (the counted
   * filters' items past it): the walk stops there instead of reading to the end of the index
   * when the page runs past the last of them.
   */
  valuedLeft: number;
}

type Count = { key: number; n: number };
type Direction = 'asc' | 'desc';

/** The filter on the counted columns, of `eval_item_blocks` or (`items`) of `eval_items a`, where a missing flag reads as 0. */
function cellConditions(f: FailureFilter, items = false): SqlFragment[] {
  const column = (name: string) => (items ? sql`a.${sql.id(name)}` : sql.id(name));
  const flag = (name: string) => (items ? sql`coalesce(a.${sql.id(name)}, 0)` : sql.id(name));
  const list: SqlFragment[] = [];
  if (f.status) list.push(sql`${column('status')} = ${f.status}`);
  if (f.type) list.push(sql`${column('ambiguity_type')} = ${f.type}`);
  if (f.collapsed !== undefined) list.push(sql`${flag('collapsed')} = ${f.collapsed ? 1 : 0}`);
  if (f.retrievalMiss !== undefined) list.push(sql`${flag('retrieval_miss')} = ${f.retrievalMiss ? 1 : 0}`);
  return list;
}

/** The matching items per key of one level under a prefix of the keys above it, in the order's direction. */
function levelCounts(db: ReadableDB, runId: number, sort: FailureSort, f: FailureFilter, prefix: number[], direction: Direction): Count[] {
  const level = prefix.length + 1;
  const key = sql.id(`k${level}`);
  const dir = sql.keyword(direction === 'desc' ? 'DESC' : 'ASC');
  const list = [sql`run_id = ${runId}`, sql`sort = ${sort}`, sql`level = ${level}`, ...prefix.map((k, i) => sql`${sql.id(`k${i + 1}`)} = ${k}`), ...cellConditions(f)];
  // Items without a value (the highest coarse key) come last in either direction.
  const order = level === 1 && sort !== 'position' ? sql`${key} = ${NULL_KEY}, ${key} ${dir}` : sql`${key} ${dir}`;
  return all<Count>(db, sql`SELECT ${key} AS key, sum(n) AS n FROM eval_item_blocks WHERE ${sql.join(list, sql` AND `)} GROUP BY ${key} HAVING sum(n) > 0 ORDER BY ${order}`);
}

/** The key whose items hold the `target`-th (0-based) matching item, and how many come before it. */
function locate(counts: Count[], target: number): { key: number; before: number } | null {
  let before = 0;
  for (const c of counts) {
    if (before + c.n > target) return { key: c.key, before };
    before += c.n;
  }
  return null;
}

const bound = (k: number, [num, den]: readonly [number, number]) => (k * num) / den;

/** A block of 2^shift positions, from its first position on in the direction of the walk. */
function fromBlock(block: number, shift: number, direction: Direction): SqlFragment {
  return direction === 'asc' ? sql`a.position >= ${block * 2 ** shift}` : sql`a.position < ${(block + 1) * 2 ** shift}`;
}

/**
 * Where the page at `offset` starts, or null when the filter keeps no more than `offset` items.
 * Only for countable filters.
 */
export function placePage(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureSort, direction: Direction, offset: number): Placement | null {
  // With a threshold on the sort metric, the page is placed past the items before its stretch;
  // the walk tests the threshold, so it skips only the matching items after the later of the
  // block's start and the stretch's.
  const lead = sort === 'position' ? 0 : itemsBeforeStretch(db, runId, filter, sort, direction);
  const target = offset + lead;
  const keys: number[] = [];
  let before = 0;
  let valued = 0;
  const descend = () => {
    const counts = levelCounts(db, runId, sort, filter, keys, direction);
    if (!keys.length) valued = counts.reduce((sum, c) => (c.key === NULL_KEY && sort !== 'position' ? sum : sum + c.n), 0);
    const found = locate(counts, target - before);
    if (found) {
      keys.push(found.key);
      before += found.before;
    }
    return found !== null;
  };
  if (!descend() || !descend()) return null;
  const place = (valueless: boolean, start: SqlFragment): Placement => ({ valueless, start, skip: target - Math.max(before, lead), valuedLeft: Math.max(0, valued - target) });
  if (sort === 'position') return place(false, fromBlock(keys[1]!, POSITION_SHIFTS[1], direction));
  // Past the stretch of a threshold, which keeps no item without a value.
  if (keys[0] === NULL_KEY) return filter.thresholds?.length ? null : place(true, fromBlock(keys[1]!, VALUE_BLOCK_SHIFT, direction));
  const fine = keys[1]!;
  const step = STEPS[sort].fine;
  const column = sql`a.${sql.id(sort)}`;
  if (fine % 2 === 1) {
    // Values strictly between two bounds: walk from the bucket's edge.
    const f = (fine - 1) / 2;
    return place(false, direction === 'asc' ? sql`${column} > ${bound(f, step)}` : sql`${column} < ${bound(f + 1, step)}`);
  }
  // One value, its items in position order: place the page in its blocks of positions too.
  if (!descend()) return null;
  const value = bound(fine / 2, step);
  const block = keys[2]!;
  const size = 2 ** VALUE_BLOCK_SHIFT;
  return place(
    false,
    direction === 'asc' ? sql`(${column}, a.position) >= (${value}, ${block * size})` : sql`(${column}, a.position) <= (${value}, ${(block + 1) * size - 1})`,
  );
}

/**
 * The items matching the counted filters that come before a threshold's stretch of the metric's
 * order: below the highest `atLeast` ascending, at or above the lowest `below` descending.
 */
function itemsBeforeStretch(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureMetric, direction: Direction): number {
  const thresholds = filter.thresholds ?? [];
  if (direction === 'asc') {
    const from = thresholds.flatMap((t) => (t.atLeast === undefined ? [] : [t.atLeast]));
    return from.length ? itemsBelow(db, runId, filter, sort, Math.max(...from)) : 0;
  }
  const until = thresholds.flatMap((t) => (t.below === undefined ? [] : [t.below]));
  if (!until.length) return 0;
  const valued = levelCounts(db, runId, sort, filter, [], 'asc').filter((c) => c.key !== NULL_KEY);
  return valued.reduce((sum, c) => sum + c.n, 0) - itemsBelow(db, runId, filter, sort, Math.min(...until));
}

/**
 * Items matching the counted filters with a value below `x`: the buckets wholly below it from the
 * counts, and the items of the one fine bucket it falls strictly inside, if any, from the index.
 */
function itemsBelow(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureMetric, x: number): number {
  const { coarse, fine } = STEPS[sort];
  let below = 0;
  for (const c of levelCounts(db, runId, sort, filter, [], 'asc')) {
    if (c.key === NULL_KEY || bound(c.key, coarse) >= x) break;
    if (bound(c.key + 1, coarse) <= x) {
      below += c.n;
      continue;
    }
    for (const f of levelCounts(db, runId, sort, filter, [c.key], 'asc')) {
      // An exact bucket holds its lower bound alone; an open one the values strictly up to the next.
      const lower = bound(Math.floor(f.key / 2), fine);
      if (lower >= x) break;
      if (f.key % 2 === 0 || bound((f.key + 1) / 2, fine) <= x) below += f.n;
      else below += straddling(db, runId, filter, sort, lower, x);
    }
  }
  return below;
}

/** Items matching the counted filters with a value strictly between `lower` and `x`. */
function straddling(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureMetric, lower: number, x: number): number {
  const column = sql`a.${sql.id(sort)}`;
  const list = [sql`a.run_id = ${runId}`, sql`${column} > ${lower}`, sql`${column} < ${x}`, ...cellConditions(filter, true)];
  return all<{ n: number }>(db, sql`SELECT count(*) AS n FROM eval_items a WHERE ${sql.join(list, sql` AND `)}`)[0]!.n;
}

/** Items matching a countable filter, summed from the counts. */
export function countFromCounts(db: ReadableDB, runId: number, filter: FailureFilter): number {
  return levelCounts(db, runId, 'position', filter, [], 'asc').reduce((sum, c) => sum + c.n, 0);
}
