import { getEvalItem, rowToEvalItemRowView } from '../../../db/queries/eval-items';
import { itemSteps } from '../../../db/queries/eval-steps';
import { callsById, itemCallIds } from '../../../db/queries/llm-calls';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type EvalItemDetail } from '../../../shared/api';

/** One evaluation item as the API shows it: a table row, or the whole item with its steps and trace. */

export function evalItemDetail(db: ReadableDB, id: number): EvalItemDetail {
  const r = getEvalItem(db, id);
  if (!r) throw new AppError('not_found', `No evaluation item ${id}`);
  const steps = itemSteps(db, id);
  const tagged = callsById(db, [...steps.flatMap((s) => (s.callId === null ? [] : [s.callId])), ...itemCallIds(db, `eval:${id}`)]);
  return {
    ...rowToEvalItemRowView(r),
    runId: r.run_id,
    gold: JSON.parse(r.gold) as EvalItemDetail['gold'],
    citations: JSON.parse(r.citations) as string[],
    interpretations: JSON.parse(r.interpretations) as EvalItemDetail['interpretations'],
    retrieved: JSON.parse(r.retrieved) as EvalItemDetail['retrieved'],
    metrics: JSON.parse(r.metrics) as Record<string, unknown>,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    notes: JSON.parse(r.notes) as string[],
    steps,
    trace: tagged,
  };
}

