import type { InstanceFilter, InstanceQuery } from '../../shared/api';
import { all, allRaw, get, iterate, run, sql, type ReadableDB, type SqlFragment, type SqlValue, type WritableDB } from '../sql';
import { conditions, countConditions } from './instances-filters';
import { type InstanceDbRow, ROW_COLUMNS, rowColumns } from './instances-rows';

/**
 * A page of the instance table at any offset, without walking the rows before it (issue 24).
 * SQLite's B-trees cannot skip n entries without reading them, so `OFFSET 700000` reads 700,000
 * index entries. Migration 0017 keeps counts that say how many rows of each filter combination
 * (dataset, type, status, hop count) lie before known points of every sort order; a page is
 * found by summing those counts for the filter until the offset is reached, then walking from
 * that point only, never more than a block or a fence of rows.
 *
 * - Block sorts (id, type, status, dataset, hops, stage, interpretations): the order is a few
 *   small columns (the run), then id. `instance_blocks` counts rows per run and block of ids at
 *   four sizes (2^22 ids down to 1,024, each block holding 16 of the next): the coarsest say
 *   which run and block hold the position, each finer one narrows it down, and the walk starts
 *   at the last block's first id in the run's index entries.
 * - Fence sorts (updated_at, question, source_id): fences are rows about every 8,192 of the order
 *   and every 256, each with counts up to the next fence of its level; the coarse fences say
 *   which stretch holds the position, the fine ones within it narrow it down, and the walk starts
 *   at a fine fence's key. The question order is walked in `instance_question_order` (migration
 *   0033), which holds it with the filter columns; the source id order through the base
 *   questions' index and a seek per question (source ids mostly follow the order of import, and
 *   so the ids, so those seeks land near each other).
 *
 * - The topic sort (domain, then the four filter columns, then id): `instance_counts` already
 *   counts the rows of each combination (a cell), in sort order, so the cell holding the position
 *   is found from it and the walk reads that cell's index entries only (never more than a cell).
 *
 * A descending page is the ascending one read from the other end: every sort term, id included,
 * turns around with the direction. The counts are read in the same transaction as the walk, so a
 * writer in another process cannot slip between them. When the counts do not add up to the
 * table's own count (a database copied without its triggers, say), the caller falls back to
 * walking and says so.
 */

type BlockSort = 'id' | 'ambiguity_type' | 'status' | 'dataset' | 'hops' | 'interpretation_count' | 'stage';
export type FenceSort = 'updated_at' | 'question' | 'source_id';

export const CELL = ['ambiguity_type', 'status', 'dataset_id', 'hops'] as const;
type Column = (typeof CELL)[number] | 'value';
type Kind = 'cell' | 'stage' | 'interpretations';

/**
 * Each block sort's block counts and run columns, in sort order (`value` is the stage or the
 * interpretation count), and the index that holds a run's rows in id order.
 */
export const BLOCK_SORTS: Record<BlockSort, { kind: Kind; index: string | null; run: readonly Column[] }> = {
  id: { kind: 'cell', index: null, run: [] },
  ambiguity_type: { kind: 'cell', index: 'instances_by_type', run: ['ambiguity_type', 'status', 'dataset_id', 'hops'] },
  status: { kind: 'cell', index: 'instances_by_status', run: ['status', 'ambiguity_type', 'dataset_id', 'hops'] },
  dataset: { kind: 'cell', index: 'instances_by_dataset', run: ['dataset_id', 'ambiguity_type', 'status', 'hops'] },
  hops: { kind: 'cell', index: 'instances_by_hops', run: ['hops', 'ambiguity_type', 'status', 'dataset_id'] },
  interpretation_count: { kind: 'interpretations', index: 'instances_by_interpretations', run: ['value', 'ambiguity_type', 'status', 'dataset_id', 'hops'] },
  stage: { kind: 'stage', index: 'instances_by_stage', run: ['value', 'ambiguity_type', 'status', 'dataset_id', 'hops'] },
};

/** The instance column a run column stands for in a sort. */
export const instanceColumn = (sort: BlockSort, c: Column) => (c !== 'value' ? c : sort === 'stage' ? 'stage' : 'interpretation_count');

export interface FenceOrder {
  table: string;
  keys: readonly string[];
  from: SqlFragment;
  /** The instance's id in `from`, and the alias whose filter columns the walk tests. */
  id: SqlFragment;
  filtersOn: SqlFragment;
  /**
   * How a walk reads its page's rows as it finds them: `from` with what they need joined (a join
   * SQLite defers until a row is kept) and their columns, or the page of `from`'s rows joined to
   * what they need afterwards (where the join would read every row skipped on the way).
   */
  rows: { from: SqlFragment; columns: SqlFragment } | { ofPage(page: SqlFragment): SqlFragment };
  orderBy: SqlFragment;
  /** Rows at or after a fence's key, and rows before it: each a range of the index, then a test of the key's last parts. */
  atOrAfter(key: readonly SqlValue[]): SqlFragment;
  before(key: readonly SqlValue[]): SqlFragment;
}

const I = sql`i`;

export function byBaseQuestion(column: 'question' | 'source_id', table: string, index: string): FenceOrder {
  const c = sql.id(column);
  return {
    table,
    keys: [column, 'base_question_id', 'id'],
    from: sql`base_questions b INDEXED BY ${sql.id(index)} JOIN instances i ON i.base_question_id = b.id`,
    id: sql`i.id`,
    filtersOn: I,
    // The instances through their index by base question still (its entries test the filter), the table's row read only for a row kept.
    rows: {
      from: sql`base_questions b INDEXED BY ${sql.id(index)} CROSS JOIN instances i INDEXED BY instances_by_base_question ON i.base_question_id = b.id`,
      columns: ROW_COLUMNS,
    },
    orderBy: sql`b.${c}, b.id, i.id`,
    atOrAfter: ([text, bq, id]) => sql`(b.${c}, b.id) >= (${text}, ${bq}) AND ((b.${c}, b.id) > (${text}, ${bq}) OR i.id >= ${id})`,
    before: ([text, bq, id]) => sql`(b.${c}, b.id) <= (${text}, ${bq}) AND ((b.${c}, b.id) < (${text}, ${bq}) OR i.id < ${id})`,
  };
}

export const FENCES: Record<FenceSort, FenceOrder> = {
  updated_at: {
    table: 'instance_fences_updated',
    keys: ['updated_at', 'ambiguity_type', 'status', 'dataset_id', 'hops', 'id'],
    from: sql`instances i INDEXED BY instances_by_updated`,
    id: sql`i.id`,
    filtersOn: I,
    rows: { from: sql`instances i INDEXED BY instances_by_updated CROSS JOIN base_questions b ON b.id = i.base_question_id`, columns: ROW_COLUMNS },
    orderBy: sql`i.updated_at, i.ambiguity_type, i.status, i.dataset_id, i.hops, i.id`,
    // The fence stores a missing hop count as -1, below every hop count, as the index sorts it.
    atOrAfter: ([at, type, status, dataset, hops, id]) =>
      sql`(i.updated_at, i.ambiguity_type, i.status, i.dataset_id) >= (${at}, ${type}, ${status}, ${dataset})
          AND ((i.updated_at, i.ambiguity_type, i.status, i.dataset_id) > (${at}, ${type}, ${status}, ${dataset})
               OR (coalesce(i.hops, -1), i.id) >= (${hops}, ${id}))`,
    before: ([at, type, status, dataset, hops, id]) =>
      sql`(i.updated_at, i.ambiguity_type, i.status, i.dataset_id) <= (${at}, ${type}, ${status}, ${dataset})
          AND ((i.updated_at, i.ambiguity_type, i.status, i.dataset_id) < (${at}, ${type}, ${status}, ${dataset})
               OR (coalesce(i.hops, -1), i.id) < (${hops}, ${id}))`,
  },
  // The question order as stored in its own table (`w`): a run of its pages, not a seek per question;
  // the instances' rows read for the page (`p`) only.
  question: {
    table: 'instance_fences_question',
    keys: ['question', 'base_question_id', 'id'],
    from: sql`instance_question_order w`,
    id: sql`w.id`,
    // The four filter columns (a topic filter never places a page in a fence order: see `placeable`).
    filtersOn: sql`w`,
    rows: {
      ofPage: (page) =>
        sql`SELECT ${rowColumns(sql`p`)} FROM (${page}) p CROSS JOIN instances i ON i.id = p.id ORDER BY p.question, p.base_question_id, p.id`,
    },
    orderBy: sql`w.question, w.base_question_id, w.id`,
    atOrAfter: ([text, bq, id]) => sql`(w.question, w.base_question_id, w.id) >= (${text}, ${bq}, ${id})`,
    before: ([text, bq, id]) => sql`(w.question, w.base_question_id, w.id) < (${text}, ${bq}, ${id})`,
  },
  source_id: byBaseQuestion('source_id', 'instance_fences_source', 'base_questions_source'),
};

export const and = (list: SqlFragment[]) => (list.length ? sql`AND ${sql.join(list, sql` AND `)}` : sql.empty);
const idsOf = (rows: { id: number }[]) => rows.map((r) => r.id);

/** The sorts the counts can place a page of (the order tables count the four filter columns, `instance_counts` the topic too). */
export const PLACED_SORTS: readonly string[] = [...Object.keys(BLOCK_SORTS), ...Object.keys(FENCES), 'relevance', 'domain'];

/** Whether the counts can place a page of this query: a sort they keep, and a topic filter only on the topic sort. */
export const placeable = (query: InstanceFilter & { sort: InstanceQuery['sort'] }) =>
  (query.domains.length === 0 || query.sort === 'domain') && PLACED_SORTS.includes(query.sort);

/**
 * Rows [start, start + count) of a filter in ascending order: their ids, and for a fence sort the
 * rows themselves (its walk reads them where it finds them; the others' ids are read by the
 * caller). Null when the counts disagree with `matching`.
 */
export function ascendingPage(db: ReadableDB, sort: InstanceQuery['sort'], filter: InstanceFilter, start: number, count: number, matching: number): { ids: number[]; rows: InstanceDbRow[] | null } | null {
  const idsOnly = (ids: number[] | null) => ids && { ids, rows: null };
  if (sort === 'domain') return idsOnly(cellPage(db, filter, start, count, matching));
  if (!(sort in FENCES)) return idsOnly(blockPage(db, sort === 'relevance' ? 'id' : (sort as BlockSort), filter, start, count, matching));
  const rows = fencePage(db, sort as FenceSort, filter, start, count, matching);
  return rows && { ids: rows.map((row) => row[0]), rows };
}

/** Walks the running sums of `rows` to the one holding position `start`: its index and the position within it. */
function locate(rows: readonly { n: number }[], start: number): { at: number; within: number } | null {
  let before = 0;
  for (let at = 0; at < rows.length; at++) {
    const n = rows[at]!.n;
    if (before + n > start) return { at, within: start - before };
    before += n;
  }
  return null;
}

const total = (rows: readonly { n: number }[]) => rows.reduce((sum, r) => sum + r.n, 0);

// ---- block sorts ---------------------------------------------------------------------------------

type Run = Record<Column, SqlValue> & { block: number; n: number };

/** Run values compare as SQLite does: they are integers or ASCII names. */
const compare = (a: SqlValue, b: SqlValue) => (a === b ? 0 : (a as number | string) < (b as number | string) ? -1 : 1);

/** Block sizes, coarsest first: each block holds 16 of the next size, down to 1,024 ids. */
const SHIFTS = [22, 18, 14, 10] as const;

/**
 * The coarsest blocks of the matching runs, in sort order: read in key order, summed per run and
 * block, and sorted here (a few hundred entries at most; SQLite would sort them through a
 * temporary B-tree).
 */
function coarseRuns(db: ReadableDB, sort: BlockSort, filter: InstanceFilter): Run[] {
  const { kind, run } = BLOCK_SORTS[sort];
  const rows = allRaw<[SqlValue, SqlValue, SqlValue, SqlValue, SqlValue, number, number]>(
    db,
    sql`SELECT c.value, c.ambiguity_type, c.status, c.dataset_id, c.hops, c.block, c.n FROM instance_blocks c
        WHERE c.kind = ${kind} AND c.shift = ${SHIFTS[0]} AND c.n > 0 ${and(countConditions(filter))}`,
  );
  const runs = new Map<string, Run>();
  for (const [value, ambiguity_type, status, dataset_id, hops, block, n] of rows) {
    const row: Run = { value, ambiguity_type, status, dataset_id, hops, block, n };
    const key = `${run.map((c) => row[c]).join('\u0000')}\u0000${block}`;
    const seen = runs.get(key);
    if (seen) seen.n += n;
    else runs.set(key, row);
  }
  const order = (a: Run, b: Run) => {
    for (const c of run) {
      const d = compare(a[c], b[c]);
      if (d) return d;
    }
    return a.block - b.block;
  };
  return [...runs.values()].sort(order);
}

/**
 * From a block of one run down to a block of 1,024 ids: at each size, the 16 blocks within the
 * one found, summed over the matching combinations, then the one holding the position.
 */
function narrow(db: ReadableDB, sort: BlockSort, filter: InstanceFilter, at: Run, within: number): { block: number; within: number } | null {
  const { kind, run } = BLOCK_SORTS[sort];
  const sameRun = and(run.map((c) => sql`c.${sql.id(c)} = ${at[c]}`));
  let found = { block: at.block, within };
  for (const [k, shift] of SHIFTS.slice(1).entries()) {
    const from = found.block << (SHIFTS[k]! - shift);
    const blocks = all<{ block: number; n: number }>(
      db,
      sql`SELECT c.block, sum(c.n) AS n FROM instance_blocks c
          WHERE c.kind = ${kind} AND c.shift = ${shift} AND c.block BETWEEN ${from} AND ${from + (1 << (SHIFTS[k]! - shift)) - 1}
            ${sameRun} ${and(countConditions(filter))}
          GROUP BY c.block ORDER BY c.block`,
    );
    const next = locate(blocks, found.within);
    if (!next) return null;
    found = { block: blocks[next.at]!.block, within: next.within };
  }
  return found;
}

function blockPage(db: ReadableDB, sort: BlockSort, filter: InstanceFilter, start: number, count: number, matching: number): number[] | null {
  const { run } = BLOCK_SORTS[sort];
  const coarse = coarseRuns(db, sort, filter);
  if (total(coarse) !== matching) return null;
  const found = locate(coarse, start);
  if (!found) return [];
  const here = coarse[found.at]!;
  const block = narrow(db, sort, filter, here, found.within);
  if (!block) return null;
  const page = walkRun(db, sort, filter, here, block.block << SHIFTS.at(-1)!, block.within, count);
  // A page may run on into the runs after this one.
  let last = here;
  for (const next of coarse.slice(found.at + 1)) {
    if (page.length >= count) break;
    if (run.every((c) => next[c] === last[c])) continue;
    page.push(...walkRun(db, sort, filter, next, 0, 0, count - page.length));
    last = next;
  }
  return page;
}

/** The ids of one run in id order from `fromId`, skipping `skip` of them. */
function walkRun(db: ReadableDB, sort: BlockSort, filter: InstanceFilter, at: Run, fromId: number, skip: number, count: number): number[] {
  const { index, run } = BLOCK_SORTS[sort];
  // The counts store a missing hop count as 0, the instances as NULL.
  const same = run.map((c) => (c === 'hops' && at.hops === 0 ? sql`i.hops IS NULL` : sql`i.${sql.id(instanceColumn(sort, c))} = ${at[c]}`));
  const hint = index ? sql`INDEXED BY ${sql.id(index)}` : sql.empty;
  return idsOf(
    all<{ id: number }>(
      db,
      sql`SELECT i.id FROM instances i ${hint} WHERE i.id >= ${fromId} ${and(same)} ${and(conditions(filter, undefined, true))}
          ORDER BY i.id LIMIT ${count} OFFSET ${skip}`,
    ),
  );
}

// ---- the topic sort ------------------------------------------------------------------------------

type Cell = { domain: string; ambiguity_type: string; status: string; dataset_id: number; hops: number; n: number };

/**
 * The matching cells in the topic sort's order, from `instance_counts` (a few hundred rows at
 * most), then the ids of the cell holding the position onwards, each cell's in id order. The
 * counts keep "no topic" as '' and no hop count as 0, which sort first as NULL does.
 */
function cellPage(db: ReadableDB, filter: InstanceFilter, start: number, count: number, matching: number): number[] | null {
  const cells = all<Cell>(
    db,
    sql`SELECT c.domain, c.ambiguity_type, c.status, c.dataset_id, c.hops, c.n FROM instance_counts c
        WHERE c.n > 0 ${and(countConditions(filter))} ORDER BY c.domain, c.ambiguity_type, c.status, c.dataset_id, c.hops`,
  );
  if (total(cells) !== matching) return null;
  const found = locate(cells, start);
  if (!found) return [];
  const page: number[] = [];
  for (let at = found.at, skip = found.within; at < cells.length && page.length < count; at++, skip = 0) {
    page.push(...cellIds(db, cells[at]!, skip, Math.min(count - page.length, cells[at]!.n - skip)));
  }
  return page;
}

/**
 * `take` ids of one cell in id order, after the first `skip`: walked from whichever end of the
 * cell is nearer, so that a page near a large cell's end (a descending page, most often) skips
 * the few entries after it rather than the many before it.
 */
function cellIds(db: ReadableDB, c: Cell, skip: number, take: number): number[] {
  const same = [
    c.domain === '' ? sql`i.domain IS NULL` : sql`i.domain = ${c.domain}`,
    sql`i.ambiguity_type = ${c.ambiguity_type} AND i.status = ${c.status} AND i.dataset_id = ${c.dataset_id}`,
    c.hops === 0 ? sql`i.hops IS NULL` : sql`i.hops = ${c.hops}`,
  ];
  const after = c.n - skip - take;
  const fromEnd = after < skip;
  const ids = idsOf(
    all<{ id: number }>(
      db,
      sql`SELECT i.id FROM instances i INDEXED BY instances_by_domain WHERE ${sql.join(same, sql` AND `)}
          ORDER BY i.id ${sql.keyword(fromEnd ? 'DESC' : 'ASC')} LIMIT ${take} OFFSET ${fromEnd ? after : skip}`,
    ),
  );
  return fromEnd ? ids.reverse() : ids;
}

// ---- fence sorts ---------------------------------------------------------------------------------

export type Fence = Record<string, SqlValue> & { bucket: number; n: number };

export const keyOf = (order: FenceOrder, fence: Fence) => order.keys.map((k) => fence[k]!);

/**
 * The fences of one level with their matching rows, in key order from `from` on (from the level's
 * start without it), or backwards from the level's end: read one at a time, so that a caller
 * that stops early reads no further (the count of each is a subquery run per fence read).
 */
function* fenceRows(db: ReadableDB, sort: FenceSort, filter: InstanceFilter, level: 0 | 1, how: { from?: Fence; backwards?: boolean } = {}): Generator<Fence> {
  const order = FENCES[sort];
  const keys = order.keys.map((k) => sql`f.${sql.id(k)}`);
  // A bound on (level, key...) as a row value, so that SQLite reads only that range of the key index.
  const from = how.from ? sql`(f.level, ${sql.join(keys)}) >= (${level}, ${sql.join(keyOf(order, how.from).map((v) => sql`${v}`))})` : sql`f.level >= ${level}`;
  const direction = sql.keyword(how.backwards ? 'DESC' : 'ASC');
  yield* iterate<Fence>(
    db,
    sql`SELECT f.bucket, ${sql.join(keys)},
               (SELECT coalesce(sum(c.n), 0) FROM instance_order_counts c WHERE c.sort = ${sort} AND c.bucket = f.bucket ${and(countConditions(filter))}) AS n
        FROM ${sql.id(order.table)} f WHERE ${from} AND f.level <= ${level}
        ORDER BY ${sql.join([sql`f.level`, ...keys].map((k) => sql`${k} ${direction}`))}`,
  );
}

/** The first fence (in the order read) whose running sum of rows passes `position`, and the position within it; reads no further. */
function fenceAt(rows: Iterable<Fence>, position: number): { fence: Fence; within: number } | null {
  let before = 0;
  for (const fence of rows) {
    if (before + fence.n > position) return { fence, within: position - before };
    before += fence.n;
  }
  return null;
}

/** The first fence of a level from `from` on. */
function firstFence(rows: Iterable<Fence>): Fence | undefined {
  for (const fence of rows) return fence;
  return undefined;
}

/**
 * Whether the coarse fences hold every row of the table, as the triggers keep them, and for the
 * question order its own table too: a database copied without its triggers and written since
 * fails this, and its pages are walked instead. (The check is on the table's rows, not per
 * filter: the fences are summed per filter only as far as the position, so that a page near
 * either end reads a fence or two, not all of them.)
 */
function fencesHoldEveryRow(db: ReadableDB, sort: FenceSort): boolean {
  const held = get<{ n: number }>(db, sql`SELECT coalesce(sum(f.size), 0) AS n FROM ${sql.id(FENCES[sort].table)} f WHERE f.level = 1`)!.n;
  const everything = get<{ n: number }>(db, sql`SELECT coalesce(sum(cells.n), 0) AS n FROM instance_counts cells`)!.n;
  return held === everything && (sort !== 'question' || get<{ n: number }>(db, sql`SELECT n FROM instance_question_order_rows`)?.n === everything);
}

/**
 * The matching rows in key order from a fence (the start, for a level's first fence), skipping
 * `skip`: their ids, or (`rows`) the list's rows themselves, read as the walk keeps them.
 */
function walkFrom(sort: FenceSort, filter: InstanceFilter, from: Fence | null, skip: number, count: number, how: { until?: Fence; rows?: boolean } = {}): SqlFragment {
  const order = FENCES[sort];
  const bounds = [
    ...(from && from.bucket > 1 ? [order.atOrAfter(keyOf(order, from))] : []),
    ...(how.until ? [order.before(keyOf(order, how.until))] : []),
  ];
  const rest = sql`WHERE true ${and(bounds)} ${and(conditions(filter, undefined, true, order.filtersOn))}
                   ORDER BY ${order.orderBy} LIMIT ${count} OFFSET ${skip}`;
  if (!how.rows) return sql`SELECT ${order.id} FROM ${order.from} ${rest}`;
  if ('ofPage' in order.rows) return order.rows.ofPage(sql`SELECT * FROM ${order.from} ${rest}`);
  return sql`SELECT ${order.rows.columns} FROM ${order.rows.from} ${rest}`;
}

/**
 * The coarse fence holding the position, summed from the nearer end of the order, then the fine
 * fences from it: the rows between the coarse fence and the first fine fence after it are
 * counted by walking (fewer than twice a fine fence's rows), the fine fences' counts take it from
 * there, and the page is walked from the fine fence holding the position.
 */
function fencePage(db: ReadableDB, sort: FenceSort, filter: InstanceFilter, start: number, count: number, matching: number): InstanceDbRow[] | null {
  if (start >= matching) return [];
  if (!fencesHoldEveryRow(db, sort)) return null;
  const backwards = start >= matching / 2;
  const found = fenceAt(fenceRows(db, sort, filter, 1, { backwards }), backwards ? matching - 1 - start : start);
  if (!found) return null;
  const here = found.fence;
  const within = backwards ? here.n - 1 - found.within : found.within;
  const page = (from: Fence | null, skip: number) => allRaw<InstanceDbRow>(db, walkFrom(sort, filter, from, skip, count, { rows: true }));
  const from = here.bucket > 1 ? here : undefined;
  const first = firstFence(fenceRows(db, sort, filter, 0, from ? { from } : {}));
  if (!first) return page(here, within);
  const head = get<{ n: number }>(db, sql`SELECT count(*) AS n FROM (${walkFrom(sort, filter, here, 0, -1, { until: first })})`)!.n;
  if (within < head) return page(here, within);
  const inFine = fenceAt(fenceRows(db, sort, filter, 0, { from: first }), within - head);
  if (!inFine) return null;
  return page(inFine.fence, inFine.within);
}

// ---- upkeep (the checks are in instances-order-checks.ts) ----------------------------------------

/** Rows per fence of each level before it splits (at twice this). Tests lower them to exercise splits on small tables. */
export function setFenceRows(db: WritableDB, fine: number, coarse: number): void {
  run(db, sql`UPDATE instance_order_settings SET fine_rows = ${fine}, coarse_rows = ${coarse}`);
}
