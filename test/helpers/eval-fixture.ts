import { insertEvalItems, saveItemDone, saveItemFailed, type ItemResult } from '../../db/queries/eval-items';
import { insertEvalRun, refreshEvalRunCounts, saveEvalRunSummary, setEvalRunStatus } from '../../db/queries/eval-runs';
import { recordCall } from '../../db/queries/llm-calls';
import type { WritableDB } from '../../db/sql';
import type { EvalGold, GoldInterpretation, RetrievedPassage, TraceStep } from '../../shared/eval/types';

/**
 * Evaluation data written straight through the evaluation's query functions, so failure tests
 * do not depend on the runner: a run, its items (done or failed) with metrics, and traces with
 * real call-log rows behind their steps.
 */

export interface FixtureItem {
  key: string;
  instanceId: number | null;
  type?: string;
  question?: string;
  interpretations: { question: string; answers: string[]; evidence?: string[] }[];
  /** Done items: the long answer; failed items: leave out and give `error`. */
  answer?: string;
  error?: string;
  retrieved?: string[];
  strEm?: number | null;
  rougeL?: number | null;
  disambigF1?: number | null;
  judge?: { relevance: number; faithfulness: number; informativeness: number; correctness: number } | null;
  latencyMs?: number;
  rationale?: string;
  /** Steps in the trace (each a call in the log). */
  steps?: number;
}

export function passage(key: string, rank = 1): RetrievedPassage {
  return { id: rank, key, title: key.split('/').at(-1) ?? key, text: `Text of ${key}.`, rank, score: 1 / rank };
}

function steps(db: WritableDB, runId: number, itemId: number, count: number, question: string): TraceStep[] {
  const kinds: TraceStep['kind'][] = ['plan', 'thought', 'action', 'observation'];
  return Array.from({ length: count }, (_, position) => {
    const kind = kinds[position % kinds.length]!;
    const callId = recordCall(db, {
      hash: `fixture:${runId}:${itemId}:${position}`,
      runId,
      endpoint: 'fake',
      model: 'fake-model',
      stage: `eval.eval_${kind}`,
      item: `eval:${itemId}`,
      request: { messages: [{ role: 'system', content: `You are step ${position + 1}.` }, { role: 'user', content: `Question: ${question}\n${'context '.repeat(40)}` }] },
      response: JSON.stringify({ step: position + 1, kind, text: `${kind} number ${position + 1}` }),
      status: 'ok',
      error: null,
      promptTokens: 120,
      completionTokens: 30,
      latencyMs: 40 + position,
      costUsd: 0.0001,
    });
    return { position, kind, label: `${kind} ${position + 1}`, content: { text: `${kind} ${position + 1} of the trace` }, callId, cached: false, latencyMs: 40 + position };
  });
}

export function seedEvalRun(db: WritableDB, options: { method?: string; model?: string; status?: 'done' | 'running'; items: FixtureItem[] }): { runId: number; itemIds: Map<string, number> } {
  const runId = insertEvalRun(db, {
    method: options.method ?? 'naive_rag',
    model: options.model ?? 'fake-model',
    endpoint: { name: 'fake' },
    sourceKind: 'dataset',
    source: 'fixture',
    releaseId: null,
    split: null,
    datasetId: null,
    corpus: 'fixture',
    retrievalMode: 'bm25',
    k: 5,
    options: {},
    promptVersions: {},
  });
  insertEvalItems(
    db,
    runId,
    options.items.map((item, position) => {
      const interpretations: GoldInterpretation[] = item.interpretations.map((i) => ({ question: i.question, condition: null, answers: i.answers, evidence: i.evidence ?? [], cited: [] }));
      const gold: EvalGold = { question: item.question ?? `Question ${item.key}?`, ambiguityType: item.type ?? 'semantic', interpretations, longAnswers: [], fragments: [] };
      return { position, key: item.key, instanceId: item.instanceId, ambiguityType: item.type ?? 'semantic', question: gold.question, gold };
    }),
  );
  const itemIds = new Map(
    (db.prepare('SELECT id, key FROM eval_items WHERE run_id = ?').all(runId) as { id: number; key: string }[]).map((r) => [r.key, r.id]),
  );
  for (const item of options.items) {
    const id = itemIds.get(item.key)!;
    const trace = steps(db, runId, id, item.steps ?? 2, item.question ?? item.key);
    const usage = { latencyMs: item.latencyMs ?? 100, calls: trace.length, promptTokens: 120 * trace.length, completionTokens: 30 * trace.length, costUsd: 0.0001 * trace.length, notes: [] };
    if (item.answer === undefined) {
      saveItemFailed(db, id, item.error ?? 'failed', trace, usage);
      continue;
    }
    const withAnswers = item.interpretations.filter((i) => i.answers.length);
    const covered = withAnswers.filter((i) => i.answers.some((a) => item.answer!.toLowerCase().includes(a.toLowerCase()))).length;
    const evidence = new Set(item.interpretations.flatMap((i) => i.evidence ?? []));
    const retrieved = (item.retrieved ?? []).map((k, n) => passage(k, n + 1));
    const metrics: Record<string, unknown> = { str_em: item.strEm ?? null, rouge_l: item.rougeL ?? null, disambig_f1: item.disambigF1 ?? null, interpretations_covered: covered };
    let judgeMean: number | null = null;
    if (item.judge) {
      judgeMean = (item.judge.relevance + item.judge.faithfulness + item.judge.informativeness + item.judge.correctness) / 4;
      Object.assign(metrics, {
        judge_relevance: item.judge.relevance,
        judge_faithfulness: item.judge.faithfulness,
        judge_informativeness: item.judge.informativeness,
        judge_correctness: item.judge.correctness,
        judge_mean: judgeMean,
        judge_rationale: item.rationale ?? `Rationale for ${item.key}.`,
      });
    }
    const result: ItemResult = {
      longAnswer: item.answer,
      shortAnswers: [],
      citations: [],
      interpretations: [],
      retrieved,
      metrics,
      strEm: item.strEm ?? null,
      disambigF1: item.disambigF1 ?? null,
      rougeL: item.rougeL ?? null,
      judgeMean,
      collapsed: withAnswers.length >= 2 ? covered <= 1 : null,
      retrievalMiss: evidence.size && item.retrieved ? ![...evidence].some((k) => item.retrieved!.includes(k)) : null,
      latencyMs: item.latencyMs ?? 100,
      calls: trace.length,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      costUsd: usage.costUsd,
      notes: [],
    };
    saveItemDone(db, id, result, trace);
  }
  refreshEvalRunCounts(db, runId);
  // Scored under today's conventions (a run without the version is labelled as scored before them).
  saveEvalRunSummary(db, runId, { metricsVersion: 2 });
  if ((options.status ?? 'done') === 'done') setEvalRunStatus(db, runId, 'done', null);
  return { runId, itemIds };
}
