import { get, all, sql, type ReadableDB } from '../sql';

/**
 * Instances found by their stable key (dataset / base question source id / ambiguity type), for
 * sync with the shared store. Reads only; instances.ts is the table's writer.
 */

export function instanceExists(db: ReadableDB, id: number): boolean {
  return get(db, sql`SELECT 1 AS x FROM instances WHERE id = ${id}`) !== undefined;
}

/** The parts of an instance's stable key (dataset / base question source id / ambiguity type). */
export interface InstanceKeyParts {
  id: number;
  dataset: string;
  source_id: string;
  ambiguity_type: string;
}

export function instanceKeyParts(db: ReadableDB, ids: readonly number[]): InstanceKeyParts[] {
  if (ids.length === 0) return [];
  return all<InstanceKeyParts>(
    db,
    sql`SELECT i.id, d.name AS dataset, b.source_id, i.ambiguity_type
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id JOIN datasets d ON d.id = b.dataset_id
        WHERE i.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  );
}

export function findInstanceByKeyParts(db: ReadableDB, dataset: string, sourceId: string, type: string): number | undefined {
  return get<{ id: number }>(
    db,
    sql`SELECT i.id FROM datasets d JOIN base_questions b ON b.dataset_id = d.id JOIN instances i ON i.base_question_id = b.id
        WHERE d.name = ${dataset} AND b.source_id = ${sourceId} AND i.ambiguity_type = ${type}`,
  )?.id;
}
