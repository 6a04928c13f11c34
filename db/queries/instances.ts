import type { InstanceFilter, InstancePagePlan, InstanceQuery, InstanceRow } from '../../shared/api';
import type { AmbiguityType, Answerability, ConstructionMode, Domain, InstanceStage, InstanceStatus } from '../../shared/domain';
import { toFtsQuery } from '../../shared/search';
import { all, allRaw, get, run, sql, withBusyTimeout, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';
import { conditions, countConditions, EVERYTHING, hasSearch, where } from './instances-filters';
import { ascendingPage, BLOCK_SORTS, instanceColumn, placeable } from './instances-order';
import { type InstanceDbRow, ROW_COLUMNS, rowToInstance } from './instances-rows';
import { type OrderedQuery, searchPageIdsQuery, sortedSearchPage } from './instances-search';

export interface NewInstance {
  baseQuestionId: number;
  datasetId: number;
  ambiguityType: AmbiguityType;
  status: InstanceStatus;
  stage: InstanceStage;
  removedStage: string | null;
  removedReason: string | null;
  hops: number | null;
  interpretationCount: number;
  extra: Record<string, unknown>;
  answerability?: { label: Answerability; provenanceId: number | null } | null;
  domain?: { domain: Domain; provenanceId: number | null } | null;
  construction?: ConstructionMode | null;
}

export function findInstanceId(db: ReadableDB, baseQuestionId: number, type: AmbiguityType): number | undefined {
  return get<{ id: number }>(
    db,
    sql`SELECT id FROM instances WHERE base_question_id = ${baseQuestionId} AND ambiguity_type = ${type}`,
  )?.id;
}

export function insertInstance(db: WritableDB, instance: NewInstance): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage, removed_stage,
                               removed_reason, hops, interpretation_count, extra, answerability, answerability_provenance_id,
                               domain, domain_provenance_id, construction)
        VALUES (${instance.baseQuestionId}, ${instance.datasetId}, ${instance.ambiguityType}, ${instance.status},
                ${instance.stage}, ${instance.removedStage}, ${instance.removedReason}, ${instance.hops},
                ${instance.interpretationCount}, ${JSON.stringify(instance.extra)}, ${instance.answerability?.label ?? null},
                ${instance.answerability?.provenanceId ?? null}, ${instance.domain?.domain ?? null}, ${instance.domain?.provenanceId ?? null},
                ${instance.construction ?? null})
        RETURNING id`,
  )!.id;
}

/**
 * The text the instance search finds an instance by, from the rows themselves: the base
 * question; then, for every active interpretation in order, its clarified question, condition,
 * short answer and the answer's aliases; then the long answers; each interpretation and long
 * answer on a line of its own. Migration 0006 filled the table with the same text, from its own
 * frozen copy of this query.
 */
const SEARCH_ROW = sql`SELECT i.id, b.question,
         concat_ws(char(10),
           (SELECT group_concat(concat_ws(' ', n.clarified_question, n.condition, n.short_answer,
                                          (SELECT group_concat(a.value, ' ') FROM json_each(n.answer_aliases) a)),
                                char(10) ORDER BY n.position)
            FROM interpretations n WHERE n.instance_id = i.id AND n.status = 'active'),
           (SELECT group_concat(l.text, char(10) ORDER BY l.position) FROM long_answers l WHERE l.instance_id = i.id)) AS interpretations
       FROM instances i JOIN base_questions b ON b.id = i.base_question_id`;

/**
 * Rewrites the full-text row of an instance from what the database holds now (and removes it
 * when the instance is gone). The one writer of `instances_fts`: import and every pipeline stage
 * that changes an instance's text come through here, so an instance is found by the same words
 * whichever path wrote it last. (Deleting an instance also deletes its row, by trigger.)
 */
export function writeInstanceSearchRow(db: WritableDB, instanceId: number): void {
  run(db, sql`DELETE FROM instances_fts WHERE rowid = ${instanceId}`);
  run(db, sql`INSERT INTO instances_fts (rowid, question, interpretations) ${SEARCH_ROW} WHERE i.id = ${instanceId}`);
}

/**
 * Merges the instance search index into one segment, a step of about `pages` pages at a time
 * (FTS5's incremental optimize: a `merge` with a negative budget starts it, positive ones carry
 * it on, and one that changes fewer than two rows has found nothing left). Bulk writers (a
 * pipeline run, an import) call it when they finish: rewritten rows leave many small segments and
 * tombstones behind, and a search sorted by a column looks each row it tests up in every segment
 * (at 1,000,000 instances, 20,000 rows rewritten in small commits made those pages 5-10 times
 * slower). Each step commits on its own; the caller yields between steps. On an index that is
 * already one segment the first step does nothing and ends it.
 *
 * It runs after the writer's own commit, so it is best-effort, as `optimize` is: a step never
 * waits for another writer's lock or joins another write's open transaction, and a step that
 * fails (the lock held, the disk full) ends the merge quietly, leaving a valid index for the next
 * bulk writer to merge. Returns the steps that ran.
 */
export function* mergeInstanceSearchIndex(db: WritableDB, pages = 500): Generator<void, number> {
  const changes = () => get<{ n: number }>(db, sql`SELECT total_changes() AS n`)!.n;
  let steps = 0;
  for (let budget = -pages; ; budget = pages) {
    if (db.inTransaction) return steps;
    const before = changes();
    try {
      withBusyTimeout(db, 0, () => run(db, sql`INSERT INTO instances_fts (instances_fts, rank) VALUES ('merge', ${budget})`));
    } catch {
      return steps;
    }
    steps++;
    if (changes() - before < 2) return steps;
    yield;
  }
}

/** How many instances match: from the counts table, unless a search is part of the filter. */
export function countInstances(db: ReadableDB, filter: InstanceFilter): number {
  if (hasSearch(filter)) return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM instances i ${where(conditions(filter))}`)!.n;
  return get<{ n: number }>(db, sql`SELECT coalesce(sum(n), 0) AS n FROM instance_counts c ${where(countConditions(filter))}`)!.n;
}

/**
 * How a page of the table is read. Each sortable column has an index that starts with it and
 * carries the four filter columns, so there are three ways to a page:
 *
 * - walk the sort index in order, testing the filters on the index entries, until the page is
 *   filled: cheap when many rows match and the offset is small, whatever the table's size;
 * - take the matching rows through the filters and sort them: cheap when few rows match;
 * - find the page's first row from the order counts (db/queries/instances-order.ts), then walk
 *   from there: about the same cost at any offset, so it takes over from the first way once the
 *   offset is deep.
 *
 * The exact number of matching rows comes from the counts table, so the choice is made on
 * numbers rather than left to the planner, which would always take the second way.
 */
const SORT_INDEX: Partial<Record<InstanceQuery['sort'], { index: string; order: SqlFragment[] }>> = Object.fromEntries([
  ...Object.entries(BLOCK_SORTS)
    .filter(([, s]) => s.index)
    .map(([sort, s]) => [sort, { index: s.index!, order: s.run.map((c) => sql`i.${sql.id(instanceColumn(sort as keyof typeof BLOCK_SORTS, c))}`) }]),
  ['domain', { index: 'instances_by_domain', order: [sql`i.domain`, sql`i.ambiguity_type`, sql`i.status`, sql`i.dataset_id`, sql`i.hops`] }],
  ['updated_at', { index: 'instances_by_updated', order: [sql`i.updated_at`, sql`i.ambiguity_type`, sql`i.status`, sql`i.dataset_id`, sql`i.hops`] }],
]);

export type PagePlan = InstancePagePlan;
/** The plans whose whole page is one query (`pageIdsQuery`). */
export type QueryPlan = Exclude<PagePlan, 'position' | 'search-walk'>;

/**
 * Costs in rough microseconds, measured on the bench machine (a walk in base question order
 * joins each question's instances, hence its higher cost per row). Without filters a walk reads
 * exactly offset + limit index entries; with them it may read any number (a filter on a column
 * the order groups by, or one that follows the order, skips whole stretches before the first
 * match), so a filtered page is found through the counts unless so few rows match that sorting
 * them is cheaper.
 */
export function choosePlan(query: InstanceQuery, matching: number, total: number): PagePlan {
  if (hasSearch(query)) return 'search';
  if (matching === 0 || total === 0) return 'filter-then-sort';
  const perRow = query.sort === 'question' || query.sort === 'source_id' ? 0.7 : 0.15;
  const walkCost = matching === total ? (query.offset + query.limit) * perRow : Infinity;
  const sortCost = matching * 0.6 + matching * Math.log2(matching + 1) * 0.02;
  const best = Math.min(walkCost, sortCost, placeable(query) ? POSITION_COST : Infinity);
  return best === walkCost ? 'walk-index' : best === sortCost ? 'filter-then-sort' : 'position';
}

/** The order counts' cost: reading them, and walking up to two fences of rows. */
const POSITION_COST = 1000;

/** The query for the ids of one page, in order, the whole way (with OFFSET). */
export function pageIdsQuery(query: InstanceQuery, plan: QueryPlan): SqlFragment {
  const page = sql`LIMIT ${query.limit} OFFSET ${query.offset}`;
  const fts = toFtsQuery(query.search, { prefixLast: true });
  const search = plan === 'search' && fts ? searchPageIdsQuery(query, fts) : null;
  if (search) return search;
  const walk = plan === 'walk-index';
  return orderedQuery(query, { walk, list: conditions(query, undefined, walk), select: sql`i.id`, page });
}

/**
 * Rows in the query's order: `select` of the rows `list` keeps, `page` of them; with `walk`, along
 * the sort's own index (its filters tested on the entries as they come).
 */
export const orderedQuery: OrderedQuery = (query, { walk, list, select, page, matches }) => {
  const direction = sql.keyword(query.direction === 'desc' ? 'DESC' : 'ASC');
  const by = (terms: SqlFragment[]) => sql.join(terms.map((t) => sql`${t} ${direction}`));
  // With `matches`, a search's matches come first (CROSS JOIN keeps that order), then their rows.
  const searched = matches ? sql`instances_fts f CROSS JOIN instances i ON i.id = f.rowid` : null;
  if (query.sort === 'question' || query.sort === 'source_id') {
    // Sorted by a base question column: walk that column's index on base_questions.
    const column = query.sort === 'question' ? sql`b.question` : sql`b.source_id`;
    const order = by([column, sql`b.id`, sql`i.id`]);
    const index = query.sort === 'question' ? sql`base_questions_question` : sql`base_questions_source`;
    const hint = walk ? sql`INDEXED BY ${index}` : sql.empty;
    const from = searched ? sql`${searched} CROSS JOIN base_questions b ON b.id = i.base_question_id` : sql`base_questions b ${hint} JOIN instances i ON i.base_question_id = b.id`;
    return sql`SELECT ${select} FROM ${from} ${where(list)} ORDER BY ${order} ${page}`;
  }
  if (query.sort === 'id' || query.sort === 'relevance') {
    return sql`SELECT ${select} FROM instances i ${where(list)} ORDER BY i.id ${direction} ${page}`;
  }
  const sort = SORT_INDEX[query.sort]!;
  const order = by([...sort.order, sql`i.id`]);
  const hint = walk ? sql`INDEXED BY ${sql.id(sort.index)}` : sql.empty;
  return sql`SELECT ${select} FROM ${searched ?? sql`instances i ${hint}`} ${where(list)} ORDER BY ${order} ${page}`;
};

/**
 * One page through the order counts: the ascending rows the page covers, read from the other end
 * for a descending page; its ids, and its rows when the way there read them. Null when the
 * counts disagree with the table's.
 */
export function positionPage(db: ReadableDB, query: InstanceQuery, matching: number): { ids: number[]; rows: InstanceDbRow[] | null } | null {
  const descending = query.direction === 'desc';
  const end = descending ? matching - query.offset : query.offset + query.limit;
  const start = descending ? Math.max(0, end - query.limit) : query.offset;
  if (end <= start) return { ids: [], rows: null };
  const page = ascendingPage(db, query.sort, query, start, Math.min(end, matching) - start, matching);
  if (page && descending) {
    page.ids.reverse();
    page.rows?.reverse();
  }
  return page;
}

/** The ids of one page through the order counts (see `positionPage`). */
export const positionPageIds = (db: ReadableDB, query: InstanceQuery, matching: number): number[] | null => positionPage(db, query, matching)?.ids ?? null;

const SELECT_ROWS = sql`SELECT ${ROW_COLUMNS} FROM instances i JOIN base_questions b ON b.id = i.base_question_id`;

/** The rows of the given instances, in the order given. */
function rowsInOrder(db: ReadableDB, ids: readonly number[]): InstanceDbRow[] {
  if (ids.length === 0) return [];
  const rows = new Map(allRaw<InstanceDbRow>(db, sql`${SELECT_ROWS} WHERE i.id IN ${sql.list(ids)}`).map((row) => [row[0], row]));
  return ids.map((id) => rows.get(id)!);
}

export interface InstancePage {
  rows: InstanceRow[];
  /** How the page was found, and why the fast way was not taken when it was chosen and could not be. */
  plan: PagePlan;
  fallback?: string;
}

/**
 * One page of the instance table: filtering, sorting and paging all happen in SQL, in one read
 * transaction (the counts that choose the plan and place the page agree with the rows read).
 */
export function readInstancePage(db: ReadableDB, query: InstanceQuery): InstancePage {
  return db.transaction(() => {
    const matching = hasSearch(query) ? 0 : countInstances(db, query);
    let plan = hasSearch(query) ? 'search' : choosePlan(query, matching, countInstances(db, EVERYTHING));
    let fallback: string | undefined;
    const placed = plan === 'position' ? positionPage(db, query, matching) : null;
    if (plan === 'position' && placed === null) {
      fallback = 'the order counts disagree with the instance counts, so the page was walked to instead';
      plan = 'walk-index';
    }
    const searched = plan === 'search' && sortedByColumn(query) ? sortedSearchPage(db, query, orderedQuery, searchCounts(db, query)) : null;
    if (searched?.walked) plan = 'search-walk';
    const ids = placed?.ids ?? searched?.ids ?? all<{ id: number }>(db, pageIdsQuery(query, plan as QueryPlan)).map((r) => r.id);
    const rows = placed?.rows ?? rowsInOrder(db, ids);
    return { rows: rows.map(rowToInstance), plan, ...(fallback ? { fallback } : {}) };
  })();
}

/** A sort by a column, which the full-text index does not give in its own order (see `searchPageIdsQuery`). */
const sortedByColumn = (query: InstanceQuery) => query.sort !== 'id' && query.sort !== 'relevance';

/** How many rows the filters other than the search keep, and how many there are. */
const searchCounts = (db: ReadableDB, query: InstanceQuery) => ({
  filtered: countInstances(db, { ...query, search: '' }),
  total: countInstances(db, EVERYTHING),
});

/** One page of the instance table. */
export function listInstances(db: ReadableDB, query: InstanceQuery): InstanceRow[] {
  return readInstancePage(db, query).rows;
}

/** Every instance matching a filter, with its type, in id order (for sampling). */
export function instanceIdsMatching(db: ReadableDB, filter: InstanceFilter): { id: number; ambiguity_type: AmbiguityType }[] {
  return all(db, sql`SELECT i.id, i.ambiguity_type FROM instances i ${where(conditions(filter))} ORDER BY i.id`);
}

export interface InstanceFull {
  id: number;
  base_question_id: number;
  dataset_id: number;
  ambiguity_type: AmbiguityType;
  status: InstanceStatus;
  stage: InstanceStage;
  removed_stage: string | null;
  removed_reason: string | null;
  hops: number | null;
  interpretation_count: number;
  extra: string;
  created_at: string;
  updated_at: string;
}

/** The type of each given instance that exists, in id order. */
export function instanceTypesByIds(db: ReadableDB, ids: readonly number[]): { id: number; ambiguity_type: AmbiguityType }[] {
  return all(db, sql`SELECT id, ambiguity_type FROM instances WHERE id IN ${sql.list(ids)} ORDER BY id`);
}

/** The instances of one base question, in id order. */
export function instancesOfBaseQuestion(db: ReadableDB, baseQuestionId: number): { id: number; ambiguity_type: AmbiguityType; status: InstanceStatus }[] {
  return all(db, sql`SELECT id, ambiguity_type, status FROM instances WHERE base_question_id = ${baseQuestionId} ORDER BY id`);
}

export function getInstance(db: ReadableDB, id: number): InstanceFull | undefined {
  return get<InstanceFull>(db, sql`SELECT * FROM instances WHERE id = ${id}`);
}

/** Instance ids in export order (dataset, base question, type), optionally for some datasets. */
export function instanceIdsForExport(db: ReadableDB, datasetIds: readonly number[]): { id: number; base_question_id: number }[] {
  const scope = datasetIds.length ? sql`WHERE i.dataset_id IN ${sql.list(datasetIds)}` : sql.empty;
  return all(db, sql`SELECT i.id, i.base_question_id FROM instances i ${scope} ORDER BY i.base_question_id, i.ambiguity_type`);
}

export function countInstancesBy(db: ReadableDB, column: 'ambiguity_type' | 'status'): Record<string, number> {
  const rows = all<{ value: string; n: number }>(
    db,
    sql`SELECT ${sql.id(column)} AS value, count(*) AS n FROM instances GROUP BY ${sql.id(column)}`,
  );
  return Object.fromEntries(rows.map((r) => [r.value, r.n]));
}

// ---- the pipeline's view -----------------------------------------------------------------------

const now = sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

export function setInstanceStage(db: WritableDB, id: number, stage: string): void {
  run(db, sql`UPDATE instances SET stage = ${stage}, updated_at = ${now} WHERE id = ${id}`);
}

export function removeInstance(db: WritableDB, id: number, stage: string, reason: string): void {
  run(db, sql`UPDATE instances SET status = 'removed', stage = ${stage}, removed_stage = ${stage}, removed_reason = ${reason}, updated_at = ${now} WHERE id = ${id}`);
}

export function readyInstance(db: WritableDB, id: number): void {
  run(db, sql`UPDATE instances SET status = 'ready', stage = 'filter', updated_at = ${now} WHERE id = ${id}`);
}

/** A construction instance still rejected after its last round: removed, with the last feedback. */
export function removeConstructed(db: WritableDB, id: number, reason: string): void {
  run(db, sql`UPDATE instances SET status = 'removed', removed_stage = 'round', removed_reason = ${reason}, updated_at = ${now} WHERE id = ${id}`);
}

/** A construction instance whose round was accepted: ready, at the stage it was made at. */
export function acceptInstance(db: WritableDB, id: number): void {
  run(db, sql`UPDATE instances SET status = 'ready', updated_at = ${now} WHERE id = ${id}`);
}

// ---- labels: answerability (URASys) and domain (MARCH Table 7) ----------------------------------

export function setInstanceAnswerability(db: WritableDB, id: number, label: Answerability | null, provenanceId: number | null): void {
  run(db, sql`UPDATE instances SET answerability = ${label}, answerability_provenance_id = ${label === null ? null : provenanceId}, updated_at = ${now} WHERE id = ${id}`);
}

/** One instance's domain, or (with `baseQuestionId`) every instance of a base question's. */
export function setInstanceDomain(db: WritableDB, target: { id: number } | { baseQuestionId: number }, domain: Domain | null, provenanceId: number | null): number {
  const scope = 'id' in target ? sql`id = ${target.id}` : sql`base_question_id = ${target.baseQuestionId}`;
  return run(db, sql`UPDATE instances SET domain = ${domain}, domain_provenance_id = ${domain === null ? null : provenanceId}, updated_at = ${now} WHERE ${scope}`).changes;
}

/** Recounts the active interpretations of an instance and rewrites its search row. */
export function refreshInstanceText(db: WritableDB, instanceId: number): void {
  run(
    db,
    sql`UPDATE instances SET interpretation_count = (SELECT count(*) FROM interpretations WHERE instance_id = ${instanceId} AND status = 'active')
        WHERE id = ${instanceId}`,
  );
  writeInstanceSearchRow(db, instanceId);
}

type WaitingInstance = { id: number; base_question_id: number; ambiguity_type: AmbiguityType; question: string };

/** Instances waiting for a stage: still building, the previous stage done, this one not. */
/**
 * Instances waiting for `stage`: still being built, with every instance stage before it in the
 * run's order done (`before`; none: just detected), and this one not. Whichever order made them,
 * an instance goes on where it is (merge after collisions or before them).
 */
export function instancesWaiting(db: ReadableDB, before: readonly string[], stage: string, datasetIds: readonly number[], limit: number, chosen: readonly number[] | null = null): WaitingInstance[] {
  if (chosen?.length === 0) return [];
  const scope = datasetIds.length ? sql`AND i.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  // The subset travels as one JSON parameter: any size, no limit on bound variables.
  const subset = chosen ? sql`AND i.base_question_id IN (SELECT value FROM json_each(${JSON.stringify(chosen)}))` : sql.empty;
  const rows = all<WaitingInstance>(
    db,
    sql`SELECT i.id, i.base_question_id, i.ambiguity_type, b.question FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.status = 'building' ${scope} ${subset}
          AND ${before.length ? sql`(SELECT count(*) FROM pipeline_items p WHERE p.item = 'inst:' || i.id AND p.status = 'done' AND p.stage IN ${sql.list([...before])}) = ${before.length}` : sql`i.stage = 'detect'`}
          AND NOT EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = ${stage} AND p.item = 'inst:' || i.id AND p.status = 'done')
        ORDER BY i.id ${chosen ? sql.empty : sql`LIMIT ${limit}`}`,
  );
  if (!chosen) return rows;
  // In the subset's order: its questions, then each question's instances by type order of creation.
  const order = new Map(chosen.map((id, i) => [id, i]));
  return rows.sort((a, b) => order.get(a.base_question_id)! - order.get(b.base_question_id)! || a.id - b.id);
}

/**
 * Instances of detected questions counted per type, stage and status, with mean hops and words: the
 * funnel's later steps. `shortened` and `collided` say whether those stages are done for them (with
 * merge after them, an instance at stage merge has passed both). The first EXISTS is constant, so
 * SQLite tests it once before the scan: a database no pipeline has voted in (instances imported
 * as they are) answers at once instead of reading every instance.
 */
export function instanceFunnelRows(
  db: ReadableDB,
  datasetIds: readonly number[],
): { ambiguity_type: string; stage: string; status: string; removed_stage: string | null; shortened: number; collided: number; n: number; hops: number | null; words: number | null }[] {
  const scope = datasetIds.length ? sql`AND i.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  const done = (stage: string) => sql`EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = ${stage} AND p.item = 'inst:' || i.id AND p.status = 'done')`;
  return all(
    db,
    sql`SELECT i.ambiguity_type, i.stage, i.status, i.removed_stage, ${done('shorten')} AS shortened, ${done('collide')} AS collided, count(*) AS n,
               avg(b.hops) AS hops, avg(length(trim(b.question)) - length(replace(trim(b.question), ' ', '')) + 1) AS words
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.ambiguity_type <> 'unspecified'
          AND EXISTS (SELECT 1 FROM detection_votes)
          AND EXISTS (SELECT 1 FROM detection_votes v WHERE v.base_question_id = i.base_question_id) ${scope}
        GROUP BY i.ambiguity_type, i.stage, i.status, i.removed_stage, shortened, collided`,
  );
}

/** The instances of a dataset an evaluation can use: not removed, with at least one active interpretation. */
export function datasetInstanceIds(db: ReadableDB, datasetId: number): { id: number; source_id: string; ambiguity_type: string }[] {
  return all(
    db,
    sql`SELECT i.id, b.source_id, i.ambiguity_type FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.dataset_id = ${datasetId} AND i.status <> 'removed'
          AND EXISTS (SELECT 1 FROM interpretations p WHERE p.instance_id = i.id AND p.status = 'active')
        ORDER BY b.source_id, i.ambiguity_type`,
  );
}

// ---- for sync with the shared store: in instances-keys.ts (reads only) ---------------------------

export { findInstanceByKeyParts, instanceExists, instanceKeyParts, type InstanceKeyParts } from './instances-keys';

/** Construction instances of a dataset, by status. */
export function constructionStatusCounts(db: ReadableDB, datasetId: number): Record<InstanceStatus, number> {
  const rows = all<{ status: InstanceStatus; n: number }>(db, sql`SELECT status, count(*) AS n FROM instances WHERE dataset_id = ${datasetId} AND construction = 'condambigqa' GROUP BY status`);
  return { building: 0, ready: 0, removed: 0, ...Object.fromEntries(rows.map((r) => [r.status, r.n])) };
}
