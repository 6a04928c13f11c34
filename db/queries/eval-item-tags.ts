import type { ItemTagView } from '../../shared/api';
import { all, allRaw, run, sql, transaction, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `eval_item_tags` table (migration 0010): failure tags on evaluation items, with who set them
 * (a rule or a person) and their history (a removed tag keeps its row). Its only writer.
 */

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

/** The keys of the tags each item carries now, comma-separated (items without one are absent). */
export function currentTagKeys(db: ReadableDB, itemIds: readonly number[]): Map<number, string> {
  return new Map(
    allRaw<[number, string]>(
      db,
      sql`SELECT t.item_id, group_concat(f.key, ',') FROM eval_item_tags t JOIN failure_tags f ON f.id = t.tag_id
          WHERE t.item_id IN ${sql.list([...itemIds])} AND t.removed_at IS NULL GROUP BY t.item_id`,
    ),
  );
}

export function rowToItemTagView(t: ItemTagRow): ItemTagView {
  return { key: t.key, label: t.label, source: t.source, who: t.who, note: t.note, createdAt: t.created_at, removedBy: t.removed_by, removedAt: t.removed_at };
}
