import { callsById, countEvalItems, itemCallIds, getEvalItem, getEvalRun, itemSteps, listEvalItems, type EvalItemRow, type ItemFilter } from '../../../db/queries/evaluation';
import type { WritableDB } from '../../../db/sql';
import { AppError, type EvalItemDetail, type EvalItemRowView, type Handlers } from '../../../shared/api';
import { EVAL_METHODS, METHOD_INFO } from '../../../shared/eval/methods';
import type { JobRunner } from '../jobs';
import { evalPromptHistory, listEvalPrompts, saveEvalPrompt } from './prompts';
import { compareEvalRuns, createEvalRun, evalRunSummaries, evalRunSummary, evalTables, executeEvalRun, readEndpoints } from './run';

type EvaluationOperation =
  | 'evaluation:start'
  | 'evaluation:resume'
  | 'evaluation:list'
  | 'evaluation:get'
  | 'evaluation:items'
  | 'evaluation:item'
  | 'evaluation:compare'
  | 'evaluation:table'
  | 'evaluation:methods'
  | 'evaluation:prompts'
  | 'evaluation:prompt-history'
  | 'evaluation:prompt-save';

const bool = (v: number | null) => (v === null ? null : v === 1);

function rowView(r: EvalItemRow): EvalItemRowView {
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

export function evalItemDetail(db: WritableDB, id: number): EvalItemDetail {
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

export function evaluationHandlers(db: WritableDB, jobs: JobRunner, writer: () => { db: WritableDB; release(): void }, keys: () => Record<string, string>): Pick<Handlers, EvaluationOperation> {
  const start = (runId: number, label: string, endpoints?: ReturnType<typeof readEndpoints>) =>
    jobs.start('evaluation', label, 'items', async (control) => {
      const connection = writer();
      try {
        return await executeEvalRun(connection.db, runId, {
          signal: control.signal,
          keys: keys(),
          endpoints,
          onProgress: (p, session) =>
            control.progress(
              session.done,
              session.total,
              `evaluating run ${p.runId}: ${p.done}/${p.total} items, ${p.failed} failed · ${p.calls} calls, ${p.cachedCalls} cached · $${p.costUsd.toFixed(4)}`,
            ),
        });
      } finally {
        connection.release();
      }
    });
  return {
    'evaluation:start': (request) => {
      const runId = createEvalRun(db, request);
      const run = evalRunSummary(db, runId);
      return { jobId: start(runId, `Evaluation ${run.id}: ${run.methodLabel} × ${run.model} on ${run.source}`).id };
    },
    'evaluation:resume': ({ id, config, configPath }) => {
      if (!getEvalRun(db, id)) throw new AppError('not_found', `No evaluation run ${id}`);
      const endpoints = config !== undefined || configPath !== undefined ? readEndpoints(config, configPath) : undefined;
      return { jobId: start(id, `Evaluation ${id} (resumed)`, endpoints).id };
    },
    'evaluation:list': ({ limit }) => evalRunSummaries(db, limit),
    'evaluation:get': ({ id }) => evalRunSummary(db, id),
    'evaluation:items': ({ run, sort, direction, offset, limit, ...filter }) => {
      if (!getEvalRun(db, run)) throw new AppError('not_found', `No evaluation run ${run}`);
      const f: ItemFilter = filter;
      return { total: countEvalItems(db, run, f), rows: listEvalItems(db, run, f, sort, direction, limit, offset).map(rowView) };
    },
    'evaluation:item': ({ id }) => evalItemDetail(db, id),
    'evaluation:compare': ({ a, b, threshold, resamples }) => compareEvalRuns(db, a, b, threshold, resamples),
    'evaluation:table': ({ runs }) => evalTables(db, runs),
    'evaluation:methods': () => EVAL_METHODS.map((m) => METHOD_INFO[m]),
    'evaluation:prompts': () => listEvalPrompts(db),
    'evaluation:prompt-history': ({ name }) => evalPromptHistory(db, name),
    'evaluation:prompt-save': ({ name, system, user }) => saveEvalPrompt(db, name, system, user),
  };
}
