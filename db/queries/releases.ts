import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `releases` table (migration 0007) and the two that exist only as part of a release: its
 * frozen records, compressed in chunks (`release_chunks`, 0011), and its entries with their
 * split and place in a chunk (`release_instances`). Their only writer; a release is written in
 * one transaction, committed once its files are in place.
 */

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

/** A release's instances in key order, with split, content hash, position, storage and the instance they froze (null once deleted). */
export function releaseEntries(db: ReadableDB, releaseId: number): ({ key: string; split: string; hash: string; position: number; instanceId: number | null } & FrozenAt)[] {
  return all(
    db,
    sql`SELECT key, split, content_sha256 AS hash, position, instance_id AS instanceId, chunk, line FROM release_instances WHERE release_id = ${releaseId} ORDER BY key`,
  );
}

/** One chunk of frozen records, compressed. */
export function releaseChunk(db: ReadableDB, chunk: number): { records: number; content: Uint8Array } | undefined {
  return get(db, sql`SELECT records, content FROM release_chunks WHERE id = ${chunk}`);
}

// ---- what an evaluation reads of a release ----------------------------------------------------

export function releaseSplitEntries(db: ReadableDB, releaseId: number, split: string | null): { key: string; split: string; ambiguity_type: string; instance_id: number | null; chunk: number; line: number }[] {
  return all(
    db,
    sql`SELECT ri.key, ri.split, ri.ambiguity_type, ri.instance_id, ri.chunk, ri.line FROM release_instances ri
        WHERE ri.release_id = ${releaseId} AND (${split} IS NULL OR ri.split = ${split}) ORDER BY ri.position, ri.key`,
  );
}

export function findReleaseByName(db: ReadableDB, name: string, version: string | null): { id: number; name: string; version: string } | undefined {
  return version
    ? get(db, sql`SELECT id, name, version FROM releases WHERE name = ${name} AND version = ${version}`)
    : get(db, sql`SELECT id, name, version FROM releases WHERE name = ${name} ORDER BY created_at DESC, id DESC LIMIT 1`);
}
