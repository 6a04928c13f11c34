import { evalItemForInstance } from '../../../db/queries/eval-items';
import type { ReadableDB } from '../../../db/sql';
import type { JudgingItem } from '../../../shared/api';

/** In a judge validation campaign (its selection names an evaluation run), the run's long answer for an instance. */
export function judgedEvalAnswer(db: ReadableDB, selectionJson: string, instanceId: number): JudgingItem['evalAnswer'] | null {
  const selection = JSON.parse(selectionJson) as { evalRun?: unknown };
  if (typeof selection.evalRun !== 'number') return null;
  const item = evalItemForInstance(db, selection.evalRun, instanceId);
  if (!item) return null;
  return { runId: selection.evalRun, itemId: item.id, longAnswer: item.long_answer };
}
