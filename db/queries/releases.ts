import type { AmbiguityType, InstanceStatus } from '../../shared/domain';
import { all, get, iterateRaw, run, sql, type ReadableDB, type SqlFragment, type WritableDB } from '../sql';

// ---- the selection ----------------------------------------------------------------------------------

export interface ReleaseFilter {
  datasetIds: readonly number[];
  types: readonly AmbiguityType[];
  statuses: readonly InstanceStatus[];
}

/**
 * One selected instance, as an array (a million of them are read to plan a release): id, dataset
 * name, source id, ambiguity type, status, hops, interpretations, question, and the base
 * question's `extra.split` when its source had one.
 */
export type CandidateRow = [
  id: number,
  dataset: string,
  sourceId: string,
  ambiguityType: AmbiguityType,
  status: InstanceStatus,
  hops: number | null,
  interpretations: number,
  question: string,
  sourceSplit: string | null,
];

function candidateWhere(filter: ReleaseFilter) {
  const conditions = [sql`1 = 1`];
  if (filter.datasetIds.length) conditions.push(sql`i.dataset_id IN ${sql.list([...filter.datasetIds])}`);
  if (filter.types.length) conditions.push(sql`i.ambiguity_type IN ${sql.list([...filter.types])}`);
  if (filter.statuses.length) conditions.push(sql`i.status IN ${sql.list([...filter.statuses])}`);
  return sql.join(conditions, sql` AND `);
}

/**
 * The instances a release selects, in the order of their stable key (dataset name, source id,
 * ambiguity type: binary collation, so the order is the same on every machine). Joined from the
 * datasets down (CROSS JOIN fixes that order in SQLite, with or without statistics), so that the
 * unique indexes on (dataset, source id) and (base question, type) give the key order without
 * sorting a million rows.
 */
export function releaseCandidates(db: ReadableDB, filter: ReleaseFilter): Generator<CandidateRow> {
  return iterateRaw<CandidateRow>(db, releaseCandidatesQuery(filter));
}

export function releaseCandidatesQuery(filter: ReleaseFilter): SqlFragment {
  return sql`SELECT i.id, d.name AS dataset, b.source_id, i.ambiguity_type, i.status, b.hops,
               i.interpretation_count AS interpretations, b.question,
               CASE WHEN json_type(b.extra, '$.split') = 'text' THEN json_extract(b.extra, '$.split') END AS source_split
        FROM datasets d
        CROSS JOIN base_questions b ON b.dataset_id = d.id
        CROSS JOIN instances i ON i.base_question_id = b.id AND i.dataset_id = d.id
        WHERE ${candidateWhere(filter)}
        ORDER BY d.name, b.source_id, i.ambiguity_type`;
}

/** The datasets (name, licence, attribution, url) of the selected instances. */
export function releaseSources(db: ReadableDB, filter: ReleaseFilter): { name: string; licence: string; attribution: string; url: string }[] {
  return all(
    db,
    sql`SELECT d.name, d.licence, d.attribution, d.url FROM datasets d
        WHERE EXISTS (SELECT 1 FROM instances i WHERE i.dataset_id = d.id AND ${candidateWhere(filter)})
        ORDER BY d.name`,
  );
}

/** The datasets of a campaign's instances. */
export function campaignDatasetNames(db: ReadableDB, campaignId: number): string[] {
  return all<{ name: string }>(
    db,
    sql`SELECT DISTINCT d.name FROM campaign_items c JOIN instances i ON i.id = c.instance_id JOIN datasets d ON d.id = i.dataset_id
        WHERE c.campaign_id = ${campaignId} ORDER BY d.name`,
  ).map((r) => r.name);
}

/** LLM calls made for the selected datasets' items, per stage and model. */
export function releaseCalls(db: ReadableDB, datasetIds: readonly number[]): { stage: string; model: string; calls: number; cost: number }[] {
  const bq = datasetIds.length ? sql`WHERE dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(
    db,
    sql`SELECT coalesce(c.stage, '') AS stage, c.model, count(*) AS calls, coalesce(sum(c.cost_usd), 0) AS cost
        FROM llm_calls c
        WHERE c.item IN (SELECT 'bq:' || id FROM base_questions ${bq} UNION ALL SELECT 'inst:' || id FROM instances ${bq})
        GROUP BY 1, 2 ORDER BY 1, 2`,
  );
}

/** Prompt versions named by the provenance of those calls, per stage. */
export function releasePromptVersions(db: ReadableDB, datasetIds: readonly number[]): { stage: string; prompt_version: string }[] {
  const bq = datasetIds.length ? sql`WHERE dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(
    db,
    sql`SELECT DISTINCT coalesce(c.stage, '') AS stage, p.prompt_version
        FROM provenance p JOIN llm_calls c ON c.id = p.call_id
        WHERE p.prompt_version IS NOT NULL
          AND c.item IN (SELECT 'bq:' || id FROM base_questions ${bq} UNION ALL SELECT 'inst:' || id FROM instances ${bq})
        ORDER BY 1, 2`,
  );
}

// ---- writing a release (one transaction, committed only once the files are in place) --------------

export interface NewRelease {
  name: string;
  version: string;
  selection: unknown;
  split: unknown;
  thresholds: unknown;
  gate: unknown;
  licence: string;
  forcedReason: string | null;
  counts: Record<string, number>;
  instances: number;
  card: string;
  appVersion: string;
  schemaVersion: number;
  dir: string;
}

export function insertRelease(db: WritableDB, r: NewRelease): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO releases (name, version, selection, split, thresholds, gate, licence, forced_reason, counts, instances, files, card, metadata, app_version, schema_version, dir)
        VALUES (${r.name}, ${r.version}, ${JSON.stringify(r.selection)}, ${JSON.stringify(r.split)}, ${JSON.stringify(r.thresholds)}, ${JSON.stringify(r.gate)},
                ${r.licence}, ${r.forcedReason}, ${JSON.stringify(r.counts)}, ${r.instances}, '[]', ${r.card}, '{}', ${r.appVersion}, ${r.schemaVersion}, ${r.dir})
        RETURNING id`,
  )!.id;
}

export function finishRelease(db: WritableDB, id: number, files: unknown, metadata: unknown, card: string): void {
  run(db, sql`UPDATE releases SET files = ${JSON.stringify(files)}, metadata = ${JSON.stringify(metadata)}, card = ${card} WHERE id = ${id}`);
}

/** One chunk of frozen records (see db/frozen-records.ts); returns its id. */
export function insertReleaseChunk(db: WritableDB, releaseId: number, records: number, content: Uint8Array): number {
  return Number(run(db, sql`INSERT INTO release_chunks (release_id, records, content) VALUES (${releaseId}, ${records}, ${content})`).lastInsertRowid);
}

export interface ReleaseInstanceRow {
  releaseId: number;
  key: string;
  split: string;
  position: number;
  ambiguityType: string;
  instanceId: number;
  sha256: string;
  chunk: number;
  line: number;
}

/** Several instance rows in one statement (a release inserts a million of them). */
export function insertReleaseInstances(db: WritableDB, rows: readonly ReleaseInstanceRow[]): void {
  if (!rows.length) return;
  const values = rows.map((r) => sql`(${r.releaseId}, ${r.key}, ${r.split}, ${r.position}, ${r.ambiguityType}, ${r.instanceId}, ${r.sha256}, ${r.chunk}, ${r.line})`);
  run(db, sql`INSERT INTO release_instances (release_id, key, split, position, ambiguity_type, instance_id, content_sha256, chunk, line) VALUES ${sql.join(values)}`);
}

// ---- reading releases ------------------------------------------------------------------------------

export interface ReleaseRow {
  id: number;
  name: string;
  version: string;
  selection: string;
  split: string;
  thresholds: string;
  gate: string;
  licence: string;
  forced_reason: string | null;
  counts: string;
  instances: number;
  files: string;
  card: string;
  metadata: string;
  app_version: string;
  schema_version: number;
  dir: string;
  created_at: string;
}

export function findRelease(db: ReadableDB, name: string, version: string): { id: number } | undefined {
  return get(db, sql`SELECT id FROM releases WHERE name = ${name} AND version = ${version}`);
}

export function getRelease(db: ReadableDB, id: number): ReleaseRow | undefined {
  return get<ReleaseRow>(db, sql`SELECT * FROM releases WHERE id = ${id}`);
}

export function listReleases(db: ReadableDB): Omit<ReleaseRow, 'card' | 'metadata' | 'files'>[] {
  return all(
    db,
    sql`SELECT id, name, version, selection, split, thresholds, gate, licence, forced_reason, counts, instances, app_version, schema_version, dir, created_at
        FROM releases ORDER BY name, created_at DESC, id DESC`,
  );
}

/** Where a frozen record is stored: its chunk and line. */
export interface FrozenAt {
  chunk: number;
  line: number;
}

/** A release's instances in key order, with split, content hash, position and storage. */
export function releaseEntries(db: ReadableDB, releaseId: number): ({ key: string; split: string; hash: string; position: number } & FrozenAt)[] {
  return all(db, sql`SELECT key, split, content_sha256 AS hash, position, chunk, line FROM release_instances WHERE release_id = ${releaseId} ORDER BY key`);
}

/** One chunk of frozen records, compressed. */
export function releaseChunk(db: ReadableDB, chunk: number): { records: number; content: Uint8Array } | undefined {
  return get(db, sql`SELECT records, content FROM release_chunks WHERE id = ${chunk}`);
}
