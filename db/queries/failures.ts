import { all, allRaw, get, iterate, run, sql, transaction, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

/** Failure inspection (migration 0010): the failure table of a run, failure tags, instance review flags. */

// ---- the failure table ----------------------------------------------------------------------------------

export const FAILURE_SORTS = ['position', 'str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'] as const;
export type FailureSort = (typeof FAILURE_SORTS)[number];
export type FailureMetric = Exclude<FailureSort, 'position'>;

const SORT_INDEX: Record<FailureSort, string> = {
  position: 'failures_by_position',
  str_em: 'failures_by_str_em',
  disambig_f1: 'failures_by_disambig',
  rouge_l: 'failures_by_rouge',
  judge_mean: 'failures_by_judge',
  latency_ms: 'failures_by_latency',
  cost_usd: 'failures_by_cost',
};

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

const SAMPLE = 1000;

/**
 * How a page is read, chosen on numbers as the instance table does: walk the sort index testing
 * the filters on its entries until the page is filled (cheap when many items match), or take the
 * matching items and sort them (cheap when few do). The share of items matching is measured on
 * the run's first 1,000 items (positions follow the source's order, not any metric).
 */
export function chooseFailurePlan(db: ReadableDB, runId: number, filter: FailureFilter, sort: FailureSort, wanted: number): 'walk-index' | 'filter-then-sort' {
  const list = conditions(runId, filter, sort);
  // Nothing to filter: walking the sort index reads exactly the page.
  if (list.length === 1) return 'walk-index';
  const valued = sort === 'position' ? sql`1` : sql`a.${sql.id(sort)} IS NOT NULL`;
  const tests = list.length > 1 ? sql.join(list.slice(1), sql` AND `) : sql`1`;
  const ofType = filter.type ? sql`a.ambiguity_type = ${filter.type}` : sql`1`;
  const ofStatus = filter.status ? sql`a.status = ${filter.status}` : sql`1`;
  const sample = get<{ n: number; matching: number; inType: number; inStatus: number; total: number }>(
    db,
    sql`SELECT count(*) AS n, coalesce(sum(CASE WHEN ${tests} AND ${valued} THEN 1 ELSE 0 END), 0) AS matching,
               coalesce(sum(CASE WHEN ${ofType} THEN 1 ELSE 0 END), 0) AS inType,
               coalesce(sum(CASE WHEN ${ofStatus} THEN 1 ELSE 0 END), 0) AS inStatus,
               (SELECT total FROM eval_runs WHERE id = ${runId}) AS total
        FROM eval_items a INDEXED BY failures_by_position WHERE a.run_id = ${runId} AND a.position < ${SAMPLE}`,
  )!;
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
  /** Tests: one plan or the other, to check that both give the same page. */
  plan: 'walk-index' | 'filter-then-sort' = chooseFailurePlan(db, runId, filter, sort, offset + limit),
): number[] {
  const dir = sql.keyword(direction === 'desc' ? 'DESC' : 'ASC');
  if (plan === 'filter-then-sort') {
    const list = conditions(runId, filter, sort, false);
    const order = sort === 'position' ? sql`+a.position ${dir}` : sql`+a.${sql.id(sort)} IS NULL, +a.${sql.id(sort)} ${dir}, +a.position ${dir}`;
    return all<{ id: number }>(db, sql`SELECT a.id FROM eval_items a WHERE ${sql.join(list, sql` AND `)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`).map((r) => r.id);
  }
  const index = sql.id(walkIndex(sort, filter));
  const list = conditions(runId, filter, sort);
  if (sort === 'position') {
    return all<{ id: number }>(db, sql`SELECT a.id FROM eval_items a INDEXED BY ${index} WHERE ${sql.join(list, sql` AND `)} ORDER BY a.position ${dir} LIMIT ${limit} OFFSET ${offset}`).map((r) => r.id);
  }
  const column = sql`a.${sql.id(sort)}`;
  const valued = all<{ id: number }>(
    db,
    sql`SELECT a.id FROM eval_items a INDEXED BY ${index} WHERE ${sql.join([...list, sql`${column} IS NOT NULL`], sql` AND `)}
        ORDER BY ${column} ${dir}, a.position ${dir} LIMIT ${limit} OFFSET ${offset}`,
  ).map((r) => r.id);
  if (valued.length === limit) return valued;
  // The page runs past the items with a value: continue with those without one.
  const before = valued.length > 0 ? 0 : Math.max(0, offset - countWhere(db, [...list, sql`${column} IS NOT NULL`], index));
  const rest = all<{ id: number }>(
    db,
    sql`SELECT a.id FROM eval_items a INDEXED BY ${index} WHERE ${sql.join([...list, sql`${column} IS NULL`], sql` AND `)}
        ORDER BY a.position ${dir} LIMIT ${limit - valued.length} OFFSET ${before}`,
  ).map((r) => r.id);
  return [...valued, ...rest];
}

function countWhere(db: ReadableDB, list: SqlFragment[], index: SqlFragment): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM eval_items a INDEXED BY ${index} WHERE ${sql.join(list, sql` AND `)}`)!.n;
}

/** Items matching a filter, counted on whichever index SQLite finds narrowest for it. */
export function countFailures(db: ReadableDB, runId: number, filter: FailureFilter): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM eval_items a WHERE ${sql.join(conditions(runId, filter, 'position', false), sql` AND `)}`)!.n;
}

export interface FailureRowDb {
  id: number;
  run_id: number;
  position: number;
  key: string;
  instance_id: number | null;
  ambiguity_type: string;
  question: string;
  status: 'pending' | 'done' | 'failed';
  long_answer: string | null;
  str_em: number | null;
  disambig_f1: number | null;
  rouge_l: number | null;
  judge_mean: number | null;
  collapsed: number | null;
  retrieval_miss: number | null;
  latency_ms: number | null;
  cost_usd: number;
  error: string | null;
  tags: string | null;
}

/**
 * The rows of some items with their current tag keys, in the order of `ids`. Read as arrays and
 * the tags in a second query: a page of 100 costs a third of one query of objects with a tag
 * subquery per row.
 */
export function failureRows(db: ReadableDB, ids: readonly number[]): FailureRowDb[] {
  if (ids.length === 0) return [];
  type Raw = [number, number, number, string, number | null, string, string, FailureRowDb['status'], string | null, number | null, number | null, number | null, number | null, number | null, number | null, number | null, number, string | null];
  const list = sql.list([...ids]);
  const tags = new Map(
    allRaw<[number, string]>(
      db,
      sql`SELECT t.item_id, group_concat(f.key, ',') FROM eval_item_tags t JOIN failure_tags f ON f.id = t.tag_id
          WHERE t.item_id IN ${list} AND t.removed_at IS NULL GROUP BY t.item_id`,
    ),
  );
  const rows = allRaw<Raw>(
    db,
    sql`SELECT a.id, a.run_id, a.position, a.key, a.instance_id, a.ambiguity_type, a.question, a.status, substr(a.long_answer, 1, 300),
               a.str_em, a.disambig_f1, a.rouge_l, a.judge_mean, a.collapsed, a.retrieval_miss, a.latency_ms, a.cost_usd, a.error
        FROM eval_items a WHERE a.id IN ${list}`,
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

// ---- tags ----------------------------------------------------------------------------------------------

export interface FailureTagRow {
  id: number;
  key: string;
  label: string;
  description: string;
  built_in: number;
  created_by: string;
  created_at: string;
}

export function listFailureTags(db: ReadableDB): FailureTagRow[] {
  return all<FailureTagRow>(db, sql`SELECT * FROM failure_tags ORDER BY built_in DESC, id`);
}

export function findFailureTag(db: ReadableDB, key: string): FailureTagRow | undefined {
  return get<FailureTagRow>(db, sql`SELECT * FROM failure_tags WHERE key = ${key}`);
}

export function insertFailureTag(db: WritableDB, t: { key: string; label: string; description: string; who: string }): number {
  return get<{ id: number }>(db, sql`INSERT INTO failure_tags (key, label, description, created_by) VALUES (${t.key}, ${t.label}, ${t.description}, ${t.who}) RETURNING id`)!.id;
}

export interface ItemTagRow {
  id: number;
  key: string;
  label: string;
  source: 'rule' | 'person';
  who: string;
  note: string;
  created_at: string;
  removed_by: string | null;
  removed_at: string | null;
}

/** Every tag an item has had, current ones first, newest first. */
export function itemTagHistory(db: ReadableDB, itemId: number): ItemTagRow[] {
  return all<ItemTagRow>(
    db,
    sql`SELECT t.id, f.key, f.label, t.source, t.who, t.note, t.created_at, t.removed_by, t.removed_at
        FROM eval_item_tags t JOIN failure_tags f ON f.id = t.tag_id WHERE t.item_id = ${itemId}
        ORDER BY t.removed_at IS NOT NULL, t.id DESC`,
  );
}

/** Tags an item; false when it already carries the tag. */
export function addItemTag(db: WritableDB, itemId: number, tagId: number, source: 'rule' | 'person', who: string, note: string): boolean {
  const result = run(
    db,
    sql`INSERT INTO eval_item_tags (item_id, tag_id, source, who, note) VALUES (${itemId}, ${tagId}, ${source}, ${who}, ${note})
        ON CONFLICT (item_id, tag_id) WHERE removed_at IS NULL DO NOTHING`,
  );
  return result.changes > 0;
}

/** Takes a tag off an item, keeping the row with who took it off; false when it was not on. */
export function removeItemTag(db: WritableDB, itemId: number, tagId: number, who: string): boolean {
  const result = run(
    db,
    sql`UPDATE eval_item_tags SET removed_by = ${who}, removed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        WHERE item_id = ${itemId} AND tag_id = ${tagId} AND removed_at IS NULL`,
  );
  return result.changes > 0;
}

/**
 * Rule tags for a whole run, in one statement per rule: items the rule matches that never had
 * the tag (a tag a person took off is not put back).
 */
export function applyFlagRule(db: WritableDB, runId: number, tagId: number, column: 'collapsed' | 'retrieval_miss', who: string): number {
  return run(
    db,
    sql`INSERT INTO eval_item_tags (item_id, tag_id, source, who)
        SELECT a.id, ${tagId}, 'rule', ${who} FROM eval_items a
        WHERE a.run_id = ${runId} AND a.${sql.id(column)} = 1
          AND NOT EXISTS (SELECT 1 FROM eval_item_tags t WHERE t.item_id = a.id AND t.tag_id = ${tagId})`,
  ).changes;
}

/** Items a text rule looks at: failed ones with their reason, and done ones with their answer. */
export function* itemsForTextRules(db: ReadableDB, runId: number): Generator<{ id: number; status: string; error: string | null; long_answer: string | null }> {
  yield* iterate(db, sql`SELECT id, status, error, substr(long_answer, 1, 400) AS long_answer FROM eval_items WHERE run_id = ${runId} AND status <> 'pending'`);
}

export function applyItemRule(db: WritableDB, itemIds: readonly number[], tagId: number, who: string, note: (id: number) => string): number {
  return transaction(db, () => {
    let added = 0;
    for (const itemId of itemIds) {
      added += run(
        db,
        sql`INSERT INTO eval_item_tags (item_id, tag_id, source, who, note)
            SELECT ${itemId}, ${tagId}, 'rule', ${who}, ${note(itemId)}
            WHERE NOT EXISTS (SELECT 1 FROM eval_item_tags t WHERE t.item_id = ${itemId} AND t.tag_id = ${tagId})`,
      ).changes;
    }
    return added;
  });
}

/** Current tags counted per tag × run (method, model) × ambiguity type. */
export function tagCounts(db: ReadableDB, runIds: readonly number[]): { tag: string; label: string; run_id: number; method: string; model: string; ambiguity_type: string; n: number }[] {
  const scope = runIds.length ? sql`AND a.run_id IN ${sql.list([...runIds])}` : sql.empty;
  return all(
    db,
    sql`SELECT f.key AS tag, f.label, a.run_id, r.method, r.model, a.ambiguity_type, count(*) AS n
        FROM eval_item_tags t JOIN failure_tags f ON f.id = t.tag_id JOIN eval_items a ON a.id = t.item_id JOIN eval_runs r ON r.id = a.run_id
        WHERE t.removed_at IS NULL ${scope}
        GROUP BY f.key, a.run_id, a.ambiguity_type ORDER BY f.id, a.run_id, a.ambiguity_type`,
  );
}

/** Every tag row of a run (history included), for the CSV export. */
export function runTagRows(db: ReadableDB, runId: number): { item_id: number; key: string; position: number; ambiguity_type: string; tag: string; source: string; who: string; note: string; created_at: string; removed_by: string | null; removed_at: string | null }[] {
  return all(
    db,
    sql`SELECT a.id AS item_id, a.key, a.position, a.ambiguity_type, f.key AS tag, t.source, t.who, t.note, t.created_at, t.removed_by, t.removed_at
        FROM eval_item_tags t JOIN eval_items a ON a.id = t.item_id JOIN failure_tags f ON f.id = t.tag_id
        WHERE a.run_id = ${runId} ORDER BY a.position, t.id`,
  );
}

// ---- instance review flags ---------------------------------------------------------------------------------

export interface InstanceFlagRow {
  id: number;
  instance_id: number;
  reason: string;
  who: string;
  eval_item_id: number | null;
  created_at: string;
  resolved_by: string | null;
  resolved_at: string | null;
}

export function insertInstanceFlag(db: WritableDB, f: { instanceId: number; reason: string; who: string; evalItemId: number | null }): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO instance_flags (instance_id, reason, who, eval_item_id) VALUES (${f.instanceId}, ${f.reason}, ${f.who}, ${f.evalItemId}) RETURNING id`,
  )!.id;
}

export function resolveInstanceFlags(db: WritableDB, instanceId: number, who: string): number {
  return run(db, sql`UPDATE instance_flags SET resolved_by = ${who}, resolved_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE instance_id = ${instanceId} AND resolved_at IS NULL`).changes;
}

export function instanceFlags(db: ReadableDB, instanceId: number): InstanceFlagRow[] {
  return all<InstanceFlagRow>(db, sql`SELECT * FROM instance_flags WHERE instance_id = ${instanceId} ORDER BY id DESC`);
}

/** Instances with a flag not yet resolved. */
export function flaggedInstanceIds(db: ReadableDB): number[] {
  return all<{ instance_id: number }>(db, sql`SELECT DISTINCT instance_id FROM instance_flags WHERE resolved_at IS NULL ORDER BY instance_id`).map((r) => r.instance_id);
}

// ---- judge validation ----------------------------------------------------------------------------------------

/** A run's finished items that point at an instance, with their metrics (judge scores among them). */
export function runItemsWithInstances(db: ReadableDB, runId: number): { id: number; instance_id: number; status: string; long_answer: string | null; metrics: string }[] {
  return all(db, sql`SELECT id, instance_id, status, long_answer, metrics FROM eval_items WHERE run_id = ${runId} AND instance_id IS NOT NULL ORDER BY position`);
}

export function evalItemForInstance(db: ReadableDB, runId: number, instanceId: number): { id: number; long_answer: string | null; question: string } | undefined {
  return get(db, sql`SELECT id, long_answer, question FROM eval_items WHERE run_id = ${runId} AND instance_id = ${instanceId} ORDER BY position LIMIT 1`);
}
