import { callsById, getEvalItem, itemCallIds, itemSteps, type EvalItemRow } from '../../../db/queries/evaluation';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type EvalItemDetail, type EvalItemRowView } from '../../../shared/api';

/** One evaluation item as the API shows it: a table row, or the whole item with its steps and trace. */

const bool = (v: number | null) => (v === null ? null : v === 1);

export function rowView(r: EvalItemRow): EvalItemRowView {
  return {
    id: r.id,
    position: r.position,
    key: r.key,
    instanceId: r.instance_id,
    ambiguityType: r.ambiguity_type,
    question: r.question,
    status: r.status,
    longAnswer: r.long_answer,
    shortAnswers: JSON.parse(r.short_answers) as string[],
    strEm: r.str_em,
    disambigF1: r.disambig_f1,
    rougeL: r.rouge_l,
    judgeMean: r.judge_mean,
    collapsed: bool(r.collapsed),
    retrievalMiss: bool(r.retrieval_miss),
    latencyMs: r.latency_ms,
    calls: r.calls,
    costUsd: r.cost_usd,
    error: r.error,
  };
}

export function evalItemDetail(db: ReadableDB, id: number): EvalItemDetail {
  const r = getEvalItem(db, id);
  if (!r) throw new AppError('not_found', `No evaluation item ${id}`);
  const steps = itemSteps(db, id);
  const tagged = callsById(db, [...steps.flatMap((s) => (s.callId === null ? [] : [s.callId])), ...itemCallIds(db, `eval:${id}`)]);
  return {
    ...rowView(r),
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

