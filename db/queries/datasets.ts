import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export interface DatasetRow {
  id: number;
  name: string;
  source_format: string;
  description: string;
  licence: string;
  attribution: string;
  url: string;
  created_at: string;
}

export interface DatasetSummary extends DatasetRow {
  base_questions: number;
  instances: number;
}

export type NewDataset = Omit<DatasetRow, 'id' | 'created_at'>;

export function findDatasetByName(db: ReadableDB, name: string): DatasetRow | undefined {
  return get<DatasetRow>(db, sql`SELECT * FROM datasets WHERE name = ${name}`);
}

/** Every dataset's name by its id. */
export function datasetNames(db: ReadableDB): Map<number, string> {
  return new Map(all<{ id: number; name: string }>(db, sql`SELECT id, name FROM datasets`).map((d) => [d.id, d.name]));
}

export function insertDataset(db: WritableDB, dataset: NewDataset): number {
  const result = run(
    db,
    sql`INSERT INTO datasets (name, source_format, description, licence, attribution, url)
        VALUES (${dataset.name}, ${dataset.source_format}, ${dataset.description}, ${dataset.licence},
                ${dataset.attribution}, ${dataset.url})`,
  );
  return Number(result.lastInsertRowid);
}

export function listDatasets(db: ReadableDB): DatasetSummary[] {
  return all<DatasetSummary>(
    db,
    sql`SELECT d.*,
          (SELECT count(*) FROM base_questions b WHERE b.dataset_id = d.id) AS base_questions,
          (SELECT count(*) FROM instances i WHERE i.dataset_id = d.id) AS instances
        FROM datasets d ORDER BY d.name`,
  );
}

/** The import formats of the datasets these instances come from, each once (what a source of instances is made of). */
export function formatsOfInstances(db: ReadableDB, instanceIds: readonly number[]): string[] {
  return all<{ source_format: string }>(
    db,
    sql`SELECT DISTINCT d.source_format FROM instances i JOIN datasets d ON d.id = i.dataset_id
        WHERE i.id IN (SELECT value FROM json_each(${JSON.stringify(instanceIds)})) ORDER BY d.source_format`,
  ).map((r) => r.source_format);
}
