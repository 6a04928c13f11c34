import type { FailureTagView } from '../../shared/api';
import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `failure_tags` table (migration 0010): the taxonomy of failure tags, the shipped ones and any a researcher adds. Its only writer. */

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

/** A tag as the taxonomy lists it, with the rule that suggests it (if a rule does). */
export function rowToFailureTagView(t: FailureTagRow, rule: string | null): FailureTagView {
  return { key: t.key, label: t.label, description: t.description, builtIn: t.built_in === 1, rule, createdBy: t.created_by };
}
