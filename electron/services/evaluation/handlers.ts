import { countEvalItems, listEvalItems, rowToEvalItemRowView, type ItemFilter } from '../../../db/queries/eval-items';
import { getEvalRun } from '../../../db/queries/eval-runs';
import { AppError, type Handlers } from '../../../shared/api';
import { EVAL_METHODS, METHOD_INFO } from '../../../shared/eval/methods';
import type { Workbench } from '../workbench';
import { askFirstHandlers } from './ask-first-handlers';
import { evalItemDetail } from './items';
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

export function evaluationHandlers(workbench: Workbench): Pick<Handlers, EvaluationOperation | 'ask-first:start' | 'ask-first:get' | 'ask-first:list'> {
  const db = workbench.db;
  const start = (runId: number, label: string, endpoints?: ReturnType<typeof readEndpoints>) =>
    workbench.writerJob('evaluation', label, 'items', (writer, control) =>
      executeEvalRun(writer, runId, {
          signal: control.signal,
          keys: workbench.apiKeys,
          endpoints,
          onProgress: (p, session) =>
            control.progress(
              session.done,
              session.total,
              `evaluating run ${p.runId}: ${p.done}/${p.total} items, ${p.failed} failed · ${p.calls} calls, ${p.cachedCalls} cached · $${p.costUsd.toFixed(4)}`,
            ),
      }),
    );
  return {
    ...askFirstHandlers(workbench),
    'evaluation:start': (request) => {
      const runId = createEvalRun(db, request);
      const run = evalRunSummary(db, runId);
      return start(runId, `Evaluation ${run.id}: ${run.methodLabel} × ${run.model} on ${run.source}`);
    },
    'evaluation:resume': ({ id, config, configPath }) => {
      if (!getEvalRun(db, id)) throw new AppError('not_found', `No evaluation run ${id}`);
      const endpoints = config !== undefined || configPath !== undefined ? readEndpoints(config, configPath) : undefined;
      return start(id, `Evaluation ${id} (resumed)`, endpoints);
    },
    'evaluation:list': ({ limit }) => evalRunSummaries(db, limit),
    'evaluation:get': ({ id }) => evalRunSummary(db, id),
    'evaluation:items': ({ run, sort, direction, offset, limit, ...filter }) => {
      if (!getEvalRun(db, run)) throw new AppError('not_found', `No evaluation run ${run}`);
      const f: ItemFilter = filter;
      return { total: countEvalItems(db, run, f), rows: listEvalItems(db, run, f, sort, direction, limit, offset).map(rowToEvalItemRowView) };
    },
    'evaluation:item': ({ id }) => evalItemDetail(db, id),
    'evaluation:compare': ({ a, b, threshold, resamples, errors }) => compareEvalRuns(db, a, b, threshold, resamples, errors),
    'evaluation:table': ({ runs }) => evalTables(db, runs),
    'evaluation:methods': () => EVAL_METHODS.map((m) => METHOD_INFO[m]),
    'evaluation:prompts': () => listEvalPrompts(db),
    'evaluation:prompt-history': ({ name }) => evalPromptHistory(db, name),
    'evaluation:prompt-save': ({ name, system, user }) => saveEvalPrompt(db, name, system, user),
  };
}
