import type { InstanceFlagView } from '../../shared/api';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `instance_flags` table (migration 0010): review flags on instances, raised from a failed item. Its only writer. */

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

export function rowToInstanceFlagView(f: InstanceFlagRow): InstanceFlagView {
  return { id: f.id, instanceId: f.instance_id, reason: f.reason, who: f.who, evalItemId: f.eval_item_id, createdAt: f.created_at, resolvedBy: f.resolved_by, resolvedAt: f.resolved_at };
}
