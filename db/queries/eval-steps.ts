import type { TraceStep } from '../../shared/eval/types';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `eval_steps` table (migration 0008): an evaluation item's trace, each step pointing at the call behind it. Its only writer. */

/** Replaces an item's trace (in the caller's transaction, which also writes the item). */
export function replaceItemSteps(db: WritableDB, itemId: number, steps: readonly TraceStep[]): void {
  run(db, sql`DELETE FROM eval_steps WHERE item_id = ${itemId}`);
  for (const s of steps) {
    run(
      db,
      sql`INSERT INTO eval_steps (item_id, position, kind, label, content, call_id, cached, latency_ms)
          VALUES (${itemId}, ${s.position}, ${s.kind}, ${s.label}, ${JSON.stringify(s.content ?? null)}, ${s.callId}, ${s.cached}, ${s.latencyMs})`,
    );
  }
}

interface StepRow {
  position: number;
  kind: TraceStep['kind'];
  label: string;
  content: string;
  call_id: number | null;
  cached: number;
  latency_ms: number | null;
}

function rowToTraceStep(s: StepRow): TraceStep {
  return { position: s.position, kind: s.kind, label: s.label, content: JSON.parse(s.content) as unknown, callId: s.call_id, cached: s.cached === 1, latencyMs: s.latency_ms };
}

export function itemSteps(db: ReadableDB, itemId: number): TraceStep[] {
  return all<StepRow>(db, sql`SELECT position, kind, label, content, call_id, cached, latency_ms FROM eval_steps WHERE item_id = ${itemId} ORDER BY position`).map(rowToTraceStep);
}
