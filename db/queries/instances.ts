import type { InstanceFilter, InstanceQuery, InstanceRow } from '../../shared/api';
import type { AmbiguityType, InstanceStage, InstanceStatus } from '../../shared/domain';
import { toFtsQuery } from '../../shared/search';
import { all, get, run, sql, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

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
                               removed_reason, hops, interpretation_count, extra)
        VALUES (${instance.baseQuestionId}, ${instance.datasetId}, ${instance.ambiguityType}, ${instance.status},
                ${instance.stage}, ${instance.removedStage}, ${instance.removedReason}, ${instance.hops},
                ${instance.interpretationCount}, ${JSON.stringify(instance.extra)})
        RETURNING id`,
  )!.id;
}

/** Rewrites the search row of an instance: its base question and every reading's text. */
export function indexInstanceText(db: WritableDB, instanceId: number, question: string, readings: string): void {
  run(db, sql`DELETE FROM instances_fts WHERE rowid = ${instanceId}`);
  run(db, sql`INSERT INTO instances_fts (rowid, question, readings) VALUES (${instanceId}, ${question}, ${readings})`);
}

interface InstanceDbRow {
  id: number;
  base_question_id: number;
  dataset_id: number;
  dataset: string;
  source_id: string;
  question: string;
  ambiguity_type: AmbiguityType;
  status: InstanceStatus;
  stage: InstanceStage;
  hops: number | null;
  interpretation_count: number;
  removed_reason: string | null;
  updated_at: string;
}

function rowToInstance(row: InstanceDbRow): InstanceRow {
  return {
    id: row.id,
    baseQuestionId: row.base_question_id,
    datasetId: row.dataset_id,
    dataset: row.dataset,
    sourceId: row.source_id,
    question: row.question,
    ambiguityType: row.ambiguity_type,
    status: row.status,
    stage: row.stage,
    hops: row.hops,
    interpretationCount: row.interpretation_count,
    removedReason: row.removed_reason,
    updatedAt: row.updated_at,
  };
}

type FacetName = 'datasets' | 'types' | 'statuses' | 'hops';

function hopsCondition(hops: readonly number[]): SqlFragment {
  const values = hops.filter((h) => h > 0);
  const parts: SqlFragment[] = [];
  if (values.length) parts.push(sql`i.hops IN ${sql.list(values)}`);
  if (hops.includes(0)) parts.push(sql`i.hops IS NULL`);
  return sql`(${sql.join(parts, sql` OR `)})`;
}

function conditions(filter: InstanceFilter, except?: FacetName): SqlFragment[] {
  const list: SqlFragment[] = [];
  if (filter.datasets.length && except !== 'datasets') list.push(sql`i.dataset_id IN ${sql.list(filter.datasets)}`);
  if (filter.types.length && except !== 'types') list.push(sql`i.ambiguity_type IN ${sql.list(filter.types)}`);
  if (filter.statuses.length && except !== 'statuses') list.push(sql`i.status IN ${sql.list(filter.statuses)}`);
  if (filter.hops.length && except !== 'hops') list.push(hopsCondition(filter.hops));
  const fts = toFtsQuery(filter.search, { prefixLast: true });
  if (fts) list.push(sql`i.id IN (SELECT rowid FROM instances_fts WHERE instances_fts MATCH ${fts})`);
  return list;
}

function where(list: SqlFragment[]): SqlFragment {
  return list.length ? sql`WHERE ${sql.join(list, sql` AND `)}` : sql.empty;
}

const ORDER: Record<Exclude<InstanceQuery['sort'], 'relevance'>, SqlFragment> = {
  id: sql`i.id`,
  question: sql`b.question`,
  ambiguity_type: sql`i.ambiguity_type`,
  status: sql`i.status`,
  hops: sql`i.hops`,
  interpretation_count: sql`i.interpretation_count`,
  dataset: sql`i.dataset_id`,
  updated_at: sql`i.updated_at`,
};

const SELECT_ROW = sql`SELECT i.id, i.base_question_id, i.dataset_id, d.name AS dataset, b.source_id, b.question,
                              i.ambiguity_type, i.status, i.stage, i.hops, i.interpretation_count, i.removed_reason,
                              i.updated_at
                       FROM instances i
                       JOIN base_questions b ON b.id = i.base_question_id
                       JOIN datasets d ON d.id = i.dataset_id`;

/** One page of the instance table: filtering, sorting and paging all happen in SQL. */
export function listInstancesQuery(query: InstanceQuery): SqlFragment {
  const direction = sql.keyword(query.direction === 'desc' ? 'DESC' : 'ASC');
  const list = conditions(query);
  const fts = toFtsQuery(query.search, { prefixLast: true });
  if (query.sort === 'relevance' && fts) {
    return sql`${SELECT_ROW}
               JOIN (SELECT rowid, rank FROM instances_fts WHERE instances_fts MATCH ${fts}) f ON f.rowid = i.id
               ${where(list)} ORDER BY f.rank ${direction}, i.id LIMIT ${query.limit} OFFSET ${query.offset}`;
  }
  const column = ORDER[query.sort === 'relevance' ? 'id' : query.sort];
  const tiebreak = query.sort === 'id' || query.sort === 'relevance' ? sql.empty : sql`, i.id ${direction}`;
  return sql`${SELECT_ROW} ${where(list)} ORDER BY ${column} ${direction}${tiebreak}
             LIMIT ${query.limit} OFFSET ${query.offset}`;
}

export function listInstances(db: ReadableDB, query: InstanceQuery): InstanceRow[] {
  return all<InstanceDbRow>(db, listInstancesQuery(query)).map(rowToInstance);
}

export function countInstances(db: ReadableDB, filter: InstanceFilter): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM instances i ${where(conditions(filter))}`)!.n;
}

/** Counts per value of each facet, each under every other active filter (as facet UIs expect). */
export function instanceFacetCounts(db: ReadableDB, filter: InstanceFilter) {
  const facet = <V>(column: SqlFragment, name: FacetName) =>
    all<{ value: V; count: number }>(
      db,
      sql`SELECT ${column} AS value, count(*) AS count FROM instances i ${where(conditions(filter, name))}
          GROUP BY ${column} ORDER BY ${column}`,
    );
  return {
    total: countInstances(db, filter),
    datasets: facet<number>(sql`i.dataset_id`, 'datasets'),
    types: facet<AmbiguityType>(sql`i.ambiguity_type`, 'types'),
    statuses: facet<InstanceStatus>(sql`i.status`, 'statuses'),
    hops: facet<number | null>(sql`i.hops`, 'hops'),
  };
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
