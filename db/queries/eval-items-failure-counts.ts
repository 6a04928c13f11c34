import { NULL_KEY, POSITION_SHIFTS, STEPS, VALUE_BLOCK_SHIFT } from '../migrations/0025-failure-counts';
import { all, sql, type ReadableDB, type SqlFragment } from '../sql';
import type { FailureFilter, FailureSort } from './eval-items-failures';

/**
 * Placing a failure page from the counts of migration 0025 (`eval_item_blocks`, kept by triggers
 * on eval_items): instead of walking a sort index through every item before the offset, read the
 * counts of the filter's combinations level by level (a coarse block or bucket, a finer one
 * within it, a block of positions within an exact value) to find the block that holds the page's
 * first item and how many matching items come before it; the page then walks from that block's
 * start, skipping only the rest. The layout of the levels is the migration's.
 */

/** Filters the counts can place: those on the counted columns alone (status, type, the two flags). */
export function countable(f: FailureFilter): boolean {
  return !f.thresholds?.length && f.tagId === undefined && f.versus === undefined;
}

/** Where a page starts: a condition on `eval_items a` that its walk starts from, and the items to skip after it. */
export interface Placement {
  /** In the items without a value for the sort metric (they come last). */
  valueless: boolean;
  start: SqlFragment;
  skip: number;
}

type Count = { key: number; n: number };
type Direction = 'asc' | 'desc';

function cellConditions(f: FailureFilter): SqlFragment[] {
  const list: SqlFragment[] = [];
  if (f.status) list.push(sql`status = ${f.status}`);
  if (f.type) list.push(sql`ambiguity_type = ${f.type}`);
  if (f.collapsed !== undefined) list.push(sql`collapsed = ${f.collapsed ? 1 : 0}`);
  if (f.retrievalMiss !== undefined) list.push(sql`retrieval_miss = ${f.retrievalMiss ? 1 : 0}`);
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
  const keys: number[] = [];
  let before = 0;
  const descend = () => {
    const found = locate(levelCounts(db, runId, sort, filter, keys, direction), offset - before);
    if (found) {
      keys.push(found.key);
      before += found.before;
    }
    return found !== null;
  };
  if (!descend() || !descend()) return null;
  const place = (valueless: boolean, start: SqlFragment): Placement => ({ valueless, start, skip: offset - before });
  if (sort === 'position') return place(false, fromBlock(keys[1]!, POSITION_SHIFTS[1], direction));
  if (keys[0] === NULL_KEY) return place(true, fromBlock(keys[1]!, VALUE_BLOCK_SHIFT, direction));
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

/** Items matching a countable filter, summed from the counts. */
export function countFromCounts(db: ReadableDB, runId: number, filter: FailureFilter): number {
  return levelCounts(db, runId, 'position', filter, [], 'asc').reduce((sum, c) => sum + c.n, 0);
}
