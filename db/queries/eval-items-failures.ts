import type { FailureRow } from '../../shared/api';
import { all, allRaw, get, sql, type ReadableDB, type SqlFragment } from '../sql';
import { currentTagKeys } from './eval-item-tags';
import { countable, countFromCounts, placePage } from './eval-items-failure-counts';
import { snapshotCount, snapshotPageIds } from './eval-items-failure-snapshot';
import { SORT_INDEX, type FailureMetric, type FailureSort } from './eval-items-failure-sorts';
import { itemFields, type EvalItemRow, type ItemColumns } from './eval-items';

/**
 * The failure table: pages of one evaluation run's `eval_items`, filtered and sorted on the
 * covering indexes of migrations 0010 and 0012, placed from the counts of migration 0025 when the
 * filter is one they count (eval-items-failure-counts.ts); a finished run's pages are read from
 * memory instead (eval-items-failure-snapshot.ts). It only reads; eval-items.ts writes the table.
 * A module apart from eval-items.ts because choosing and walking the indexes is one algorithm
 * that fills a file of its own; test/unit/failure-plans.test.ts checks the plans it gets.
 */

export { FAILURE_SORTS, type FailureMetric, type FailureSort } from './eval-items-failure-sorts';

export interface FailureFilter {
  status?: 'pending' | 'done' | 'failed' | undefined;
  type?: string | undefined;
  collapsed?: boolean | undefined;
  retrievalMiss?: boolean | undefined;
  /** Per-metric thresholds: strictly below `below`, at or above `atLeast`. */
  thresholds?: readonly { metric: FailureMetric; below?: number | undefined; atLeast?: number | undefined }[] | undefined;
  /** Items carrying this tag now (its id). */
  tagId?: number | undefined;
  /** Two runs on the same items: keep items where this run (A) and run B disagree on `metric ≥ threshold`. */
  versus?: { run: number; metric: FailureMetric; threshold: number; mode: 'a-right-b-wrong' | 'a-wrong-b-right' } | undefined;
}

/**
 * The index a page walks for a sort: with a type filter, the one holding that type's items in
 * the sort's order (migration 0012), otherwise the sort column's. Each carries every filtered
 * column.
 */
function walkIndex(sort: FailureSort, f: FailureFilter): string {
  if (!f.type) return SORT_INDEX[sort];
  return sort === 'position' ? 'failures_by_type' : `${SORT_INDEX[sort]}_in_type`;
}

/**
 * The filter conditions on `eval_items a`. When an index is walked (`walk`), the columns it
 * carries are written `+a.x`, so SQLite tests them on the index entries instead of picking
 * another index; the type, which the walked index begins with when there is one, is not.
 */
function conditions(runId: number, f: FailureFilter, sort: FailureSort, walk = true): SqlFragment[] {
  const plus = walk ? sql`+` : sql.empty;
  const list: SqlFragment[] = [sql`a.run_id = ${runId}`];
  if (f.status) list.push(sql`${plus}a.status = ${f.status}`);
  if (f.type) list.push(sql`a.ambiguity_type = ${f.type}`);
  if (f.collapsed !== undefined) list.push(f.collapsed ? sql`+a.collapsed = 1` : sql`coalesce(+a.collapsed, 0) = 0`);
  if (f.retrievalMiss !== undefined) list.push(f.retrievalMiss ? sql`+a.retrieval_miss = 1` : sql`coalesce(+a.retrieval_miss, 0) = 0`);
  for (const t of f.thresholds ?? []) {
    // The sort column keeps its index range; the others are tested on the rows.
    const column = t.metric === sort || !walk ? sql`a.${sql.id(t.metric)}` : sql`+a.${sql.id(t.metric)}`;
    if (t.below !== undefined) list.push(sql`${column} < ${t.below}`);
    if (t.atLeast !== undefined) list.push(sql`${column} >= ${t.atLeast}`);
  }
  if (f.tagId !== undefined) list.push(sql`EXISTS (SELECT 1 FROM eval_item_tags t WHERE t.item_id = a.id AND t.tag_id = ${f.tagId} AND t.removed_at IS NULL)`);
  if (f.versus) {
    const { run: other, metric, threshold, mode } = f.versus;
    const m = sql.id(metric);
    const aRight = sql`coalesce(a.${m}, -1e300) >= ${threshold}`;
    const bRight = sql`coalesce(b.${m}, -1e300) >= ${threshold}`;
    const pair = mode === 'a-right-b-wrong' ? sql`${aRight} AND NOT (${bRight})` : sql`NOT (${aRight}) AND ${bRight}`;
    list.push(sql`EXISTS (SELECT 1 FROM eval_items b WHERE b.key = a.key AND b.run_id = ${other} AND b.status <> 'pending' AND ${pair})`);
    list.push(sql`+a.status <> 'pending'`);
  }
  return list;
}

/**
 * The run's first items the shares are measured on: 256, or 1,000 when fewer than 32 of the 256
 * match (a share measured on a handful of items is too rough to choose by). Every page reads the
 * sample, so it is kept as small as gives a usable share: at 1,000 items it was a sixth of a
 * typical page's time.
 */
const SAMPLES = [256, 1000] as const;
const ENOUGH = 32;

type Sample = { n: number; matching: number; inType: number; inStatus: number; total: number };

/**
 * How a page is read. When the counts of migration 0025 count the filter (status, type, the flags,
 * a threshold on the sort metric), they place it (`counts`). Otherwise chosen on numbers as the
 * instance table does: walk the sort index testing the filters on its entries until the page is
 * filled (cheap when many items match), or take the matching items and sort them (cheap when few
 * do). The share of items matching is measured on the run's first items (positions follow the
 * source's order, not any metric).
 */
export function chooseFailurePlan(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureSort, wanted: number): FailurePlan {
  // Filters on the counted columns alone: the counts place the page (migration 0025).
  if (countable(filter, sort)) return 'counts';
  const list = conditions(runId, filter, sort);
  // No filter an index can narrow (the flags, a tag, the other run): filtering first would read
  // every item of the run, which is never less than the walk reads, so there is nothing to measure.
  if (!filter.type && !filter.status && !filter.thresholds?.length) return 'walk-index';
  const valued = sort === 'position' ? sql`1` : sql`a.${sql.id(sort)} IS NOT NULL`;
  const tests = list.length > 1 ? sql.join(list.slice(1), sql` AND `) : sql`1`;
  const ofType = filter.type ? sql`a.ambiguity_type = ${filter.type}` : sql`1`;
  const ofStatus = filter.status ? sql`a.status = ${filter.status}` : sql`1`;
  const measure = (size: number) =>
    get<Sample>(
      db,
      sql`SELECT count(*) AS n, coalesce(sum(CASE WHEN ${tests} AND ${valued} THEN 1 ELSE 0 END), 0) AS matching,
                 coalesce(sum(CASE WHEN ${ofType} THEN 1 ELSE 0 END), 0) AS inType,
                 coalesce(sum(CASE WHEN ${ofStatus} THEN 1 ELSE 0 END), 0) AS inStatus,
                 (SELECT total FROM eval_runs WHERE id = ${runId}) AS total
          FROM eval_items a INDEXED BY failures_by_position WHERE a.run_id = ${runId} AND a.position < ${size}`,
    )!;
  let sample = measure(SAMPLES[0]);
  if (sample.matching < ENOUGH && sample.n === SAMPLES[0]) sample = measure(SAMPLES[1]);
  if (sample.n === 0) return 'filter-then-sort';
  const total = Math.max(sample.total, sample.n);
  const matching = (Math.max(sample.matching, 0.5) / sample.n) * total;
  // A type filter walks that type's entries only: the share that matters is the share within them.
  const walkable = (Math.max(sample.inType, 1) / sample.n) * total;
  const share = Math.min(1, matching / walkable);
  // Filters the sort index does not carry (tags, the other run) are tested on the rows; the
  // others (metrics included, migration 0012) on its entries.
  const rowTests = filter.tagId !== undefined || filter.versus !== undefined;
  const walked = Math.min(walkable, wanted / share);
  const walkCost = walked * (rowTests ? 1.2 : 0.15);
  // Filtering first reads the entries of the narrowest indexed filter (type, status, a metric's
  // range), every column at hand, then sorts the matching ones.
  const scanned = Math.min(
    filter.type ? walkable : total,
    filter.status ? (Math.max(sample.inStatus, 1) / sample.n) * total : total,
    (filter.thresholds ?? []).length ? matching * 2 : total,
  );
  const sortCost = scanned * (rowTests ? 1.2 : 0.15) + matching * Math.log2(matching + 1) * 0.03;
  return walkCost <= sortCost ? 'walk-index' : 'filter-then-sort';
}

export type FailurePlan = 'walk-index' | 'filter-then-sort' | 'counts';

/**
 * The statement for the ids of one page, in order. Under `walk-index` (and `counts`, which walks
 * from `start`, where the counts placed the page) with a metric sort it gives the items that have
 * a value for the metric; `valuelessPageQuery` continues past them.
 */
export function failurePageQuery(runId: number, filter: FailureFilter, sort: FailureSort, direction: 'asc' | 'desc', limit: number, offset: number, plan: FailurePlan, start?: SqlFragment): SqlFragment {
  const dir = sql.keyword(direction === 'desc' ? 'DESC' : 'ASC');
  if (plan === 'filter-then-sort') {
    const list = conditions(runId, filter, sort, false);
    // A status's or a type's items are in position order in their index: read in that order, no sort.
    const inOrder = filter.status ? 'failures_by_status' : filter.type ? 'failures_by_type' : null;
    if (sort === 'position' && inOrder) {
      return sql`SELECT a.id FROM eval_items a INDEXED BY ${sql.id(inOrder)} WHERE ${sql.join(list, sql` AND `)} ORDER BY a.position ${dir} LIMIT ${limit} OFFSET ${offset}`;
    }
    const order = sort === 'position' ? sql`+a.position ${dir}` : sql`+a.${sql.id(sort)} IS NULL, +a.${sql.id(sort)} ${dir}, +a.position ${dir}`;
    return sql`SELECT a.id FROM eval_items a WHERE ${sql.join(list, sql` AND `)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
  }
  const index = sql.id(walkIndex(sort, filter));
  const list = [...conditions(runId, filter, sort), ...(start ? [start] : [])];
  if (sort === 'position') {
    return sql`SELECT a.id FROM eval_items a INDEXED BY ${index} WHERE ${sql.join(list, sql` AND `)} ORDER BY a.position ${dir} LIMIT ${limit} OFFSET ${offset}`;
  }
  const column = sql`a.${sql.id(sort)}`;
  return sql`SELECT a.id FROM eval_items a INDEXED BY ${index} WHERE ${sql.join([...list, sql`${column} IS NOT NULL`], sql` AND `)}
             ORDER BY ${column} ${dir}, a.position ${dir} LIMIT ${limit} OFFSET ${offset}`;
}

/** Under `walk-index` with a metric sort: the items without a value for it, in position order. */
export function valuelessPageQuery(runId: number, filter: FailureFilter, sort: FailureMetric, direction: 'asc' | 'desc', limit: number, offset: number, start?: SqlFragment): SqlFragment {
  const dir = sql.keyword(direction === 'desc' ? 'DESC' : 'ASC');
  const list = [...conditions(runId, filter, sort), sql`a.${sql.id(sort)} IS NULL`, ...(start ? [start] : [])];
  return sql`SELECT a.id FROM eval_items a INDEXED BY ${sql.id(walkIndex(sort, filter))} WHERE ${sql.join(list, sql` AND `)} ORDER BY a.position ${dir} LIMIT ${limit} OFFSET ${offset}`;
}

/**
 * The ids of one page, in order; items without a value for the sort metric come last in either
 * direction, then by position.
 */
export function failurePageIds(
  db: ReadableDB,
  runId: number,
  filter: FailureFilter,
  sort: FailureSort,
  direction: 'asc' | 'desc',
  limit: number,
  offset: number,
  /** Tests: one plan or another, to check that all give the same page (without one, a finished run's pages come from memory). */
  chosen?: FailurePlan,
): number[] {
  if (!chosen) {
    const page = snapshotPageIds(db, runId, filter, sort, direction, limit, offset);
    if (page) return page;
  }
  const plan = chosen ?? chooseFailurePlan(db, runId, filter, sort, offset + limit);
  const ids = (query: SqlFragment) => all<{ id: number }>(db, query).map((r) => r.id);
  // Under `counts`, the page is walked from the block the counts place it in (null: past the last item).
  const placed = plan === 'counts' ? placePage(db, runId, filter, sort, direction, offset) : undefined;
  if (placed === null) return [];
  if (placed?.valueless && sort !== 'position') return ids(valuelessPageQuery(runId, filter, sort, direction, limit, placed.skip, placed.start));
  // Placed by the counts: no more rows are asked of the walk than can follow the page's first.
  const walked = placed ? Math.min(limit, placed.valuedLeft) : limit;
  const page = walked > 0 ? ids(failurePageQuery(runId, filter, sort, direction, walked, placed?.skip ?? offset, plan, placed?.start)) : [];
  if (plan === 'filter-then-sort' || sort === 'position' || page.length === limit) return page;
  // The page runs past the items with a value: continue with those without one.
  const before = placed || page.length > 0 ? 0 : Math.max(0, offset - countWhere(db, [...conditions(runId, filter, sort), sql`a.${sql.id(sort)} IS NOT NULL`], sql.id(walkIndex(sort, filter))));
  return [...page, ...ids(valuelessPageQuery(runId, filter, sort, direction, limit - page.length, before))];
}

function countWhere(db: ReadableDB, list: SqlFragment[], index: SqlFragment): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM eval_items a INDEXED BY ${index} WHERE ${sql.join(list, sql` AND `)}`)!.n;
}

/** The statement that counts the items matching a filter (on whichever index SQLite finds narrowest for it). */
export function countFailuresQuery(runId: number, filter: FailureFilter): SqlFragment {
  return sql`SELECT count(*) AS n FROM eval_items a WHERE ${sql.join(conditions(runId, filter, 'position', false), sql` AND `)}`;
}

/** Items matching a filter: from memory for a finished run, summed from the counts when they count it, else counted on whichever index SQLite finds narrowest for it. */
export function countFailures(db: ReadableDB, runId: number, filter: FailureFilter): number {
  const counted = snapshotCount(db, runId, filter);
  if (counted !== null) return counted;
  if (countable(filter)) return countFromCounts(db, runId, filter);
  return get<{ n: number }>(db, countFailuresQuery(runId, filter))!.n;
}

/** An item as the failure table reads it: its listed columns, the answer's first 300 characters, its current tag keys. */
export type FailureRowDb = ItemColumns & Pick<EvalItemRow, 'run_id' | 'long_answer'> & { tags: string | null };

/**
 * The rows of some items with their current tag keys, in the order of `ids`. Read as arrays and
 * the tags in a second query: a page of 100 costs a third of one query of objects with a tag
 * subquery per row.
 */
export function failureRows(db: ReadableDB, ids: readonly number[]): FailureRowDb[] {
  if (ids.length === 0) return [];
  type Raw = [number, number, number, string, number | null, string, string, FailureRowDb['status'], string | null, number | null, number | null, number | null, number | null, number | null, number | null, number | null, number, string | null];
  const tags = currentTagKeys(db, ids);
  const rows = allRaw<Raw>(
    db,
    sql`SELECT a.id, a.run_id, a.position, a.key, a.instance_id, a.ambiguity_type, a.question, a.status, substr(a.long_answer, 1, 300),
               a.str_em, a.disambig_f1, a.rouge_l, a.judge_mean, a.collapsed, a.retrieval_miss, a.latency_ms, a.cost_usd, a.error
        FROM eval_items a WHERE a.id IN ${sql.list([...ids])}`,
  );
  const byId = new Map(
    rows.map((r): [number, FailureRowDb] => [
      r[0],
      {
        id: r[0],
        run_id: r[1],
        position: r[2],
        key: r[3],
        instance_id: r[4],
        ambiguity_type: r[5],
        question: r[6],
        status: r[7],
        long_answer: r[8],
        str_em: r[9],
        disambig_f1: r[10],
        rouge_l: r[11],
        judge_mean: r[12],
        collapsed: r[13],
        retrieval_miss: r[14],
        latency_ms: r[15],
        cost_usd: r[16],
        error: r[17],
        tags: tags.get(r[0]) ?? null,
      },
    ]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The same items (by key) in another run. */
export function itemsByKey(db: ReadableDB, runId: number, keys: readonly string[]): FailureRowDb[] {
  if (keys.length === 0) return [];
  return all<FailureRowDb>(
    db,
    sql`SELECT a.id, a.run_id, a.position, a.key, a.instance_id, a.ambiguity_type, a.question, a.status, NULL AS long_answer,
               a.str_em, a.disambig_f1, a.rouge_l, a.judge_mean, a.collapsed, a.retrieval_miss, a.latency_ms, a.cost_usd, a.error, NULL AS tags
        FROM eval_items a WHERE a.run_id = ${runId} AND a.key IN ${sql.list([...keys])}`,
  );
}

/** The item before and after one in a run's position order (for j/k in the item view). */
export function neighbourItems(db: ReadableDB, runId: number, position: number): { previous: number | null; next: number | null } {
  const previous = get<{ id: number }>(db, sql`SELECT id FROM eval_items WHERE run_id = ${runId} AND position < ${position} ORDER BY position DESC LIMIT 1`);
  const next = get<{ id: number }>(db, sql`SELECT id FROM eval_items WHERE run_id = ${runId} AND position > ${position} ORDER BY position LIMIT 1`);
  return { previous: previous?.id ?? null, next: next?.id ?? null };
}

// ---- row mapper ----------------------------------------------------------------------------------

/** A row of the failure table, with the same item in the run it is compared with, if any. */
export function rowToFailureRow(r: FailureRowDb, other: FailureRowDb | undefined): FailureRow {
  return {
    ...itemFields(r),
    answer: r.long_answer,
    tags: r.tags ? r.tags.split(',') : [],
    other: other ? { id: other.id, status: other.status, strEm: other.str_em, disambigF1: other.disambig_f1, rougeL: other.rouge_l, judgeMean: other.judge_mean, error: other.error } : null,
  };
}
