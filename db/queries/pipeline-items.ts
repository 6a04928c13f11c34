import type { ItemTrace } from '../../shared/pipeline';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';
import { countsByColumn } from './instances-facets';
import { EVERYTHING } from './instances-filters';

/**
 * The `pipeline_items` table: where each item (`bq:<id>`, `inst:<id>`) stands in each pipeline
 * stage, done or failed with the reason and the raw output. Its only writer.
 */

export function markItem(db: WritableDB, stage: string, item: string, status: 'done' | 'failed', runId: number | null, reason: string | null = null, raw: string | null = null): void {
  run(
    db,
    sql`INSERT INTO pipeline_items (stage, item, status, reason, raw_output, run_id) VALUES (${stage}, ${item}, ${status}, ${reason}, ${raw}, ${runId})
        ON CONFLICT (stage, item) DO UPDATE SET status = excluded.status, reason = excluded.reason, raw_output = excluded.raw_output,
          run_id = excluded.run_id, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  );
}

/** Where some items stand in each stage, as a trace shows it. */
export function itemStages(db: ReadableDB, items: readonly string[]): ItemTrace['stages'] {
  if (items.length === 0) return [];
  return all<{ stage: string; status: string; reason: string | null; raw_output: string | null }>(
    db,
    sql`SELECT stage, status, reason, raw_output FROM pipeline_items WHERE item IN ${sql.list([...items])} ORDER BY updated_at`,
  ).map((s) => ({ stage: s.stage, status: s.status, reason: s.reason, rawOutput: s.raw_output }));
}

export function stageStatusCounts(db: ReadableDB): { stage: string; status: string; n: number }[] {
  return all(db, sql`SELECT stage, status, count(*) AS n FROM pipeline_items GROUP BY stage, status`);
}

/** Items that failed a stage, with the question they concern. */
export function failedItems(db: ReadableDB, stage: string | null, limit: number): { item: string; stage: string; reason: string | null; question: string }[] {
  const scope = stage ? sql`AND p.stage = ${stage}` : sql.empty;
  return all(
    db,
    sql`SELECT p.item, p.stage, p.reason,
               coalesce((SELECT b.question FROM base_questions b WHERE 'bq:' || b.id = p.item),
                        (SELECT b.question FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE 'inst:' || i.id = p.item), '') AS question
        FROM pipeline_items p WHERE p.status = 'failed' ${scope} ORDER BY p.updated_at DESC LIMIT ${limit}`,
  );
}

/** Which of these items failed a stage, with the reason. */
export function failedAmong(db: ReadableDB, stage: string, items: readonly string[]): { item: string; reason: string }[] {
  return all(
    db,
    sql`SELECT item, coalesce(reason, '') AS reason FROM pipeline_items
        WHERE stage = ${stage} AND status = 'failed' AND item IN (SELECT value FROM json_each(${JSON.stringify(items)})) ORDER BY item`,
  );
}

/** Instances kept (ready), per ambiguity type: made ready by this run's filter, or in these datasets (all when none). */
export function keptByType(db: ReadableDB, scope: { runId: number } | { datasetIds: readonly number[] }): Record<string, number> {
  if (!('runId' in scope)) {
    // The instance table's counts hold this sum: a few rows, not a scan.
    const ready = countsByColumn<string>(db, 'ambiguity_type', { ...EVERYTHING, datasets: [...scope.datasetIds], statuses: ['ready'] });
    return Object.fromEntries(ready.filter((r) => r.value !== 'unspecified').map((r) => [r.value, r.count]));
  }
  const rows = all<{ type: string; n: number }>(
    db,
    sql`SELECT i.ambiguity_type AS type, count(*) AS n FROM pipeline_items p JOIN instances i ON i.id = CAST(substr(p.item, 6) AS INTEGER)
        WHERE p.stage = 'filter' AND p.status = 'done' AND p.run_id = ${scope.runId} AND i.status = 'ready' GROUP BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.type, r.n]));
}

/** Merges a run did not send: instances it removed at shortening or a collision before any long answer (with merge after them). */
export function mergesSkipped(db: ReadableDB, runId: number): { type: string; n: number }[] {
  return all(
    db,
    sql`SELECT i.ambiguity_type AS type, count(*) AS n FROM pipeline_items p JOIN instances i ON i.id = CAST(substr(p.item, 6) AS INTEGER)
        WHERE p.stage IN ('shorten', 'collide') AND p.run_id = ${runId} AND i.status = 'removed' AND i.removed_stage = p.stage
          AND NOT EXISTS (SELECT 1 FROM long_answers l WHERE l.instance_id = i.id) GROUP BY 1`,
  );
}

/** How many items of a stage a run has finished (done or failed): a resumed run's items come after them. */
export function finishedInRun(db: ReadableDB, runId: number, stage: string): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM pipeline_items WHERE run_id = ${runId} AND stage = ${stage}`)!.n;
}
